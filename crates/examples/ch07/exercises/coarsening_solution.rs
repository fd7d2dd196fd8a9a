//! A solution to the exercise in `coarsening.rs`, as in
//! `crates/examples/ch07/challenge_coarsening.rs` (`OnGpu::config`).
use cudarc::driver::LaunchConfig;

use super::coarsening::BLOCK;

pub fn coarse_config(n_px: usize, k: usize) -> LaunchConfig {
    let blocks = n_px.div_ceil(k).div_ceil(BLOCK as usize);
    LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}
