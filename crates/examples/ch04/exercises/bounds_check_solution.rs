//! A solution to the exercise in `bounds_check.rs`.

/// Thread `i` of the grid writes `zs[i]`, and the grid has `blocks * block` threads: every
/// thread from `n` on writes past the end. With as many threads as elements (1,024 on 4 blocks
/// of 256) there are none, which is why the bug hides at those sizes.
pub fn written_past_end(n: usize, blocks: usize, block: usize) -> Vec<usize> {
    (n..blocks * block).collect()
}
