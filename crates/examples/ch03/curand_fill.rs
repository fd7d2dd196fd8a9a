//! Random numbers made on the GPU with cuRAND (what `cupy.random` uses): uniform and normal
//! fills of 1e8 values, timed, with their statistics checked on the CPU.
use rayon::prelude::*;

use cudarc::curand::CudaRng;

use course::compare::{count_mismatches, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};

const N: usize = 100_000_000; // even: cuRAND makes normal values in pairs

fn main() {
    let seed = course::cli::parse(
        "Fills 1e8 values on the GPU with cuRAND, uniform and normal, and checks their statistics.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("seed {seed}");

    // ANCHOR: fill
    let rng = CudaRng::new(seed, stream.clone()).or_exit("start cuRAND");
    let mut uniform = alloc_poisoned::<f32>(&stream, N);
    let mut normal = alloc_poisoned::<f32>(&stream, N);
    rng.fill_with_uniform(&mut uniform)
        .or_exit("fill with uniform values");
    rng.fill_with_normal(&mut normal, 10.0, 2.0)
        .or_exit("fill with normal values");
    // ANCHOR_END: fill

    // ANCHOR: stats
    let u = stream.clone_dtoh(&uniform).or_exit("copy from the GPU");
    let z = stream.clone_dtoh(&normal).or_exit("copy from the GPU");
    let (u_min, u_max) = u
        .par_iter()
        .fold(
            || (f32::MAX, f32::MIN),
            |(lo, hi), &v| (lo.min(v), hi.max(v)),
        )
        .reduce(|| (f32::MAX, f32::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    println!("uniform: smallest {u_min:.2e}, largest {u_max:.7}");
    // ANCHOR_END: stats
    println!(
        "  every value in (0, 1]: {}",
        verdict(u_min > 0.0 && u_max <= 1.0)
    );
    // ANCHOR: stats
    let (u_mean, u_var) = mean_and_variance(&u);
    check("mean", u_mean, "1/2", 0.5, (1.0f64 / 12.0).sqrt());
    check(
        "variance",
        u_var,
        "1/12",
        1.0 / 12.0,
        (1.0f64 / 180.0).sqrt(),
    );

    println!("normal(10, 2):");
    let (z_mean, z_var) = mean_and_variance(&z);
    let within_one_sd = z.par_iter().filter(|&&v| (v - 10.0).abs() < 2.0).count() as f64 / N as f64;
    check("mean", z_mean, "10", 10.0, 2.0);
    check("variance", z_var, "4", 4.0, 4.0 * 2.0f64.sqrt());
    let p = 0.682_689_492; // the share of a normal distribution within one standard deviation
    check(
        "share within one sd",
        within_one_sd,
        "0.682689492",
        p,
        (p * (1.0 - p)).sqrt(),
    );
    // ANCHOR_END: stats

    // ANCHOR: repeat
    // The same seed gives the same numbers; that is what makes a run repeatable.
    let again = CudaRng::new(seed, stream.clone()).or_exit("start cuRAND");
    let mut repeat = alloc_poisoned::<f32>(&stream, N);
    again
        .fill_with_uniform(&mut repeat)
        .or_exit("fill with uniform values");
    let repeat = stream.clone_dtoh(&repeat).or_exit("copy from the GPU");
    // ANCHOR_END: repeat
    println!(
        "same seed, same {N} values: {}",
        verdict(count_mismatches(&repeat, &u) == 0)
    );

    let bytes = (N * size_of::<f32>()) as f64;
    let t_uniform = time_gpu(&stream, 2, 10, || {
        rng.fill_with_uniform(&mut uniform)
            .or_exit("fill with uniform values")
    });
    let t_normal = time_gpu(&stream, 2, 10, || {
        rng.fill_with_normal(&mut normal, 10.0, 2.0)
            .or_exit("fill with normal values")
    });
    record("cuRAND uniform f32, n=1e8", &t_uniform, Work::Bytes(bytes));
    record("cuRAND normal f32, n=1e8", &t_normal, Work::Bytes(bytes));
    println!(
        "uniform fill of 1e8 f32: {:>9}  {:>10} written",
        fmt_ms(t_uniform.median_ms),
        fmt_gb_per_s(bytes, t_uniform.median_ms)
    );
    println!(
        "normal fill of 1e8 f32:  {:>9}  {:>10} written",
        fmt_ms(t_normal.median_ms),
        fmt_gb_per_s(bytes, t_normal.median_ms)
    );
}

// ANCHOR: five_standard_errors
/// A sample statistic against its true value. The bound is five standard errors (the
/// statistic's standard deviation `sd` over the square root of the count), rounded up to one
/// significant digit: a correct generator fails it less than once in a million runs.
fn check(what: &str, got: f64, want_name: &str, want: f64, sd: f64) {
    let five = 5.0 * sd / (N as f64).sqrt();
    let digit = 10f64.powf(five.log10().floor());
    let bound = (five / digit).ceil() * digit;
    let what = format!("  {what} {got:.6}, distance from {want_name}");
    // ANCHOR_END: five_standard_errors
    println!("{}", within_bound(&what, got - want, bound).0);
    // ANCHOR: five_standard_errors
}
// ANCHOR_END: five_standard_errors

/// Mean and variance, accumulated in f64 over rayon's threads.
fn mean_and_variance(v: &[f32]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.par_iter().map(|&x| x as f64).sum::<f64>() / n;
    let var = v
        .par_iter()
        .map(|&x| (x as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var)
}
