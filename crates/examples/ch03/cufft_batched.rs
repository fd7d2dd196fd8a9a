//! A batched 2-D FFT with cuFFT: four 1024 x 1024 complex images, transformed with a new plan
//! each time and with one plan reused, checked against rustfft on the CPU.
use std::sync::Arc;

use num_complex::Complex64;
use rayon::prelude::*;
use rustfft::{Fft, FftPlanner};

use cudarc::cufft::{CudaFft, FftDirection, sys::cufftType, sys::double2};
use cudarc::driver::{CudaSlice, CudaStream};

use course::compare::{relative_error, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{Work, fmt_ms, fmt_speedup, record, time_cpu, time_gpu};

const BATCH: usize = 4;
const SIDE: usize = 1024;
const IMAGE: usize = SIDE * SIDE;

// ANCHOR: plan
/// A plan for `BATCH` 2-D transforms of `SIDE` x `SIDE` complex f64 values, stored one image
/// after another: what `fftn(a, axes=(1, 2))` does to a 4 x 1024 x 1024 array.
fn make_plan(stream: &Arc<CudaStream>) -> CudaFft {
    let dims = [SIDE as i32, SIDE as i32];
    CudaFft::plan_many(
        &dims,
        None,
        1,
        IMAGE as i32,
        None,
        1,
        IMAGE as i32,
        cufftType::CUFFT_Z2Z,
        BATCH as i32,
        stream.clone(),
    )
    .or_exit("plan a cuFFT transform")
}
// ANCHOR_END: plan

fn main() {
    let seed = course::cli::parse(
        "Times a batched 2-D cuFFT, planned each time and planned once, checked by rustfft.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let a_host: Vec<double2> = (0..BATCH * IMAGE)
        .map(|_| double2 {
            x: rng.normal(),
            y: rng.normal(),
        })
        .collect();
    let mut a = stream.clone_htod(&a_host).or_exit("copy to the GPU");
    let mut spectrum: CudaSlice<double2> = alloc_poisoned(&stream, BATCH * IMAGE);

    // ANCHOR: timing
    // A new plan for every transform: planning, workspace allocation, transform, clean-up.
    let fresh = wall_ms(&stream, 10, || {
        let plan = make_plan(&stream);
        plan.exec_z2z(&mut a, &mut spectrum, FftDirection::Forward)
            .or_exit("run cuFFT");
    });
    // One plan, made once and reused.
    let plan = make_plan(&stream);
    let reused = wall_ms(&stream, 10, || {
        plan.exec_z2z(&mut a, &mut spectrum, FftDirection::Forward)
            .or_exit("run cuFFT")
    });
    // ANCHOR_END: timing
    let on_gpu = time_gpu(&stream, 2, 10, || {
        plan.exec_z2z(&mut a, &mut spectrum, FftDirection::Forward)
            .or_exit("run cuFFT")
    });
    let flops = 5.0 * (BATCH * IMAGE) as f64 * (IMAGE as f64).log2();
    record(
        "cuFFT 4 x 1024x1024 Z2Z (FP64, 5 N log2 N flops)",
        &on_gpu,
        Work::Flops(flops),
    );
    println!("4 x 1024 x 1024 complex f64, 2-D FFT of each image (wall time, median of 10):");
    println!("  new plan each time: {:>9}", fmt_ms(fresh));
    println!(
        "  one plan, reused:   {:>9}   (GPU time by events: {})",
        fmt_ms(reused),
        fmt_ms(on_gpu.median_ms)
    );
    println!(
        "  reusing the plan is {} faster",
        fmt_speedup(fresh, reused)
    );

    // ANCHOR: check
    let got: Vec<Complex64> = stream
        .clone_dtoh(&spectrum)
        .or_exit("copy from the GPU")
        .iter()
        .map(|c| Complex64::new(c.x, c.y))
        .collect();
    let input: Vec<Complex64> = a_host.iter().map(|c| Complex64::new(c.x, c.y)).collect();
    let fft = FftPlanner::new().plan_fft_forward(SIDE);
    let mut want = input.clone();
    fft_2d_batched(&mut want, &fft);
    let flat = |v: &[Complex64]| v.iter().flat_map(|c| [c.re, c.im]).collect::<Vec<f64>>();
    let err = relative_error(&flat(&got), &flat(&want));
    // ANCHOR_END: check
    let (line, _) = within_bound("cuFFT, relative error against rustfft", err, 1e-12);
    println!("{line}");
    let cpu = time_cpu(1, 5, || {
        let mut data = input.clone();
        fft_2d_batched(&mut data, &fft);
        data
    });
    println!(
        "rustfft with rayon on the CPU: {} (including a copy of the input)",
        fmt_ms(cpu.median_ms)
    );
}

/// Median wall time of `work` followed by waiting for the GPU: what a caller experiences.
fn wall_ms(stream: &CudaStream, reps: usize, mut work: impl FnMut()) -> f64 {
    let t = time_cpu(1, reps, || {
        work();
        stream.synchronize().or_exit("wait for the GPU");
    });
    t.median_ms
}

/// A 2-D FFT of each image: transform every row, transpose, transform every row again,
/// transpose back. Rows go to rayon's threads.
fn fft_2d_batched(data: &mut [Complex64], fft: &Arc<dyn Fft<f64>>) {
    let mut scratch = vec![Complex64::new(0.0, 0.0); IMAGE];
    for image in data.chunks_mut(IMAGE) {
        image.par_chunks_mut(SIDE).for_each(|row| fft.process(row));
        transpose(image, &mut scratch);
        scratch
            .par_chunks_mut(SIDE)
            .for_each(|row| fft.process(row));
        transpose(&scratch, image);
    }
}

fn transpose(from: &[Complex64], to: &mut [Complex64]) {
    to.par_chunks_mut(SIDE).enumerate().for_each(|(i, row)| {
        for (j, value) in row.iter_mut().enumerate() {
            *value = from[j * SIDE + i];
        }
    });
}
