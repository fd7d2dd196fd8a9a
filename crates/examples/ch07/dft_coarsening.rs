//! Thread coarsening on chapter 4's DFT: one kernel per coarsening factor F (each thread
//! computes F outputs), all timed in one run beside what the driver reports about each one
//! (registers, local memory, blocks per SM) and the special-function floor of this GPU. Every
//! factor is checked against rustfft in f64 and on a single frequency, whose transform is known.
use std::sync::Arc;

use course::compare::{relative_error, verdict, within_bound};
use course::floor::{compute_capability, floor_verdict, no_floor, sfu_floor, sfu_per_clock};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::cufft::sys::float2;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use num_complex::Complex64;
use rustfft::FftPlanner;

/// The coarsening factors, one kernel `dft_coarse_F` each in kernels/ch07-dft-coarsening.cu.
const FACTORS: [usize; 6] = [1, 2, 3, 4, 6, 8];
/// How many parts the paired kernel splits the sum over j into.
const PARTS: [usize; 4] = [1, 2, 4, 8];
/// Threads per block: THREADS in the kernel file, which each kernel declares as its bound.
const THREADS: u32 = 128;
/// The bar on the relative error from the f64 FFT.
const BOUND: f64 = 1e-5;

mod dft {
    course::kernels!("ch07-dft-coarsening.cu");
}
use dft::{DftCoarse1, DftPairs, DftSumParts};

/// One factor's kernel, what it kept in local memory and its output.
struct Run<'k> {
    factor: usize,
    kernel: &'k DftCoarse1,
    local_bytes: i32,
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
    kernel: &DftCoarse1,
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
    // ANCHOR_END: launch
    let t = time_gpu(stream, reps.0, reps.1, || {
        // ANCHOR: launch
        kernel
            .launch(stream, config, xs, &mut out)
            .or_exit_launching(kernel);
        // ANCHOR_END: launch
    });
    // ANCHOR: launch
    (
        t,
        stream.clone_dtoh(&out).or_exit("copy X back from the GPU"),
    )
}
// ANCHOR_END: launch

// ANCHOR: launch_pairs
/// Launch dft_pairs with the sum over j split in `parts`, then dft_sum_parts, `reps` times;
/// return the timing of both together and X.
fn run_pairs(
    stream: &Arc<CudaStream>,
    (pairs, sum_parts): (&DftPairs, &DftSumParts),
    parts: usize,
    xs: &CudaSlice<float2>,
    reps: (usize, usize),
) -> (Timing, Vec<float2>) {
    let n = xs.len();
    let mut partial = alloc_poisoned::<float2>(stream, parts * n);
    let mut out = alloc_poisoned::<float2>(stream, n);
    let outputs = (n / 2 + 1) as u32; // thread k computes X[k] and X[N - k]
    let config = LaunchConfig {
        grid_dim: (outputs.div_ceil(THREADS), parts as u32, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let sum_config = LaunchConfig::for_num_elems(n as u32);
    // ANCHOR_END: launch_pairs
    let t = time_gpu(stream, reps.0, reps.1, || {
        // ANCHOR: launch_pairs
        pairs
            .launch(stream, config, xs, &mut partial)
            .or_exit_launching(pairs);
        sum_parts
            .launch(stream, sum_config, &partial, &mut out, parts as i32)
            .or_exit_launching(sum_parts);
        // ANCHOR_END: launch_pairs
    });
    // ANCHOR: launch_pairs
    (
        t,
        stream.clone_dtoh(&out).or_exit("copy X back from the GPU"),
    )
}
// ANCHOR_END: launch_pairs

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
    let kernels = dft::Kernels::load(&module);

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
    let floor = sfu_floor(&ctx, 2.0, pairs);
    println!("{}", floor.line);
    let (major, minor) = compute_capability(&ctx);
    match sfu_per_clock((major, minor)) {
        Some(per_clock) => println!(
            "  per clock per SM: {per_clock}, the CUDA programming guide's figure for \
             compute capability {major}.{minor} (this machine)"
        ),
        None => println!("{}", no_floor("  per clock per SM", (major, minor))),
    }
    // Each kernel's time against its floor, for the verdict after the tables.
    let mut against_floors = Vec::new();

    // ANCHOR: report
    println!("  F registers local bytes blocks/SM blocks      time          rate time/floor");
    let flops = 8.0 * pairs; // a complex multiply-add per pair; the sine and cosine not counted
    let mut runs = Vec::new();
    for factor in FACTORS {
        let name = format!("dft_coarse_{factor}");
        let Some(kernel) = kernels.like_dft_coarse_1(&name) else {
            unreachable!("kernels/ch07-dft-coarsening.cu defines dft_coarse_{factor}")
        };
        require_block_size(&kernel.function, &name, THREADS as usize);
        let registers = kernel
            .function
            .num_regs()
            .or_exit("read a kernel's registers");
        let local = kernel
            .function
            .local_size_bytes()
            .or_exit("read a kernel's local memory");
        let per_sm = kernel
            .function
            .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
            .or_exit("ask for a kernel's occupancy");
        let blocks = n.div_ceil(factor).div_ceil(THREADS as usize);
        let (t, got) = run_dft(&stream, kernel, factor, &xs_dev, (2, 10));
        // ANCHOR_END: report
        record(&format!("{name}, n={n}"), &t, Work::Flops(flops));
        // ANCHOR: report
        let against_floor = match floor.ms {
            Some(floor_ms) => fmt_times(t.median_ms / floor_ms),
            None => "-".into(),
        };
        against_floors.push((t.median_ms, floor.ms));
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
            out: got,
        });
    }
    // ANCHOR_END: report

    // ANCHOR: report_pairs
    println!("one sine and cosine for both X[k] and X[N - k], the sum over j split in S parts:");
    // Their own floor: one sine and cosine for two (k, j) pairs. The table's last column
    // still divides by the floor above, of two operations per pair.
    let pairs_floor = sfu_floor(&ctx, 1.0, pairs);
    println!("  {}", pairs_floor.line);
    println!("  S registers blocks      time          rate time/floor");
    let pair_kernels = (&kernels.dft_pairs, &kernels.dft_sum_parts);
    require_block_size(&pair_kernels.0.function, "dft_pairs", THREADS as usize);
    let registers = pair_kernels
        .0
        .function
        .num_regs()
        .or_exit("read a kernel's registers");
    let mut pair_runs = Vec::new();
    for parts in PARTS {
        let blocks = (n / 2 + 1).div_ceil(THREADS as usize) * parts;
        let (t, got) = run_pairs(&stream, pair_kernels, parts, &xs_dev, (2, 10));
        record(
            &format!("dft_pairs, {parts} parts, n={n}"),
            &t,
            Work::Flops(flops),
        );
        let against_floor = match floor.ms {
            Some(floor_ms) => fmt_times(t.median_ms / floor_ms),
            None => "-".into(),
        };
        against_floors.push((t.median_ms, pairs_floor.ms));
        println!(
            "{parts:>3} {registers:>9} {blocks:>6} {:>9} {:>13} {against_floor:>10} (this machine)",
            fmt_ms(t.median_ms),
            fmt_gflop_per_s(flops, t.median_ms)
        );
        pair_runs.push((parts, t.median_ms, got));
    }
    // ANCHOR_END: report_pairs

    // ANCHOR: checks
    let spills = runs.iter().filter(|r| r.local_bytes > 0).count();
    // ANCHOR_END: checks
    println!(
        "no kernel keeps anything in local memory: {}",
        verdict(spills == 0)
    );
    println!("{}", floor_verdict(&against_floors));
    // ANCHOR: checks
    for r in &runs {
        let what = format!("F = {}: relative error from the f64 FFT", r.factor);
        let error = relative_error(&flat(&r.out), &want);
        // ANCHOR_END: checks
        println!("{}", within_bound(&what, error, BOUND).0);
        // ANCHOR: checks
    }
    for (parts, _, out) in &pair_runs {
        let what = format!("pairs, S = {parts}: relative error from the f64 FFT");
        let error = relative_error(&flat(out), &want);
        // ANCHOR_END: checks
        println!("{}", within_bound(&what, error, BOUND).0);
        // ANCHOR: checks
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
            let (_, got) = run_dft(&stream, r.kernel, r.factor, &tone_dev, (0, 1));
            relative_error(&flat(&got), &exact)
        })
        .chain(PARTS.iter().map(|&parts| {
            let (_, got) = run_pairs(&stream, pair_kernels, parts, &tone_dev, (0, 1));
            relative_error(&flat(&got), &exact)
        }))
        .fold(0.0, |w: f64, e| if e.is_nan() || e > w { e } else { w });
    let what = format!(
        "a single frequency k0 = {k0} gives N at k0 and 0 elsewhere, every kernel: \
         largest relative error"
    );
    // ANCHOR_END: checks
    println!("{}", within_bound(&what, worst, BOUND).0);
    // ANCHOR: checks

    // The bar is on the fastest of the paired kernels; which split that is can change.
    let fastest = pair_runs
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("every split ran");
    println!(
        "the fastest paired kernel in this run: S = {} (varies)",
        fastest.0
    );
    let error = relative_error(&flat(&fastest.2), &want);
    // ANCHOR_END: checks
    println!(
        "{}",
        within_bound("  its relative error from the f64 FFT", error, BOUND).0
    );
}
