//! A solution to the exercise in `dft_gpu.rs`, as in `crates/examples/ch04/dft_gpu.rs`.
use cudarc::driver::LaunchConfig;

pub fn dft_config(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}
