//! Draws the book's pictures of the made-up sky: the real part of a SIDE × SIDE image from
//! VISIBILITIES noise-free visibilities, computed with rayon in f64. Prints an SVG in grey, or
//! with `png` a PNG in colour (`course::png`).
use std::io::Write;

use course::gpu::OrExit;
use course::imaging::sky::{observe, pixels};
use course::plot::grey_image_svg;
use num_complex::Complex64;
use rayon::prelude::*;

fn main() {
    let (png, side, n_vis) = course::cli::parse(
        "Draws the chapter's made-up sky, imaged from noise-free visibilities, as an SVG or a PNG.",
        |args| {
            (
                args.word("png", "print a PNG in colour instead of the SVG"),
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
        .collect();
    // ANCHOR_END: image
    if png {
        let note = format!("drawn by `sky_image png {side} {n_vis}`");
        let file = course::png::encode(&image, side, side, &note);
        std::io::stdout().write_all(&file).or_exit("write the PNG");
        return;
    }
    // Show the square root of the brightness (negative values black), so that the faint lobes
    // stand out beside the bright core.
    let stretched: Vec<f64> = image.iter().map(|b| b.max(0.0).sqrt()).collect();
    let title = format!("Square root of the image, {side} x {side} pixels, {n_vis} visibilities");
    println!("<!-- drawn by `sky_image {side} {n_vis}` -->");
    print!("{}", grey_image_svg(&title, &stretched, side, side, 3));
}
