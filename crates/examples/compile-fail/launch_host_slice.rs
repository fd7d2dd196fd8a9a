// The kernel reads device memory: a Vec on the host is not a buffer it can be given.
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod adder {
    course::kernels!("ch04-adder.cu");
}

fn add(
    k: &adder::Kernels,
    stream: &CudaStream,
    xs: &Vec<f64>,
    ys: &CudaSlice<f64>,
    zs: &mut CudaSlice<f64>,
) {
    let config = LaunchConfig::for_num_elems(zs.len() as u32);
    k.adder.launch(stream, config, xs, ys, zs).unwrap();
}

fn main() {
    let _ = add;
}
