//! Draws the book's picture of the made-up sky: the real part of a SIDE × SIDE image from
//! VISIBILITIES noise-free visibilities, computed with rayon in f64. Prints the SVG.
use course::plot::grey_image_svg;
use course::sky::{observe, pixels};
use num_complex::Complex64;
use rayon::prelude::*;

fn main() {
    let (side, n_vis) = course::cli::parse(
        "Draws the chapter's made-up sky, imaged from noise-free visibilities, as an SVG.",
        |args| {
            (
                args.usize("SIDE", "the image side in pixels", 128, 8, 1024),
                args.usize(
                    "VISIBILITIES",
                    "the number of visibilities",
                    4096,
                    1,
                    1 << 20,
                ),
            )
        },
    );
    let obs = observe(n_vis, None);
    let (ls, ms, ns) = pixels(side);
    // ANCHOR: image
    let image: Vec<f64> = (0..side * side)
        .into_par_iter()
        .map(|p| {
            let mut sum = Complex64::new(0.0, 0.0);
            for j in 0..n_vis {
                let phase = std::f64::consts::TAU
                    * (obs.u[j] * ls[p] + obs.v[j] * ms[p] + obs.w[j] * ns[p]);
                sum += obs.vis[j] * Complex64::from_polar(1.0, phase);
            }
            // The sky is real: keep the real part.
            sum.re / n_vis as f64
        })
        // Show the square root of the brightness (negative values black), so that the faint
        // lobes stand out beside the bright point source.
        .map(|brightness| brightness.max(0.0).sqrt())
        .collect();
    // ANCHOR_END: image
    let title = format!("Square root of the image, {side} x {side} pixels, {n_vis} visibilities");
    println!("<!-- drawn by `sky_image {side} {n_vis}` -->");
    print!("{}", grey_image_svg(&title, &image, side, side, 3));
}
