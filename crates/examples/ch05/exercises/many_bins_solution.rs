//! Solution to "Practice 3: more bins than threads"; see `many_bins.rs`.
use cudarc::driver::LaunchConfig;

pub use super::many_bins::THREADS;

pub fn bins_launch(bins: usize, blocks: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: (bins * size_of::<u32>()) as u32,
    }
}

pub fn opt_in_bytes(bins: usize, default_limit: usize) -> Option<usize> {
    let bytes = bins * size_of::<u32>();
    (bytes > default_limit).then_some(bytes)
}
