//! Sum 2^24 floats: a tree in each block's shared memory, then one atomic addition per block.
//! Five launches on the same data, each against a float64 sum on the CPU, and one on ones,
//! whose sum is known exactly.
use std::sync::Arc;

use course::compare::{verdict, within_bound};
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel::require_block_size;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

const THREADS: usize = 256;
const LAUNCHES: usize = 5;

mod ch05_block_sum {
    course::kernels!("ch05-block-sum.cu");
}

/// The distance from `v` to the next float32 away from zero: how coarse float32 is at `v`.
fn float32_spacing(v: f32) -> f32 {
    let v = v.abs();
    f32::from_bits(v.to_bits() + 1) - v
}

// ANCHOR: block_sum
/// One launch of `block_sum_atomic` over `d_x`: one block per 256 floats, one atomic each.
fn block_sum(
    stream: &Arc<CudaStream>,
    block_sum_atomic: &ch05_block_sum::BlockSumAtomic,
    d_x: &CudaSlice<f32>,
) -> f32 {
    let n = d_x.len();
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut d_total = stream.alloc_zeros::<f32>(1).or_exit("allocate GPU memory");
    block_sum_atomic
        .launch(stream, cfg, d_x, &mut d_total)
        .or_exit_launching(block_sum_atomic);
    stream.clone_dtoh(&d_total).or_exit("copy from the GPU")[0]
}
// ANCHOR_END: block_sum

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums floats on the GPU with a tree per block and one atomic addition per block.",
        |args| {
            (
                args.usize("N", "the number of floats", 1 << 24, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch05-block-sum.cu"), false);
    let k = ch05_block_sum::Kernels::load(&module);
    require_block_size(&k.block_sum_atomic.function, "block_sum_atomic", THREADS);

    let x = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    let reference: f64 = x.iter().map(|&v| v as f64).sum(); // in order: the same every run
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let blocks = n.div_ceil(THREADS);
    println!("{n} floats, {blocks} blocks, so {blocks} atomic additions; seed {seed}");

    // ANCHOR: launches
    println!("float64 sum on the CPU: {reference:.2}");
    let mut totals = Vec::new();
    for launch in 0..LAUNCHES {
        let total = block_sum(&stream, &k.block_sum_atomic, &d_x);
        let error = (total as f64 - reference).abs() / reference;
        let what = format!("launch {launch}: float32 total {total:.2}, relative error");
        // ANCHOR_END: launches
        println!("{}", within_bound(&what, error, 1e-4).0);
        // ANCHOR: launches
        totals.push(total);
    }
    // ANCHOR_END: launches

    // ANCHOR: verdicts
    let mut distinct: Vec<u32> = totals.iter().map(|t| t.to_bits()).collect();
    distinct.sort();
    distinct.dedup();
    println!(
        "different totals among the {LAUNCHES} launches: {} (varies)",
        distinct.len()
    );
    let spread = totals.iter().fold(f32::MIN, |a, &b| a.max(b))
        - totals.iter().fold(f32::MAX, |a, &b| a.min(b));
    println!("largest minus smallest total: {spread} (varies)");
    // ANCHOR_END: verdicts
    println!(
        "the {LAUNCHES} launches did not all give the same total: {}",
        verdict(distinct.len() > 1)
    );
    // ANCHOR: verdicts
    println!(
        "float32 values near the sum are {} apart",
        float32_spacing(reference as f32)
    );
    // ANCHOR_END: verdicts

    // ANCHOR: ones
    // Ones: every partial sum is a whole number no larger than 2^24, which float32 holds
    // exactly, so the total is exact in whatever order the blocks add.
    let m = n.min(1 << 24);
    let d_ones = stream
        .clone_htod(&vec![1.0f32; m])
        .or_exit("copy to the GPU");
    let total = block_sum(&stream, &k.block_sum_atomic, &d_ones);
    // ANCHOR_END: ones
    println!(
        "on {m} ones the total is {total:.1}, exactly {m}: {}",
        verdict(total == m as f32)
    );
}
