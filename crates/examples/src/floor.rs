//! The floors of a kernel: how fast the GPU's special-function units (the MUFU instructions
//! behind `__sinf`, `__cosf`, `__expf`...) or its FP32 units (add, multiply, fused
//! multiply-add) could run its work, if they did nothing else. The SM count and the clock come
//! from the device; the rates per clock per SM come from NVIDIA's table (see
//! [`sfu_per_clock`]), which covers compute capability 7.5 to 12.1. On a GPU the table does not
//! list, each floor line keeps its label and says `no floor known for this GPU (compute
//! capability X.Y)`, so that the output has as many lines as on a known GPU.
//!
//! A measured time below its floor means that the count of instructions or the floor is wrong,
//! so [`floor_verdict`] turns the comparison into a verdict line that the output check reads:
//! `every time at or above 0.95 x its floor: yes`.
//!
//! `COURSE_COMPUTE_CAPABILITY=MAJOR.MINOR` makes the floors pretend the GPU has that compute
//! capability (for the lookup in the table only; the SM count and the clock stay the device's):
//! `COURSE_COMPUTE_CAPABILITY=99.0` shows what a GPU the table does not know prints. A value
//! that is not two whole numbers joined by a dot stops the program with one sentence and
//! [`EXIT_BAD_ARGUMENT`].

use cudarc::driver::{CudaContext, sys::CUdevice_attribute};

use crate::compare::verdict;
use crate::exit::{EXIT_BAD_ARGUMENT, fail};
use crate::gpu::OrExit;

/// The variable that pretends another compute capability for the floors.
pub use protocol::COMPUTE_CAPABILITY_VAR as PRETEND_VAR;

/// A time may be this share of its floor and still pass: the clock the device reports is its
/// nominal clock, and a time a few per cent below the floor is measurement, not a wrong count.
pub const AT_LEAST: f64 = 0.95;

/// What a floor line says in place of the arithmetic when the table has no entry.
pub use protocol::NO_FLOOR;

// ANCHOR: floor
// Results per clock cycle per multiprocessor, from NVIDIA's CUDA C++ Best Practices Guide
// (CUDA 13.0), "Throughput of Native Arithmetic Instructions"; the same table is in the CUDA
// C++ Programming Guide, "Arithmetic Instructions".
/// Special-function results (32-bit reciprocal, reciprocal square root, log2, exp2, sine,
/// cosine) per clock per SM.
pub fn sfu_per_clock(compute_capability: (i32, i32)) -> Option<u32> {
    match compute_capability {
        (7, 5) | (8, 0) | (8, 6) | (8, 7) | (8, 9) | (9, 0) => Some(16),
        (10, 0) | (10, 3) | (11, 0) | (12, 0) | (12, 1) => Some(16),
        _ => None,
    }
}

/// FP32 add, multiply and fused multiply-add results per clock per SM, from the same table.
pub fn fp32_per_clock(compute_capability: (i32, i32)) -> Option<u32> {
    match compute_capability {
        (7, 5) | (8, 0) => Some(64),
        (8, 6) | (8, 7) | (8, 9) | (9, 0) => Some(128),
        (10, 0) | (10, 3) | (11, 0) | (12, 0) | (12, 1) => Some(128),
        _ => None,
    }
}

/// A floor: its time in milliseconds, `None` where the table has no entry for the GPU, and
/// the line that shows its arithmetic (or says that no floor is known).
pub struct Floor {
    pub ms: Option<f64>,
    pub line: String,
}

/// The floor for `ops_per_pair` special-function results per pair on this GPU.
pub fn sfu_floor(ctx: &CudaContext, ops_per_pair: f64, pairs: f64) -> Floor {
    floor(ctx, "special-function", sfu_per_clock, ops_per_pair, pairs)
}

/// The same for `ops_per_pair` FP32 instructions per pair.
pub fn fp32_floor(ctx: &CudaContext, ops_per_pair: f64, pairs: f64) -> Floor {
    floor(ctx, "FP32", fp32_per_clock, ops_per_pair, pairs)
}

fn floor(
    ctx: &CudaContext,
    units: &str,
    rate: fn((i32, i32)) -> Option<u32>,
    ops_per_pair: f64,
    pairs: f64,
) -> Floor {
    let cc = compute_capability(ctx);
    let label = format!("{units} floor");
    let Some(per_clock) = rate(cc) else {
        let line = no_floor(&label, cc);
        return Floor { ms: None, line };
    };
    let attr = |a| ctx.attribute(a).or_exit("read a device attribute");
    let sms = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    let khz = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    let per_ms = f64::from(sms) * f64::from(per_clock) * f64::from(khz);
    let ms = ops_per_pair * pairs / per_ms;
    let line = format!(
        "{label}: {ops_per_pair} x {pairs:.3e} pairs / ({sms} SMs x \
         {per_clock}/clock x {} MHz) = {} (this machine)",
        khz / 1000,
        crate::timing::fmt_ms(ms)
    );
    Floor { ms: Some(ms), line }
}
// ANCHOR_END: floor

/// The compute capability the floors are looked up for: the device's, or the one
/// `COURSE_COMPUTE_CAPABILITY` pretends.
pub fn compute_capability(ctx: &CudaContext) -> (i32, i32) {
    match std::env::var_os(PRETEND_VAR) {
        Some(value) => {
            let value = value.to_string_lossy();
            parse_compute_capability(&value).unwrap_or_else(|| {
                fail(
                    EXIT_BAD_ARGUMENT,
                    &format!("{PRETEND_VAR} must be MAJOR.MINOR, such as 8.6, not `{value}`."),
                )
            })
        }
        None => ctx
            .compute_capability()
            .or_exit("read the compute capability"),
    }
}

/// `8.6` as (8, 6); `None` for anything but two whole numbers joined by a dot.
pub fn parse_compute_capability(text: &str) -> Option<(i32, i32)> {
    let (major, minor) = text.trim().split_once('.')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    Some((number(major)?, number(minor)?))
}

/// The line printed in place of a floor line, or of a line derived from a floor, on a GPU the
/// table does not list: `LABEL: no floor known for this GPU (compute capability X.Y)`.
pub fn no_floor(label: &str, (major, minor): (i32, i32)) -> String {
    format!("{label}: {NO_FLOOR} (compute capability {major}.{minor})")
}

/// Whether every measured time is at least [`AT_LEAST`] times its floor, for `(time, floor)`
/// pairs in milliseconds; `None` when a floor is not known. A NaN time fails.
pub fn above_floors(checked: &[(f64, Option<f64>)]) -> Option<bool> {
    let mut all = true;
    for &(time, floor) in checked {
        all &= time >= AT_LEAST * floor?;
    }
    Some(all)
}

/// The verdict line on [`above_floors`]: `every time at or above 0.95 x its floor: yes` (or
/// `NO`), or `...: no floor known for this GPU`.
pub fn floor_verdict(checked: &[(f64, Option<f64>)]) -> String {
    let label = format!("every time at or above {AT_LEAST} x its floor");
    match above_floors(checked) {
        Some(ok) => format!("{label}: {}", verdict(ok)),
        None => format!("{label}: {NO_FLOOR}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compute capabilities the guide's table lists, from 7.5 to 12.1.
    const LISTED: [(i32, i32); 11] = [
        (7, 5),
        (8, 0),
        (8, 6),
        (8, 7),
        (8, 9),
        (9, 0),
        (10, 0),
        (10, 3),
        (11, 0),
        (12, 0),
        (12, 1),
    ];

    #[test]
    fn the_guide_table() {
        for cc in LISTED {
            assert_eq!(sfu_per_clock(cc), Some(16), "{cc:?}");
            let fp32 = if cc <= (8, 0) { 64 } else { 128 };
            assert_eq!(fp32_per_clock(cc), Some(fp32), "{cc:?}");
        }
        for cc in [(7, 0), (6, 1), (13, 0), (8, 8), (99, 0)] {
            assert_eq!(sfu_per_clock(cc), None, "{cc:?}");
            assert_eq!(fp32_per_clock(cc), None, "{cc:?}");
        }
    }

    #[test]
    fn pretended_compute_capabilities() {
        assert_eq!(parse_compute_capability("8.6"), Some((8, 6)));
        assert_eq!(parse_compute_capability("99.0"), Some((99, 0)));
        for bad in ["", "9", "9.", ".0", "9.0.1", "nine", "-9.0", "9.x", "9,0"] {
            assert_eq!(parse_compute_capability(bad), None, "`{bad}`");
        }
        assert_eq!(
            no_floor("special-function floor", (99, 0)),
            "special-function floor: no floor known for this GPU (compute capability 99.0)"
        );
    }

    #[test]
    fn a_time_below_its_floor_fails() {
        assert_eq!(
            floor_verdict(&[(1.2, Some(1.0)), (0.96, Some(1.0))]),
            "every time at or above 0.95 x its floor: yes"
        );
        // Half the floor: the count of instructions or the floor is wrong.
        assert_eq!(
            floor_verdict(&[(1.2, Some(1.0)), (0.5, Some(1.0))]),
            "every time at or above 0.95 x its floor: NO"
        );
        assert_eq!(above_floors(&[(f64::NAN, Some(1.0))]), Some(false));
        assert_eq!(
            floor_verdict(&[(1.2, None)]),
            "every time at or above 0.95 x its floor: no floor known for this GPU"
        );
    }
}
