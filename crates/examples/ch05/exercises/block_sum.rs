//! Exercise: "Practice 4: a block sum without atomics". The kernel is in
//! `kernels/ch05-exercise-block-sum.cu`; the judge launches it pass after pass, until one
//! value is left. Here, write the CPU's version of the same additions, in the same order, so
//! that the two sums agree to the bit. Check both with `cargo run --bin judge -- ch05`.
#![allow(unused_variables)]

/// The kernel's block size.
pub const THREADS: usize = 256;

/// The sum of `x` in float32, added as the kernel adds it: each block of 256 values (the last
/// one padded with zeros) is summed as the tree does it (slot t += slot t + stride, for
/// stride 128, 64, ..., 1), and the block sums are summed the same way, until one is left.
pub fn sum_in_kernel_order(x: &[f32]) -> f32 {
    // TODO: the passes of the kernel, on the CPU.
    0.0
}
