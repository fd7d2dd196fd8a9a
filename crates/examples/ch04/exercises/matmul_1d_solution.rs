//! A solution to the exercise in `matmul_1d.rs`, as in `crates/examples/ch04/matmul_gpu.rs`.
use cudarc::driver::LaunchConfig;

/// m·p threads, in blocks of 256.
pub fn grid_1d(m: usize, p: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (((m * p) as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}
