//! Summing 100,000,000 doubles on the GPU three ways: a racy read-add-write (wrong), one
//! atomic addition per thread (right, slow), and a tree in shared memory with one atomic
//! addition per block (right, fast). Each is checked against the CPU and timed in GB/s.
use course::cli::arg_usize;
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use rayon::prelude::*;

fn main() {
    let n = arg_usize(1, "the array length", 100_000_000, 1024, 500_000_000);
    let per_thread = arg_usize(2, "the elements per thread", 4, 1, 1 << 20);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-reduce.cu"), false);

    // ANCHOR: data
    // Values in [0, 1): no cancellation, so any right order of additions lands within a
    // relative 1e-12 of any other.
    let seed = fresh_seed();
    let xs = Rng::new(seed).vec_f64(n, 0.0, 1.0);
    let want: f64 = xs.par_iter().sum();
    println!("{n} doubles in [0, 1), seed {seed} (varies)");
    println!("the CPU's sum: {want:.6} (varies)");
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    // ANCHOR_END: data

    // ANCHOR: launch
    // As in the workshop: 256 threads per block, each thread adding 4 elements.
    let threads = 256u32;
    let blocks = (n as u32).div_ceil(threads * per_thread as u32);
    let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 };
    println!("{blocks} blocks of {threads} threads");
    let n_arg = n as i32;
    let bytes = 8.0 * n as f64;
    for name in ["sum_racy", "sum_atomic_per_thread", "sum_block_tree"] {
        let kernel = function(&module, name);
        let mut total = stream.alloc_zeros::<f64>(1).or_exit("allocate the total");
        let mut sum = || {
            let mut launch = stream.launch_builder(&kernel);
            launch.arg(&xs_dev).arg(&mut total).arg(&n_arg);
            unsafe { launch.launch(config) }.or_exit("launch a sum kernel");
        };
        // The kernels add into the total: the timed runs pile up, and the run that is
        // checked starts from zero.
        let t = time_gpu(&stream, 2, 10, &mut sum);
        stream.memset_zeros(&mut total).or_exit("zero the total");
        sum();
        let got = stream.clone_dtoh(&total).or_exit("copy the total back")[0];
        let right = ((got - want) / want).abs() < 1e-12;
        record(&format!("{name}, n={n} f64"), &t, Work::Bytes(bytes));
        println!("{name:<22} {:>9} {:>12}  equals the CPU's sum: {}", fmt_ms(t.median_ms), fmt_gb_per_s(bytes, t.median_ms), verdict(right));
        println!("{:<22} sum: {got:.6} (varies)", "");
    }
    // ANCHOR_END: launch
}
