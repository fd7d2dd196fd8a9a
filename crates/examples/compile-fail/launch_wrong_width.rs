// polish(float *x, long long n, int rounds) takes `int rounds`, an i32: a u32 is another type,
// even though it is 32 bits wide too. (`n` the launcher computes from `x`.)
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod streams {
    course::kernels!("ch03-streams.cu");
}

fn polish(k: &streams::Kernels, stream: &CudaStream, x: &mut CudaSlice<f32>, rounds: u32) {
    let config = LaunchConfig::for_num_elems(x.len() as u32);
    k.polish.launch(stream, config, x, rounds).unwrap();
}

fn main() {
    let _ = polish;
}
