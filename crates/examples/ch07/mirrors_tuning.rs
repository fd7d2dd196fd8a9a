//! Tuning step 10 at the chapter's size: `image_tables_G` with G = 1, 2, 4 or 8 groups of four
//! mirrored pixels per thread and the visibilities split into 1 to 64 parts, each timed (median
//! of 10 runs after one warm-up run, the table kernel and the placing kernel together) beside
//! its registers per thread, the blocks an SM holds, and the waves of blocks the launch needs.
//! Every image is checked against step 9's.
use course::compare::{largest_difference_f32, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::mirrors::{self, Shape};
use course::random::Rng;
use course::sky::{observe, upload};
use course::timing::{fmt_ms, time_gpu};

fn main() {
    let (side, n_vis, seed) = course::cli::parse(
        "Times step 10's imaging kernel for several groups per thread and splits of the visibilities.",
        course::sky::image_args,
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch07-imaging-mirrors.cu"), false);
    mirrors::check_shape(&module, &stream);
    println!("image of {side} x {side} pixels, {n_vis} visibilities, noise seed {seed}");
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    let d = upload(&stream, &obs, side, |x| x as f32);
    let quadrant = mirrors::upload_quadrant(&stream, side);
    let place = function(&module, "image_place_groups");
    let sms = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .or_exit("read the SM count") as u32;

    // ANCHOR: sweep
    println!("G = groups of four pixels per thread; S = parts the visibilities are split into;");
    println!("regs = registers per thread; fit = blocks one SM holds at once; waves = the blocks");
    println!("over the blocks all SMs hold at once");
    println!("kernel             G   S  regs  fit  blocks  waves       time");
    let mut shapes = vec![Shape::Mirrors];
    for groups in [1, 2, 4, 8] {
        for parts in [1, 2, 4, 8, 16, 32, 64] {
            shapes.push(Shape::Tables { groups, parts });
        }
    }
    let (mut reference, mut worst, mut fastest) = (Vec::new(), 0.0f64, (f64::MAX, String::new()));
    for shape in shapes {
        let name = shape.kernel();
        let kernel = function(&module, name);
        let regs = kernel.num_regs().or_exit("read the registers per thread");
        let fit = kernel
            .occupancy_max_active_blocks_per_multiprocessor(256, 0, None)
            .or_exit("read the occupancy");
        let blocks = shape.blocks(side);
        let waves = f64::from(blocks) / f64::from(fit * sms);
        let mut parts = mirrors::parts_buffer(&stream, shape, side);
        let mut img = alloc_poisoned::<[f32; 2]>(&stream, side * side);
        let time = time_gpu(&stream, 1, 10, || {
            let kernels = (&kernel, &place);
            mirrors::launch(&stream, kernels, shape, &d, &quadrant, &mut parts, &mut img)
        });
        let img = stream.clone_dtoh(&img).or_exit("copy the image back");
        if reference.is_empty() {
            reference = img.clone();
        }
        let difference = largest_difference_f32(&img, &reference);
        if difference.is_nan() || difference > worst {
            worst = difference; // f64::max would drop a NaN
        }
        let (g, s) = (shape.groups_per_thread(), shape.parts());
        if matches!(shape, Shape::Tables { .. }) && time.median_ms < fastest.0 {
            fastest = (time.median_ms, format!("G = {g}, S = {s}"));
        }
        println!(
            "{name:<16} {g:>3} {s:>3}  {regs:>4}  {fit:>3}  {blocks:>6}  {waves:>5.2}  \
             {:>9} (this machine)",
            fmt_ms(time.median_ms)
        );
    }
    // ANCHOR_END: sweep
    let (line, _) = within_bound(
        "every image's largest difference from step 9's, over its peak",
        worst,
        1e-4,
    );
    println!("{line}");
    println!(
        "fastest step 10 kernel: {}, {} (this machine)",
        fastest.1,
        fmt_ms(fastest.0)
    );
}
