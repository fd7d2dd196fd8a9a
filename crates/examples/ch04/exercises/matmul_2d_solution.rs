//! A solution to the exercise in `matmul_2d.rs`, as in `crates/examples/ch04/matmul_gpu.rs`.
use cudarc::driver::LaunchConfig;

pub fn grid_2d(m: usize, p: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((p as u32).div_ceil(16), (m as u32).div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    }
}
