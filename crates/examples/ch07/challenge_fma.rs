//! Challenge: where do the fused multiply-adds come from? Three ways of writing the complex
//! update (optimisation 6's `sum += a*c - b*s`, one product per line, and explicit __fmaf_rn),
//! compiled with NVRTC's default --fmad=true and with --fmad=false: FMAs in the PTX, time, and
//! a check against the first kernel's image. Each kernel is timed by the median of 10 runs
//! after one warm-up run.
use std::collections::HashMap;
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::imaging::sky::{check_block, observe, upload};
use course::kernel::{KernelFile, arch_of, compile_with};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_ms, record, time_gpu};
use cudarc::driver::{CudaContext, CudaModule};

course::imaging_launchers!(f32);

// ANCHOR: compile
/// Compile the kernel file with NVRTC's `--fmad` set to `fmad`; return the loaded module and
/// the PTX text.
fn compile(ctx: &Arc<CudaContext>, file: &KernelFile, fmad: bool) -> (Arc<CudaModule>, String) {
    let fmad_option = format!("--fmad={fmad}");
    let ptx = compile_with(file, &arch_of(ctx), false, &[&fmad_option]).unwrap_or_else(|log| {
        eprintln!("Error: {log}");
        std::process::exit(1)
    });
    let text = ptx.to_src();
    (
        ctx.load_module(ptx).or_exit("load the compiled kernels"),
        text,
    )
}

/// How many `fma.rn.f32` instructions kernel `name` has in `ptx`: its PTX runs from its
/// `.entry` line to the next one.
fn count_fmas(ptx: &str, name: &str) -> usize {
    let body = ptx
        .split(".entry ")
        .find(|b| b.starts_with(&format!("{name}(")))
        .unwrap_or("");
    body.matches("fma.rn.f32").count()
}
// ANCHOR_END: compile

/// The largest difference of real or imaginary part between two images, over `peak`; NaN if
/// either holds a NaN (an unwritten, poisoned pixel).
fn largest_difference(a: &[[f32; 2]], b: &[[f32; 2]], peak: f32) -> f64 {
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x[0] - y[0]).abs().max((x[1] - y[1]).abs()))
        .fold(0.0, |w: f32, d| if d.is_nan() || d > w { d } else { w });
    f64::from(worst / peak)
}

fn main() {
    let (side, n_vis, seed) = course::cli::parse(
        "Counts and times the fused multiply-adds of three imaging kernels, with and without NVRTC's --fmad.",
        course::imaging::sky::image_args,
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{side} x {side} pixels, {n_vis} visibilities, noise seed {seed}");
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let d = upload(&stream, &obs, side, |x| x as f32);
    let flops = 13.0 * (side * side * n_vis) as f64;
    let file = kernel_file!("ch07-imaging.cu");
    check_block(&file);

    println!("same image: the largest difference from the first row's image, over its peak");
    println!("kernel                  --fmad  fma.rn.f32 in PTX       time  same image");
    let mut base: Vec<[f32; 2]> = Vec::new();
    let mut fmas = HashMap::new();
    for fmad in [true, false] {
        let (module, text) = compile(&ctx, &file, fmad);
        let kernels = ch07_imaging::Kernels::load(&module);
        for name in [
            "image_coarse_3_256",
            "image_split_statements",
            "image_fma_3_256",
        ] {
            let count = count_fmas(&text, name);
            fmas.insert((name, fmad), count);
            let kernel = kernels.image(name);
            let mut img = alloc_poisoned::<[f32; 2]>(&stream, side * side);
            let t = time_gpu(&stream, 1, 10, || d.launch(&stream, kernel, 3, &mut img));
            record(
                &format!("{name} --fmad={fmad}, {side}x{side} px, {n_vis} vis"),
                &t,
                Work::Flops(flops),
            );
            let img = stream.clone_dtoh(&img).or_exit("copy the image back");
            if base.is_empty() {
                base = img.clone();
            }
            // Fused or not, the sums agree to float rounding: within 1e-4 of the peak.
            let peak = base.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
            let diff = largest_difference(&img, &base, peak);
            println!(
                "{name:<22}  {fmad:<6}  {count:>17}  {:>9}  {diff:.1e}, bound 1e-4: {}",
                fmt_ms(t.median_ms),
                verdict(diff <= 1e-4)
            );
        }
    }
    // The lesson of the table: without --fmad only the explicit calls stay fused, all of them.
    let explicit = fmas[&("image_fma_3_256", true)];
    let only_explicit = fmas[&("image_coarse_3_256", false)] == 0
        && fmas[&("image_split_statements", false)] == 0
        && fmas[&("image_fma_3_256", false)] == explicit
        && explicit > 0;
    println!(
        "--fmad=false leaves only image_fma_3_256's explicit FMAs, all {explicit} of them: {}",
        verdict(only_explicit)
    );
}
