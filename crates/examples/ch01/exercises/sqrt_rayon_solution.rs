//! A solution to the exercise in `sqrt_rayon.rs`, as in `crates/examples/ch01/sqrt_rayon.rs`.
use rayon::prelude::*;

pub fn sqrt_rayon(xs: &[f64], ys: &mut [f64]) {
    ys.par_iter_mut().zip(xs).for_each(|(y, &x)| *y = x.sqrt());
}
