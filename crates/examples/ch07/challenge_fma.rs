//! Challenge: where do the fused multiply-adds come from? Three ways of writing the complex
//! update (optimisation 6's `sum += a*c - b*s`, one product per line, and explicit __fmaf_rn),
//! compiled with NVRTC's default --fmad=true and with --fmad=false: FMAs in the PTX, time, and
//! a check against the first kernel's image. Each kernel is timed by the median of 10 runs
//! after one warm-up run.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::{KernelFile, arch_of, function};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use course::sky::{observe, upload};
use course::timing::{Work, fmt_ms, record, time_gpu};
use cudarc::driver::{CudaContext, CudaModule, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};

// ANCHOR: compile
/// Compile the kernel file with NVRTC's `--fmad` set to `fmad`; return the loaded module and
/// the PTX text.
fn compile(ctx: &Arc<CudaContext>, file: &KernelFile, fmad: bool) -> (Arc<CudaModule>, String) {
    let options = vec![
        format!("--gpu-architecture={}", arch_of(ctx)),
        format!("--fmad={fmad}"),
    ];
    let opts = CompileOptions {
        options,
        name: Some(file.name.into()),
        ..Default::default()
    };
    let ptx = compile_ptx_with_opts(file.source, opts).or_exit("compile kernels/ch07-imaging.cu");
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
        .find(|b| b.starts_with(name))
        .unwrap_or("");
    body.matches("fma.rn.f32").count()
}
// ANCHOR_END: compile

fn main() {
    let (side, n_vis) = (problem_size(1024, 64), problem_size(1 << 18, 4096));
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let seed = fresh_seed();
    println!("{side} x {side} pixels, {n_vis} visibilities, noise seed {seed} (varies)");
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let d = upload(&stream, &obs, side, |x| x as f32);
    let flops = 13.0 * (side * side * n_vis) as f64;
    let file = kernel_file!("ch07-imaging.cu");

    println!(
        "same image: no pixel differs from the first row's image by more than 1e-4 of its peak"
    );
    println!("kernel                  --fmad  fma.rn.f32 in PTX       time  same image");
    let mut base: Vec<[f32; 2]> = Vec::new();
    for fmad in [true, false] {
        let (module, text) = compile(&ctx, &file, fmad);
        for name in ["image_coarse_4", "image_split_statements", "image_fma"] {
            let fmas = count_fmas(&text, name);
            let kernel = function(&module, name);
            let config = LaunchConfig {
                grid_dim: ((side * side).div_ceil(4 * 256) as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut img = alloc_poisoned::<[f32; 2]>(&stream, side * side);
            let t = time_gpu(&stream, 1, 10, || {
                let mut launch = stream.launch_builder(&kernel);
                launch
                    .arg(&d.ls)
                    .arg(&d.ms)
                    .arg(&d.ns)
                    .arg(&d.n_px)
                    .arg(&d.us)
                    .arg(&d.vs)
                    .arg(&d.ws)
                    .arg(&d.vis)
                    .arg(&d.n_vis)
                    .arg(&d.inv_n)
                    .arg(&mut img);
                unsafe { launch.launch(config) }.or_exit("launch an imaging kernel");
            });
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
            let diff = img
                .iter()
                .zip(&base)
                .map(|(a, b)| (a[0] - b[0]).abs().max((a[1] - b[1]).abs()))
                .fold(0.0, f32::max);
            println!(
                "{name:<22}  {fmad:<6}  {fmas:>17}  {:>9}  {}",
                fmt_ms(t.median_ms),
                verdict(diff <= 1e-4 * peak)
            );
        }
    }
}
