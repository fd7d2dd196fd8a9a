//! Tuning step 7 at the chapter's size: its kernel with K = 1 to 8 pixels per thread in blocks
//! of 64 to 512 threads, and step 6's and step 8's kernels for every K, each timed (median of
//! 10 runs after one warm-up run) beside its registers per thread, the blocks an SM can hold,
//! and how evenly the blocks spread over the SMs. Every image is checked against one image.
use course::compare::{largest_difference_f32, within_bound};
use course::floor::{compute_capability, floor_verdict, no_floor, sfu_floor};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::imaging::sky::{observe, upload};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{fmt_ms, time_gpu};

course::imaging_launchers!(f32);

fn main() {
    let (side, n_vis, seed) = course::cli::parse(
        "Times step 7's imaging kernel for several pixels per thread and block sizes, and steps 6 and 8 for several pixels per thread.",
        course::imaging::sky::image_args,
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let kernels = ch07_imaging::Kernels::load(&load(&ctx, &kernel_file!("ch07-imaging.cu"), false));
    println!("image of {side} x {side} pixels, {n_vis} visibilities, noise seed {seed}");
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let d = upload(&stream, &obs, side, |x| x as f32);
    let n_px = side * side;
    let pairs = (n_px * n_vis) as f64;
    // Every kernel of the sweep takes one sine and cosine per pair.
    let floor = sfu_floor(&ctx, 2.0, pairs);
    println!("{}", floor.line);
    let sms = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .or_exit("read the SM count") as usize;

    // ANCHOR: sweep
    println!("regs = registers per thread; fit = blocks one SM holds at once; balance = the");
    println!("average number of blocks per SM over the busiest SM's (1 when they spread evenly)");
    println!("kernel               K    T  regs  fit  blocks  balance       time");
    let mut variants: Vec<(String, usize, u32)> = Vec::new();
    for t in [64, 128, 256, 512] {
        for k in [1, 2, 3, 4, 6, 8] {
            variants.push((format!("image_fma_{k}_{t}"), k, t));
        }
    }
    for k in [1, 2, 3, 4, 6, 8] {
        variants.push((format!("image_coarse_{k}_256"), k, 256));
    }
    for k in [1, 2, 3, 4, 6, 8] {
        variants.push((format!("image_shuffle_{k}"), k, 256));
    }
    let (mut reference, mut worst, mut fastest) = (Vec::new(), 0.0f64, (f64::MAX, String::new()));
    let mut against_floor = Vec::new();
    for (name, k, t) in &variants {
        let kernel = kernels.image(name);
        if !name.starts_with("image_shuffle") {
            require_block_size(&kernel.function, name, *t as usize);
        }
        let regs = kernel
            .function
            .num_regs()
            .or_exit("read the registers per thread");
        let fit = kernel
            .function
            .occupancy_max_active_blocks_per_multiprocessor(*t, 0, None)
            .or_exit("read the occupancy");
        let blocks = n_px.div_ceil(*k).div_ceil(*t as usize);
        // With every block resident at once, the busiest SM holds ceil(blocks / SMs) of them.
        let balance = blocks as f64 / sms as f64 / blocks.div_ceil(sms) as f64;
        let mut img = alloc_poisoned::<[f32; 2]>(&stream, n_px);
        let time = time_gpu(&stream, 1, 10, || {
            d.launch_in_blocks(&stream, kernel, *k, *t, &mut img)
        });
        let img = stream.clone_dtoh(&img).or_exit("copy the image back");
        if reference.is_empty() {
            reference = img.clone();
        }
        let difference = largest_difference_f32(&img, &reference);
        if difference.is_nan() || difference > worst {
            worst = difference; // f64::max would drop a NaN
        }
        against_floor.push((time.median_ms, floor.ms));
        if name.starts_with("image_fma") && time.median_ms < fastest.0 {
            fastest = (time.median_ms, format!("K = {k}, T = {t}"));
        }
        println!(
            "{name:<19} {k:>2}  {t:>3}  {regs:>4}  {fit:>3}  {blocks:>6}  \
             {balance:>7.2}  {:>9} (this machine)",
            fmt_ms(time.median_ms)
        );
    }
    // ANCHOR_END: sweep
    let (line, _) = within_bound(
        "every image's largest difference from the first one's, over its peak",
        worst,
        1e-4,
    );
    println!("{line}");
    println!("{}", floor_verdict(&against_floor));
    let kernel = format!(
        "fastest step 7 kernel: {}, {}",
        fastest.1,
        fmt_ms(fastest.0)
    );
    match floor.ms {
        Some(ms) => println!(
            "{kernel}, {:.2} times the special-function floor (this machine)",
            fastest.0 / ms
        ),
        None => println!("{}", no_floor(&kernel, compute_capability(&ctx))),
    }
}
