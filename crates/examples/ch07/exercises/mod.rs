//! The judge's entry for chapter 7's FMA challenge. On the CPU, the learner's kernel, the complex
//! update with one product per statement, must make as many `fma.rn.f32` per pixel update with
//! `--fmad=true` as the solution's, and none with `--fmad=false` (plain operators, no FMA
//! written by hand); on the GPU, its image must match the solution's.
//! And the entry for "Mirrors for a rectangular image", on the GPU only: the learner's two
//! kernels image two small rectangles, which must match float64 at every pixel.
//! The CPU imaging is compared with the imaging equation written out here, within 1e-9 of the
//! peak, its rayon image with its serial one to the bit; the coarsening's launch exactly with
//! the fewest blocks of 256, and on the GPU each K's image with the solution's K = 1 image.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use std::sync::OnceLock;

use course::gpu::{OrExit, alloc_poisoned};
use course::imaging::rectangle::{self, Rectangle};
use course::imaging::sky::{
    Observation, direction_of, observe, observe_point_source, pixels, upload,
};
use course::imaging::upload_quadrant;
use course::kernel::{KernelFile, arch_of, compile, compile_with};
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaSlice, LaunchConfig};
use num_complex::Complex64;
use rayon::prelude::*;

use crate::exercise::{self, Code, CpuPart, Exercise, Gpu, GpuPart, Work, cuda, same, shape};

mod coarsening;
mod coarsening_solution;
mod imaging_cpu;
mod imaging_cpu_solution;

course::imaging_launchers!(f32);

// The learner's kernels have no contract, so their launchers are unsafe. In solution mode the
// module is the solution's file, whose kernels of these names take the same arguments.
mod ch07_exercise_fma {
    course::kernels!("ch07-exercise-fma.cu");
}
mod ch07_exercise_rectangle {
    course::kernels!("ch07-exercise-rectangle.cu");
}
mod ch07_exercise_coarsening {
    course::kernels!("ch07-exercise-coarsening.cu");
}

const KERNEL: &str = "image_split_statements";

/// The FMAs per pixel update of kernel `KERNEL` in `file`, compiled with `--fmad=true` (what
/// NVRTC fuses, and any written by hand) or `--fmad=false` (only those written by hand). Each
/// update makes one `__sincosf`, one `sin.approx` in the PTX, so the ratio does not depend on
/// how far the compiler unrolled the loops.
fn fmas_per_update(file: &KernelFile, fmad: bool) -> Result<usize, String> {
    let flag = if fmad { "--fmad=true" } else { "--fmad=false" };
    let ptx = compile_with(file, "sm_90", false, &[flag])?.to_src();
    let body = ptx
        .split(".entry ")
        .find(|b| b.starts_with(&format!("{KERNEL}(")))
        .ok_or_else(|| format!("kernels/{} has no kernel `{KERNEL}`", file.name))?;
    let updates = body.matches("sin.approx").count();
    if updates == 0 {
        return Err(format!("{KERNEL} has no __sincosf left in its PTX"));
    }
    Ok(body.matches("fma.rn.f32").count() / updates)
}

/// The solution's FMAs per update with `--fmad=true`: five, the phase's two and all but the
/// subtracted product of the update (optimisation 6, as given, makes three).
fn solution_fmas() -> Result<usize, String> {
    static COUNT: OnceLock<Result<usize, String>> = OnceLock::new();
    COUNT
        .get_or_init(|| fmas_per_update(&kernel_file!("ch07-imaging.cu"), true))
        .clone()
}

fn check_fma_count(file: &KernelFile) -> Result<(), String> {
    let by_hand = fmas_per_update(file, false)?;
    if by_hand > 0 {
        return Err(format!(
            "with --fmad=false, {KERNEL} still makes {by_hand} fma.rn.f32 per pixel update: \
             write the update with plain operators, not __fmaf_rn or fmaf"
        ));
    }
    let (got, want) = (fmas_per_update(file, true)?, solution_fmas()?);
    if got < want {
        return Err(format!(
            "with --fmad=true, {KERNEL} makes {got} fma.rn.f32 per pixel update, expected \
             {want}, as the solution makes"
        ));
    }
    Ok(())
}

/// The worst difference of real or imaginary part over `peak`; NaN fails.
fn within(got: &[[f32; 2]], want: &[[f32; 2]], peak: f32, bound: f32) -> Result<(), String> {
    for (p, (g, w)) in got.iter().zip(want).enumerate() {
        let diff = (g[0] - w[0]).abs().max((g[1] - w[1]).abs());
        if !(diff <= bound * peak) {
            return Err(format!(
                "pixel {p} is {g:?}, the solution's is {w:?} (tolerance {bound:e} of the peak \
                 {peak})"
            ));
        }
    }
    Ok(())
}

fn check_fma_image(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let (side, n_vis) = (64, 4096);
    let s = &gpu.stream;
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let sky = upload(s, &obs, side, |x| x as f32);
    let ctx = s.context();
    let ptx = compile(&kernel_file!("ch07-imaging.cu"), &arch_of(ctx), false)?;
    let solution = cuda(ctx.load_module(ptx), "load the solution's kernels")?;
    let want_kernel = &ch07_imaging::Kernels::load(&solution).image_split_statements;
    // A file without the kernel is a verdict: look for it before `load`, which would exit.
    gpu.function(KERNEL)?;
    let got_kernel = &ch07_exercise_fma::Kernels::load(&gpu.module).image_split_statements;
    let image = |launch: &dyn Fn(&mut CudaSlice<[f32; 2]>) -> Result<(), String>| {
        let mut img = alloc_poisoned::<[f32; 2]>(s, side * side);
        launch(&mut img)?;
        cuda(s.clone_dtoh(&img), "copy the image from the GPU")
    };
    let want = image(&|img| {
        sky.launch_in_blocks(s, want_kernel, 3, 256, img);
        Ok(())
    })?;
    // 13 operations per pixel and visibility, as ch07/challenge_fma.rs counts.
    let work = Work::Flops(13.0 * (side * side * n_vis) as f64);
    let got = image(&|img| {
        gpu.timed(work, || {
            let (ls, ms, ns, us, vs, ws) = (&sky.ls, &sky.ms, &sky.ns, &sky.us, &sky.vs, &sky.ws);
            let (n_px, n_vis, config) = (sky.n_px, sky.n_vis, sky.config(3, 256));
            // SAFETY: the arguments are those the solution is launched with above: n_px is the
            // length of ls, ms, ns and img, n_vis that of us, vs, ws and vis, and the grid the
            // solution's. The learner's kernel must read and write pixel p only for p < n_px
            // and visibility j only for j < n_vis, as the exercise's kernel does.
            let launched = unsafe {
                got_kernel.launch(
                    s, config, ls, ms, ns, n_px, us, vs, ws, &sky.vis, n_vis, sky.inv_n, img,
                )
            };
            launched.or_exit_launching(got_kernel);
            Ok(())
        })
    })?;
    let peak = want.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
    within(&got, &want, peak, 1e-4)
}

/// Odd by even and even by odd, small enough for a float64 reference of every pixel.
const RECTANGLES: [(usize, usize); 2] = [(61, 40), (48, 75)];
/// Not a whole number of tiles of 256, so that the last, partial tile is tested too.
const RECTANGLE_VIS: usize = 3000;

fn check_rectangle(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let s = &gpu.stream;
    // A file without the kernels is a verdict: look for them before `load`, which would exit.
    gpu.function("image_rectangle")?;
    gpu.function("image_place_rectangle")?;
    let k = ch07_exercise_rectangle::Kernels::load(&gpu.module);
    let obs = observe(RECTANGLE_VIS, Some(&mut Rng::new(seed)));
    for (width, height) in RECTANGLES {
        let rect = Rectangle { width, height };
        let d = cuda(rectangle::upload(s, &obs, rect), "copy the data to the GPU")?;
        let q = cuda(upload_quadrant(s, rect), "copy the quadrant")?;
        let mut parts = alloc_poisoned::<[f32; 2]>(s, 4 * rect.groups());
        let mut img = alloc_poisoned::<[f32; 2]>(s, rect.pixels());
        let (ls, ms, ns, us, vs, ws) = (&q.ls, &q.ms, &q.ns, &d.us, &d.vs, &d.ws);
        let (w, h) = (q.width, q.height);
        // image_rectangle is the one timed, counted as the direct sum, as
        // ch07/challenge_rectangle.rs counts: 13 operations per pixel and visibility.
        let work = Work::Flops(13.0 * (rect.pixels() * RECTANGLE_VIS) as f64);
        gpu.timed(work, || {
            // SAFETY: ls holds width/2 + 1 column offsets, ms height/2 + 1 row offsets, ns and
            // parts a group (4 sums) for each pair, n_vis is the length of us, vs, ws and vis,
            // and the launch is one thread per group. The learner's image_rectangle must read
            // and write only those entries, for its own thread's group g < (width/2 + 1) ·
            // (height/2 + 1), as the exercise's kernel does.
            let launched = unsafe {
                k.image_rectangle.launch(
                    s,
                    rectangle::groups_config(rect),
                    ls,
                    ms,
                    ns,
                    w,
                    h,
                    us,
                    vs,
                    ws,
                    &d.vis,
                    d.n_vis,
                    &mut parts,
                )
            };
            cuda(launched, "launch image_rectangle")
        })?;
        // SAFETY: one thread per pixel, img holds width · height pixels and parts the groups
        // above. The learner's image_place_rectangle must write pixel p only for p < width ·
        // height, and read only the parts of groups within those offsets.
        let launched = unsafe {
            k.image_place_rectangle.launch(
                s,
                rectangle::place_config(rect),
                &parts,
                w,
                h,
                d.inv_n,
                &mut img,
            )
        };
        cuda(launched, "launch image_place_rectangle")?;
        let got = cuda(s.clone_dtoh(&img), "copy the image from the GPU")?;
        let want = rect.image_f64(&obs, &(0..rect.pixels()).collect::<Vec<_>>());
        let peak = want.iter().map(|z| z[0]).fold(f64::MIN, f64::max);
        for (p, (g, w)) in got.iter().zip(&want).enumerate() {
            let diff = (f64::from(g[0]) - w[0]).hypot(f64::from(g[1]) - w[1]);
            // Written so that NaN, an unwritten pixel, fails.
            if !(diff <= 1e-4 * peak) {
                return Err(format!(
                    "on {width} x {height} pixels, pixel (column {}, row {}) is {g:?}, float64 \
                     gives [{:.6}, {:.6}] (tolerance 1e-4 of the peak {peak:.4})",
                    p % width,
                    p / width,
                    w[0],
                    w[1]
                ));
            }
        }
    }
    Ok(())
}

fn rectangle_exercise(code: Code) -> Exercise {
    Exercise {
        name: "rectangle",
        cpu: None,
        gpu: Some(GpuPart::kernel(
            code.pick(
                kernel_file!("ch07-exercise-rectangle.cu"),
                kernel_file!("ch07-imaging-rectangle.cu"),
            ),
            check_rectangle,
        )),
    }
}

type PixelFn = fn(&[f64], &[f64], &[f64], &[Complex64], (f64, f64, f64)) -> Complex64;
type ImageFn = fn(&Observation, usize) -> Vec<Complex64>;

/// The imaging equation, written out with a cosine and a sine: (re, im) of every pixel.
fn reference_image(obs: &Observation, side: usize) -> Vec<[f64; 2]> {
    let (ls, ms, ns) = pixels(side);
    let n_vis = obs.vis.len();
    (0..side * side)
        .into_par_iter()
        .map(|p| {
            let (mut re, mut im) = (0.0, 0.0);
            for j in 0..n_vis {
                let turns = obs.u[j] * ls[p] + obs.v[j] * ms[p] + obs.w[j] * ns[p];
                let (s, c) = (std::f64::consts::TAU * turns).sin_cos();
                let v = obs.vis[j];
                re += v.re * c - v.im * s;
                im += v.re * s + v.im * c;
            }
            [re / n_vis as f64, im / n_vis as f64]
        })
        .collect()
}

/// `Ok` when each part of pixel `at[i]` of `got` is within 1e-9 of the peak of `want` (the
/// reference image) of that pixel; NaN fails.
fn close_pixels(
    what: &str,
    got: &[Complex64],
    at: &[usize],
    want: &[[f64; 2]],
    side: usize,
) -> Result<(), String> {
    if got.len() != at.len() {
        return Err(format!(
            "{what} has {} pixels, expected {}",
            got.len(),
            at.len()
        ));
    }
    let peak = want.iter().map(|z| z[0]).fold(f64::MIN, f64::max);
    for (g, &p) in got.iter().zip(at) {
        let w = want[p];
        let diff = (g.re - w[0]).abs().max((g.im - w[1]).abs());
        if !(diff <= 1e-9 * peak) {
            return Err(format!(
                "{what}: pixel (column {}, row {}) is {g:.12}, expected {:.12}{:+.12}i \
                 (tolerance 1e-9 of the peak {peak:.4})",
                p % side,
                p / side,
                w[0],
                w[1]
            ));
        }
    }
    Ok(())
}

fn check_imaging_cpu(
    pixel: PixelFn,
    serial: ImageFn,
    rayon: ImageFn,
    seed: u64,
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    // An odd side with a random count, the smallest, and the page's problem last, so that the
    // first answer the judge shows is not the page's.
    let odd = 1 + rng.below(3000) as usize;
    for (side, n_vis) in [(13, odd), (2, 1), (48, 2048)] {
        let obs = observe(n_vis, Some(&mut rng));
        let want = reference_image(&obs, side);
        let problem = format!("{side} x {side} pixels, {n_vis} visibilities");
        let (ls, ms, ns) = pixels(side);
        let at: Vec<usize> = (0..5)
            .map(|_| rng.below((side * side) as u64) as usize)
            .collect();
        let one: Vec<Complex64> = at
            .iter()
            .map(|&p| pixel(&obs.u, &obs.v, &obs.w, &obs.vis, (ls[p], ms[p], ns[p])))
            .collect();
        close_pixels(&format!("image_pixel ({problem})"), &one, &at, &want, side)?;
        let image = serial(&obs, side);
        let every: Vec<usize> = (0..side * side).collect();
        close_pixels(
            &format!("image_serial ({problem})"),
            &image,
            &every,
            &want,
            side,
        )?;
        let what = format!("image_rayon against image_serial ({problem})");
        same(&what, &rayon(&obs, side), &image)?;
    }
    // The known answer: a 1 Jy point source on a pixel images to 1 there, and less elsewhere.
    let (side, source) = (13, (3, 8));
    let point = rayon(
        &observe_point_source(2048, direction_of(side, source)),
        side,
    );
    let at = point
        .get(source.1 * side + source.0)
        .copied()
        .unwrap_or_default();
    let brightest = (0..point.len()).max_by(|&a, &b| point[a].re.total_cmp(&point[b].re));
    if !((at - 1.0).norm() <= 1e-9) || brightest != Some(source.1 * side + source.0) {
        return Err(format!(
            "a 1 Jy point source at pixel (column {}, row {}) images to {at:.12} there, \
             expected 1 (tolerance 1e-9), and brightest there",
            source.0, source.1
        ));
    }
    Ok(())
}

fn imaging_cpu_exercise(code: Code) -> Exercise {
    let pixel: PixelFn = code.pick(imaging_cpu::image_pixel, imaging_cpu_solution::image_pixel);
    let serial: ImageFn = code.pick(
        imaging_cpu::image_serial,
        imaging_cpu_solution::image_serial,
    );
    let rayon: ImageFn = code.pick(imaging_cpu::image_rayon, imaging_cpu_solution::image_rayon);
    let source = code.pick(
        (
            "crates/examples/ch07/exercises/imaging_cpu.rs",
            include_str!("imaging_cpu.rs"),
        ),
        (
            "crates/examples/ch07/exercises/imaging_cpu_solution.rs",
            include_str!("imaging_cpu_solution.rs"),
        ),
    );
    Exercise {
        name: "imaging_cpu",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |seed| check_imaging_cpu(pixel, serial, rayon, seed)),
        }),
        gpu: None,
    }
}

type CoarseConfigFn<'a> = &'a dyn Fn(usize, usize) -> LaunchConfig;

/// The pixels per thread of the challenge's kernels, `image_coarse_K_256`.
const COARSE_K: [usize; 6] = [1, 2, 3, 4, 6, 8];

/// `config(n_px, k)` if it is the fewest blocks of 256 threads for `k` pixels each, else why not.
fn checked_coarse_config(
    config: CoarseConfigFn,
    n_px: usize,
    k: usize,
) -> Result<LaunchConfig, String> {
    let got = config(n_px, k);
    let want = (
        ((n_px.div_ceil(k)).div_ceil(256) as u32, 1, 1),
        (256, 1, 1),
        0,
    );
    if (got.grid_dim, got.block_dim, got.shared_mem_bytes) != want {
        return Err(format!(
            "coarse_config({n_px}, {k}) has grid {:?}, blocks {:?} and {} bytes of dynamic \
             shared memory, expected {:?}, {:?} and 0",
            got.grid_dim, got.block_dim, got.shared_mem_bytes, want.0, want.1
        ));
    }
    Ok(got)
}

fn check_coarse_config(config: CoarseConfigFn, seed: u64) -> Result<(), String> {
    let fresh = 1 + Rng::new(seed).below(4_000_000) as usize;
    // The page's 700 x 700 comes last, so that the first answer shown is not the page's.
    for n_px in [61 * 61, 1, 255, 256, 257, 768, 769, fresh, 700 * 700] {
        for k in COARSE_K {
            checked_coarse_config(config, n_px, k)?;
        }
    }
    Ok(())
}

/// Sides whose pixels are no whole number of blocks for any K; visibilities no whole number
/// of tiles.
const COARSE_SIDES: [usize; 2] = [61, 8];
const COARSE_VIS: usize = 3000;

fn check_coarse_gpu(gpu: &Gpu, config: CoarseConfigFn, seed: u64) -> Result<(), String> {
    let s = &gpu.stream;
    let ctx = s.context();
    let ptx = compile(&kernel_file!("ch07-imaging.cu"), &arch_of(ctx), false)?;
    let solution = cuda(ctx.load_module(ptx), "load the solution's kernels")?;
    let want_kernel = &ch07_imaging::Kernels::load(&solution).image_coarse_1_256;
    // A file without the kernels is a verdict: look for them before `load`, which would exit.
    for k in COARSE_K {
        gpu.function(&format!("image_coarse_{k}_256"))?;
    }
    let kernels = ch07_exercise_coarsening::Kernels::load(&gpu.module);
    let obs = observe(COARSE_VIS, Some(&mut Rng::new(seed)));
    for side in COARSE_SIDES {
        let n_px = side * side;
        let sky = upload(s, &obs, side, |x| x as f32);
        let mut want = alloc_poisoned::<[f32; 2]>(s, n_px);
        sky.launch(s, want_kernel, 1, &mut want);
        let want = cuda(
            s.clone_dtoh(&want),
            "copy the solution's image from the GPU",
        )?;
        let peak = want.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
        for k in COARSE_K {
            let name = format!("image_coarse_{k}_256");
            let kernel = kernels
                .like_image_coarse_1_256(&name)
                .ok_or_else(|| format!("no launcher for {name}"))?;
            // A launch in blocks of another size would break the kernel's tiles: check first.
            let cfg = checked_coarse_config(config, n_px, k)?;
            let mut img = alloc_poisoned::<[f32; 2]>(s, n_px);
            let (ls, ms, ns, us, vs, ws) = (&sky.ls, &sky.ms, &sky.ns, &sky.us, &sky.vs, &sky.ws);
            let mut run = || {
                // SAFETY: n_px is the length of ls, ms, ns and img, n_vis that of us, vs, ws
                // and vis, and the blocks are of 256 threads (checked above). The learner's
                // kernel must read and write pixel p only for p < n_px, visibility j only for
                // j < n_vis and its tiles only below 256, as the exercise's kernel does.
                let launched = unsafe {
                    kernel.launch(
                        s, cfg, ls, ms, ns, sky.n_px, us, vs, ws, &sky.vis, sky.n_vis, sky.inv_n,
                        &mut img,
                    )
                };
                cuda(launched, &format!("launch {name}"))
            };
            // K = 3, the workshop's factor, is the one timed: 13 operations per pixel and
            // visibility, as ch07/challenge_coarsening.rs counts.
            if k == 3 {
                gpu.timed(Work::Flops(13.0 * (n_px * COARSE_VIS) as f64), run)?;
            } else {
                run()?;
            }
            let got = cuda(s.clone_dtoh(&img), "copy the image from the GPU")?;
            within(&got, &want, peak, 1e-4)
                .map_err(|why| format!("{name} on {side} x {side} pixels: {why}"))?;
        }
    }
    Ok(())
}

fn coarsening_exercise(code: Code) -> Exercise {
    let config: fn(usize, usize) -> LaunchConfig = code.pick(
        coarsening::coarse_config,
        coarsening_solution::coarse_config,
    );
    let source = code.pick(
        (
            "crates/examples/ch07/exercises/coarsening.rs",
            include_str!("coarsening.rs"),
        ),
        (
            "crates/examples/ch07/exercises/coarsening_solution.rs",
            include_str!("coarsening_solution.rs"),
        ),
    );
    Exercise {
        name: "coarsening",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |seed| check_coarse_config(&config, seed)),
        }),
        gpu: Some(GpuPart::planned(
            code.pick(
                kernel_file!("ch07-exercise-coarsening.cu"),
                kernel_file!("ch07-imaging.cu"),
            ),
            source,
            |_| {
                let sizes = COARSE_SIDES.iter().map(|side| side * side);
                sizes.flat_map(|n_px| COARSE_K.map(|k| (n_px, k))).collect()
            },
            move |(n_px, k)| shape(config(n_px, k)),
            |gpu, seed, answer| {
                check_coarse_gpu(gpu, &|n_px, k| exercise::config(answer((n_px, k))), seed)
            },
        )),
    }
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let file = code.pick(
        kernel_file!("ch07-exercise-fma.cu"),
        kernel_file!("ch07-imaging.cu"),
    );
    let source = (
        code.pick("kernels/ch07-exercise-fma.cu", "kernels/ch07-imaging.cu"),
        file.source,
    );
    let fma = Exercise {
        name: "fma",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |_| check_fma_count(&file)),
        }),
        gpu: Some(GpuPart::kernel(file, check_fma_image)),
    };
    vec![
        imaging_cpu_exercise(code),
        coarsening_exercise(code),
        fma,
        rectangle_exercise(code),
    ]
}
