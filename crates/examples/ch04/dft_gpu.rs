//! The DFT on the GPU in f32, one thread per k, for N = 100,000 and N = 131,072: the naive
//! phase against the exactly reduced one, each compared with a float64 FFT on the CPU
//! (rustfft) and beside cuFFT on the same GPU.
use std::sync::Arc;

use course::compare::{relative_error, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_ms, record, time_gpu};
use cudarc::cufft::{CudaFft, FftDirection, sys::cufftType, sys::float2};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use num_complex::Complex64;
use rustfft::FftPlanner;

mod ch04_dft {
    course::kernels!("ch04-dft.cu");
}

/// Real and imaginary parts side by side, in f64.
fn flat(v: &[float2]) -> Vec<f64> {
    v.iter().flat_map(|c| [c.x as f64, c.y as f64]).collect()
}

// ANCHOR: launch
/// One thread per output k, 256 threads per block. Both kernels take the same arguments, so
/// they share one launcher type, named after the first.
fn run_dft(
    stream: &Arc<CudaStream>,
    kernel: &ch04_dft::DftNaivePhase,
    xs: &CudaSlice<float2>,
    n: usize,
) -> (f64, Vec<float2>) {
    let mut out = alloc_poisoned::<float2>(stream, n);
    let config = LaunchConfig {
        grid_dim: ((n as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // ANCHOR_END: launch
    let t = time_gpu(stream, 1, 5, || {
        // ANCHOR: launch
        kernel
            .launch(stream, config, xs, &mut out)
            .or_exit_launching(kernel);
        // ANCHOR_END: launch
    });
    // ANCHOR: launch
    // 8 floating-point operations per term (a complex multiply-add), not counting sincos.
    // ANCHOR_END: launch
    record(
        &format!("{}, n={n}", kernel.name),
        &t,
        Work::Flops(8.0 * (n * n) as f64),
    );
    // ANCHOR: launch
    (
        t.median_ms,
        stream.clone_dtoh(&out).or_exit("copy X back from the GPU"),
    )
}
// ANCHOR_END: launch

fn main() {
    let seed = course::cli::parse(
        "Runs the f32 DFT kernels with the naive and the reduced phase, against rustfft and cuFFT.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    // Fast math: sincosf becomes the hardware's approximate sine and cosine.
    let module = load(&ctx, &kernel_file!("ch04-dft.cu"), true);
    let k = ch04_dft::Kernels::load(&module);
    println!("inputs drawn with seed {seed}");
    let mut rng = Rng::new(seed);

    // ANCHOR: compare
    for n in [100_000usize, 131_072] {
        let xs: Vec<float2> = (0..n)
            .map(|_| float2 {
                x: rng.f32() * 2.0 - 1.0,
                y: rng.f32() * 2.0 - 1.0,
            })
            .collect();
        // The reference: the same f32 inputs, transformed in f64 on the CPU.
        let mut want: Vec<Complex64> = xs
            .iter()
            .map(|c| Complex64::new(c.x as f64, c.y as f64))
            .collect();
        FftPlanner::<f64>::new()
            .plan_fft_forward(n)
            .process(&mut want);
        let want: Vec<f64> = want.iter().flat_map(|c| [c.re, c.im]).collect();

        let mut xs_dev = stream.clone_htod(&xs).or_exit("copy x to the GPU");
        let (t_naive, x_naive) = run_dft(&stream, &k.dft_naive_phase, &xs_dev, n);
        let (t_reduced, x_reduced) = run_dft(&stream, &k.dft_reduced_phase, &xs_dev, n);

        // cuFFT in f32 on the same input (it leaves the input unchanged out of place).
        let fft = CudaFft::plan_1d(n as i32, cufftType::CUFFT_C2C, 1, stream.clone())
            .or_exit("plan a cuFFT transform");
        let mut x_fft = alloc_poisoned::<float2>(&stream, n);
        // ANCHOR_END: compare
        let t_fft = time_gpu(&stream, 1, 5, || {
            // ANCHOR: compare
            fft.exec_c2c(&mut xs_dev, &mut x_fft, FftDirection::Forward)
                .or_exit("run cuFFT");
            // ANCHOR_END: compare
        });
        // ANCHOR: compare
        let x_fft = stream
            .clone_dtoh(&x_fft)
            .or_exit("copy cuFFT's result back");

        println!("N = {n}");
        println!("  naive phase:   {:>9}", fmt_ms(t_naive));
        println!("  reduced phase: {:>9}", fmt_ms(t_reduced));
        println!("  cuFFT:         {:>9}", fmt_ms(t_fft.median_ms));
        // f32 rounding over N terms stays below 1e-4 of the result; the naive phase does not.
        let bound = 1e-4;
        let x_fft = flat(&x_fft);
        for (what, got, reference) in [
            (
                "naive phase, relative error from the f64 FFT",
                flat(&x_naive),
                &want,
            ),
            (
                "reduced phase, relative error from the f64 FFT",
                flat(&x_reduced),
                &want,
            ),
            (
                "cuFFT, relative error from the f64 FFT",
                x_fft.clone(),
                &want,
            ),
            (
                "reduced phase, relative difference from cuFFT",
                flat(&x_reduced),
                &x_fft,
            ),
        ] {
            // ANCHOR_END: compare
            let (line, _) =
                within_bound(&format!("  {what}"), relative_error(&got, reference), bound);
            println!("{line}");
            // ANCHOR: compare
        }
    }
    // ANCHOR_END: compare
}
