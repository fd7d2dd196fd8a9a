//! Imaging a radio observation on the CPU: the direct imaging equation, one pixel at a time,
//! serially and with rayon, on a small problem. The two must agree to rounding, and both are
//! timed in the same run.
use course::cli::arg_usize;
use course::compare::verdict;
use course::machine::describe_cpu;
use course::random::{Rng, fresh_seed};
use course::sky::{observe, pixels};
use course::timing::{fmt_ms, fmt_times, time_cpu};
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

fn main() {
    let side = arg_usize(1, "the image side in pixels", 48, 2, 4096);
    let n_vis = arg_usize(2, "the number of visibilities", 2048, 1, 1 << 22);
    println!("{}", describe_cpu());
    let seed = fresh_seed();
    let obs = observe(n_vis, Some(&mut Rng::new(seed)));
    println!(
        "{n_vis} visibilities from {} antennas over {} time steps, noise seed {seed} (varies)",
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
    let t_serial = time_cpu(0, 1, image_serial);
    let t_rayon = time_cpu(0, 1, image_rayon);
    println!("serial:  {}", fmt_ms(t_serial.median_ms));
    println!("rayon:   {}", fmt_ms(t_rayon.median_ms));
    println!(
        "speedup: {}",
        fmt_times(t_serial.median_ms / t_rayon.median_ms)
    );
    // ANCHOR_END: images

    // ANCHOR: check
    let (serial, parallel) = (image_serial(), image_rayon());
    let peak = serial.iter().map(|z| z.re).fold(f64::MIN, f64::max);
    let worst = serial
        .iter()
        .zip(&parallel)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    println!(
        "largest difference, relative to the peak: {:.1e} (varies)",
        worst / peak
    );
    println!(
        "rayon's image equals the serial one to 1e-12 of the peak: {}",
        verdict(worst <= 1e-12 * peak)
    );
    // ANCHOR_END: check
}
