//! Fusion: `cos(2 * (x - 1))` on 1e8 values as three element-wise kernels with intermediate
//! arrays, against one fused kernel, and both against a plain device-to-device copy.
use cudarc::driver::{LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use course::compare::{count_mismatches, relative_error, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, fmt_speedup, record, time_gpu};

const N: usize = 100_000_000;

fn main() {
    let seed = course::cli::parse(
        "Times cos(2 * (x - 1)) on 1e8 values as three kernels and as one, beside a copy.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = kernel::load(&ctx, &kernel_file!("ch03-fusion.cu"), false);
    let subtract = kernel::function(&module, "subtract_scalar");
    let multiply = kernel::function(&module, "multiply_scalar");
    let cosine = kernel::function(&module, "cos_each");
    let fused = kernel::function(&module, "cos_fused");

    println!("seed {seed}");
    let x_host = Rng::new(seed).vec_f32(N, -4.0, 4.0);
    let x = stream.clone_htod(&x_host).or_exit("copy to the GPU");
    // The kernels take four values per thread, so the length must be a multiple of four.
    assert!(N % 4 == 0, "N must be a multiple of 4");
    let n4 = (N / 4) as i64;
    let cfg = LaunchConfig {
        grid_dim: ((N / 4).div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };

    // ANCHOR: unfused
    // Three passes, as NumPy or an unfused CuPy expression does it. The two intermediate arrays
    // are allocated once, outside the timing, which favours this version.
    let mut tmp1 = alloc_poisoned::<f32>(&stream, N);
    let mut tmp2 = alloc_poisoned::<f32>(&stream, N);
    let mut y_unfused = alloc_poisoned::<f32>(&stream, N);
    let (one, two) = (1.0f32, 2.0f32);
    let unfused = time_gpu(&stream, 2, 20, || unsafe {
        stream
            .launch_builder(&subtract)
            .arg(&x)
            .arg(&one)
            .arg(&mut tmp1)
            .arg(&n4)
            .launch(cfg)
            .or_exit_launching(&subtract);
        stream
            .launch_builder(&multiply)
            .arg(&tmp1)
            .arg(&two)
            .arg(&mut tmp2)
            .arg(&n4)
            .launch(cfg)
            .or_exit_launching(&multiply);
        stream
            .launch_builder(&cosine)
            .arg(&tmp2)
            .arg(&mut y_unfused)
            .arg(&n4)
            .launch(cfg)
            .or_exit_launching(&cosine);
    });
    // ANCHOR_END: unfused

    // ANCHOR: fused
    let mut y_fused = alloc_poisoned::<f32>(&stream, N);
    let fused_time = time_gpu(&stream, 2, 20, || unsafe {
        stream
            .launch_builder(&fused)
            .arg(&x)
            .arg(&mut y_fused)
            .arg(&n4)
            .launch(cfg)
            .or_exit_launching(&fused);
    });
    // ANCHOR_END: fused

    // The ceiling for any kernel that reads x once and writes y once: copying x to y.
    let mut y_copy = alloc_poisoned::<f32>(&stream, N);
    let copy = time_gpu(&stream, 2, 20, || {
        stream
            .memcpy_dtod(&x, &mut y_copy)
            .or_exit("copy on the GPU")
    });

    // ANCHOR: report
    let array = (N * size_of::<f32>()) as f64;
    println!(
        "{:<34} {:>9} {:>10} {:>11} {:>9}",
        "cos(2 * (x - 1)) on 1e8 f32", "time", "bytes", "bandwidth", "of copy"
    );
    let copy_rate = 2.0 * array / copy.median_ms;
    let row = |name: &str, t: &Timing, bytes: f64| {
        let share = 100.0 * (bytes / t.median_ms) / copy_rate;
        println!(
            "{name:<34} {:>9} {:>7.1} GB {:>11} {share:>8.0}%",
            fmt_ms(t.median_ms),
            bytes / 1e9,
            fmt_gb_per_s(bytes, t.median_ms)
        );
    };
    row("3 kernels, 2 intermediate arrays", &unfused, 6.0 * array);
    row("1 fused kernel", &fused_time, 2.0 * array);
    row("device-to-device copy of x", &copy, 2.0 * array);
    println!(
        "fusing the three makes it {} faster",
        fmt_speedup(unfused.median_ms, fused_time.median_ms)
    );
    // ANCHOR_END: report
    record(
        "cos(2(x-1)) unfused, 3 kernels, n=1e8",
        &unfused,
        Work::Bytes(6.0 * array),
    );
    record(
        "cos(2(x-1)) fused, n=1e8",
        &fused_time,
        Work::Bytes(2.0 * array),
    );
    record(
        "device-to-device copy, 400 MB",
        &copy,
        Work::Bytes(2.0 * array),
    );

    let got_unfused = stream.clone_dtoh(&y_unfused).or_exit("copy from the GPU");
    let got_fused = stream.clone_dtoh(&y_fused).or_exit("copy from the GPU");
    let want: Vec<f64> = x_host
        .par_iter()
        .map(|&x| (2.0 * (x as f64 - 1.0)).cos())
        .collect();
    let as_f64 = |v: &[f32]| v.par_iter().map(|&y| y as f64).collect::<Vec<f64>>();
    println!(
        "fused and unfused agree bit for bit: {}",
        verdict(count_mismatches(&got_fused, &got_unfused) == 0)
    );
    let error = relative_error(&as_f64(&got_fused), &want);
    let (line, _) = within_bound(
        "fused, relative error against the CPU's f64 cos",
        error,
        1e-6,
    );
    println!("{line}");
    let copied = stream.clone_dtoh(&y_copy).or_exit("copy from the GPU");
    println!(
        "the copy is exact: {}",
        verdict(count_mismatches(&copied, &x_host) == 0)
    );
}
