//! The special-function floor of a kernel: how fast the GPU's special-function units (the
//! MUFU instructions behind `__sinf`, `__cosf`, `__expf`...) could run its work, if they did
//! nothing else. The rate is the CUDA programming guide's throughput table entry for those
//! functions: 16 results per clock per SM on compute capability 8.0 (A100) and 9.0 (H100,
//! H200); other GPUs print no floor. The SM count and the clock come from the device.

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

/// The floor in milliseconds for `ops_per_pair` special-function results per pair on this GPU, and a line
/// that shows the arithmetic; `None` when the guide's table has no entry for the GPU.
pub fn sfu_floor(ctx: &CudaContext, ops_per_pair: u32, pairs: f64) -> Option<(f64, String)> {
    let cc = ctx
        .compute_capability()
        .or_exit("read the compute capability");
    let per_clock = sfu_per_clock(cc)?;
    let attr = |a| ctx.attribute(a).or_exit("read a device attribute");
    let sms = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    let khz = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    let per_ms = f64::from(sms) * f64::from(per_clock) * f64::from(khz);
    let ms = f64::from(ops_per_pair) * pairs / per_ms;
    let line = format!(
        "special-function floor: {ops_per_pair} x {pairs:.3e} pairs / ({sms} SMs x \
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
    }
}
