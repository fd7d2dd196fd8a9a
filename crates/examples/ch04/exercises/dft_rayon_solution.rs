//! A solution to the exercise in `dft_rayon.rs`, as in `crates/examples/ch04/dft_rayon.rs`.
use num_complex::Complex64;
use rayon::prelude::*;

pub fn dft_kernel(k: usize, xs: &[Complex64], out: &mut Complex64) {
    let n = xs.len();
    let mut sum = Complex64::new(0.0, 0.0);
    for (j, x) in xs.iter().enumerate() {
        let angle = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
        sum += x * Complex64::from_polar(1.0, angle);
    }
    *out = sum;
}

/// The loop over k: every X[k] is independent of the others.
pub fn dft_parallel(xs: &[Complex64], out: &mut [Complex64]) {
    out.par_iter_mut()
        .enumerate()
        .for_each(|(k, x_k)| dft_kernel(k, xs, x_k));
}
