//! Chapter 4's adder written in Rust: `zs[i] = xs[i] + ys[i]`, one unit per element, or per
//! pair of f64 (16 bytes) where the length is even. Its C++ twin is `adder` of
//! `kernels/ch04-adder.cu`, the fastest adder of chapter 4.

use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned};
use course::kernel::{KernelFile, load};
use course::random::Rng;
use course::timing::{fmt_ms, time_gpu};
use cubecl::calculate_cube_count_elemwise;
use cubecl::prelude::*;
use cudarc::driver::{CudaContext, LaunchConfig};
use rayon::prelude::*;

use crate::args::ProblemSize;
use crate::device::Gpu;
use crate::report;
use crate::timing::{REPS, WARMUP, first_launch, time_batches};

pub const SIZE: ProblemSize = ProblemSize {
    what: "the array length",
    min: 1,
    max: 1 << 28,
    cuda: 1 << 26,
    wgpu: 1 << 20,
};

// ANCHOR: kernel
/// `zs = xs + ys`, `N` values per unit: the launch picks `N` (a `Size`) at run time.
#[cube(launch_unchecked)]
pub fn adder<F: Float, N: Size>(
    xs: &Array<Vector<F, N>>,
    ys: &Array<Vector<F, N>>,
    zs: &mut Array<Vector<F, N>>,
) {
    let i = ABSOLUTE_POS;
    // The grid is rounded up to whole cubes, so the last cube may reach past the end.
    if i < zs.len() {
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: kernel

mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

const CH04_ADDER: KernelFile = KernelFile {
    name: "ch04-adder.cu",
    source: include_str!("../../../../kernels/ch04-adder.cu"),
};

const CUBE: u32 = 256;

pub fn run<R: Runtime>(gpu: &Gpu<R>, n: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    println!("{n} random f64 values in each input, seed {seed}");
    let started = std::time::Instant::now();
    let want: Vec<f64> = xs.par_iter().zip(&ys).map(|(x, y)| x + y).collect();
    println!(
        "CPU, rayon: {}",
        fmt_ms(started.elapsed().as_secs_f64() * 1e3)
    );

    // ANCHOR: launch
    let width = if n.is_multiple_of(2) { 2 } else { 1 };
    let vectors = n / width;
    let (xs_d, ys_d) = (gpu.upload(&xs), gpu.upload(&ys));
    let zs_d = gpu.poisoned(n * size_of::<f64>());
    let cube_dim = CubeDim::new_1d(CUBE);
    let cube_count = calculate_cube_count_elemwise(&gpu.client, vectors, cube_dim);
    let launch = || {
        // SAFETY: the three arrays hold n f64 (lengths count elements, not vectors), and the
        // kernel touches vector i only when i < zs.len(), the number of vectors. Unchecked:
        // CubeCL adds no bounds test of its own to each access.
        unsafe {
            adder::launch_unchecked::<f64, R>(
                &gpu.client,
                cube_count.clone(),
                cube_dim,
                width,
                ArrayArg::from_raw_parts(xs_d.clone(), n),
                ArrayArg::from_raw_parts(ys_d.clone(), n),
                ArrayArg::from_raw_parts(zs_d.clone(), n),
            )
        }
    };
    // ANCHOR_END: launch
    let first = first_launch(|| gpu.sync(), launch);
    let zs: Vec<f64> = gpu.download(zs_d.clone());
    println!("CubeCL adder: cubes of {CUBE} units, {width} f64 per unit");
    let wrong = count_mismatches(&zs, &want);
    println!(
        "CubeCL sums that differ from the CPU's: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );
    report::compilation("CubeCL adder", first);

    let batch = report::batch(gpu.cuda.is_some());
    let cubecl = time_batches(batch, || gpu.sync(), launch);
    let bytes = 3.0 * 8.0 * n as f64;
    report::method(batch);
    report::rate("CubeCL adder", &cubecl, bytes);
    if let Some(ctx) = &gpu.cuda {
        let cpp = cpp_twin(ctx, &xs, &ys, &want, batch, bytes);
        report::ratio(&cubecl, &cpp);
    }
}

/// The C++ adder on the same inputs: checked, then timed in batches and with CUDA events.
fn cpp_twin(
    ctx: &Arc<CudaContext>,
    xs: &[f64],
    ys: &[f64],
    want: &[f64],
    batch: usize,
    bytes: f64,
) -> course::timing::Timing {
    let stream = ctx.default_stream();
    let kernels = ch04_adder::Kernels::load(&load(ctx, &CH04_ADDER, false));
    let xs_d = stream.clone_htod(xs).or_exit("copy xs to the GPU");
    let ys_d = stream.clone_htod(ys).or_exit("copy ys to the GPU");
    let mut zs_d = alloc_poisoned::<f64>(&stream, xs.len());
    let config = LaunchConfig {
        grid_dim: (xs.len().div_ceil(CUBE as usize) as u32, 1, 1),
        block_dim: (CUBE, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = || {
        kernels
            .adder
            .launch(&stream, config, &xs_d, &ys_d, &mut zs_d)
            .or_exit_launching(&kernels.adder)
    };
    launch();
    let events = time_gpu(&stream, WARMUP, REPS, &mut launch);
    let batched = time_batches(batch, || stream.synchronize().or_exit("wait"), &mut launch);
    let zs = stream
        .clone_dtoh(&zs_d)
        .or_exit("copy zs back from the GPU");
    report::rate("C++ adder (chapter 4)", &batched, bytes);
    report::rate("C++ adder, CUDA events", &events, bytes);
    let wrong = count_mismatches(&zs, want);
    println!(
        "C++ sums that differ from the CPU's: {wrong} of {}: {}",
        xs.len(),
        verdict(wrong == 0)
    );
    batched
}
