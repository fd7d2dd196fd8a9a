//! The discrete Fourier transform as two plain loops, checked against rustfft and against the
//! transform of a pure tone, which is known exactly.
use course::compare::{relative_error, within_bound};
use course::random::Rng;
use num_complex::Complex64;
use rustfft::FftPlanner;

// ANCHOR: dft
/// X[k] = Σ_j x[j]·e^(−2πi·k·j/N), for every k: N² terms.
fn dft(xs: &[Complex64]) -> Vec<Complex64> {
    let n = xs.len();
    let mut out = vec![Complex64::new(0.0, 0.0); n];
    for k in 0..n {
        for j in 0..n {
            let angle = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
            out[k] += xs[j] * Complex64::from_polar(1.0, angle);
        }
    }
    out
}
// ANCHOR_END: dft

/// Real and imaginary parts side by side, for comparing complex results.
fn flat(v: &[Complex64]) -> Vec<f64> {
    v.iter().flat_map(|c| [c.re, c.im]).collect()
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Computes the DFT of random complex values with two loops and checks it against rustfft.",
        |args| {
            (
                args.usize("N", "the transform length", 100, 1, 20_000),
                args.seed(),
            )
        },
    );
    // ANCHOR: check
    let mut rng = Rng::new(seed);
    let xs: Vec<Complex64> = (0..n)
        .map(|_| Complex64::new(rng.f64() * 2.0 - 1.0, rng.f64() * 2.0 - 1.0))
        .collect();
    println!("N = {n} complex values, seed {seed}");
    let ours = dft(&xs);

    let mut fft = xs.clone();
    FftPlanner::<f64>::new()
        .plan_fft_forward(n)
        .process(&mut fft);
    let err = relative_error(&flat(&ours), &flat(&fft));
    // ANCHOR_END: check
    let (line, _) = within_bound("relative difference from rustfft's FFT", err, 1e-10);
    println!("{line}");

    // ANCHOR: tone
    // A pure tone, x[j] = e^(2πi·f·j/N), is in step with exactly one of the DFT's waves:
    // X[f] = N and every other X[k] = 0.
    let f = 3 % n;
    let tone: Vec<Complex64> = (0..n)
        .map(|j| Complex64::from_polar(1.0, 2.0 * std::f64::consts::PI * (f * j) as f64 / n as f64))
        .collect();
    let largest_error = dft(&tone)
        .iter()
        .enumerate()
        .map(|(k, x_k)| {
            let want = if k == f { n as f64 } else { 0.0 };
            (x_k - want).norm()
        })
        .fold(0.0, f64::max);
    // ANCHOR_END: tone
    let (line, _) = within_bound(
        &format!("pure tone at k = {f}: largest error over the peak N"),
        largest_error / n as f64,
        1e-10,
    );
    println!("{line}");
}
