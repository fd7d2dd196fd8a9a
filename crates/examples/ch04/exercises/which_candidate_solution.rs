//! A solution to the exercise in `which_candidate.rs`: candidate 2, as in
//! `crates/examples/ch04/matmul_candidates.rs`.
use rayon::prelude::*;

pub const CHOICE: u32 = 2;

pub fn threads(m: u64, n: u64, p: u64) -> [u64; 4] {
    [m * n * p, m * p, m * n, m]
}

/// One task per element of C, which it alone writes.
pub fn choice_in_parallel(a: &[f64], b: &[f64], m: usize, n: usize, p: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * p];
    c.par_iter_mut().enumerate().for_each(|(ij, c_ij)| {
        let (i, j) = (ij / p, ij % p);
        *c_ij = (0..n)
            .map(|k| a[i * n + k] * b[k * p + j])
            .fold(0.0, |s, x| s + x);
    });
    c
}
