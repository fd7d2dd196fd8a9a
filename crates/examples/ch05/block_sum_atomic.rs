//! Sum 2^24 floats: a tree in each block's shared memory, then one atomic addition per block.
//! Three launches on the same data, each against a float64 sum on the CPU.
use course::cli::arg_usize;
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use rayon::prelude::*;

const THREADS: usize = 256;

/// The distance from `v` to the next float32 away from zero: how coarse float32 is at `v`.
fn float32_spacing(v: f32) -> f32 {
    let v = v.abs();
    f32::from_bits(v.to_bits() + 1) - v
}

fn main() {
    let n = arg_usize(1, "the number of floats", 1 << 24, 1, 1 << 28);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));

    let seed = fresh_seed();
    let x = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    let reference: f64 = x.par_iter().map(|&v| v as f64).sum();

    // ANCHOR: launches
    let module = load(&ctx, &kernel_file!("ch05-block-sum.cu"), false);
    let block_sum_atomic = function(&module, "block_sum_atomic");
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let blocks = n.div_ceil(THREADS);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    println!("{n} floats, {blocks} blocks, so {blocks} atomic additions");
    println!("float64 sum on the CPU: {reference:.2} (varies)");
    let mut totals = Vec::new();
    for launch in 0..3 {
        let mut d_total = stream.alloc_zeros::<f32>(1).or_exit("allocate GPU memory");
        unsafe {
            stream
                .launch_builder(&block_sum_atomic)
                .arg(&d_x)
                .arg(&(n as i32))
                .arg(&mut d_total)
                .launch(cfg)
        }
        .or_exit("launch block_sum_atomic");
        let total = stream.clone_dtoh(&d_total).or_exit("copy from the GPU")[0];
        let error = (total as f64 - reference).abs() / reference;
        println!("launch {launch}: float32 total {total:.2}, relative error {error:.1e} (varies)");
        totals.push(total);
    }
    // ANCHOR_END: launches

    // ANCHOR: verdicts
    let mut distinct: Vec<u32> = totals.iter().map(|t| t.to_bits()).collect();
    distinct.sort();
    distinct.dedup();
    println!(
        "different totals among the 3 launches: {} (varies)",
        distinct.len()
    );
    let spread = totals.iter().fold(f32::MIN, |a, &b| a.max(b))
        - totals.iter().fold(f32::MAX, |a, &b| a.min(b));
    println!("largest minus smallest total: {spread} (varies)");
    println!(
        "float32 values near the total are {} apart (varies)",
        float32_spacing(totals[0])
    );
    let close = totals
        .iter()
        .all(|&t| ((t as f64 - reference) / reference).abs() < 1e-4);
    println!(
        "every launch within 1e-4 of the float64 sum: {}",
        verdict(close)
    );
    // ANCHOR_END: verdicts
    println!("seed {seed} (varies)");
}
