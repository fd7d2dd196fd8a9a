//! The grid-stride adder under four launch configurations, from one thread per element down
//! to a single block, and the same loop written with the raw built-in variables. Every
//! configuration must give every sum; only the time may change.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, fmt_speedup, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

mod ch04_grids {
    course::kernels!("ch04-grids.cu");
}

/// Launch `kernel` (xs, ys, zs) with `blocks` blocks of `threads` threads, timed. Both
/// grid-stride kernels have the launcher type `AdderGridStride`.
fn run(
    stream: &Arc<CudaStream>,
    kernel: &ch04_grids::AdderGridStride,
    (xs, ys): (&CudaSlice<f64>, &CudaSlice<f64>),
    n: usize,
    blocks: u32,
    threads: u32,
    reps: usize,
) -> (Timing, Vec<f64>) {
    let mut zs = alloc_poisoned::<f64>(stream, n);
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    let t = time_gpu(stream, 1, reps, || {
        kernel
            .launch(stream, config, xs, ys, &mut zs)
            .or_exit_launching(kernel);
    });
    (
        t,
        stream.clone_dtoh(&zs).or_exit("copy zs back from the GPU"),
    )
}

fn main() {
    let seed = course::cli::parse(
        "Runs the grid-stride adder on four grids, from one thread per element to one block.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-grids.cu"), false);
    let k = ch04_grids::Kernels::load(&module);
    let sms = ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as u32;

    // 2^24 doubles per array: three arrays of 128 MiB, far more than the L2 cache holds.
    let n = 1usize << 24;
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    println!("n = {n} f64 per array, seed {seed}");
    let mut want = vec![0.0; n];
    want.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let ys_dev = stream.clone_htod(&ys).or_exit("copy ys to the GPU");
    let inputs = (&xs_dev, &ys_dev);
    let bytes = 24.0 * n as f64;

    // ANCHOR: configs
    let threads = 256u32;
    let configs = [
        ("one thread per element", (n as u32).div_ceil(threads)),
        ("8 blocks per SM", 8 * sms),
        ("1 block per SM", sms),
        ("a single block", 1),
    ];
    println!(
        "{:<24} {:>8} {:>10} {:>10} {:>12}",
        "grid", "blocks", "threads", "time", "bandwidth"
    );
    let (mut full, mut wrong) = (0.0, 0);
    for (name, blocks) in configs {
        let reps = if blocks == 1 { 3 } else { 20 };
        let (t, zs) = run(
            &stream,
            &k.adder_grid_stride,
            inputs,
            n,
            blocks,
            threads,
            reps,
        );
        wrong += count_mismatches(&zs, &want);
        // ANCHOR_END: configs
        record(
            &format!("grid-stride adder, {name}"),
            &t,
            Work::Bytes(bytes),
        );
        // ANCHOR: configs
        // The grids sized from the SM count are facts of this GPU.
        let depends_on_gpu = name.contains("per SM");
        println!(
            "{name:<24} {blocks:>8} {:>10} {:>10} {:>12}{}",
            blocks * threads,
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms),
            if depends_on_gpu {
                " (this machine)"
            } else {
                ""
            }
        );
        if blocks == configs[0].1 {
            full = t.median_ms;
        } else if blocks == 1 {
            println!(
                "one block of {threads} threads is {} slower than the full grid",
                fmt_speedup(t.median_ms, full)
            );
        }
    }
    // ANCHOR_END: configs
    println!(
        "wrong sums over the four grids: {wrong} of {}: {}",
        4 * n,
        verdict(wrong == 0)
    );

    // ANCHOR: raw
    let (_, zs_raw) = run(
        &stream,
        &k.adder_grid_stride_raw,
        inputs,
        n,
        8 * sms,
        threads,
        1,
    );
    // ANCHOR_END: raw
    println!(
        "the raw-index kernel gives the same sums: {}",
        verdict(count_mismatches(&zs_raw, &want) == 0)
    );
}
