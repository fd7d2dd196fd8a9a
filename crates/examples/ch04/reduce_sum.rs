//! Summing 100,000,000 doubles on the GPU three ways: a racy read-add-write (wrong), one
//! atomic addition per thread (right, slow), and a tree in shared memory with one atomic
//! addition per block (right, fast). Each is checked against the CPU and timed in GB/s, and
//! the right ones against a sum of whole numbers known in advance.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

mod ch04_reduce {
    course::kernels!("ch04-reduce.cu");
}

/// The block size `sum_block_tree` is written for (its `THREADS_PER_BLOCK`); every kernel here
/// is launched with it.
const THREADS: u32 = 256;

/// Time the kernel called `name` (xs, total) with `blocks` blocks of [`THREADS`] threads, then
/// run it once more from a zero total and return that sum.
fn run_sum(
    stream: &Arc<CudaStream>,
    (k, name): (&ch04_reduce::Kernels, &str),
    xs: &CudaSlice<f64>,
    blocks: u32,
) -> (Timing, f64) {
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut total = stream.alloc_zeros::<f64>(1).or_exit("allocate the total");
    // The racy and the atomic kernel share a launcher; the tree's contract adds its block size.
    let launch = |total: &mut CudaSlice<f64>| match k.like_sum_racy(name) {
        Some(kernel) => kernel
            .launch(stream, config, xs, total)
            .or_exit_launching(kernel),
        None => k
            .sum_block_tree
            .launch(stream, config, xs, total)
            .or_exit_launching(&k.sum_block_tree),
    };
    // The kernels add into the total: the timed runs pile up, and the checked run starts at 0.
    let t = time_gpu(stream, 2, 10, || launch(&mut total));
    stream.memset_zeros(&mut total).or_exit("zero the total");
    launch(&mut total);
    (
        t,
        stream.clone_dtoh(&total).or_exit("copy the total back")[0],
    )
}

/// `sum 49996825.922829, relative difference from the CPU's 1.2e-16, bound 1e-11: yes`, and
/// whether it is within the bound. The atomics' rounding came to 5e-13 of the sum at the largest
/// length accepted, on the H200; one lost element of [0, 1) moves it by about 1e-8.
fn sum_line(got: f64, want: f64) -> (String, bool) {
    let difference = ((got - want) / want).abs();
    let bound = 1e-11;
    let ok = difference <= bound; // false for NaN
    let line = format!(
        "sum {got:.6}, relative difference from the CPU's {difference:.1e}, bound {bound:.0e}: {}",
        verdict(ok)
    );
    (line, ok)
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums random doubles on the GPU three ways: racy, one atomic per thread, a tree per block.",
        |args| {
            (
                args.usize("N", "the array length", 100_000_000, 1024, 200_000_000),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-reduce.cu"), false);
    let k = ch04_reduce::Kernels::load(&module);
    let tree = &k.sum_block_tree.function;

    // ANCHOR: data
    // Values in [0, 1): no cancellation, so sums taken in any order agree to far better than
    // a relative 1e-11, while one lost partial sum moves the total by far more than that.
    let xs = Rng::new(seed).vec_f64(n, 0.0, 1.0);
    // The CPU's sum, in chunks added in a fixed order: the same to the bit on every machine.
    let chunk_sums: Vec<f64> = xs.par_chunks(1 << 16).map(|c| c.iter().sum()).collect();
    let want: f64 = chunk_sums.iter().sum();
    println!("{n} doubles in [0, 1), seed {seed}");
    println!("the CPU's sum: {want:.6}");
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let bytes = 8.0 * n as f64;
    // ANCHOR_END: data

    // ANCHOR: three
    // As in the workshop: 256 threads per block, each thread adding 4 elements.
    let blocks = (n as u32).div_ceil(THREADS * 4);
    println!("{blocks} blocks of {THREADS} threads, 4 elements per thread:");
    for name in ["sum_racy", "sum_atomic_per_thread", "sum_block_tree"] {
        let (t, got) = run_sum(&stream, (&k, name), &xs_dev, blocks);
        // ANCHOR_END: three
        record(
            &format!("{name}, n={n} f64, {blocks} blocks"),
            &t,
            Work::Bytes(bytes),
        );
        // ANCHOR: three
        println!(
            "  {name:<22} {:>9} {:>12}",
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms)
        );
        // ANCHOR_END: three
        let (line, right) = sum_line(got, want);
        if name == "sum_racy" {
            // What the race leaves changes from run to run; that it loses sums does not.
            println!("  {:<22} sum: {got:.6} (varies)", "");
            println!("  {:<22} partial sums were lost: {}", "", verdict(!right));
        } else {
            println!("  {:<22} {line}", "");
        }
        // ANCHOR: three
    }
    // ANCHOR_END: three

    // ANCHOR: one_wave
    // The tree again, with just as many blocks as the GPU holds at once: every block stays
    // for the whole run, and there are only that many atomic additions.
    let per_sm = tree
        .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
        .or_exit("ask for the occupancy");
    let sms = ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as u32;
    let blocks = per_sm * sms;
    let (t, got) = run_sum(&stream, (&k, "sum_block_tree"), &xs_dev, blocks);
    // ANCHOR_END: one_wave
    record(
        &format!("sum_block_tree, n={n} f64, {blocks} blocks"),
        &t,
        Work::Bytes(bytes),
    );
    // ANCHOR: one_wave
    println!("{blocks} blocks of {THREADS} threads ({per_sm} per SM, one wave) (this machine)");
    println!(
        "  {:<22} {:>9} {:>12}",
        "sum_block_tree",
        fmt_ms(t.median_ms),
        fmt_gb_per_s(bytes, t.median_ms)
    );
    println!("  {:<22} {}", "", sum_line(got, want).0);
    // ANCHOR_END: one_wave

    // ANCHOR: known
    // A sum known in advance: x[i] = i mod 1000. Every partial sum is a whole number far
    // below 2^53, so it is exact in f64 in any order, and the kernels must hit it exactly.
    let whole: Vec<f64> = (0..n).map(|i| (i % 1000) as f64).collect();
    let (full, rest) = ((n / 1000) as u64, (n % 1000) as u64);
    let known = full * (999 * 1000 / 2) + rest * (rest.saturating_sub(1)) / 2;
    let whole_dev = stream
        .clone_htod(&whole)
        .or_exit("copy the whole numbers to the GPU");
    for name in ["sum_atomic_per_thread", "sum_block_tree"] {
        let (_, got) = run_sum(&stream, (&k, name), &whole_dev, blocks);
        // ANCHOR_END: known
        println!(
            "{name}: sum of i mod 1000 for i < {n}: {got}, the known {known}: {}",
            verdict(got == known as f64)
        );
        // ANCHOR: known
    }
    // ANCHOR_END: known
}
