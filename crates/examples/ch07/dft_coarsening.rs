//! Thread coarsening on chapter 4's DFT: one kernel per coarsening factor F (each thread
//! computes F outputs), all timed in one run beside what the driver reports about each one
//! (registers, local memory, blocks per SM) and the special-function floor of this GPU. Every
//! factor is checked against rustfft in f64 and on a single frequency, whose transform is known.
use std::sync::Arc;

use course::compare::{relative_error, verdict, within_bound};
use course::floor::{sfu_floor, sfu_per_clock};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::{function, load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::cufft::sys::float2;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use num_complex::Complex64;
use rustfft::FftPlanner;

/// The coarsening factors, one kernel `dft_coarse_F` each in kernels/ch07-dft-coarsening.cu.
const FACTORS: [usize; 6] = [1, 2, 3, 4, 6, 8];
/// Threads per block: THREADS in the kernel file, which each kernel declares as its bound.
const THREADS: u32 = 128;
/// The bar on the relative error from the f64 FFT.
const BOUND: f64 = 1e-5;

/// One factor's kernel, what it kept in local memory, its median time and its output.
struct Run {
    factor: usize,
    kernel: CudaFunction,
    local_bytes: i32,
    ms: f64,
    out: Vec<float2>,
}

/// Real and imaginary parts side by side, in f64.
fn flat(v: &[float2]) -> Vec<f64> {
    v.iter().flat_map(|c| [c.x as f64, c.y as f64]).collect()
}

// ANCHOR: launch
/// Launch `kernel`, which computes `factor` outputs per thread, on a poisoned output, `reps`
/// = (warm-up, timed) times; return the timing and X.
fn run_dft(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    factor: usize,
    xs: &CudaSlice<float2>,
    reps: (usize, usize),
) -> (Timing, Vec<float2>) {
    let n = xs.len();
    let mut out = alloc_poisoned::<float2>(stream, n);
    // Enough threads that `factor` outputs each cover all n: n / factor, rounded up.
    let threads = n.div_ceil(factor) as u32;
    let config = LaunchConfig {
        grid_dim: (threads.div_ceil(THREADS), 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let n_arg = n as i32;
    let t = time_gpu(stream, reps.0, reps.1, || {
        let mut launch = stream.launch_builder(kernel);
        launch.arg(xs).arg(&mut out).arg(&n_arg);
        unsafe { launch.launch(config) }.or_exit_launching(kernel);
    });
    (
        t,
        stream.clone_dtoh(&out).or_exit("copy X back from the GPU"),
    )
}
// ANCHOR_END: launch

fn main() {
    let (n, seed) = course::cli::parse(
        "Times the DFT with 1, 2, 3, 4, 6 and 8 outputs per thread, with each kernel's registers \
         and occupancy, and checks every one against rustfft.",
        |args| {
            let full = problem_size(131_072, 4096);
            (
                args.usize("N", "the length of the transform", full, 1, 1 << 20),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch07-dft-coarsening.cu"), false);

    // ANCHOR: data
    let mut rng = Rng::new(seed);
    let xs: Vec<float2> = (0..n)
        .map(|_| float2 {
            x: rng.f32() * 2.0 - 1.0,
            y: rng.f32() * 2.0 - 1.0,
        })
        .collect();
    let mut want: Vec<Complex64> = xs
        .iter()
        .map(|c| Complex64::new(c.x as f64, c.y as f64))
        .collect();
    FftPlanner::<f64>::new()
        .plan_fft_forward(n)
        .process(&mut want);
    let want: Vec<f64> = want.iter().flat_map(|c| [c.re, c.im]).collect();
    let xs_dev = stream.clone_htod(&xs).or_exit("copy x to the GPU");
    println!("N = {n}, inputs drawn with seed {seed}");
    // ANCHOR_END: data

    // Each (k, j) pair takes one sine and one cosine from the special-function units.
    let pairs = (n * n) as f64;
    let floor = sfu_floor(&ctx, 2, pairs);
    if let Some((_, line)) = &floor {
        let (major, minor) = ctx
            .compute_capability()
            .or_exit("read the compute capability");
        let per_clock = sfu_per_clock((major, minor)).unwrap_or(0);
        println!("{line}");
        println!(
            "  {per_clock} per clock per SM is the CUDA programming guide's figure for \
             compute capability {major}.{minor} (this machine)"
        );
    }

    // ANCHOR: report
    println!("  F registers local bytes blocks/SM blocks      time          rate time/floor");
    let flops = 8.0 * pairs; // a complex multiply-add per pair; the sine and cosine not counted
    let mut runs = Vec::new();
    for factor in FACTORS {
        let name = format!("dft_coarse_{factor}");
        let kernel = function(&module, &name);
        require_block_size(&kernel, &name, THREADS as usize);
        let registers = kernel.num_regs().or_exit("read a kernel's registers");
        let local = kernel
            .local_size_bytes()
            .or_exit("read a kernel's local memory");
        let per_sm = kernel
            .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
            .or_exit("ask for a kernel's occupancy");
        let blocks = n.div_ceil(factor).div_ceil(THREADS as usize);
        let (t, got) = run_dft(&stream, &kernel, factor, &xs_dev, (2, 10));
        record(&format!("{name}, n={n}"), &t, Work::Flops(flops));
        let against_floor = match &floor {
            Some((floor_ms, _)) => fmt_times(t.median_ms / floor_ms),
            None => "-".into(),
        };
        println!(
            "{factor:>3} {registers:>9} {local:>11} {per_sm:>9} {blocks:>6} {:>9} {:>13} \
             {against_floor:>10} (this machine)",
            fmt_ms(t.median_ms),
            fmt_gflop_per_s(flops, t.median_ms)
        );
        runs.push(Run {
            factor,
            kernel,
            local_bytes: local,
            ms: t.median_ms,
            out: got,
        });
    }
    // ANCHOR_END: report

    // ANCHOR: checks
    let spills = runs.iter().filter(|r| r.local_bytes > 0).count();
    println!(
        "no kernel keeps anything in local memory: {}",
        verdict(spills == 0)
    );
    for r in &runs {
        let what = format!("F = {}: relative error from the f64 FFT", r.factor);
        let error = relative_error(&flat(&r.out), &want);
        println!("{}", within_bound(&what, error, BOUND).0);
    }

    // A single frequency k0: x[j] = exp(2πi·k0·j/N) transforms to N at k0 and 0 elsewhere.
    let k0 = n * 3 / 10;
    let tone: Vec<float2> = (0..n)
        .map(|j| {
            let turns = ((k0 * j) % n) as f64 / n as f64;
            let (s, c) = (std::f64::consts::TAU * turns).sin_cos();
            float2 {
                x: c as f32,
                y: s as f32,
            }
        })
        .collect();
    let mut exact = vec![0.0; 2 * n];
    exact[2 * k0] = n as f64;
    let tone_dev = stream.clone_htod(&tone).or_exit("copy the tone to the GPU");
    let worst = runs
        .iter()
        .map(|r| {
            let (_, got) = run_dft(&stream, &r.kernel, r.factor, &tone_dev, (0, 1));
            relative_error(&flat(&got), &exact)
        })
        .fold(0.0, |w: f64, e| if e.is_nan() || e > w { e } else { w });
    let what = format!(
        "a single frequency k0 = {k0} gives N at k0 and 0 elsewhere, every factor: \
         largest relative error"
    );
    println!("{}", within_bound(&what, worst, BOUND).0);

    // The bar is on the error of whichever factor was fastest; which one that is can change.
    let fastest = runs
        .iter()
        .min_by(|a, b| a.ms.total_cmp(&b.ms))
        .expect("six factors ran");
    println!(
        "the fastest factor in this run: F = {} (varies)",
        fastest.factor
    );
    let error = relative_error(&flat(&fastest.out), &want);
    println!(
        "{}",
        within_bound("  its relative error from the f64 FFT", error, BOUND).0
    );
    // ANCHOR_END: checks
}
