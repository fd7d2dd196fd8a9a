//! The judge's entry for chapter 7's FMA challenge. On the CPU, the learner's kernel is
//! compiled with `--fmad=false`, so that only the FMAs written in the source stay fused, and its
//! PTX must hold at least four per pixel update; on the GPU, its image must match the solution's.
//! And the entry for "Mirrors for a rectangular image", on the GPU only: the learner's two
//! kernels image two small rectangles, which must match float64 at every pixel.
use std::sync::OnceLock;

use course::gpu::{OrExit, alloc_poisoned};
use course::imaging::rectangle::{self, Rectangle};
use course::imaging::sky::{observe, upload};
use course::imaging::upload_quadrant;
use course::kernel::{KernelFile, arch_of, compile, compile_with};
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::CudaSlice;

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, cuda};

course::imaging_launchers!(f32);

// The learner's kernels have no contract, so their launchers are unsafe. In solution mode the
// module is the solution's file, whose kernels of these names take the same arguments.
mod ch07_exercise_fma {
    course::kernels!("ch07-exercise-fma.cu");
}
mod ch07_exercise_rectangle {
    course::kernels!("ch07-exercise-rectangle.cu");
}

const KERNEL: &str = "image_fma_3_256";
/// The complex update's four products; the phase may add two more.
const FMAS_NEEDED: usize = 4;

/// The explicit FMAs per pixel update of kernel `KERNEL` in `file`. Each update makes one
/// `__sincosf`, one `sin.approx` in the PTX, so the ratio does not depend on how far the
/// compiler unrolled the loops.
fn fmas_per_update(file: &KernelFile) -> Result<usize, String> {
    let ptx = compile_with(file, "sm_90", false, &["--fmad=false"])?.to_src();
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

fn solution_fmas() -> Result<usize, String> {
    static COUNT: OnceLock<Result<usize, String>> = OnceLock::new();
    COUNT
        .get_or_init(|| fmas_per_update(&kernel_file!("ch07-imaging.cu")))
        .clone()
}

fn check_fma_count(file: &KernelFile) -> Result<(), String> {
    let got = fmas_per_update(file)?;
    if got < FMAS_NEEDED {
        return Err(format!(
            "with --fmad=false, {KERNEL} makes {got} fma.rn.f32 per pixel update, expected at \
             least {FMAS_NEEDED} (the solution makes {})",
            solution_fmas()?
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
    let want_kernel = &ch07_imaging::Kernels::load(&solution).image_fma_3_256;
    // A file without the kernel is a verdict: look for it before `load`, which would exit.
    gpu.function(KERNEL)?;
    let got_kernel = &ch07_exercise_fma::Kernels::load(&gpu.module).image_fma_3_256;
    let image = |launch: &dyn Fn(&mut CudaSlice<[f32; 2]>)| {
        let mut img = alloc_poisoned::<[f32; 2]>(s, side * side);
        launch(&mut img);
        cuda(s.clone_dtoh(&img), "copy the image from the GPU")
    };
    let want = image(&|img| sky.launch_in_blocks(s, want_kernel, 3, 256, img))?;
    let got = image(&|img| {
        let (ls, ms, ns, us, vs, ws) = (&sky.ls, &sky.ms, &sky.ns, &sky.us, &sky.vs, &sky.ws);
        let (n_px, n_vis, config) = (sky.n_px, sky.n_vis, sky.config(3, 256));
        // SAFETY: the arguments are those the solution is launched with above: n_px is the
        // length of ls, ms, ns and img, n_vis that of us, vs, ws and vis, and the grid the
        // solution's. The learner's kernel must read and write pixel p only for p < n_px and
        // visibility j only for j < n_vis, as the exercise's kernel does.
        let launched = unsafe {
            got_kernel.launch(
                s, config, ls, ms, ns, n_px, us, vs, ws, &sky.vis, n_vis, sky.inv_n, img,
            )
        };
        launched.or_exit_launching(got_kernel)
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
        cuda(launched, "launch image_rectangle")?;
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
        gpu: Some(GpuPart {
            kernel: code.pick(
                kernel_file!("ch07-exercise-rectangle.cu"),
                kernel_file!("ch07-imaging-rectangle.cu"),
            ),
            sources: vec![],
            check: Box::new(check_rectangle),
        }),
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
        gpu: Some(GpuPart {
            kernel: file,
            sources: vec![],
            check: Box::new(check_fma_image),
        }),
    };
    vec![fma, rectangle_exercise(code)]
}
