//! The discrete Fourier transform as two plain loops, checked against rustfft.
use course::cli::arg_usize;
use course::compare::{relative_error, verdict};
use course::random::{Rng, fresh_seed};
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
    let n = arg_usize(1, "the transform length", 100, 1, 20_000);
    // ANCHOR: check
    let seed = fresh_seed();
    let mut rng = Rng::new(seed);
    let xs: Vec<Complex64> = (0..n)
        .map(|_| Complex64::new(rng.f64() * 2.0 - 1.0, rng.f64() * 2.0 - 1.0))
        .collect();
    println!("N = {n} complex values, seed {seed} (varies)");
    let ours = dft(&xs);

    let mut fft = xs.clone();
    FftPlanner::<f64>::new()
        .plan_fft_forward(n)
        .process(&mut fft);
    let err = relative_error(&flat(&ours), &flat(&fft));
    println!("relative difference from rustfft's FFT: {err:.1e} (varies)");
    println!(
        "the loops agree with the FFT to 1e-12: {}",
        verdict(err < 1e-12)
    );
    // ANCHOR_END: check
}
