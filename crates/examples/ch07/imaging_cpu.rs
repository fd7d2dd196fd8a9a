//! Imaging a radio observation on the CPU: the direct imaging equation, one pixel at a time,
//! serially and with rayon, on a small problem. The two must agree to the last bit, and both
//! are timed in the same run. A single point source, whose image is known without computing
//! it, checks the imaging itself.
use course::compare::{count_mismatches, verdict, within_bound};
use course::imaging::sky::{
    Observation, brightest_point, direction_of, observe, observe_point_source, pixel_of, pixels,
};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_cpu};
use num_complex::Complex64;
use rayon::prelude::*;

// ANCHOR: pixel
/// One pixel of the image: the sum over every visibility of V·e^{+2πi(ul + vm + wn')}, divided
/// by the number of visibilities. `(l, m, nd)` are the pixel's direction cosines, nd = n − 1.
fn image_pixel(
    us: &[f64],
    vs: &[f64],
    ws: &[f64],
    vis: &[Complex64],
    (l, m, nd): (f64, f64, f64),
) -> Complex64 {
    let mut sum = Complex64::new(0.0, 0.0);
    for j in 0..vis.len() {
        let phase = std::f64::consts::TAU * (us[j] * l + vs[j] * m + ws[j] * nd);
        sum += vis[j] * Complex64::from_polar(1.0, phase);
    }
    sum / vis.len() as f64
}
// ANCHOR_END: pixel

/// The whole `side` × `side` image of `obs`, with rayon.
fn image_with_rayon(obs: &Observation, side: usize) -> Vec<Complex64> {
    let (ls, ms, ns) = pixels(side);
    (0..side * side)
        .into_par_iter()
        .map(|p| image_pixel(&obs.u, &obs.v, &obs.w, &obs.vis, (ls[p], ms[p], ns[p])))
        .collect()
}

/// The pixel with the largest real part, as (column, row).
fn brightest(image: &[Complex64], side: usize) -> (usize, usize) {
    let p = (0..image.len())
        .max_by(|&a, &b| image[a].re.total_cmp(&image[b].re))
        .unwrap_or(0);
    (p % side, p / side)
}

fn main() {
    let (side, n_vis, seed) = course::cli::parse(
        "Images the chapter's made-up sky on the CPU, serially and with rayon.",
        |args| {
            (
                args.usize("SIDE", "the image side in pixels", 48, 2, 4096),
                args.usize(
                    "VISIBILITIES",
                    "the number of visibilities",
                    2048,
                    1,
                    1 << 22,
                ),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    println!("noise seed {seed}");
    println!(
        "{n_vis} visibilities from {} antennas over {} time steps",
        obs.antennas, obs.time_steps
    );
    println!(
        "image of {side} x {side} pixels: {} pixel-visibility pairs",
        side * side * n_vis
    );

    // ANCHOR: images
    let (ls, ms, ns) = pixels(side);
    let (us, vs, ws, vis) = (&obs.u, &obs.v, &obs.w, &obs.vis);
    let lmn = |p: usize| (ls[p], ms[p], ns[p]);
    let image_serial = || {
        (0..side * side)
            .map(|p| image_pixel(us, vs, ws, vis, lmn(p)))
            .collect::<Vec<_>>()
    };
    // The unit of parallelism is one pixel: each is its own sum, written by one task.
    let image_rayon = || {
        (0..side * side)
            .into_par_iter()
            .map(|p| image_pixel(us, vs, ws, vis, lmn(p)))
            .collect::<Vec<_>>()
    };
    // ANCHOR_END: images
    let t_serial = time_cpu(0, 1, image_serial);
    let t_rayon = time_cpu(0, 1, image_rayon);
    println!("serial:  {}", fmt_ms(t_serial.median_ms));
    println!("rayon:   {}", fmt_ms(t_rayon.median_ms));
    println!(
        "speedup: {}",
        fmt_speedup(t_serial.median_ms, t_rayon.median_ms)
    );

    // ANCHOR: check
    // Each pixel adds the same terms in the same order in both versions: equal to the last bit.
    let (serial, parallel) = (image_serial(), image_rayon());
    let differ = count_mismatches(&serial, &parallel);
    // ANCHOR_END: check
    println!(
        "pixels that differ between the serial and rayon images: {differ} of {}: {}",
        side * side,
        verdict(differ == 0)
    );
    // ANCHOR: check
    let (col, row) = brightest(&serial, side);
    let source = pixel_of(side, brightest_point());
    // ANCHOR_END: check
    println!(
        "brightest pixel (column {col}, row {row}), {:.3}; the brightest source's pixel ({}, {}): {}",
        serial[row * side + col].re,
        source.0,
        source.1,
        verdict((col, row) == source)
    );

    // ANCHOR: known
    // The known answer: a 1 Jy point source, seen by the same baselines, lying exactly on one
    // pixel, must image to exactly 1 there (to rounding), and to less everywhere else.
    let source = (side / 4, 2 * side / 3);
    let point = image_with_rayon(
        &observe_point_source(n_vis, direction_of(side, source)),
        side,
    );
    let at_source = point[source.1 * side + source.0];
    // ANCHOR_END: known
    println!(
        "a 1 Jy point source at pixel (column {}, row {}) images brightest there: {}",
        source.0,
        source.1,
        verdict(brightest(&point, side) == source)
    );
    let (line, _) = within_bound(
        &format!("value at its pixel {:.9}, error", at_source.re),
        (at_source - 1.0).norm(),
        1e-9,
    );
    println!("{line}");
}
