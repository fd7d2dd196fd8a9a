//! Exercise: "Challenge: which candidate?" (chapter 4), answered in code. Name the candidate
//! you would launch, count the threads of each candidate's grid, and run your candidate with
//! rayon, each task writing only the part of C that it owns. A is m×n, B is n×p and C is m×p,
//! all row-major. Check your answers with `cargo run --bin judge -- ch04`.
#![allow(unused_variables, unused_mut, unused_imports)]
use rayon::prelude::*;

// TODO: the candidate (1 to 4) you would launch on a GPU.
pub const CHOICE: u32 = 0;

/// The threads that the grids of candidates 1, 2, 3 and 4 launch, for A m×n and B n×p.
pub fn threads(m: u64, n: u64, p: u64) -> [u64; 4] {
    // TODO: count each candidate's threads.
    [0; 4]
}

/// C = A·B with your candidate under rayon. If the compiler refuses it, ask why.
pub fn choice_in_parallel(a: &[f64], b: &[f64], m: usize, n: usize, p: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * p];
    // TODO: one rayon task per thread of your candidate's grid.
    c
}
