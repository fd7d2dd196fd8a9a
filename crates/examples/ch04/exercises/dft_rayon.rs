//! Exercise: "Part 2: in parallel on the CPU" of the DFT (chapter 4). Take the body of the
//! loop that may run in parallel out as a kernel, and run it with rayon. Check both functions
//! with `cargo run --bin judge -- ch04`, which compares them with rustfft.
#![allow(unused_variables, unused_imports)]
use num_complex::Complex64;
use rayon::prelude::*;

/// One output of the DFT, X[k], into `out`; N = `xs.len()`.
pub fn dft_kernel(k: usize, xs: &[Complex64], out: &mut Complex64) {
    // TODO: the sum over j for this k.
}

/// The whole DFT of `xs` into `out` (of the same length), calling `dft_kernel` in parallel.
pub fn dft_parallel(xs: &[Complex64], out: &mut [Complex64]) {
    // TODO: which loop runs in parallel?
}
