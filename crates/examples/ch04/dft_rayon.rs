//! The DFT in parallel on the CPU: the outer loop's body becomes a kernel for one k, and
//! rayon runs it for every k. Timed against the serial loops in the same run.
use course::compare::{relative_error, verdict, within_bound};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_cpu};
use num_complex::Complex64;
use rayon::prelude::*;
use rustfft::FftPlanner;

// ANCHOR: kernel
/// One output, X[k]: the body of the outer loop, with the inner loop inside it. Every k is
/// independent of every other; the terms for one k all add into the same X[k].
fn dft_kernel(k: usize, xs: &[Complex64], out: &mut Complex64) {
    let n = xs.len();
    let mut sum = Complex64::new(0.0, 0.0);
    for (j, x) in xs.iter().enumerate() {
        let angle = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
        sum += x * Complex64::from_polar(1.0, angle);
    }
    *out = sum;
}

fn dft_serial(xs: &[Complex64], out: &mut [Complex64]) {
    for (k, x_k) in out.iter_mut().enumerate() {
        dft_kernel(k, xs, x_k);
    }
}

fn dft_parallel(xs: &[Complex64], out: &mut [Complex64]) {
    out.par_iter_mut()
        .enumerate()
        .for_each(|(k, x_k)| dft_kernel(k, xs, x_k));
}
// ANCHOR_END: kernel

fn flat(v: &[Complex64]) -> Vec<f64> {
    v.iter().flat_map(|c| [c.re, c.im]).collect()
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Times the DFT's loops serially and with rayon over k, and checks both against rustfft.",
        |args| {
            (
                args.usize("N", "the transform length", 1000, 1, 100_000),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let mut rng = Rng::new(seed);
    let xs: Vec<Complex64> = (0..n)
        .map(|_| Complex64::new(rng.f64() * 2.0 - 1.0, rng.f64() * 2.0 - 1.0))
        .collect();
    println!("N = {n} complex values, seed {seed}");

    // ANCHOR: time
    let zero = Complex64::new(0.0, 0.0);
    let (mut serial, mut parallel) = (vec![zero; n], vec![zero; n]);
    let t_serial = time_cpu(1, 3, || dft_serial(&xs, &mut serial));
    let t_parallel = time_cpu(1, 3, || dft_parallel(&xs, &mut parallel));
    println!("serial loops:   {}", fmt_ms(t_serial.median_ms));
    println!("rayon over k:   {}", fmt_ms(t_parallel.median_ms));
    println!(
        "speedup:        {}",
        fmt_speedup(t_serial.median_ms, t_parallel.median_ms)
    );
    // ANCHOR_END: time

    let mut fft = xs.clone();
    FftPlanner::<f64>::new()
        .plan_fft_forward(n)
        .process(&mut fft);
    // The angles k·j/N grow with N, and so does their rounding: up to about 1e-11 of the
    // result for the largest N accepted.
    for (name, ours) in [("serial", &serial), ("rayon", &parallel)] {
        let err = relative_error(&flat(ours), &flat(&fft));
        let (line, _) = within_bound(
            &format!("{name}: relative difference from rustfft's FFT"),
            err,
            1e-10,
        );
        println!("{line}");
    }
    println!(
        "rayon's result equals the serial one exactly: {}",
        verdict(serial == parallel)
    );
}
