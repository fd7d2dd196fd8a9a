//! Exercise: the CPU's side of "Challenge 2: an exclusive scan": the answer the GPU's warp
//! scan must give. Its kernels are in `kernels/ch06-exercise-scan.cu`. Check both with
//! `cargo run --bin judge -- ch06`.
#![allow(unused_mut)]

/// The exclusive scan of each warp's 32 values on its own (the last warp may be shorter):
/// element k of a warp gets the sum of the warp's elements before it, wrapping like a u32 on
/// the GPU, so every warp starts at 0.
pub fn exclusive_per_warp(values: &[u32]) -> Vec<u32> {
    let mut out = vec![0; values.len()];
    // TODO: fill out, one warp of 32 at a time.
    out
}
