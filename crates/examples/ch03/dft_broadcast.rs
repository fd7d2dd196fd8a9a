//! The discrete Fourier transform by broadcasting: build the N x N array of terms
//! x[n]·exp(-2πi kn/N) and sum each row. ndarray on the CPU, two kernels on the GPU, for N from
//! 100 to 5000; each checked against a real FFT (rustfft on the CPU, cuFFT on the GPU).
use std::f64::consts::TAU;

use ndarray::{Array1, Axis, NewAxis, Zip, s};
use num_complex::Complex64;
use rustfft::FftPlanner;

use cudarc::cufft::{CudaFft, FftDirection, sys::cufftType, sys::double2};
use cudarc::driver::{CudaSlice, LaunchConfig};

use course::compare::{relative_error, within_bound};
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_times, time_cpu, time_gpu};

mod ch03_broadcast {
    course::kernels!("ch03-broadcast.cu");
}

const SIZES: [usize; 6] = [100, 200, 500, 1000, 2000, 5000];

// ANCHOR: cpu
/// X[k] = Σₙ x[n]·exp(-2πi kn/N), by broadcasting: a k x n array of phases, its exponentials
/// (computed in parallel with rayon), times x along each row, summed along each row.
fn dft_broadcast(xs: &Array1<Complex64>) -> Array1<Complex64> {
    let n = xs.len();
    let index = Array1::from_iter((0..n).map(|i| i as f64)); // both k and n run over 0..N
    let phases = &index.slice(s![.., NewAxis]) * &index.slice(s![NewAxis, ..]) / n as f64;
    let mut terms = Zip::from(&phases).par_map_collect(|&p| Complex64::cis(-TAU * p));
    terms *= &xs.slice(s![NewAxis, ..]);
    terms.sum_axis(Axis(1))
}
// ANCHOR_END: cpu

fn main() {
    let seed = course::cli::parse(
        "Times the DFT by broadcasting on the CPU and the GPU for N up to 5000, checked by FFTs.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    let module = kernel::load(&ctx, &kernel_file!("ch03-broadcast.cu"), false);
    let k = ch03_broadcast::Kernels::load(&module);
    println!("seed {seed}");
    let mut rng = Rng::new(seed);

    println!("{:>5} {:>12} {:>12} {:>9}", "N", "CPU", "GPU", "speedup");
    // The largest relative error over every N: CPU against rustfft, GPU against cuFFT, GPU
    // against CPU. NaN, from any N, stays NaN and fails.
    let mut worst = [0.0f64; 3];
    for n in SIZES {
        // Real and imaginary parts from a normal distribution, as in the NumPy original.
        let xs: Array1<Complex64> = (0..n)
            .map(|_| Complex64::new(rng.normal(), rng.normal()))
            .collect();

        // ANCHOR: gpu
        let x_gpu: CudaSlice<double2> = stream
            .clone_htod(&to_double2(xs.as_slice().expect("contiguous")))
            .or_exit("copy to the GPU");
        // Like CuPy, each call allocates the N x N intermediate and the result.
        let dft_gpu = || -> CudaSlice<double2> {
            // SAFETY: left uninitialised, as CuPy's are; the kernels write every element (their
            // contracts make the grid cover both arrays) before anything reads it.
            let mut terms =
                unsafe { stream.alloc::<double2>(n * n) }.or_exit("allocate GPU memory");
            // SAFETY: as above.
            let mut out = unsafe { stream.alloc::<double2>(n) }.or_exit("allocate GPU memory");
            let cfg = LaunchConfig::for_num_elems((n * n) as u32);
            k.dft_terms
                .launch(&stream, cfg, &x_gpu, &mut terms)
                .or_exit_launching(&k.dft_terms);
            let cfg = LaunchConfig::for_num_elems(n as u32);
            k.sum_terms
                .launch(&stream, cfg, &terms, &mut out)
                .or_exit_launching(&k.sum_terms);
            out
        };
        // ANCHOR_END: gpu
        let on_gpu = from_double2(&stream.clone_dtoh(&dft_gpu()).or_exit("copy from the GPU"));
        let on_cpu = dft_broadcast(&xs);

        // ANCHOR: check
        let mut fft_cpu = xs.to_vec();
        FftPlanner::new().plan_fft_forward(n).process(&mut fft_cpu);
        let plan = CudaFft::plan_1d(n as i32, cufftType::CUFFT_Z2Z, 1, stream.clone())
            .or_exit("plan a cuFFT transform");
        let mut fft_in = x_gpu.clone();
        let mut fft_out = course::gpu::alloc_poisoned::<double2>(&stream, n);
        plan.exec_z2z(&mut fft_in, &mut fft_out, FftDirection::Forward)
            .or_exit("run cuFFT");
        let fft_gpu = from_double2(&stream.clone_dtoh(&fft_out).or_exit("copy from the GPU"));
        // ANCHOR_END: check
        let on_cpu = on_cpu.as_slice().expect("contiguous");
        let errors = [
            complex_error(on_cpu, &fft_cpu),
            complex_error(&on_gpu, &fft_gpu),
            complex_error(&on_gpu, on_cpu),
        ];
        for (w, e) in worst.iter_mut().zip(errors) {
            *w = if e.is_nan() || e > *w { e } else { *w };
        }

        let reps = if n >= 2000 { 3 } else { 10 };
        let cpu = time_cpu(1, reps, || dft_broadcast(&xs));
        let gpu = time_gpu(&stream, 2, 10, || drop(dft_gpu()));
        println!(
            "{n:>5} {:>12} {:>12} {:>9}",
            fmt_ms(cpu.median_ms),
            fmt_ms(gpu.median_ms),
            fmt_times(cpu.median_ms / gpu.median_ms),
        );
    }
    for (what, w) in [
        "the CPU's DFT against rustfft",
        "the GPU's DFT against cuFFT",
        "the GPU's DFT against the CPU's",
    ]
    .iter()
    .zip(worst)
    {
        let (line, _) = within_bound(
            &format!("largest relative error, {what}, over every N"),
            w,
            1e-10,
        );
        println!("{line}");
    }
}

fn to_double2(v: &[Complex64]) -> Vec<double2> {
    v.iter().map(|c| double2 { x: c.re, y: c.im }).collect()
}

fn from_double2(v: &[double2]) -> Vec<Complex64> {
    v.iter().map(|c| Complex64::new(c.x, c.y)).collect()
}

/// Relative error of complex vectors, over their real and imaginary parts together.
fn complex_error(got: &[Complex64], want: &[Complex64]) -> f64 {
    let flat = |v: &[Complex64]| v.iter().flat_map(|c| [c.re, c.im]).collect::<Vec<f64>>();
    relative_error(&flat(got), &flat(want))
}
