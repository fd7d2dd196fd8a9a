//! The adder as a CUDA kernel, launched from Rust: data to the GPU, one thread per element,
//! result back, compared with the CPU.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use rayon::prelude::*;

// ANCHOR: launchers
// A launcher for each kernel of the file, generated from its signature (see the next page).
mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}
// ANCHOR_END: launchers

fn main() {
    let (n, seed) = course::cli::parse(
        "Adds two random arrays with a CUDA kernel and compares the sums with the CPU's.",
        |args| {
            (
                args.usize("N", "the array length", 1000, 1, 500_000_000),
                args.seed(),
            )
        },
    );
    // ANCHOR: setup
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-adder.cu"), false);
    let adder = function(&module, "adder");
    // ANCHOR_END: setup

    // ANCHOR: data
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    println!("{n} random f64 values in each input, seed {seed}");

    // Inputs to device memory; the output is allocated there too, filled with NaN so that
    // an element the kernel forgets cannot pass for a sum.
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let ys_dev = stream.clone_htod(&ys).or_exit("copy ys to the GPU");
    let mut zs_dev = alloc_poisoned::<f64>(&stream, n);
    // ANCHOR_END: data

    // ANCHOR: launch
    let threads_per_block = 256u32;
    let blocks = (n as u32).div_ceil(threads_per_block);
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads_per_block, 1, 1),
        shared_mem_bytes: 0,
    };
    let n_arg = n as i32;
    let mut launch = stream.launch_builder(&adder);
    launch
        .arg(&xs_dev)
        .arg(&ys_dev)
        .arg(&mut zs_dev)
        .arg(&n_arg);
    // SAFETY: adder takes (const double *, const double *, double *, int), these arguments
    // in this order; the three buffers hold n values each and the kernel stops at i >= n. The
    // compiler checks none of this: that is why the launch is unsafe.
    unsafe { launch.launch(config) }.or_exit_launching(&adder);
    let zs = stream
        .clone_dtoh(&zs_dev)
        .or_exit("copy zs back from the GPU");
    // ANCHOR_END: launch

    // ANCHOR: check
    let launched = blocks * threads_per_block;
    println!(
        "grid: {blocks} blocks of {threads_per_block} threads = {launched} threads for {n} elements"
    );
    println!(
        "threads that found no element (i >= n): {}",
        launched as usize - n
    );
    let mut want = vec![0.0; n];
    want.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
    let wrong = count_mismatches(&zs, &want);
    // ANCHOR_END: check
    println!(
        "sums that differ from the CPU's: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );

    // ANCHOR: typed
    // The same launch through the generated launcher. The compiler checks the buffers against
    // the kernel's parameters; the launcher computes `n` from them and checks, before it
    // launches, that they have one length and that the grid covers it. No `unsafe` here.
    let kernels = ch04_adder::Kernels::load(&module);
    let mut zs_typed = alloc_poisoned::<f64>(&stream, n);
    kernels
        .adder
        .launch(&stream, config, &xs_dev, &ys_dev, &mut zs_typed)
        .or_exit_launching(&kernels.adder);
    let zs_typed = stream
        .clone_dtoh(&zs_typed)
        .or_exit("copy zs back from the GPU");
    let differ = count_mismatches(&zs_typed, &zs);
    // ANCHOR_END: typed
    println!(
        "sums of the generated launcher that differ from the builder's: {differ} of {n}: {}",
        verdict(differ == 0)
    );
}
