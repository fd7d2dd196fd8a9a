//! Exercise: "Challenge: which is faster?" (chapter 4). The code the measurement needs: the
//! lengths to try, a CPU adder on host memory, the GPU adder's launch shape and the GPU adder,
//! timed, on device memory. Timing the two against each other stays yours. Check your code
//! with `cargo run --bin judge -- ch04`.
#![allow(unused_variables, unused_imports)]
use std::sync::Arc;

use course::timing::time_gpu;
use cudarc::driver::{CudaModule, CudaStream, CudaView, CudaViewMut, LaunchConfig};
use rayon::prelude::*;

// The typed launcher of the kernel `adder`: `k.adder.launch(stream, config, xs, ys, zs)`.
mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

/// The array lengths to time: 1,000 to 100,000,000, ascending, at least one per decade.
pub fn lengths() -> Vec<usize> {
    // TODO: the lengths, from 1,000 to 100,000,000.
    Vec::new()
}

/// zs = xs + ys on the host, with rayon.
pub fn add_cpu(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    // TODO: add in parallel with rayon.
}

/// The launch shape of the kernel `adder` for `n` elements: one thread per element, in blocks
/// of 256 threads.
pub fn adder_config(n: usize) -> LaunchConfig {
    // TODO: the fewest blocks of 256 threads that give every element its thread.
    LaunchConfig::for_num_elems(0)
}

/// zs = xs + ys with the kernel `adder` of `kernels/ch04-adder.cu`, launched with
/// `adder_config`, on buffers already on the device: the median time of one launch, in
/// milliseconds, from CUDA events after a warm-up.
pub fn add_gpu_ms(
    stream: &Arc<CudaStream>,
    module: &Arc<CudaModule>,
    xs: &CudaView<f64>,
    ys: &CudaView<f64>,
    zs: &mut CudaViewMut<f64>,
) -> f64 {
    let k = ch04_adder::Kernels::load(module);
    // TODO: launched with `adder_config` and timed with `time_gpu`.
    0.0
}
