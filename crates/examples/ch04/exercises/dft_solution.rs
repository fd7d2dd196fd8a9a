//! A solution to the exercise in `dft.rs`, as in `crates/examples/ch04/dft_serial.rs`.
use num_complex::Complex64;

pub fn dft(xs: &[Complex64]) -> Vec<Complex64> {
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
