//! Challenge: mirrors for a rectangular image. Step 9's groups of four mirrored pixels on an
//! image of WIDTH x HEIGHT pixels, checked against float64 on the CPU, against a point source
//! whose image is known, and against the one-pixel-per-thread kernel of step 7; both timed.
use std::sync::Arc;

use course::compare::{largest_difference, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size, sanitizing};
use course::imaging::rectangle::{self, Rectangle};
use course::imaging::sky::{OnGpu, check_block, observe};
use course::imaging::{
    POINT_VIS, Quadrant, observe_point_sources, upload_quadrant, worst_distance_from_one,
};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream};

course::imaging_launchers!(f32);
course::imaging_launchers!(rectangle);

/// Every check, over the peak.
const BOUND: f64 = 1e-4;

/// Copy an image back as f64 pairs (re, im).
fn fetch(stream: &Arc<CudaStream>, img: &CudaSlice<[f32; 2]>) -> Vec<[f64; 2]> {
    let img = stream.clone_dtoh(img).or_exit("copy the image back");
    img.iter().map(|&[re, im]| [re.into(), im.into()]).collect()
}

// ANCHOR: run
/// The image of `d` by groups (`image_rectangle`, then `image_place_rectangle`), on poisoned
/// buffers; timed as one piece of work, `reps` = (warm-up runs, timed runs).
fn image_by_groups(
    stream: &Arc<CudaStream>,
    k: &ch07_imaging_rectangle::Kernels,
    q: &Quadrant,
    d: &OnGpu<f32>,
    reps: (usize, usize),
) -> (Timing, Vec<[f64; 2]>) {
    let rect = q.rect();
    let mut parts = alloc_poisoned::<[f32; 2]>(stream, 4 * rect.groups());
    let mut img = alloc_poisoned::<[f32; 2]>(stream, rect.pixels());
    let (groups, place) = (&k.image_rectangle, &k.image_place_rectangle);
    // ANCHOR_END: run
    let t = time_gpu(stream, reps.0, reps.1, || {
        // ANCHOR: run
        rectangle::launch_groups(stream, groups, q, d, &mut parts).or_exit_launching(groups);
        rectangle::launch_place(stream, place, q, &parts, d.inv_n, &mut img)
            .or_exit_launching(place);
        // ANCHOR_END: run
    });
    // ANCHOR: run
    (t, fetch(stream, &img))
}
// ANCHOR_END: run

fn main() {
    let (width, height, seed) = course::cli::parse(
        "Images the chapter's sky on a rectangle of pixels on the GPU in groups of four mirrored pixels, checking and timing it.",
        |args| {
            (
                args.usize(
                    "WIDTH",
                    "the image width in pixels",
                    problem_size(700, 70),
                    2,
                    4096,
                ),
                args.usize(
                    "HEIGHT",
                    "the image height in pixels",
                    problem_size(400, 41),
                    2,
                    4096,
                ),
                args.seed(),
            )
        },
    );
    let n_vis = problem_size(1 << 18, 4096);
    let rect = Rectangle { width, height };
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch07-imaging-rectangle.cu"), false);
    let kernels = ch07_imaging_rectangle::Kernels::load(&module);
    let groups = &kernels.image_rectangle.function;
    require_block_size(groups, "image_rectangle", rectangle::TILE as usize);
    let direct_file = kernel_file!("ch07-imaging.cu");
    check_block(&direct_file);
    let direct = ch07_imaging::Kernels::load(&load(&ctx, &direct_file, false));

    let mut rng = Rng::new(seed);
    let obs = observe(n_vis, Some(&mut rng));
    let n_px = rect.pixels();
    let across = |side: usize| (rect.cell() * side as f64).to_degrees();
    println!(
        "image of {width} x {height} pixels, {:.2} x {:.2} degrees (cell = field / {})",
        across(width),
        across(height),
        width.max(height)
    );
    println!(
        "{n_vis} visibilities from {} antennas over {} time steps",
        obs.antennas, obs.time_steps
    );
    println!("noise and sampled pixels drawn with seed {seed}");
    println!(
        "groups: {} column offsets x {} row offsets = {}, computing {} values for {n_px} pixels",
        rect.column_offsets(),
        rect.row_offsets(),
        rect.groups(),
        4 * rect.groups()
    );

    // ANCHOR: reference
    // 256 random pixels, the four corners, where the groups of the longest offsets lie, and
    // the centre, where the brightest source puts the image's peak (the checks divide by it).
    let mut sample: Vec<usize> = (0..256).map(|_| rng.below(n_px as u64) as usize).collect();
    let centre = height / 2 * width + width / 2;
    sample.extend([0, width - 1, n_px - width, n_px - 1, centre]);
    let reference = rect.image_f64(&obs, &sample);
    let peak = reference.iter().map(|z| z[0]).fold(f64::MIN, f64::max);
    println!(
        "float64 reference on the CPU: {} pixels (256 at random, the four corners and the \
         centre), peak {peak:.3}",
        sample.len()
    );
    // ANCHOR_END: reference

    // ANCHOR: point
    // A point source at a pixel away from the centre images to exactly 1 there. One in each
    // quadrant, each imaged on its own: a group's four mirror images are computed apart.
    let points = observe_point_sources(rect);
    // ANCHOR_END: point
    let d = rectangle::upload(&stream, &obs, rect).or_exit("copy the data to the GPU");
    let q = upload_quadrant(&stream, rect).or_exit("copy the quadrant to the GPU");

    let reps = (1, 10);
    let (warm, timed) = if sanitizing() { (0, 1) } else { reps };
    println!(
        "timing: warm-up runs {warm}, timed runs {timed}; each time shown is their median, from CUDA events"
    );
    let flops = Work::Flops(13.0 * (n_px * n_vis) as f64);
    let (t_groups, img) = image_by_groups(&stream, &kernels, &q, &d, reps);
    record(
        &format!("image_rectangle, {width}x{height} px, {n_vis} vis, counted as the direct sum"),
        &t_groups,
        flops,
    );
    let mut direct_img = alloc_poisoned::<[f32; 2]>(&stream, n_px);
    let t_direct = time_gpu(&stream, reps.0, reps.1, || {
        d.launch(&stream, &direct.image_fma_1_256, 1, &mut direct_img)
    });
    record(
        &format!("image_fma_1_256 on the rectangle, {width}x{height} px, {n_vis} vis"),
        &t_direct,
        flops,
    );
    let direct_img = fetch(&stream, &direct_img);
    let point_error = worst_distance_from_one(rect, |k| {
        let d_point =
            rectangle::upload(&stream, &points[k], rect).or_exit("copy the data to the GPU");
        image_by_groups(&stream, &kernels, &q, &d_point, (0, 1)).1
    });
    for (what, t) in [
        (
            "groups of four (image_rectangle, image_place_rectangle)",
            &t_groups,
        ),
        ("one pixel per thread (image_fma_1_256)", &t_direct),
    ] {
        println!("{what:<56} {:>9} (this machine)", fmt_ms(t.median_ms));
    }
    println!(
        "the groups are {} as fast as one pixel per thread (this machine)",
        fmt_times(t_direct.median_ms / t_groups.median_ms)
    );

    // ANCHOR: checks
    println!();
    println!("checks, over the peak:");
    let at: Vec<[f64; 2]> = sample.iter().map(|&p| img[p]).collect();
    let unwritten = img
        .iter()
        .filter(|z| z[0].is_nan() || z[1].is_nan())
        .count();
    for (what, value) in [
        (
            "largest difference from the float64 reference at the sampled pixels".to_string(),
            largest_difference(&at, &reference, peak),
        ),
        (
            "largest difference from one pixel per thread over the whole image".to_string(),
            largest_difference(&img, &direct_img, peak),
        ),
        (
            format!(
                "point source in each quadrant ({POINT_VIS} visibilities): worst distance from 1"
            ),
            point_error,
        ),
    ] {
        // ANCHOR_END: checks
        println!("  {}", within_bound(&what, value, BOUND).0);
        // ANCHOR: checks
    }
    // ANCHOR_END: checks
    println!(
        "  pixels left NaN from the poisoned buffers: {unwritten}; every pixel written: {}",
        verdict(unwritten == 0)
    );
    // ANCHOR: checks
    let brightest = img.iter().map(|z| z[0]).fold(f64::MIN, f64::max);
    // ANCHOR_END: checks
    println!(
        "  no pixel of the image is brighter than the peak (within the bound): {}",
        verdict(brightest <= peak * (1.0 + BOUND))
    );
}
