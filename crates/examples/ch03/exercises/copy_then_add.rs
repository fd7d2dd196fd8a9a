//! Exercise: "Challenge: copies inside the timing" ("Timing GPU work"): the work to time when
//! `a` and `b` start on the host. `cargo run --bin judge -- ch03` checks its sum on a GPU; the
//! timing is yours, with `time_gpu`, as `crates/examples/ch03/benchmark_with_copy.rs` times it.
#![allow(unused_imports, unused_variables)]
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

// The launcher of `add_in_place` in kernels/ch03-elementwise.cu: `a += b`, one thread each.
use super::ch03_elementwise::AddInPlace;

/// One timed run: copy `a` and `b` to the GPU, add `b` to `a` there with `add`, and return
/// the sum, still on the GPU.
pub fn copy_then_add(
    stream: &Arc<CudaStream>,
    add: &AddInPlace,
    a: &[f32],
    b: &[f32],
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    // TODO: two copies to the GPU, then the launch.
    todo!("copy a and b to the GPU, then launch add")
}
