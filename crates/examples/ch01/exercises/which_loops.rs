//! Exercise: the five loops of "Which loops can run in parallel?", written with rayon.
//! Each function must return exactly what the serial loop in its comment computes, for any
//! `xs` of at least 3 values. Check your answers with `cargo run --bin judge -- ch01`.
#![allow(unused_variables, unused_mut, unused_imports)]
use rayon::prelude::*;

/// A: `for i in 0..n - 1 { ys[i] = xs[i] * xs[i] + xs[i + 1] * xs[i + 1]; }`
pub fn loop_a(xs: &[f64]) -> Vec<f64> {
    let mut ys = vec![0.0; xs.len()];
    // TODO: with rayon.
    ys
}

/// B: `for i in 1..n - 1 { ys[i] = 0.5 * (xs[i - 1] + xs[i + 1]); }`
pub fn loop_b(xs: &[f64]) -> Vec<f64> {
    let mut ys = vec![0.0; xs.len()];
    // TODO: with rayon.
    ys
}

/// C: `for i in 0..n { if xs[i] > threshold { indices.push(i); } }`
pub fn loop_c(xs: &[f64], threshold: f64) -> Vec<usize> {
    // TODO: with rayon.
    Vec::new()
}

/// D: `let mut x_min = xs[0]; for i in 0..n { if xs[i] < x_min { x_min = xs[i]; } }`
pub fn loop_d(xs: &[f64]) -> f64 {
    // TODO: with rayon.
    0.0
}

/// E: `for i in 0..n { if xs[i] > 0.0 { ys[i] = xs[i].sqrt(); } }`
pub fn loop_e(xs: &[f64]) -> Vec<f64> {
    let mut ys = vec![0.0; xs.len()];
    // TODO: with rayon.
    ys
}
