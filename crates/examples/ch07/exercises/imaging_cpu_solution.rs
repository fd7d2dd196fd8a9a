//! A solution to the exercise in `imaging_cpu.rs`, as in `crates/examples/ch07/imaging_cpu.rs`.
use course::imaging::sky::{Observation, pixels};
use num_complex::Complex64;
use rayon::prelude::*;

pub fn image_pixel(
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

pub fn image_serial(obs: &Observation, side: usize) -> Vec<Complex64> {
    let (ls, ms, ns) = pixels(side);
    (0..side * side)
        .map(|p| image_pixel(&obs.u, &obs.v, &obs.w, &obs.vis, (ls[p], ms[p], ns[p])))
        .collect()
}

/// The unit of parallelism is one pixel: each is its own sum, written by one task.
pub fn image_rayon(obs: &Observation, side: usize) -> Vec<Complex64> {
    let (ls, ms, ns) = pixels(side);
    (0..side * side)
        .into_par_iter()
        .map(|p| image_pixel(&obs.u, &obs.v, &obs.w, &obs.vis, (ls[p], ms[p], ns[p])))
        .collect()
}
