//! The small kernels of the page "The CUDA C++ you need", from kernels/ch04-cpp-tour.cu: each
//! launched through its generated launcher and checked against the same computation in Rust.
use std::ops::Add;

use course::compare::{count_mismatches, relative_error, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

mod ch04_cpp_tour {
    course::kernels!("ch04-cpp-tour.cu");
}

/// `BLOCK` of the kernel file: the threads per block that `block_sums` needs.
const BLOCK: usize = 256;

// ANCHOR: square_cpu
fn square_wide_cpu(xs: &[i32]) -> Vec<i64> {
    xs.iter()
        .map(|&x| {
            let x = i64::from(x); // Rust widens only when asked
            x * x
        })
        .collect()
}
// ANCHOR_END: square_cpu

// ANCHOR: length_cpu
#[inline(always)]
fn length_of(p: [f32; 2]) -> f32 {
    (p[0] * p[0] + p[1] * p[1]).sqrt()
}
// ANCHOR_END: length_cpu

// ANCHOR: twice_cpu
fn twice_cpu<T: Copy + Add<Output = T>>(xs: &[T]) -> Vec<T> {
    xs.iter().map(|&x| x + x).collect()
}
// ANCHOR_END: twice_cpu

// ANCHOR: block_sums_cpu
fn block_sums_cpu(xs: &[u32], block: usize) -> Vec<u32> {
    xs.chunks(block)
        .map(|chunk| chunk.iter().fold(0u32, |sum, &x| sum.wrapping_add(x)))
        .collect()
}
// ANCHOR_END: block_sums_cpu

/// Blocks of `block` threads, enough of them for `n` elements.
fn grid_for(n: usize, block: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(block) as u32, 1, 1),
        block_dim: (block as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Runs the small kernels of the CUDA C++ tour and checks each one against the CPU.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of elements (a multiple of 256)",
                    1 << 20,
                    256,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    if !n.is_multiple_of(BLOCK) {
        course::cli::fail(&format!(
            "the number of elements must be a multiple of {BLOCK}, not {n}"
        ));
    }
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-cpp-tour.cu"), false);
    let k = ch04_cpp_tour::Kernels::load(&module);
    let mut rng = Rng::new(seed);
    println!("{n} elements in each input, seed {seed}");
    let cfg = grid_for(n, BLOCK);

    // Every output starts poisoned (all bits set: -1, NaN or the largest unsigned value), a
    // value no kernel here computes, so an element left unwritten fails its check.

    // Any 32-bit integer: its square needs 64 bits.
    let xs: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let mut squares_dev = alloc_poisoned::<i64>(&stream, n);
    k.square_wide
        .launch(&stream, cfg, &xs_dev, &mut squares_dev)
        .or_exit_launching(&k.square_wide);
    let squares = stream.clone_dtoh(&squares_dev).or_exit("copy squares back");
    let wrong = count_mismatches(&squares, &square_wide_cpu(&xs));
    println!(
        "square_wide: squares that differ from the CPU's: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );

    // Points in the square [-1, 1) x [-1, 1). The GPU rounds x*x + y*y twice (a product, then
    // a fused multiply-add), the CPU three times: the lengths may differ in their last bit.
    // ANCHOR: launch_lengths
    let coords = rng.vec_f32(2 * n, -1.0, 1.0);
    let points: Vec<[f32; 2]> = coords.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    let points_dev = stream.clone_htod(&points).or_exit("copy points to the GPU");
    let mut out_dev = alloc_poisoned::<f32>(&stream, n);
    k.lengths
        .launch(&stream, cfg, &points_dev, &mut out_dev)
        .or_exit_launching(&k.lengths);
    // ANCHOR_END: launch_lengths
    let out = stream.clone_dtoh(&out_dev).or_exit("copy lengths back");
    let want: Vec<f32> = points.iter().map(|&p| length_of(p)).collect();
    let (line, _) = within_bound(
        "lengths: relative error against the CPU",
        relative_error(&out, &want),
        1e-6,
    );
    println!("{line}");

    // Doubling rounds nothing, for ints in this range and for floats: both must match exactly.
    let ints: Vec<i32> = (0..n)
        .map(|_| rng.below(2_000_001) as i32 - 1_000_000)
        .collect();
    let ints_dev = stream.clone_htod(&ints).or_exit("copy ints to the GPU");
    let mut twice_ints_dev = alloc_poisoned::<i32>(&stream, n);
    k.twice_int
        .launch(&stream, cfg, &ints_dev, &mut twice_ints_dev)
        .or_exit_launching(&k.twice_int);
    let twice_ints = stream.clone_dtoh(&twice_ints_dev).or_exit("copy back");
    let wrong = count_mismatches(&twice_ints, &twice_cpu(&ints));
    println!(
        "twice_int: results that differ from the CPU's: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );
    let floats = rng.vec_f32(n, -1.0, 1.0);
    let floats_dev = stream.clone_htod(&floats).or_exit("copy floats to the GPU");
    let mut twice_floats_dev = alloc_poisoned::<f32>(&stream, n);
    k.twice_float
        .launch(&stream, cfg, &floats_dev, &mut twice_floats_dev)
        .or_exit_launching(&k.twice_float);
    let twice_floats = stream.clone_dtoh(&twice_floats_dev).or_exit("copy back");
    let wrong = count_mismatches(&twice_floats, &twice_cpu(&floats));
    println!(
        "twice_float: results that differ from the CPU's: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );

    // Any 32-bit unsigned values: almost every block's sum wraps past 2^32, on both sides.
    let values: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let values_dev = stream.clone_htod(&values).or_exit("copy values to the GPU");
    let mut sums_dev = alloc_poisoned::<u32>(&stream, n / BLOCK);
    k.block_sums
        .launch(&stream, cfg, &values_dev, &mut sums_dev)
        .or_exit_launching(&k.block_sums);
    let sums = stream.clone_dtoh(&sums_dev).or_exit("copy block sums back");
    let wrong = count_mismatches(&sums, &block_sums_cpu(&values, BLOCK));
    println!(
        "block_sums: sums of {BLOCK} values that differ from the CPU's: {wrong} of {}: {}",
        sums.len(),
        verdict(wrong == 0)
    );

    // ANCHOR: launch_dynamic
    let threads = 128;
    let mut sums_dev = alloc_poisoned::<u32>(&stream, n / threads);
    let dynamic = LaunchConfig {
        shared_mem_bytes: (threads * size_of::<u32>()) as u32, // the extern __shared__ array
        ..grid_for(n, threads)
    };
    k.block_sums_dynamic
        .launch(&stream, dynamic, &values_dev, &mut sums_dev)
        .or_exit_launching(&k.block_sums_dynamic);
    // ANCHOR_END: launch_dynamic
    let sums = stream.clone_dtoh(&sums_dev).or_exit("copy block sums back");
    let wrong = count_mismatches(&sums, &block_sums_cpu(&values, threads));
    println!(
        "block_sums_dynamic: sums of {threads} values that differ from the CPU's: \
         {wrong} of {}: {}",
        sums.len(),
        verdict(wrong == 0)
    );
}
