//! Imaging a radio observation on the GPU: the first kernel, then the chapter's optimisations,
//! each a kernel of its own. Every image is checked against a float64 reference computed on
//! the CPU for a sample of pixels, and against the previous step's image; every kernel is
//! timed, and the program prints a table of times and speedups.
use std::sync::Arc;

use course::cli::arg_usize;
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size, sanitizing};
use course::kernel::{function, load};
use course::kernel_file;
use course::machine::describe_cpu;
use course::random::{Rng, fresh_seed};
use course::sky::{FIELD, OnGpu, brightest_point, observe, pixel_of, pixels, upload};
use course::timing::{Timing, Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::{
    CudaFunction, CudaModule, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg,
};
use num_complex::Complex64;
use rayon::prelude::*;

/// Floating-point operations counted per pixel-visibility pair: 5 for the phase (3 multiplies,
/// 2 additions) and 8 for the complex multiply-add; the sine and cosine are not counted.
const FLOPS_PER_PAIR: f64 = 13.0;
const BLOCK: u32 = 256;

// ANCHOR: launch
/// Run one imaging kernel that computes `per_thread` pixels in each thread, in blocks of 256
/// threads, on a poisoned output; time it and return the image as f64 pairs (re, im).
fn run<T: DeviceRepr + Copy + Into<f64>>(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    d: &OnGpu<T>,
    per_thread: usize,
    reps: (usize, usize),
) -> (Timing, Vec<[f64; 2]>) {
    let mut img = alloc_poisoned::<[T; 2]>(stream, d.n_px as usize);
    let threads = (d.n_px as usize).div_ceil(per_thread) as u32;
    let config = LaunchConfig {
        grid_dim: (threads.div_ceil(BLOCK), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let t = time_gpu(stream, reps.0, reps.1, || {
        let mut launch = stream.launch_builder(kernel);
        launch.arg(&d.ls).arg(&d.ms).arg(&d.ns).arg(&d.n_px);
        launch
            .arg(&d.us)
            .arg(&d.vs)
            .arg(&d.ws)
            .arg(&d.vis)
            .arg(&d.n_vis)
            .arg(&d.inv_n)
            .arg(&mut img);
        unsafe { launch.launch(config) }.or_exit("launch an imaging kernel");
    });
    let img = stream
        .clone_dtoh(&img)
        .or_exit("copy the image back from the GPU");
    (
        t,
        img.iter().map(|&[re, im]| [re.into(), im.into()]).collect(),
    )
}
// ANCHOR_END: launch

/// One step of the chapter: its kernel, in which module, pixels per thread, what changed.
struct Step {
    kernel: &'static str,
    double: bool,
    per_thread: usize,
    change: &'static str,
}

const fn step(kernel: &'static str, double: bool, per_thread: usize, change: &'static str) -> Step {
    Step {
        kernel,
        double,
        per_thread,
        change,
    }
}

// ANCHOR: steps
const STEPS: [Step; 9] = [
    step(
        "image_first",
        true,
        1,
        "first kernel: double, sum in global memory",
    ),
    step(
        "image_local_sum",
        true,
        1,
        "1: sum in a register, one write",
    ),
    step("image_f32", false, 1, "2: float instead of double"),
    step("image_fast", false, 1, "3: __sincosf of the reduced phase"),
    step(
        "image_hot_loop",
        false,
        1,
        "4: round by two additions, not rintf",
    ),
    step(
        "image_shared",
        false,
        1,
        "5: visibilities staged in shared memory",
    ),
    step("image_coarse_4", false, 4, "6: four pixels per thread"),
    step("image_fma", false, 4, "7: explicit fused multiply-adds"),
    step(
        "image_shuffle",
        false,
        4,
        "8: visibilities shared by warp shuffles",
    ),
];
// ANCHOR_END: steps

/// The largest |a − b| over two lists of pixels, divided by `peak`.
fn worst(a: &[[f64; 2]], b: &[[f64; 2]], peak: f64) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x[0] - y[0]).hypot(x[1] - y[1]))
        .fold(0.0, f64::max)
        / peak
}

fn main() {
    let side = arg_usize(
        1,
        "the image side in pixels",
        problem_size(1024, 64),
        8,
        4096,
    );
    let n_vis = arg_usize(
        2,
        "the number of visibilities",
        problem_size(1 << 18, 4096),
        1,
        1 << 22,
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    let double_module: Arc<CudaModule> = load(&ctx, &kernel_file!("ch07-imaging-f64.cu"), false);
    let float_module: Arc<CudaModule> = load(&ctx, &kernel_file!("ch07-imaging.cu"), false);
    let kernel = |name: &str, double: bool| {
        function(
            if double {
                &double_module
            } else {
                &float_module
            },
            name,
        )
    };

    let seed = fresh_seed();
    let mut rng = Rng::new(seed);
    let obs = observe(n_vis, Some(&mut rng));
    let (ls, ms, ns) = pixels(side);
    let lmn = [ls, ms, ns];
    let n_px = side * side;
    let pairs = (n_px * n_vis) as f64;
    println!(
        "image of {side} x {side} pixels, {:.1} degrees across",
        FIELD.to_degrees()
    );
    println!(
        "{n_vis} visibilities from {} antennas over {} time steps",
        obs.antennas, obs.time_steps
    );
    println!("noise and sampled pixels drawn with seed {seed} (varies)");
    let largest = (0..n_vis)
        .map(|j| obs.u[j].abs() * FIELD / 2.0 + obs.v[j].abs() * FIELD / 2.0)
        .fold(0.0, f64::max);
    println!(
        "phases reach about {largest:.0} turns ({:.0} radians) at the corners",
        largest * std::f64::consts::TAU
    );

    // ANCHOR: reference
    // The reference: 256 random pixels and the brightest source's pixel, in f64 with rayon.
    let (bright_col, bright_row) = pixel_of(side, brightest_point());
    let mut sample: Vec<usize> = (0..256).map(|_| rng.below(n_px as u64) as usize).collect();
    sample.push(bright_row * side + bright_col);
    let reference: Vec<[f64; 2]> = sample
        .par_iter()
        .map(|&p| {
            let mut sum = Complex64::new(0.0, 0.0);
            for j in 0..n_vis {
                let phase = std::f64::consts::TAU
                    * (obs.u[j] * lmn[0][p] + obs.v[j] * lmn[1][p] + obs.w[j] * lmn[2][p]);
                sum += obs.vis[j] * Complex64::from_polar(1.0, phase);
            }
            [sum.re / n_vis as f64, sum.im / n_vis as f64]
        })
        .collect();
    let peak = reference.iter().map(|z| z[0]).fold(f64::MIN, f64::max);
    println!(
        "float64 reference on the CPU: {} pixels, peak {peak:.3} (varies)",
        sample.len()
    );
    // ANCHOR_END: reference

    let double_data = upload(&stream, &obs, side, |x| x);
    let float_data = upload(&stream, &obs, side, |x| x as f32);
    // Every kernel, f64 or f32: one warm-up run, then the median of 10 timed runs.
    let reps = (1, 10);
    let run_step = |s: &Step| {
        if s.double {
            run(
                &stream,
                &kernel(s.kernel, true),
                &double_data,
                s.per_thread,
                reps,
            )
        } else {
            run(
                &stream,
                &kernel(s.kernel, false),
                &float_data,
                s.per_thread,
                reps,
            )
        }
    };
    let versus_reference = |img: &[[f64; 2]]| {
        let at: Vec<[f64; 2]> = sample.iter().map(|&p| img[p]).collect();
        worst(&at, &reference, peak)
    };

    // Under compute-sanitizer course::timing skips the warm-up and times a single run.
    let (warm, timed) = if sanitizing() { (0, 1) } else { reps };
    println!(
        "timing, per kernel: warm-up runs {warm}, timed runs {timed}; each time shown is their median, from CUDA events"
    );

    // ANCHOR: candidates
    println!();
    println!("optimisation 3, the candidates (float, one pixel per thread); error = largest");
    println!("difference from the float64 reference over the sampled pixels, over the peak:");
    for (name, what) in [
        ("image_f32", "sincosf (accurate), as in step 2  "),
        ("image_sincospi", "sincospif (accurate), phase in turns"),
        ("image_fast_raw", "__sincosf of the phase as it comes "),
        ("image_fast", "__sincosf of the reduced phase     "),
    ] {
        let (t, img) = run_step(&step(name, false, 1, ""));
        record(
            &format!("{name} (candidate), {side}x{side} px, {n_vis} vis"),
            &t,
            Work::Flops(FLOPS_PER_PAIR * pairs),
        );
        println!(
            "  {what} {:>9}, error {:.1e} (varies)",
            fmt_ms(t.median_ms),
            versus_reference(&img)
        );
    }
    // ANCHOR_END: candidates

    // ANCHOR: table
    println!();
    println!(
        "step  what changed                                   time  vs first  vs previous          rate"
    );
    let mut checks = Vec::new();
    let (mut first_ms, mut previous): (f64, Option<(f64, Vec<[f64; 2]>, bool)>) = (0.0, None);
    for (i, s) in STEPS.iter().enumerate() {
        let (t, img) = run_step(s);
        let precision = if s.double { "f64" } else { "f32" };
        record(
            &format!(
                "step {i}: {} ({precision}), {side}x{side} px, {n_vis} vis",
                s.kernel
            ),
            &t,
            Work::Flops(FLOPS_PER_PAIR * pairs),
        );
        if i == 0 {
            first_ms = t.median_ms;
        }
        let vs_previous = previous
            .as_ref()
            .map_or("-".to_string(), |(ms, _, _)| fmt_times(ms / t.median_ms));
        println!(
            "{i:>4}  {:<42} {:>9}  {:>8}  {:>11}  {:>12}",
            s.change,
            fmt_ms(t.median_ms),
            fmt_times(first_ms / t.median_ms),
            vs_previous,
            fmt_gflop_per_s(FLOPS_PER_PAIR * pairs, t.median_ms)
        );
        // Tolerances, relative to the peak: 1e-9 where both images are f64, 1e-3 otherwise.
        let tolerance = if s.double { 1e-9 } else { 1e-3 };
        let e_ref = versus_reference(&img);
        let e_prev = previous.as_ref().map(|(_, prev, prev_double)| {
            let tol = if s.double && *prev_double { 1e-9 } else { 1e-3 };
            (worst(&img, prev, peak), tol)
        });
        checks.push((i, e_ref, tolerance, e_prev));
        previous = Some((t.median_ms, img, s.double));
    }
    // ANCHOR_END: table

    // ANCHOR: checks
    println!();
    println!(
        "checks: largest difference over the peak (tolerance 1e-9 between double images, 1e-3 otherwise)"
    );
    println!("step  vs float64 CPU  vs previous step  matches both");
    for (i, e_ref, tol, e_prev) in checks {
        let ok = e_ref <= tol && e_prev.is_none_or(|(e, t)| e <= t);
        let prev = e_prev.map_or("-".to_string(), |(e, _)| format!("{e:.1e}"));
        println!(
            "{i:>4}  {e_ref:>14.1e}  {prev:>16}  {} (varies)",
            verdict(ok)
        );
    }
    let last = previous.map(|(_, img, _)| img).unwrap_or_default();
    let top = (0..n_px)
        .max_by(|&a, &b| last[a][0].total_cmp(&last[b][0]))
        .unwrap_or(0);
    println!(
        "peak of the last image at pixel (column {}, row {}); the brightest source is at ({bright_col}, {bright_row}): {}",
        top % side,
        top / side,
        verdict(top == bright_row * side + bright_col)
    );
    // ANCHOR_END: checks
}
