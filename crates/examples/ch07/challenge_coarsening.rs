//! Challenge: how many pixels per thread? Optimisation 6's kernel with K = 1, 2, 3, 4, 6 and
//! 8 pixels per thread, each timed (median of 10 runs after one warm-up run) and checked
//! against the K = 1 image.
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use course::sky::{observe, upload};
use course::timing::{Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::{LaunchConfig, PushKernelArg};

fn main() {
    let (side, n_vis) = (problem_size(1024, 64), problem_size(1 << 18, 4096));
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch07-imaging.cu"), false);
    let seed = fresh_seed();
    println!("{side} x {side} pixels, {n_vis} visibilities, noise seed {seed} (varies)");
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let d = upload(&stream, &obs, side, |x| x as f32);
    let flops = 13.0 * (side * side * n_vis) as f64;

    // ANCHOR: sweep
    println!("same image: no pixel differs from the K = 1 image by more than 1e-4 of its peak");
    println!("K  blocks       time  vs K = 1          rate  same image as K = 1");
    let (mut base_ms, mut base_img) = (0.0, Vec::new());
    for k in [1usize, 2, 3, 4, 6, 8] {
        let kernel = function(&module, &format!("image_coarse_{k}"));
        let blocks = (side * side).div_ceil(k).div_ceil(256) as u32;
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
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
            &format!("image_coarse_{k}, {side}x{side} px, {n_vis} vis"),
            &t,
            Work::Flops(flops),
        );
        let img = stream.clone_dtoh(&img).or_exit("copy the image back");
        if k == 1 {
            (base_ms, base_img) = (t.median_ms, img.clone());
        }
        // Same arithmetic per pixel, perhaps contracted differently: within 1e-4 of the peak.
        let peak = base_img.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
        let diff = img
            .iter()
            .zip(&base_img)
            .map(|(a, b)| (a[0] - b[0]).abs().max((a[1] - b[1]).abs()))
            .fold(0.0, f32::max);
        println!(
            "{k}  {blocks:>6}  {:>9}  {:>8}  {:>12}  {}",
            fmt_ms(t.median_ms),
            fmt_times(base_ms / t.median_ms),
            fmt_gflop_per_s(flops, t.median_ms),
            verdict(diff <= 1e-4 * peak)
        );
    }
    // ANCHOR_END: sweep
}
