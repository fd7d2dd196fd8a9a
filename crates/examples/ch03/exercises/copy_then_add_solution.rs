//! A solution to the exercise in `copy_then_add.rs`, as in
//! `crates/examples/ch03/benchmark_with_copy.rs`.
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

use super::ch03_elementwise::AddInPlace;

pub fn copy_then_add(
    stream: &Arc<CudaStream>,
    add: &AddInPlace,
    a: &[f32],
    b: &[f32],
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let mut a_gpu = stream.clone_htod(a)?;
    let b_gpu = stream.clone_htod(b)?;
    let cfg = LaunchConfig::for_num_elems(a.len() as u32);
    add.launch(stream, cfg, &mut a_gpu, &b_gpu)?;
    Ok(a_gpu)
}
