//! Exercise: the grid of "Challenge: write candidate 2" (chapter 4). Its two kernels are in
//! `kernels/ch04-exercise-matmul-2d.cu`. Check both with `cargo run --bin judge -- ch04`.
#![allow(unused_variables)]
use cudarc::driver::LaunchConfig;

/// The launch for a C of m rows and p columns: blocks of 16×16 threads, x along the columns
/// (j) and y along the rows (i), and enough blocks for one thread per element.
pub fn grid_2d(m: usize, p: usize) -> LaunchConfig {
    // TODO: the number of blocks along x and along y.
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    }
}
