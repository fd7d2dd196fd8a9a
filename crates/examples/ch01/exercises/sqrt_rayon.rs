//! Exercise: "Challenge: square roots". Fill `ys` with the square roots of `xs`, in parallel
//! with rayon. The judge compares every element with the serial `f64::sqrt`: how close must
//! they be? Check your answer with `cargo run --bin judge -- ch01`.
#![allow(unused_variables, unused_imports)]
use rayon::prelude::*;

/// `ys[i] = xs[i].sqrt()` for every i; `xs` and `ys` have the same length.
pub fn sqrt_rayon(xs: &[f64], ys: &mut [f64]) {
    // TODO: fill ys in parallel.
}
