//! Random numbers made on the GPU with cuRAND (what `cupy.random` uses): uniform and normal
//! fills of 1e8 values, timed, with their statistics checked on the CPU.
use rayon::prelude::*;

use cudarc::curand::CudaRng;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::random::fresh_seed;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};

const N: usize = 100_000_000; // even: cuRAND makes normal values in pairs

fn main() {
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let seed = fresh_seed();
    println!("seed {seed} (varies)");

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
    let (u_mean, u_var) = mean_and_variance(&u);
    let (u_min, u_max) = u
        .par_iter()
        .fold(
            || (f32::MAX, f32::MIN),
            |(lo, hi), &v| (lo.min(v), hi.max(v)),
        )
        .reduce(|| (f32::MAX, f32::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    println!(
        "uniform: mean {u_mean:.5}, variance {u_var:.5}, min {u_min:.2e}, max {u_max:.7} (varies)"
    );
    // Five standard errors either side: a correct generator fails this about once in 3 million runs.
    let close = |got: f64, want: f64, sd: f64| (got - want).abs() < 5.0 * sd / (N as f64).sqrt();
    println!(
        "  every value in (0, 1]: {}",
        verdict(u_min > 0.0 && u_max <= 1.0)
    );
    println!(
        "  mean within 5 standard errors of 1/2: {}",
        verdict(close(u_mean, 0.5, (1.0f64 / 12.0).sqrt()))
    );
    println!(
        "  variance within 5 standard errors of 1/12: {}",
        verdict(close(u_var, 1.0 / 12.0, (1.0f64 / 180.0).sqrt()))
    );

    let (z_mean, z_var) = mean_and_variance(&z);
    let within_one_sd = z.par_iter().filter(|&&v| (v - 10.0).abs() < 2.0).count() as f64 / N as f64;
    println!(
        "normal(10, 2): mean {z_mean:.5}, standard deviation {:.5}, within one sd {within_one_sd:.5} (varies)",
        z_var.sqrt()
    );
    println!(
        "  mean within 5 standard errors of 10: {}",
        verdict(close(z_mean, 10.0, 2.0))
    );
    println!(
        "  variance within 5 standard errors of 4: {}",
        verdict(close(z_var, 4.0, 4.0 * 2.0f64.sqrt()))
    );
    let p = 0.682_689_492; // the share of a normal distribution within one standard deviation
    println!(
        "  share within one sd within 5 standard errors of {p}: {}",
        verdict(close(within_one_sd, p, (p * (1.0 - p)).sqrt()))
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
    println!(
        "same seed, same {N} values: {}",
        verdict(count_mismatches(&repeat, &u) == 0)
    );
    // ANCHOR_END: repeat

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
