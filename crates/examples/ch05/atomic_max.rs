//! The largest value of an array with atomics: atomicMax on int32, the float bit trick (right
//! only when the values are not negative), and compare-and-swap loops that are right for all
//! floats. Every result is checked against the CPU's maximum.
use std::sync::Arc;

use course::cli::arg_usize;
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use cudarc::driver::{CudaModule, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

const THREADS: usize = 256;

/// Launch `kernel` (one thread per value) with the result starting at `start`; return it.
fn gpu_max_f32(
    stream: &Arc<CudaStream>,
    module: &Arc<CudaModule>,
    kernel: &str,
    values: &[f32],
    start: f32,
) -> f32 {
    let kernel = function(module, kernel);
    let n = values.len();
    let d_values = stream.clone_htod(values).or_exit("copy to the GPU");
    let mut d_result = stream.clone_htod(&[start]).or_exit("copy to the GPU");
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        stream
            .launch_builder(&kernel)
            .arg(&d_values)
            .arg(&(n as i32))
            .arg(&mut d_result)
            .launch(cfg)
    }
    .or_exit("launch a maximum kernel");
    stream.clone_dtoh(&d_result).or_exit("copy from the GPU")[0]
}

fn cpu_max(values: &[f32]) -> f32 {
    values
        .par_iter()
        .copied()
        .reduce(|| f32::NEG_INFINITY, f32::max)
}

fn main() {
    let n = arg_usize(1, "the number of values", 1 << 20, 1, 1 << 28);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch05-atomic-max.cu"), false);
    let seed = fresh_seed();
    let mut rng = Rng::new(seed);
    println!("{n} values in each test");

    // ANCHOR: int
    let ints: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let d_ints = stream.clone_htod(&ints).or_exit("copy to the GPU");
    let mut d_result = stream.clone_htod(&[i32::MIN]).or_exit("copy to the GPU");
    let max_int = function(&module, "max_int");
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        stream
            .launch_builder(&max_int)
            .arg(&d_ints)
            .arg(&(n as i32))
            .arg(&mut d_result)
            .launch(cfg)
    }
    .or_exit("launch max_int");
    let gpu = stream.clone_dtoh(&d_result).or_exit("copy from the GPU")[0];
    let cpu = ints.par_iter().copied().max().unwrap_or(i32::MIN);
    println!(
        "{:<38} GPU {gpu}, CPU {cpu}, right: {} (varies)",
        "atomicMax, any int32",
        verdict(gpu == cpu)
    );
    // ANCHOR_END: int

    // ANCHOR: floats
    let non_negative = rng.vec_f32(n, 0.0, 1.0);
    let negative = rng.vec_f32(n, -100.0, -1.0);
    let mixed = rng.vec_f32(n, -100.0, 100.0);
    let tests = [
        (
            "bit trick, from 0, in [0, 1)",
            "max_float_bits",
            &non_negative,
            0.0,
        ),
        (
            "bit trick, from 0, in [-100, -1)",
            "max_float_bits",
            &negative,
            0.0,
        ),
        (
            "bit trick, from -inf, in [-100, -1)",
            "max_float_bits",
            &negative,
            f32::NEG_INFINITY,
        ),
        (
            "CAS loop, from -inf, in [-100, -1)",
            "max_float_cas",
            &negative,
            f32::NEG_INFINITY,
        ),
        (
            "CAS loop, from -inf, in [-100, 100)",
            "max_float_cas",
            &mixed,
            f32::NEG_INFINITY,
        ),
        (
            "sign split, from -inf, in [-100, -1)",
            "max_float_sign_split",
            &negative,
            f32::NEG_INFINITY,
        ),
        (
            "sign split, from -inf, in [-100, 100)",
            "max_float_sign_split",
            &mixed,
            f32::NEG_INFINITY,
        ),
    ];
    for (label, kernel, values, start) in tests {
        let gpu = gpu_max_f32(&stream, &module, kernel, values, start);
        let cpu = cpu_max(values);
        println!(
            "{label:<38} GPU {gpu:>10.6}, CPU {cpu:>10.6}, right: {} (varies)",
            verdict(gpu == cpu)
        );
    }
    // ANCHOR_END: floats
    println!("seed {seed} (varies)");
}
