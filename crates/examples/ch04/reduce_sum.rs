//! Summing 100,000,000 doubles on the GPU three ways: a racy read-add-write (wrong), one
//! atomic addition per thread (right, slow), and a tree in shared memory with one atomic
//! addition per block (right, fast). Each is checked against the CPU and timed in GB/s.
use std::sync::Arc;

use course::cli::arg_usize;
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

/// Time `kernel` (xs, total, n) with `blocks` blocks of 256 threads, then run it once more
/// from a zero total and return that sum.
fn run_sum(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    xs: &CudaSlice<f64>,
    n: usize,
    blocks: u32,
) -> (Timing, f64) {
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let n_arg = n as i32;
    let mut total = stream.alloc_zeros::<f64>(1).or_exit("allocate the total");
    let launch = |total: &mut CudaSlice<f64>| {
        let mut launch = stream.launch_builder(kernel);
        launch.arg(xs).arg(total).arg(&n_arg);
        unsafe { launch.launch(config) }.or_exit("launch a sum kernel");
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

fn main() {
    let n = arg_usize(1, "the array length", 100_000_000, 1024, 200_000_000);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-reduce.cu"), false);

    // ANCHOR: data
    // Values in [0, 1): no cancellation, so sums taken in any order agree to far better than
    // a relative 1e-10, while one lost partial sum moves the total by more than that.
    let seed = fresh_seed();
    let xs = Rng::new(seed).vec_f64(n, 0.0, 1.0);
    let want: f64 = xs.par_iter().sum();
    println!("{n} doubles in [0, 1), seed {seed} (varies)");
    println!("the CPU's sum: {want:.6} (varies)");
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let bytes = 8.0 * n as f64;
    let right = |got: f64| verdict(((got - want) / want).abs() < 1e-10);
    // ANCHOR_END: data

    // ANCHOR: three
    // As in the workshop: 256 threads per block, each thread adding 4 elements.
    let blocks = (n as u32).div_ceil(256 * 4);
    println!("{blocks} blocks of 256 threads, 4 elements per thread:");
    for name in ["sum_racy", "sum_atomic_per_thread", "sum_block_tree"] {
        let (t, got) = run_sum(&stream, &function(&module, name), &xs_dev, n, blocks);
        record(
            &format!("{name}, n={n} f64, {blocks} blocks"),
            &t,
            Work::Bytes(bytes),
        );
        println!(
            "  {name:<22} {:>9} {:>12}  equals the CPU's sum: {}",
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms),
            right(got)
        );
        println!("  {:<22} sum: {got:.6} (varies)", "");
    }
    // ANCHOR_END: three

    // ANCHOR: one_wave
    // The tree again, with just as many blocks as the GPU holds at once: every block stays
    // for the whole run, and there are only that many atomic additions.
    let tree = function(&module, "sum_block_tree");
    let per_sm = tree
        .occupancy_max_active_blocks_per_multiprocessor(256, 0, None)
        .or_exit("ask for the occupancy");
    let sms = ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as u32;
    let blocks = per_sm * sms;
    let (t, got) = run_sum(&stream, &tree, &xs_dev, n, blocks);
    record(
        &format!("sum_block_tree, n={n} f64, {blocks} blocks"),
        &t,
        Work::Bytes(bytes),
    );
    println!("{blocks} blocks of 256 threads ({per_sm} per SM, one wave):");
    println!(
        "  {:<22} {:>9} {:>12}  equals the CPU's sum: {}",
        "sum_block_tree",
        fmt_ms(t.median_ms),
        fmt_gb_per_s(bytes, t.median_ms),
        right(got)
    );
    // ANCHOR_END: one_wave
}
