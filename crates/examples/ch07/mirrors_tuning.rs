//! Tuning step 10 at the chapter's size: `image_tables_G` with G = 1, 2, 4 or 8 groups of four
//! mirrored pixels per thread and the visibilities split into 1 to 64 parts, each timed (median
//! of 10 runs after one warm-up run, the table kernel and the placing kernel together), with its
//! registers per thread, the blocks an SM holds, and the waves of blocks the launch needs.
//! Every image is checked against the float64 reference on the CPU (the kernels share their
//! group arithmetic and placing, so a bug there would pass a check against step 9 alone), and
//! every pixel against step 9's image.
use course::compare::{largest_difference, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::imaging::mirrors::{self, MirrorKernels, Shape};
use course::imaging::rectangle::Rectangle;
use course::imaging::sky::{brightest_point, observe, pixel_of, upload};
use course::imaging::upload_quadrant;
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{fmt_ms, time_gpu};

course::imaging_launchers!(mirrors);

/// Every shape is held to the bound of steps 9 and 10 in `imaging_gpu`, over the peak.
const BOUND: f64 = 1e-4;

fn main() {
    let (side, n_vis, seed) = course::cli::parse(
        "Times step 10's imaging kernel for several groups per thread and splits of the visibilities.",
        course::imaging::sky::image_args,
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch07-imaging-mirrors.cu"), false);
    mirrors::check_shape(&module, &stream);
    let kernels = ch07_imaging_mirrors::Kernels::load(&module);
    println!("image of {side} x {side} pixels, {n_vis} visibilities, noise seed {seed}");
    let mut rng = Rng::new(seed);
    let obs = observe(n_vis, Some(&mut rng));
    let n_px = side * side;
    // The float64 reference of imaging_gpu: the same 256 random pixels and the brightest
    // source's pixel, imaged on the CPU.
    let (bright_col, bright_row) = pixel_of(side, brightest_point());
    let mut sample: Vec<usize> = (0..256).map(|_| rng.below(n_px as u64) as usize).collect();
    sample.push(bright_row * side + bright_col);
    let reference = Rectangle::square(side).image_f64(&obs, &sample);
    let peak = reference.iter().map(|z| z[0]).fold(f64::MIN, f64::max);
    println!(
        "float64 reference on the CPU: {} pixels, peak {peak:.3}",
        sample.len()
    );
    let d = upload(&stream, &obs, side, |x| x as f32);
    let quadrant =
        upload_quadrant(&stream, Rectangle::square(side)).or_exit("copy the quadrant to the GPU");
    let sms = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .or_exit("read the SM count") as u32;

    // ANCHOR: sweep
    println!("G = groups of four pixels per thread; S = parts the visibilities are split into;");
    println!("blocks = the launch's blocks; then the largest difference, over the peak, from the");
    println!("float64 reference at the sampled pixels and from step 9's image at every pixel");
    println!("kernel             G   S  blocks       time  vs float64  vs step 9");
    let mut shapes = vec![Shape::Mirrors];
    for groups in [1, 2, 4, 8] {
        for parts in [1, 2, 4, 8, 16, 32, 64] {
            shapes.push(Shape::Tables { groups, parts });
        }
    }
    // Per kernel: registers per thread, blocks one SM holds, and the waves of each shape.
    let mut machine: Vec<(&str, u32, u32, Vec<f64>)> = Vec::new();
    let mut step9: Option<Vec<[f64; 2]>> = None;
    let mut fastest = (f64::MAX, String::new());
    for shape in shapes {
        let name = shape.kernel();
        let kernel = kernels.function(shape);
        let blocks = shape.blocks(side);
        if machine.last().is_none_or(|m| m.0 != name) {
            let regs = kernel.num_regs().or_exit("read the registers per thread") as u32;
            let fit = kernel
                .occupancy_max_active_blocks_per_multiprocessor(256, 0, None)
                .or_exit("read the occupancy");
            machine.push((name, regs, fit, Vec::new()));
        }
        if let Some((_, _, fit, waves)) = machine.last_mut() {
            waves.push(f64::from(blocks) / f64::from(*fit * sms));
        }
        let mut parts = mirrors::parts_buffer(&stream, shape, side);
        let mut img = alloc_poisoned::<[f32; 2]>(&stream, n_px);
        let time = time_gpu(&stream, 1, 10, || {
            mirrors::launch(
                &stream, &kernels, shape, &d, &quadrant, &mut parts, &mut img,
            )
        });
        let img: Vec<[f64; 2]> = stream
            .clone_dtoh(&img)
            .or_exit("copy the image back")
            .iter()
            .map(|&[re, im]| [re.into(), im.into()])
            .collect();
        let at: Vec<[f64; 2]> = sample.iter().map(|&p| img[p]).collect();
        let e_ref = largest_difference(&at, &reference, peak);
        let e_step9 = step9.as_ref().map(|s9| largest_difference(&img, s9, peak));
        let ok = e_ref <= BOUND && e_step9.is_none_or(|e| e <= BOUND); // NaN fails
        let (g, s) = (shape.groups_per_thread(), shape.parts());
        if matches!(shape, Shape::Tables { .. }) && time.median_ms < fastest.0 {
            fastest = (time.median_ms, format!("G = {g}, S = {s}"));
        }
        let vs_step9 = e_step9.map_or("-".to_string(), |e| format!("{e:.1e}"));
        // ANCHOR_END: sweep
        println!(
            "{name:<16} {g:>3} {s:>3}  {blocks:>6}  {:>9}  {e_ref:>10.1e}  {vs_step9:>9}, \
             bound {BOUND:.0e}: {}",
            fmt_ms(time.median_ms),
            verdict(ok)
        );
        // ANCHOR: sweep
        step9.get_or_insert(img);
    }
    println!("regs = registers per thread; fit = blocks one SM holds at once; waves = the blocks");
    println!("over the blocks all SMs hold at once, for each S above");
    for (name, regs, fit, waves) in &machine {
        let waves: Vec<String> = waves.iter().map(|w| format!("{w:.2}")).collect();
        println!(
            "{name:<16} {regs:>3} regs, fit {fit}, waves {} (this machine)",
            waves.join(" ")
        );
    }
    // ANCHOR_END: sweep
    println!(
        "fastest step 10 kernel: {}, {} (this machine)",
        fastest.1,
        fmt_ms(fastest.0)
    );
}
