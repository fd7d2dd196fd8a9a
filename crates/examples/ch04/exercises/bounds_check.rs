//! Exercise: "Challenge: what does the bounds check cost?". The kernel of
//! `kernels/ch04-exercise-bounds.cu` is the adder with `if (i < n)` deleted. Check your answer
//! with `cargo run --bin judge -- ch04`.
#![allow(unused_variables)]

/// The elements of `zs` that the adder without its bounds check writes although they are not
/// among the `n` the caller asked for, when it runs on `blocks` blocks of `block` threads, in
/// ascending order (empty if there are none).
pub fn written_past_end(n: usize, blocks: usize, block: usize) -> Vec<usize> {
    // TODO: which elements, for any n and grid?
    todo!("the elements written past the end")
}
