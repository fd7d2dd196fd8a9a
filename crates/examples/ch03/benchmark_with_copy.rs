//! The benchmarking challenge: `a += b` where a and b start on the host and are copied to the
//! GPU inside the timed work, against the same sum on arrays already there.
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_gpu};

const N: usize = 100_000_000;

mod ch03_elementwise {
    course::kernels!("ch03-elementwise.cu");
}

fn main() {
    let seed = course::cli::parse(
        "Times a += b on the GPU with the copies from the host inside the timing, and without.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = kernel::load(&ctx, &kernel_file!("ch03-elementwise.cu"), false);
    let k = ch03_elementwise::Kernels::load(&module);

    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let a = rng.vec_f32(N, -1.0, 1.0);
    let b = rng.vec_f32(N, -1.0, 1.0);

    // ANCHOR: with_copy
    // The arrays start on the host; each run copies them over, then adds.
    let mut sum_gpu = None;
    let with_copy = time_gpu(&stream, 1, 10, || {
        let mut a_gpu = stream.clone_htod(&a).or_exit("copy to the GPU");
        let b_gpu = stream.clone_htod(&b).or_exit("copy to the GPU");
        launch_add(&stream, &k.add_in_place, &mut a_gpu, &b_gpu);
        sum_gpu = Some(a_gpu);
    });
    // ANCHOR_END: with_copy

    // ANCHOR: without_copy
    // The arrays are already on the GPU; each run only adds (so a keeps growing: that is fine
    // for timing, and the check below uses the copy-inclusive result).
    let mut a_gpu = stream.clone_htod(&a).or_exit("copy to the GPU");
    let b_gpu = stream.clone_htod(&b).or_exit("copy to the GPU");
    let without_copy = time_gpu(&stream, 1, 10, || {
        launch_add(&stream, &k.add_in_place, &mut a_gpu, &b_gpu)
    });
    // ANCHOR_END: without_copy

    println!(
        "copy a and b, then add: GPU {}, CPU {}",
        fmt_ms(with_copy.median_ms),
        fmt_ms(with_copy.cpu_ms)
    );
    println!(
        "add only:               GPU {}, CPU {}",
        fmt_ms(without_copy.median_ms),
        fmt_ms(without_copy.cpu_ms)
    );
    println!(
        "the copies make it {} slower",
        fmt_speedup(with_copy.median_ms, without_copy.median_ms)
    );
    println!(
        "the copies make it at least ten times slower: {}",
        verdict(with_copy.median_ms >= 10.0 * without_copy.median_ms)
    );

    let got = stream
        .clone_dtoh(&sum_gpu.expect("at least one run"))
        .or_exit("copy from the GPU");
    let want: Vec<f32> = a.par_iter().zip(&b).map(|(x, y)| x + y).collect();
    println!(
        "a + b matches the CPU exactly: {}",
        verdict(count_mismatches(&got, &want) == 0)
    );
}

fn launch_add(
    stream: &Arc<CudaStream>,
    add: &ch03_elementwise::AddInPlace,
    a: &mut CudaSlice<f32>,
    b: &CudaSlice<f32>,
) {
    let cfg = LaunchConfig::for_num_elems(N as u32);
    add.launch(stream, cfg, a, b).or_exit_launching(add);
}
