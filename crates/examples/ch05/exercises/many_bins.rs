//! Exercise: "Practice 3: more bins than threads". Its kernel is in
//! `kernels/ch05-exercise-histogram-bins.cu`. Check both with `cargo run --bin judge -- ch05`.
#![allow(unused_variables)]
use cudarc::driver::LaunchConfig;

/// Threads per block of the histogram.
pub const THREADS: usize = 256;

/// The launch of `hist_shared_bins` with `bins` bins in `blocks` blocks of [`THREADS`]: the
/// shared histogram is the kernel's dynamic shared memory.
pub fn bins_launch(bins: usize, blocks: usize) -> LaunchConfig {
    // TODO: the grid, the block and the shared histogram's bytes.
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The bytes to raise the kernel's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to before
/// launching it with `bins` bins, or `None` if the device's `default_limit` (bytes of shared
/// memory a block gets without asking) is enough.
pub fn opt_in_bytes(bins: usize, default_limit: usize) -> Option<usize> {
    // TODO: compare the histogram's bytes with the default limit.
    None
}
