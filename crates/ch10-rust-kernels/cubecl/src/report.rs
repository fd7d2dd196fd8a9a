//! The lines every program prints about time: compilation apart, then the median per launch
//! with its rate, and on CUDA the ratio to the C++ twin measured the same way.

use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, fmt_speedup, record};

/// How many launches a timed batch holds (see [`crate::timing`]): enough on CUDA to hide the
/// two waits; one on wgpu, where no C++ twin is compared and lavapipe is slow.
pub fn batch(cuda: bool) -> usize {
    if cuda { 20 } else { 1 }
}

/// The first launch, apart from the median; CubeCL tunes none of these kernels.
pub fn compilation(kernel: &str, first_ms: f64) {
    println!(
        "{kernel}: first launch, JIT compilation included, {} (kept out of the median)",
        fmt_ms(first_ms)
    );
    println!("{kernel}: autotuning, none: the kernel has one version");
}

/// The line before the timings.
pub fn method(batch: usize) {
    let reps = crate::timing::REPS;
    match batch {
        1 => println!("median of {reps} launches, each timed between two waits for the GPU:"),
        _ => println!(
            "median of {reps} batches of {batch} launches, each batch timed between two waits \
             for the GPU, per launch:"
        ),
    }
}

/// One timing line, `  LABEL  12.3 µs, 3950 GB/s`, also appended to the GPU check's metrics.
pub fn rate(label: &str, timing: &Timing, bytes: f64) {
    println!(
        "  {label:<36} {}, {}",
        fmt_ms(timing.median_ms),
        fmt_gb_per_s(bytes, timing.median_ms)
    );
    record(label, timing, Work::Bytes(bytes));
}

/// CubeCL's time over the C++ twin's, both timed in batches.
pub fn ratio(cubecl: &Timing, cpp: &Timing) {
    println!(
        "CubeCL's time over the C++ twin's, timed the same way: {}",
        fmt_speedup(cubecl.median_ms, cpp.median_ms)
    );
}
