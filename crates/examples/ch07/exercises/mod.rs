//! The judge's entry for chapter 7's FMA challenge. On the CPU, the learner's kernel is
//! compiled with `--fmad=false`, so that only the FMAs written in the source stay fused, and its
//! PTX must hold at least four per pixel update; on the GPU, its image must match the solution's.
//! And the entry for "Mirrors for a rectangular image", on the GPU only: the learner's two
//! kernels image two small rectangles, which must match float64 at every pixel.
use std::sync::OnceLock;

use course::gpu::alloc_poisoned;
use course::imaging::rectangle::{self, Rectangle};
use course::imaging::sky::{observe, upload};
use course::imaging::upload_quadrant;
use course::kernel::{KernelFile, arch_of, compile, compile_with};
use course::kernel_file;
use course::random::Rng;

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, cuda};

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
    let want_kernel = cuda(solution.load_function(KERNEL), "find the solution's kernel")?;
    let got_kernel = gpu.function(KERNEL)?;
    let image = |kernel| {
        let mut img = alloc_poisoned::<[f32; 2]>(s, side * side);
        sky.launch_in_blocks(s, kernel, 3, 256, &mut img);
        cuda(s.clone_dtoh(&img), "copy the image from the GPU")
    };
    let want = image(&want_kernel)?;
    let got = image(&got_kernel)?;
    let peak = want.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
    within(&got, &want, peak, 1e-4)
}

/// Odd by even and even by odd, small enough for a float64 reference of every pixel.
const RECTANGLES: [(usize, usize); 2] = [(61, 40), (48, 75)];
/// Not a whole number of tiles of 256, so that the last, partial tile is tested too.
const RECTANGLE_VIS: usize = 3000;

fn check_rectangle(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let s = &gpu.stream;
    let (groups, place) = (
        gpu.function("image_rectangle")?,
        gpu.function("image_place_rectangle")?,
    );
    let obs = observe(RECTANGLE_VIS, Some(&mut Rng::new(seed)));
    for (width, height) in RECTANGLES {
        let rect = Rectangle { width, height };
        let d = cuda(rectangle::upload(s, &obs, rect), "copy the data to the GPU")?;
        let q = cuda(upload_quadrant(s, rect), "copy the quadrant")?;
        let mut parts = alloc_poisoned::<[f32; 2]>(s, 4 * rect.groups());
        let mut img = alloc_poisoned::<[f32; 2]>(s, rect.pixels());
        let launched = rectangle::launch_groups(s, &groups, &q, &d, &mut parts);
        cuda(launched, "launch image_rectangle")?;
        let launched = rectangle::launch_place(s, &place, &q, &parts, d.inv_n, &mut img);
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
