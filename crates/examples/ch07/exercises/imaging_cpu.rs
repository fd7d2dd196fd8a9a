//! Exercise: the Challenge of "Imaging on the CPU". Write the imaging equation for one pixel,
//! then image a `side` × `side` field serially and with rayon. What is the unit of
//! parallelism? Check your answer with `cargo run --bin judge -- ch07`.
#![allow(unused_variables, unused_imports)]
use course::imaging::sky::{Observation, pixels};
use num_complex::Complex64;
use rayon::prelude::*;

/// One pixel: the sum over every visibility j of
/// vis[j]·e^{+2πi(us[j]·l + vs[j]·m + ws[j]·nd)}, divided by the number of visibilities.
/// `(l, m, nd)` are the pixel's direction cosines, nd = n − 1.
pub fn image_pixel(
    us: &[f64],
    vs: &[f64],
    ws: &[f64],
    vis: &[Complex64],
    (l, m, nd): (f64, f64, f64),
) -> Complex64 {
    // TODO: the imaging equation.
    Complex64::new(0.0, 0.0)
}

/// Every pixel of the image of `obs`, at the directions `pixels(side)` gives (row by row),
/// one after another.
pub fn image_serial(obs: &Observation, side: usize) -> Vec<Complex64> {
    // TODO: image_pixel for each pixel, serially.
    Vec::new()
}

/// The same image, with rayon; it must equal `image_serial`'s to the last bit.
pub fn image_rayon(obs: &Observation, side: usize) -> Vec<Complex64> {
    // TODO: image_pixel for each pixel, in parallel.
    Vec::new()
}
