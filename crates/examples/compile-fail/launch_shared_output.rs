// times_two(const float *a, float *out, long long n) writes `out`: a shared borrow will not do.
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod streams {
    course::kernels!("ch03-streams.cu");
}

fn double(k: &streams::Kernels, stream: &CudaStream, a: &CudaSlice<f32>, out: &CudaSlice<f32>) {
    let config = LaunchConfig::for_num_elems(a.len() as u32);
    k.times_two.launch(stream, config, a, out).unwrap();
}

fn main() {
    let _ = double;
}
