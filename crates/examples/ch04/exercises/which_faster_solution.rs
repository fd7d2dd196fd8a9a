//! A solution to the exercise in `which_faster.rs`: the lengths and the adders of
//! `crates/examples/ch04/adder_sweep.rs`.
use std::sync::Arc;

use course::timing::time_gpu;
use cudarc::driver::{CudaModule, CudaStream, CudaView, CudaViewMut, LaunchConfig};
use rayon::prelude::*;

mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

// ANCHOR: solution
/// 1,000, 3,000, 10,000, 30,000, ..., 30,000,000, 100,000,000: two lengths per decade.
pub fn lengths() -> Vec<usize> {
    let mut lengths = Vec::new();
    let mut n = 1000;
    while n < 100_000_000 {
        lengths.extend([n, 3 * n]);
        n *= 10;
    }
    lengths.push(n);
    lengths
}

/// zs = xs + ys on the host, one rayon task per element.
pub fn add_cpu(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    zs.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
}

/// One thread per element, in blocks of 256 threads.
pub fn adder_config(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// zs = xs + ys on the device, with buffers already there: the median time of one launch, in
/// milliseconds, from CUDA events after 3 warm-up launches.
pub fn add_gpu_ms(
    stream: &Arc<CudaStream>,
    module: &Arc<CudaModule>,
    xs: &CudaView<f64>,
    ys: &CudaView<f64>,
    zs: &mut CudaViewMut<f64>,
) -> f64 {
    let k = ch04_adder::Kernels::load(module);
    let config = adder_config(zs.len());
    let timing = time_gpu(stream, 3, 20, || {
        // Nothing is copied: the launch reads and writes device memory only.
        k.adder
            .launch(stream, config, xs, ys, zs)
            .expect("launch the adder");
    });
    timing.median_ms
}
// ANCHOR_END: solution
