//! The floors of a kernel: how fast the GPU's special-function units (the MUFU instructions
//! behind `__sinf`, `__cosf`, `__expf`...) or its FP32 units (add, multiply, fused
//! multiply-add) could run its work, if they did nothing else. The rates are the CUDA
//! programming guide's throughput table entries: 16 special-function results per clock per SM
//! on compute capability 8.0 (A100) and 9.0 (H100, H200); 64 FP32 results on 8.0 and 128 on
//! 9.0. Other GPUs print no floor. The SM count and the clock come from the device.

use cudarc::driver::{CudaContext, sys::CUdevice_attribute};

use crate::gpu::OrExit;

// ANCHOR: floor
/// Special-function results per clock per SM, from the CUDA programming guide's table.
pub fn sfu_per_clock(compute_capability: (i32, i32)) -> Option<u32> {
    match compute_capability {
        (8, 0) | (9, 0) => Some(16),
        _ => None,
    }
}

/// FP32 add, multiply and fused multiply-add results per clock per SM, from the same table.
pub fn fp32_per_clock(compute_capability: (i32, i32)) -> Option<u32> {
    match compute_capability {
        (8, 0) => Some(64),
        (9, 0) => Some(128),
        _ => None,
    }
}

/// The floor in milliseconds for `ops_per_pair` special-function results per pair on this GPU, and a line
/// that shows the arithmetic; `None` when the guide's table has no entry for the GPU.
pub fn sfu_floor(ctx: &CudaContext, ops_per_pair: f64, pairs: f64) -> Option<(f64, String)> {
    floor(ctx, "special-function", sfu_per_clock, ops_per_pair, pairs)
}

/// The same for `ops_per_pair` FP32 instructions per pair.
pub fn fp32_floor(ctx: &CudaContext, ops_per_pair: f64, pairs: f64) -> Option<(f64, String)> {
    floor(ctx, "FP32", fp32_per_clock, ops_per_pair, pairs)
}

fn floor(
    ctx: &CudaContext,
    units: &str,
    rate: fn((i32, i32)) -> Option<u32>,
    ops_per_pair: f64,
    pairs: f64,
) -> Option<(f64, String)> {
    let cc = ctx
        .compute_capability()
        .or_exit("read the compute capability");
    let per_clock = rate(cc)?;
    let attr = |a| ctx.attribute(a).or_exit("read a device attribute");
    let sms = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    let khz = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    let per_ms = f64::from(sms) * f64::from(per_clock) * f64::from(khz);
    let ms = ops_per_pair * pairs / per_ms;
    let line = format!(
        "{units} floor: {ops_per_pair} x {pairs:.3e} pairs / ({sms} SMs x \
         {per_clock}/clock x {} MHz) = {} (this machine)",
        khz / 1000,
        crate::timing::fmt_ms(ms)
    );
    Some((ms, line))
}
// ANCHOR_END: floor

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_table() {
        assert_eq!(sfu_per_clock((9, 0)), Some(16));
        assert_eq!(sfu_per_clock((8, 0)), Some(16));
        assert_eq!(sfu_per_clock((10, 0)), None);
        assert_eq!(fp32_per_clock((9, 0)), Some(128));
        assert_eq!(fp32_per_clock((8, 0)), Some(64));
    }
}
