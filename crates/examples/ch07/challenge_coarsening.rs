//! Challenge: how many pixels per thread? Optimisation 6's kernel with K = 1, 2, 3, 4, 6 and
//! 8 pixels per thread, each timed (median of 10 runs after one warm-up run) and checked
//! against the K = 1 image.
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::imaging::sky::{BLOCK, check_block, observe, upload};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};

course::imaging_launchers!(f32);

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
    let seed = course::cli::parse(
        "Times optimisation 6's imaging kernel with 1 to 8 pixels per thread on the GPU.",
        |args| args.seed(),
    );
    let (side, n_vis) = (problem_size(700, 64), problem_size(1 << 18, 4096));
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let file = kernel_file!("ch07-imaging.cu");
    check_block(&file);
    let kernels = ch07_imaging::Kernels::load(&load(&ctx, &file, false));
    println!("{side} x {side} pixels, {n_vis} visibilities, noise seed {seed}");
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let d = upload(&stream, &obs, side, |x| x as f32);
    let flops = 13.0 * (side * side * n_vis) as f64;

    // ANCHOR: sweep
    println!("same image: the largest difference from the K = 1 image, over its peak");
    println!("K  blocks       time  vs K = 1          rate  same image as K = 1");
    let (mut base_ms, mut base_img) = (0.0, Vec::new());
    for k in [1usize, 2, 3, 4, 6, 8] {
        let kernel = kernels.image(&format!("image_coarse_{k}_256"));
        let blocks = (side * side).div_ceil(k).div_ceil(BLOCK as usize);
        let mut img = alloc_poisoned::<[f32; 2]>(&stream, side * side);
        let t = time_gpu(&stream, 1, 10, || d.launch(&stream, kernel, k, &mut img));
        // ANCHOR_END: sweep
        record(
            &format!("image_coarse_{k}_256, {side}x{side} px, {n_vis} vis"),
            &t,
            Work::Flops(flops),
        );
        // ANCHOR: sweep
        let img = stream.clone_dtoh(&img).or_exit("copy the image back");
        if k == 1 {
            (base_ms, base_img) = (t.median_ms, img.clone());
        }
        // Same arithmetic per pixel, perhaps contracted differently: within 1e-4 of the peak.
        let peak = base_img.iter().map(|z| z[0]).fold(f32::MIN, f32::max);
        let diff = largest_difference(&img, &base_img, peak);
        // ANCHOR_END: sweep
        println!(
            "{k}  {blocks:>6}  {:>9}  {:>8}  {:>12}  {diff:.1e}, bound 1e-4: {}",
            fmt_ms(t.median_ms),
            fmt_times(base_ms / t.median_ms),
            fmt_gflop_per_s(flops, t.median_ms),
            verdict(diff <= 1e-4)
        );
        // ANCHOR: sweep
    }
    // ANCHOR_END: sweep
}
