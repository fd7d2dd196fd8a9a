//! Exercise: "How many pixels per thread?". The launch of `image_coarse_K_256` in
//! `kernels/ch07-exercise-coarsening.cu`, whose threads compute K pixels each. Time the six
//! kernels on the chapter's problem yourself; `cargo run --bin judge -- ch07` checks this
//! launch and, on a GPU, every kernel's image.
#![allow(unused_variables)]
use cudarc::driver::LaunchConfig;

/// Threads per block of every `image_coarse_K_256`: its tile of visibilities.
pub const BLOCK: u32 = 256;

/// The launch for `n_px` pixels, `k` per thread: blocks of `BLOCK` threads, and the fewest
/// blocks that give every pixel a thread.
pub fn coarse_config(n_px: usize, k: usize) -> LaunchConfig {
    // TODO: the grid shrinks as k grows.
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    }
}
