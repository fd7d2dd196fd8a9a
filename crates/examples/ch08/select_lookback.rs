//! Order-preserving compaction on the look-back scan: keeps the f32 below 0.5 among 2^26 drawn
//! uniformly from [0, 1) (or N), about half of them, in their order. The CPU's filter first;
//! the kernel must equal it element for element (content and order), timed against a copy and
//! against CUB's select in the same run (when the reference program is beside this one).
use course::compare::verdict;
use course::cub;
use course::gpu::{OrExit, alloc_poisoned, describe, ensure_memory, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, record, time_cpu, time_gpu};
use cudarc::driver::LaunchConfig;

mod ch08_scan {
    course::kernels!("ch08-scan.cu");
}

/// Elements per tile: THREADS × SELECT_ITEMS of the kernel file.
const TILE: usize = 256 * 16;

fn main() {
    let (length, seed) = course::cli::parse(
        "Keeps the f32 below 0.5 among 2^26 (or N) in order, in one pass, against the CPU, a copy and CUB.",
        |args| {
            (
                args.usize("N", "the number of elements", 1 << 26, 1, 1 << 29),
                args.seed(),
            )
        },
    );
    let n = problem_size(length, length.min((1 << 20) + 123));
    let ctx = gpu_or_exit();
    // The input, the kept elements, the copy, and the tile status and counters.
    let bytes = 12 * n + 8 * n.div_ceil(TILE) + 12;
    ensure_memory(&ctx, bytes, &format!("select_lookback on {n} elements"));
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let k = ch08_scan::Kernels::load(&load(&ctx, &kernel_file!("ch08-scan.cu"), false));

    // ANCHOR: cpu
    let mut rng = Rng::new(seed);
    let input: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let mut want = Vec::new();
    // ANCHOR_END: cpu
    let t_cpu = time_cpu(0, 1, || {
        // ANCHOR: cpu
        want = input.iter().copied().filter(|&x| x < 0.5).collect();
        // ANCHOR_END: cpu
    });
    let label = match n.is_power_of_two() {
        true => format!("n=2^{}", n.trailing_zeros()),
        false => format!("n={n}"),
    };
    println!(
        "{label}: f32 in [0, 1), seed {seed}; the CPU keeps {} below 0.5 in {}",
        want.len(),
        fmt_ms(t_cpu.median_ms)
    );

    // ANCHOR: gpu
    let tiles = n.div_ceil(TILE);
    let input_dev = stream
        .clone_htod(&input)
        .or_exit("copy the input to the GPU");
    let mut out = alloc_poisoned::<f32>(&stream, n);
    let mut status = stream
        .alloc_zeros::<u64>(tiles)
        .or_exit("allocate the tile status");
    let mut next_tile = stream
        .alloc_zeros::<u32>(1)
        .or_exit("allocate the tile counter");
    let mut stalled = stream
        .alloc_zeros::<i32>(1)
        .or_exit("allocate the stall flag");
    let mut count = alloc_poisoned::<u32>(&stream, 1);
    let config = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // ANCHOR_END: gpu
    let t = time_gpu(&stream, 3, 21, || {
        // ANCHOR: gpu
        // The launcher clears the status words and the tile counter (`zeroed` in the contract).
        k.select_lookback
            .launch(
                &stream,
                config,
                &input_dev,
                &mut out,
                0.5,
                &mut status,
                &mut next_tile,
                &mut stalled,
                &mut count,
            )
            .or_exit_launching(&k.select_lookback);
        // ANCHOR_END: gpu
    });
    // ANCHOR: gpu
    let kept = stream.clone_dtoh(&count).or_exit("copy the count back")[0] as usize;
    let got = stream.clone_dtoh(&out).or_exit("copy the result back");
    let got = &got[..kept.min(n)];
    // ANCHOR_END: gpu
    let mut copy = alloc_poisoned::<f32>(&stream, n);
    let t_copy = time_gpu(&stream, 3, 21, || {
        stream
            .memcpy_dtod(&input_dev, &mut copy)
            .or_exit("copy on the GPU");
    });
    // Read every element once, write the kept ones once; the copy reads and writes all.
    let bytes = 4.0 * (n + want.len()) as f64;
    let copy_bytes = 8.0 * n as f64;
    record(
        &format!("look-back select, {label}"),
        &t,
        Work::Bytes(bytes),
    );
    record(
        &format!("device-to-device copy, {label}"),
        &t_copy,
        Work::Bytes(copy_bytes),
    );
    println!(
        "  look-back select {:>9} {:>11}, copy {:>9} {:>11}",
        fmt_ms(t.median_ms),
        fmt_gb_per_s(bytes, t.median_ms),
        fmt_ms(t_copy.median_ms),
        fmt_gb_per_s(copy_bytes, t_copy.median_ms)
    );
    let stall = stream.clone_dtoh(&stalled).or_exit("read the stall flag")[0] != 0;
    // Equal as slices: the same elements, in the same order.
    println!(
        "  the GPU keeps {kept}, the same elements in the same order as the CPU: {}",
        verdict(kept == want.len() && got == want.as_slice() && !stall)
    );
    match cub::time("select", n, seed) {
        Some(c) => {
            println!(
                "  CUB's select: {}, ours at {:.3} of its speed (this machine)",
                fmt_ms(c.median_ms),
                c.median_ms / t.median_ms
            );
            println!(
                "  CUB's result equal to ours (checksums): {}",
                verdict(c.checksum == cub::checksum(got))
            );
            let t_cub = Timing {
                median_ms: c.median_ms,
                cpu_ms: 0.0,
                reps: 21,
            };
            record(&format!("CUB select, {label}"), &t_cub, Work::Bytes(bytes));
        }
        None => {
            println!("  CUB's select: {}", course::cub::NO_REFERENCE);
            println!(
                "  CUB's result equal to ours (checksums): {}",
                course::cub::NO_REFERENCE
            );
        }
    }
}
