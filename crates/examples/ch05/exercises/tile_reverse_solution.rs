//! A solution to the exercise in `tile_reverse.rs`, as in
//! `crates/examples/ch05/tile_reverse_dynamic.rs`.
use cudarc::driver::LaunchConfig;

pub fn tile_launch(n: usize, tile: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n / tile) as u32, 1, 1),
        block_dim: (tile as u32, 1, 1),
        shared_mem_bytes: (tile * size_of::<f32>()) as u32,
    }
}
