//! Timing a kernel the same way on both sides. CubeCL 0.10 times CUDA work on the host (its
//! `profile` waits for the GPU, reads the clock, runs the work, waits again) and hides the CUDA
//! stream it launches on, so no CUDA event can be recorded around its kernels. Both the CubeCL
//! kernel and its C++ twin are therefore timed in batches: wait for the GPU, launch `batch`
//! times, wait again, divide. With 20 launches in a batch the GPU runs them back to back and
//! the two waits cost a few percent of one batch at most; the C++ twin is also timed with CUDA
//! events, as everywhere in the course, to show that cost.

use std::time::Instant;

use course::gpu::sanitizing;
use course::timing::{Timing, median};

/// Untimed launches before the timed ones.
pub const WARMUP: usize = 3;
/// Timed batches; the median is reported.
pub const REPS: usize = 10;

/// The median time of one launch over [`REPS`] batches of `batch` launches, each batch timed on
/// the host between two calls of `sync`, after [`WARMUP`] launches.
pub fn time_batches(batch: usize, sync: impl Fn(), mut launch: impl FnMut()) -> Timing {
    let (warmup, reps, batch) = match sanitizing() {
        true => (0, 1, 1),
        false => (WARMUP, REPS, batch),
    };
    for _ in 0..warmup {
        launch();
    }
    let mut times = Vec::with_capacity(reps);
    let mut issue = Vec::with_capacity(reps);
    for _ in 0..reps {
        sync();
        let start = Instant::now();
        for _ in 0..batch {
            launch();
        }
        issue.push(start.elapsed().as_secs_f64() * 1e3 / batch as f64);
        sync();
        times.push(start.elapsed().as_secs_f64() * 1e3 / batch as f64);
    }
    Timing {
        median_ms: median(&times),
        cpu_ms: median(&issue),
        reps,
    }
}

/// The wall time of the first launch and its run, in milliseconds: for a CubeCL kernel, its
/// compilation (Rust to IR to CUDA C++ or WGSL, then NVRTC or the driver) is in it.
pub fn first_launch(sync: impl Fn(), launch: impl FnOnce()) -> f64 {
    sync();
    let start = Instant::now();
    launch();
    sync();
    start.elapsed().as_secs_f64() * 1e3
}
