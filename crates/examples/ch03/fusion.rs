//! Fusion: `cos(2 * (x - 1))` on 1e8 values as three element-wise kernels with intermediate
//! arrays, against one fused kernel, and both against a plain device-to-device copy.
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

use course::compare::{count_mismatches, relative_error, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, fmt_speedup, record, time_gpu};

mod ch03_fusion {
    course::kernels!("ch03-fusion.cu");
}

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
    let k = ch03_fusion::Kernels::load(&module);

    println!("seed {seed}");
    let x_host = Rng::new(seed).vec_f32(N, -4.0, 4.0);
    // The kernels take four values per thread, so the length must be a multiple of four, and
    // the device arrays hold groups of four: `[f32; 4]`, laid out as a float4.
    assert!(N % 4 == 0, "N must be a multiple of 4");
    let n4 = N / 4;
    let x = stream
        .clone_htod(x_host.as_chunks::<4>().0)
        .or_exit("copy to the GPU");
    let cfg = LaunchConfig {
        grid_dim: (n4.div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };

    // ANCHOR: unfused
    // Three passes, as NumPy or an unfused CuPy expression does it. The two intermediate arrays
    // are allocated once, outside the timing, which favours this version.
    let mut tmp1 = alloc_poisoned::<[f32; 4]>(&stream, n4);
    let mut tmp2 = alloc_poisoned::<[f32; 4]>(&stream, n4);
    let mut y_unfused = alloc_poisoned::<[f32; 4]>(&stream, n4);
    // ANCHOR_END: unfused
    let unfused = time_gpu(&stream, 2, 20, || {
        // ANCHOR: unfused
        k.subtract_scalar
            .launch(&stream, cfg, &x, 1.0, &mut tmp1)
            .or_exit_launching(&k.subtract_scalar);
        k.multiply_scalar
            .launch(&stream, cfg, &tmp1, 2.0, &mut tmp2)
            .or_exit_launching(&k.multiply_scalar);
        k.cos_each
            .launch(&stream, cfg, &tmp2, &mut y_unfused)
            .or_exit_launching(&k.cos_each);
        // ANCHOR_END: unfused
    });

    // ANCHOR: fused
    let mut y_fused = alloc_poisoned::<[f32; 4]>(&stream, n4);
    // ANCHOR_END: fused
    let fused_time = time_gpu(&stream, 2, 20, || {
        // ANCHOR: fused
        k.cos_fused
            .launch(&stream, cfg, &x, &mut y_fused)
            .or_exit_launching(&k.cos_fused);
        // ANCHOR_END: fused
    });

    // The ceiling for any kernel that reads x once and writes y once: copying x to y.
    let mut y_copy = alloc_poisoned::<[f32; 4]>(&stream, n4);
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

    let got_unfused = stream
        .clone_dtoh(&y_unfused)
        .or_exit("copy from the GPU")
        .into_flattened();
    let got_fused = stream
        .clone_dtoh(&y_fused)
        .or_exit("copy from the GPU")
        .into_flattened();
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
    let copied = stream
        .clone_dtoh(&y_copy)
        .or_exit("copy from the GPU")
        .into_flattened();
    println!(
        "the copy is exact: {}",
        verdict(count_mismatches(&copied, &x_host) == 0)
    );
}
