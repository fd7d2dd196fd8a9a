// adder adds doubles: a buffer of f32 has the wrong element type.
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod adder {
    course::kernels!("ch04-adder.cu");
}

fn add(
    k: &adder::Kernels,
    stream: &CudaStream,
    xs: &CudaSlice<f32>,
    ys: &CudaSlice<f64>,
    zs: &mut CudaSlice<f64>,
) {
    let config = LaunchConfig::for_num_elems(zs.len() as u32);
    k.adder.launch(stream, config, xs, ys, zs).unwrap();
}

fn main() {
    let _ = add;
}
