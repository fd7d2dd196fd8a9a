//! A solution to the exercise in `multiplier.rs`, as in `crates/examples/ch04/multiplier.rs`.
use cudarc::driver::LaunchConfig;

pub fn launch_config(n: usize) -> LaunchConfig {
    let threads = 256u32;
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(threads), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}
