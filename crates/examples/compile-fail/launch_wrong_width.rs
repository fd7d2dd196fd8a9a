// polish takes `long long n`, an i64: a usize is another type, even where it is 64 bits wide.
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod streams {
    course::kernels!("ch03-streams.cu");
}

fn polish(k: &streams::Kernels, stream: &CudaStream, x: &mut CudaSlice<f32>) {
    let config = LaunchConfig::for_num_elems(x.len() as u32);
    unsafe { k.polish(stream, config, x, x.len(), 150) }.unwrap();
}

fn main() {
    let _ = polish;
}
