//! A solution to the exercise in `which_loops.rs`: the parallel loops of
//! `crates/examples/ch01/which_loops.rs`, as functions.
use rayon::prelude::*;

pub fn loop_a(xs: &[f64]) -> Vec<f64> {
    let n = xs.len();
    let mut ys = vec![0.0; n];
    ys[..n - 1].par_iter_mut().enumerate().for_each(|(i, y)| {
        *y = xs[i] * xs[i] + xs[i + 1] * xs[i + 1];
    });
    ys
}

pub fn loop_b(xs: &[f64]) -> Vec<f64> {
    let n = xs.len();
    let mut ys = vec![0.0; n];
    ys[1..n - 1]
        .par_iter_mut()
        .zip(xs.par_windows(3))
        .for_each(|(y, w)| *y = 0.5 * (w[0] + w[2]));
    ys
}

/// A filter: each piece of work keeps what it finds, and `collect` joins them in order.
pub fn loop_c(xs: &[f64], threshold: f64) -> Vec<usize> {
    (0..xs.len())
        .into_par_iter()
        .filter(|&i| xs[i] > threshold)
        .collect()
}

/// A reduction: a minimum per piece of work, then the minimum of those.
pub fn loop_d(xs: &[f64]) -> f64 {
    xs.par_iter().copied().reduce(|| f64::INFINITY, f64::min)
}

pub fn loop_e(xs: &[f64]) -> Vec<f64> {
    xs.par_iter()
        .map(|&x| if x > 0.0 { x.sqrt() } else { 0.0 })
        .collect()
}
