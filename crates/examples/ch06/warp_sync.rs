//! The lanes of each warp add up their values through shared memory, with `__syncwarp()`
//! between the steps and without: 20 launches of each on random integers, every warp's sum
//! against the CPU's, and once on ones, whose sums are known.
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

mod ch06_warp_sync {
    course::kernels!("ch06-warp-sync.cu");
}
use ch06_warp_sync::WarpSumSynced;

const THREADS: usize = 256; // THREADS of the kernel file
const RUNS: usize = 20;

/// The sums of `x`'s 32-value pieces (the last one may be short).
fn warp_sums_cpu(x: &[i32]) -> Vec<i32> {
    x.par_chunks(32).map(|piece| piece.iter().sum()).collect()
}

/// The sums `kernel` writes for `d_x`, into a poisoned buffer.
fn warp_sums(
    stream: &std::sync::Arc<CudaStream>,
    kernel: &WarpSumSynced,
    d_x: &CudaSlice<i32>,
) -> Vec<i32> {
    let n = d_x.len();
    let mut sums = alloc_poisoned::<i32>(stream, n.div_ceil(32));
    let config = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    kernel
        .launch(stream, config, d_x, &mut sums)
        .or_exit_launching(kernel);
    stream.clone_dtoh(&sums).or_exit("copy the sums back")
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums each warp's 32 integers through shared memory with and without __syncwarp, 20 times each.",
        |args| {
            (
                args.usize("N", "the number of integers", 1 << 20, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-warp-sync.cu"), false);
    let k = ch06_warp_sync::Kernels::load(&module);
    require_block_size(&k.warp_sum_synced.function, k.warp_sum_synced.name, THREADS);
    require_block_size(
        &k.warp_sum_unsynced.function,
        k.warp_sum_unsynced.name,
        THREADS,
    );

    let mut rng = Rng::new(seed);
    let x: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
    let want = warp_sums_cpu(&x);
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let ones = stream.clone_htod(&vec![1i32; n]).or_exit("copy to the GPU");
    println!(
        "{n} integers in -1000..=1000, seed {seed}: {} warps, {RUNS} launches each way",
        want.len()
    );
    // ANCHOR: runs
    let mut results = Vec::new();
    // Without __syncwarp a lane may read words an earlier launch left: the sum of ones varies.
    for (name, kernel, varies) in [
        ("with __syncwarp   ", &k.warp_sum_synced, ""),
        ("without __syncwarp", &k.warp_sum_unsynced, " (varies)"),
    ] {
        let wrong_runs = (0..RUNS)
            .filter(|_| warp_sums(&stream, kernel, &d_x) != want)
            .count();
        let on_ones = warp_sums(&stream, kernel, &ones)[0];
        let ones_summed = n.min(32);
        println!("{name}: wrong in {wrong_runs} of {RUNS} launches");
        println!("{name}: the first warp's sum of {ones_summed} ones: {on_ones}{varies}");
        results.push((wrong_runs, on_ones == ones_summed as i32));
    }
    // ANCHOR_END: runs
    let (synced, unsynced) = (results[0], results[1]);
    println!(
        "with __syncwarp, every sum right in every launch: {}",
        verdict(synced == (0, true))
    );
    println!(
        "without it, some sum wrong in some launch: {}",
        verdict(unsynced.0 > 0 || !unsynced.1)
    );
}
