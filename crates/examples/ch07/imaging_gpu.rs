//! Imaging a radio observation on the GPU: the first kernel, then the chapter's optimisations,
//! each a kernel of its own. Every image is checked against a float64 reference computed on
//! the CPU for a sample of pixels, against the previous step's image, and against four point
//! sources, one in each quadrant, whose images are known exactly; every kernel is timed, and
//! the program prints a table of times and speedups.
use std::sync::Arc;

use course::compare::{largest_difference, verdict};
use course::exit::{EXIT_CUDA_FAILED, fail};
use course::floor::{compute_capability, floor_verdict, fp32_floor, no_floor, sfu_floor};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, sanitizing};
use course::imaging::mirrors::{self, Shape};
use course::imaging::rectangle::Rectangle;
use course::imaging::sky::{
    BLOCK, FIELD, OnGpu, brightest_point, check_block, observe, pixel_of, pixels, upload,
};
use course::imaging::{POINT_VIS, observe_point_sources, upload_quadrant, worst_distance_from_one};
use course::kernel::{load, load_with_ptx, require_block_size};
use course::kernel_file;
use course::machine::describe_cpu;
use course::ptx::Mix;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};
use num_complex::Complex64;
use rayon::prelude::*;

course::imaging_launchers!(f32);
course::imaging_launchers!(f64);
course::imaging_launchers!(mirrors);

/// Floating-point operations counted per pixel-visibility pair: 5 for the phase (3 multiplies,
/// 2 additions) and 8 for the complex multiply-add; the sine and cosine are not counted.
const FLOPS_PER_PAIR: f64 = 13.0;

// ANCHOR: launch
/// Run `launch`, which writes an image of `n_px` pixels, on a poisoned output; time it and
/// return the image as f64 pairs (re, im). For the steps up to 8 it is
/// `d.launch_in_blocks(stream, kernel, per_thread, block, img)`, which passes the kernel its
/// arguments, the fields of `OnGpu` in order, through the kernel file's typed launcher.
fn run<T: DeviceRepr + Copy + Into<f64>>(
    stream: &Arc<CudaStream>,
    n_px: usize,
    reps: (usize, usize),
    mut launch: impl FnMut(&mut CudaSlice<[T; 2]>),
) -> (Timing, Vec<[f64; 2]>) {
    let mut img = alloc_poisoned::<[T; 2]>(stream, n_px);
    // ANCHOR_END: launch
    let t = time_gpu(stream, reps.0, reps.1, || {
        // ANCHOR: launch
        launch(&mut img)
        // ANCHOR_END: launch
    });
    // ANCHOR: launch
    let img = stream
        .clone_dtoh(&img)
        .or_exit("copy the image back from the GPU");
    (
        t,
        img.iter().map(|&[re, im]| [re.into(), im.into()]).collect(),
    )
}
// ANCHOR_END: launch

/// A step's image of the sky `sky`, by `image(data, reps)`, timed, and the worst distance
/// from 1 of its images of the four point sources `points` of `square`, each run once.
fn measure<T>(
    square: Rectangle,
    image: impl Fn(&OnGpu<T>, (usize, usize)) -> (Timing, Vec<[f64; 2]>),
    sky: &OnGpu<T>,
    points: &[OnGpu<T>; 4],
    reps: (usize, usize),
) -> (Timing, Vec<[f64; 2]>, f64) {
    let (t, img) = image(sky, reps);
    let worst = worst_distance_from_one(square, |k| image(&points[k], (0, 1)).1);
    (t, img, worst)
}

/// One step of the chapter: its kernel, in which module, pixels per thread and threads per
/// block (or, for the steps beyond the floor, how its groups of mirrored pixels are launched),
/// what changed.
struct Step {
    kernel: &'static str,
    double: bool,
    groups: Option<Shape>,
    per_thread: usize,
    block: u32,
    /// Whether the kernel stages visibilities in tiles of one per thread, and so needs blocks
    /// of exactly the size its `__launch_bounds__` declares.
    tiled: bool,
    change: &'static str,
}

const fn step(kernel: &'static str, double: bool, per_thread: usize, change: &'static str) -> Step {
    Step {
        kernel,
        double,
        groups: None,
        per_thread,
        block: BLOCK,
        tiled: false,
        change,
    }
}

const fn tiled(kernel: &'static str, per_thread: usize, change: &'static str) -> Step {
    Step {
        tiled: true,
        ..step(kernel, false, per_thread, change)
    }
}

/// A step of `kernels/ch07-imaging-mirrors.cu`.
const fn mirrored(shape: Shape, change: &'static str) -> Step {
    Step {
        groups: Some(shape),
        ..step(shape.kernel(), false, 4, change)
    }
}

// ANCHOR: steps
const STEPS: [Step; 11] = [
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
    step(
        "image_fast",
        false,
        1,
        "3: __sincosf, the fast sine and cosine",
    ),
    step(
        "image_two_pi",
        false,
        1,
        "4: 2π multiplied in before the loop",
    ),
    tiled("image_shared", 1, "5: visibilities staged in shared memory"),
    tiled("image_coarse_3_256", 3, "6: three pixels per thread"),
    tiled("image_fma_3_256", 3, "7: explicit fused multiply-adds"),
    step(
        "image_shuffle_3",
        false,
        3,
        "8: visibilities shared by warp shuffles",
    ),
    mirrored(Shape::Mirrors, "9: four mirrored pixels per thread"),
    mirrored(
        Shape::Tables {
            groups: 8,
            parts: 64,
        },
        "10: tables of the column and row factors",
    ),
];
// ANCHOR_END: steps

/// With `COURSE_FIGURES` set (the GPU check sets it), draw the real part of the image as a
/// PNG there, from the very buffer the checks above read. It prints nothing about it, so that
/// the output is the same with the variable set or not.
fn save_picture(img: &[[f64; 2]], side: usize) {
    let Some(dir) = std::env::var_os(protocol::FIGURES_VAR) else {
        return;
    };
    let path = std::path::Path::new(&dir).join(format!("imaging_gpu-{side}.png"));
    let real: Vec<f64> = img.iter().map(|z| z[0]).collect();
    course::png::write_image(&path, &real, side, side).or_exit("write the image as a PNG");
}

fn main() {
    let (side, n_vis, seed) = course::cli::parse(
        "Images the chapter's made-up sky with the first kernel and every optimisation on the GPU, checking and timing each.",
        course::imaging::sky::image_args,
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    let double_file = kernel_file!("ch07-imaging-f64.cu");
    let double_kernels = ch07_imaging_f64::Kernels::load(&load(&ctx, &double_file, false));
    let float_file = kernel_file!("ch07-imaging.cu");
    check_block(&float_file);
    let float_kernels = ch07_imaging::Kernels::load(&load(&ctx, &float_file, false));
    let mirror_file = kernel_file!("ch07-imaging-mirrors.cu");
    let (mirror_module, mirror_ptx) = load_with_ptx(&ctx, &mirror_file, false);
    mirrors::check_shape(&mirror_module, &ctx.default_stream());
    let mirror_kernels = ch07_imaging_mirrors::Kernels::load(&mirror_module);

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
    println!("noise and sampled pixels drawn with seed {seed}");
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
        "float64 reference on the CPU: {} pixels, peak {peak:.3}",
        sample.len()
    );
    // ANCHOR_END: reference

    let double_data = upload(&stream, &obs, side, |x| x);
    let float_data = upload(&stream, &obs, side, |x| x as f32);
    // ANCHOR: point
    // The known answer: 1 Jy alone and without noise, at a pixel away from the centre (where
    // every phase would be 0), images to exactly 1 there. One visibility left out would be off
    // by 1/300. One source in each quadrant, each imaged on its own, so that each of the four
    // mirror images of steps 9 and 10 is checked.
    let square = Rectangle::square(side);
    let points = observe_point_sources(square);
    let point_double = points.each_ref().map(|p| upload(&stream, p, side, |x| x));
    let point_float = points
        .each_ref()
        .map(|p| upload(&stream, p, side, |x| x as f32));
    // ANCHOR_END: point
    let quadrant = upload_quadrant(&stream, square).or_exit("copy the quadrant to the GPU");
    // Every kernel, f64 or f32: one warm-up run, then the median of 10 timed runs.
    let reps = (1, 10);
    // A step's timed image of the sky, and the worst distance from 1 of its images of the
    // four point sources (each run once, on fresh poisoned buffers).
    let run_step = |s: &Step| {
        let shape = (s.per_thread, s.block);
        match (s.groups, s.double) {
            (Some(groups), _) => {
                let k = &mirror_kernels;
                let image = |d: &OnGpu<f32>, reps: (usize, usize)| {
                    let mut parts = mirrors::parts_buffer(&stream, groups, side);
                    run(&stream, n_px, reps, |img| {
                        mirrors::launch(&stream, k, groups, d, &quadrant, &mut parts, img)
                    })
                };
                measure(square, image, &float_data, &point_float, reps)
            }
            (None, true) => {
                let f = double_kernels.image(s.kernel);
                let image = |d: &OnGpu<f64>, reps: (usize, usize)| {
                    run(&stream, n_px, reps, |img| {
                        d.launch_in_blocks(&stream, f, shape.0, shape.1, img)
                    })
                };
                measure(square, image, &double_data, &point_double, reps)
            }
            (None, false) => {
                let f = float_kernels.image(s.kernel);
                if s.tiled {
                    require_block_size(&f.function, s.kernel, s.block as usize);
                }
                let image = |d: &OnGpu<f32>, reps: (usize, usize)| {
                    run(&stream, n_px, reps, |img| {
                        d.launch_in_blocks(&stream, f, shape.0, shape.1, img)
                    })
                };
                measure(square, image, &float_data, &point_float, reps)
            }
        }
    };
    let versus_reference = |img: &[[f64; 2]]| {
        let at: Vec<[f64; 2]> = sample.iter().map(|&p| img[p]).collect();
        largest_difference(&at, &reference, peak)
    };

    // Under compute-sanitizer course::timing skips the warm-up and times a single run.
    let (warm, timed) = if sanitizing() { (0, 1) } else { reps };
    println!(
        "timing, per kernel: warm-up runs {warm}, timed runs {timed}; each time shown is their median, from CUDA events"
    );

    // ANCHOR: candidates
    println!();
    println!("optimisation 3, the candidates (float, one pixel per thread); error = largest");
    println!("difference from the float64 reference over the sampled pixels, over the peak;");
    println!("point sources = worst distance from 1 of four, one in each quadrant:");
    for (name, what) in [
        ("image_f32", "sincosf (accurate), as in step 2  "),
        ("image_sincospi", "sincospif (accurate), phase in turns"),
        ("image_fast_reduced", "__sincosf of the reduced phase     "),
        ("image_fast", "__sincosf of the phase as it comes "),
    ] {
        let (t, img, e_point) = run_step(&step(name, false, 1, ""));
        // ANCHOR_END: candidates
        record(
            &format!("{name} (candidate), {side}x{side} px, {n_vis} vis"),
            &t,
            Work::Flops(FLOPS_PER_PAIR * pairs),
        );
        // ANCHOR: candidates
        let e_ref = versus_reference(&img);
        // ANCHOR_END: candidates
        println!(
            "  {what} {:>9}, error {e_ref:.1e}, point sources {e_point:.1e}, bound 1e-3: {}",
            fmt_ms(t.median_ms),
            verdict(e_ref <= 1e-3 && e_point <= 1e-3)
        );
        // ANCHOR: candidates
    }
    // ANCHOR_END: candidates

    // ANCHOR: table
    println!();
    let floor = sfu_floor(&ctx, 2.0, pairs);
    println!("{}", floor.line);
    println!(
        "step  what changed                                   time  vs first  vs previous          rate"
    );
    let (mut checks, mut times) = (Vec::new(), Vec::new());
    // Each step of kernels/ch07-imaging-mirrors.cu, its hot loop's instruction mix and the
    // pairs one pass of that loop computes.
    let counted: Vec<Option<(Mix, f64)>> = STEPS
        .iter()
        .map(|s| {
            let groups = s.groups?;
            let m = course::ptx::kernel_body(&mirror_ptx, s.kernel)
                .and_then(course::ptx::hot_loop)
                .map(course::ptx::mix);
            let m = m.unwrap_or_else(|| {
                let why = format!("the PTX of {} has no single hot loop.", s.kernel);
                fail(EXIT_CUDA_FAILED, &why)
            });
            Some((m, (4 * groups.groups_per_thread()) as f64))
        })
        .collect();
    let (mut first_ms, mut best_ms) = (0.0, f64::MAX);
    let mut previous: Option<(f64, Vec<[f64; 2]>)> = None;
    for (i, s) in STEPS.iter().enumerate() {
        let (t, img, e_point) = run_step(s);
        let precision = if s.double { "f64" } else { "f32" };
        // Steps 9 and 10 execute fewer operations than the direct sum's 13 per pair; the
        // results page gets what they execute, counted in their PTX.
        let (executed, flops) = match &counted[i] {
            Some((m, per_pass)) => (
                format!(
                    ", executing {} flops per pair",
                    m.fp32_flops as f64 / per_pass
                ),
                m.fp32_flops as f64 / per_pass,
            ),
            None => (String::new(), FLOPS_PER_PAIR),
        };
        record(
            &format!(
                "step {i}: {} ({precision}), {side}x{side} px, {n_vis} vis{executed}",
                s.kernel
            ),
            &t,
            Work::Flops(flops * pairs),
        );
        if i == 0 {
            first_ms = t.median_ms;
        }
        let vs_previous = previous
            .as_ref()
            .map_or("-".to_string(), |(ms, _)| fmt_times(ms / t.median_ms));
        println!(
            "{i:>4}  {:<42} {:>9}  {:>8}  {:>11}  {:>12}",
            s.change,
            fmt_ms(t.median_ms),
            fmt_times(first_ms / t.median_ms),
            vs_previous,
            fmt_gflop_per_s(FLOPS_PER_PAIR * pairs, t.median_ms)
        );
        // The bound, relative to the peak: 1e-9 for an f64 step (whose previous step is f64
        // too), 1e-3 for an f32 one, and the tighter 1e-4 set for steps 9 and 10.
        let bound = match (s.double, s.groups) {
            (true, _) => 1e-9,
            (false, None) => 1e-3,
            (false, Some(_)) => 1e-4,
        };
        let e_ref = versus_reference(&img);
        let e_prev = previous
            .as_ref()
            .map(|(_, prev)| largest_difference(&img, prev, peak));
        checks.push((i, e_ref, e_prev, e_point, bound));
        previous = Some((t.median_ms, img));
        if s.groups.is_none() {
            best_ms = best_ms.min(t.median_ms);
        }
        times.push(t.median_ms);
    }
    let cc = compute_capability(&ctx);
    let fastest = "the fastest of steps 0 to 8 (one sine-cosine pair per pair)";
    match floor.ms {
        Some(ms) => println!(
            "{fastest}: {:.2} times that floor (this machine)",
            best_ms / ms
        ),
        None => println!("{}", no_floor(fastest, cc)),
    }
    // Each step's time against its floor: that one for steps 0 to 8, which compute one sine
    // and cosine per pair, and for steps 9 and 10 the higher of their own floors, below.
    let mut against_floors: Vec<(f64, Option<f64>)> = STEPS
        .iter()
        .zip(&times)
        .filter(|(s, _)| s.groups.is_none())
        .map(|(_, &ms)| (ms, floor.ms))
        .collect();
    // ANCHOR_END: table

    // ANCHOR: counted
    println!();
    println!("steps 9 and 10, counted in the PTX of each kernel's hot loop (one pass: one");
    println!("visibility for each of a thread's groups of four mirrored pixels), and the floors");
    println!("of those counts:");
    for (i, s) in STEPS.iter().enumerate() {
        let (Some(groups), Some((m, per_pass))) = (s.groups, counted[i]) else {
            continue;
        };
        let (sincos, fp32) = (m.sin as f64 / per_pass, m.fp32 as f64 / per_pass);
        println!(
            "step {i}, {}: {} instructions per pass for {per_pass} pairs: \
             {} sin and {} cos, {} FP32",
            s.kernel, m.all, m.sin, m.cos, m.fp32
        );
        println!("  per pair: {sincos} sine-cosine pairs, {fp32} FP32 instructions");
        let floors = [
            sfu_floor(&ctx, 2.0 * sincos, pairs),
            fp32_floor(&ctx, fp32, pairs),
        ];
        for f in &floors {
            println!("  {}", f.line);
        }
        if let Some(tables) = groups.table_sincos_per_visibility(side) {
            println!(
                "  and, outside the hot loop, the tables: {tables} sine-cosine pairs \
                 per visibility, {:.4} per pair",
                tables as f64 / n_px as f64
            );
        }
        let highest = floors
            .iter()
            .try_fold(0.0, |high: f64, f| f.ms.map(|ms| high.max(ms)));
        let measured = format!("  measured {}", fmt_ms(times[i]));
        match highest {
            Some(high) => println!(
                "{measured}: {:.2} times the higher floor (this machine)",
                times[i] / high
            ),
            None => println!("{}", no_floor(&measured, cc)),
        }
        against_floors.push((times[i], highest));
    }
    println!(
        "the groups compute {} values for the {n_px} pixels (a group at side/2 cells \
         of an even side",
        mirrors::values_computed(side)
    );
    println!("has only its minus images on the image, and a group on an axis repeats its pixels)");
    // ANCHOR_END: counted

    // ANCHOR: checks
    println!();
    println!("checks, over the peak: the largest difference from the float64 reference on the");
    println!(
        "sampled pixels and from the previous step's whole image, and the worst distance from 1"
    );
    println!(
        "of four point sources, one per quadrant ({POINT_VIS} visibilities); each within the bound"
    );
    println!("step  vs float64 CPU  vs previous step  point sources");
    for (i, e_ref, e_prev, e_point, bound) in checks {
        let ok = e_ref <= bound && e_prev.is_none_or(|e| e <= bound) && e_point <= bound;
        let prev = e_prev.map_or("-".to_string(), |e| format!("{e:.1e}"));
        println!(
            "{i:>4}  {e_ref:>14.1e}  {prev:>16}  {e_point:>13.1e}, bound {bound:.0e}: {}",
            verdict(ok)
        );
    }
    let last = previous.map(|(_, img)| img).unwrap_or_default();
    let top = (0..n_px)
        .max_by(|&a, &b| last[a][0].total_cmp(&last[b][0]))
        .unwrap_or(0);
    let (col, row) = (top % side, top / side);
    // The source need not sit on a pixel centre: its peak may land on a neighbour.
    let near = col.abs_diff(bright_col) <= 1 && row.abs_diff(bright_row) <= 1;
    println!("peak of the last image at pixel (column {col}, row {row})");
    println!(
        "the brightest source is at ({bright_col}, {bright_row}); within one pixel of it: {}",
        verdict(near)
    );
    println!("{}", floor_verdict(&against_floors));
    save_picture(&last, side);
    // ANCHOR_END: checks
}
