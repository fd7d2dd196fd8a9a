//! Chapter 7's challenge "Mirrors for a rectangular image" (`kernels/ch07-imaging-rectangle.cu`):
//! an image of `width` columns by `height` rows, imaged in groups of four mirrored pixels.
//!
//! The rule: pixels are square, `cell = FIELD / max(width, height)`, so that the longer side
//! spans the field as a square image's side does, and pixel (col, row) lies at
//! l = (col − width/2)·cell, m = (row − height/2)·cell. Its group is named by the offsets
//! (a, b) = (|col − width/2|, |row − height/2|), numbered `b · (width/2 + 1) + a`, and the pixel
//! is one of the group's four images, numbered in the kernels' order (+l, +m), (−l, +m),
//! (+l, −m), (−l, −m).

use std::sync::Arc;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use num_complex::Complex64;
use rayon::prelude::*;

use crate::sky::{FIELD, Observation, OnGpu, n_minus_one};

/// Threads per block of `image_rectangle`: the file's `TILE`, one visibility per thread.
pub const TILE: u32 = 256;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rectangle {
    pub width: usize,
    pub height: usize,
}

impl Rectangle {
    pub fn cell(self) -> f64 {
        FIELD / self.width.max(self.height) as f64
    }

    pub fn pixels(self) -> usize {
        self.width * self.height
    }

    /// Column offsets 0 ..= width/2: the groups in one row of groups.
    pub fn column_offsets(self) -> usize {
        self.width / 2 + 1
    }

    /// Row offsets 0 ..= height/2.
    pub fn row_offsets(self) -> usize {
        self.height / 2 + 1
    }

    pub fn groups(self) -> usize {
        self.column_offsets() * self.row_offsets()
    }

    /// The direction cosines (l, m) of pixel (col, row).
    pub fn direction_of(self, (col, row): (usize, usize)) -> (f64, f64) {
        let coord = |i: usize, side: usize| (i as f64 - (side / 2) as f64) * self.cell();
        (coord(col, self.width), coord(row, self.height))
    }

    /// The group and the image (0 to 3) whose sum is pixel (col, row)'s.
    pub fn group_of(self, (col, row): (usize, usize)) -> (usize, usize) {
        let (ca, cb) = (self.width / 2, self.height / 2);
        let (a, b) = (col.abs_diff(ca), row.abs_diff(cb));
        let image = usize::from(col < ca) + 2 * usize::from(row < cb);
        (b * self.column_offsets() + a, image)
    }

    /// What the kernels read, in f64: l for each column offset, m for each row offset and n′
    /// for each group.
    pub fn quadrant(self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let ls: Vec<f64> = (0..self.column_offsets())
            .map(|a| a as f64 * self.cell())
            .collect();
        let ms: Vec<f64> = (0..self.row_offsets())
            .map(|b| b as f64 * self.cell())
            .collect();
        let ns = ms
            .iter()
            .flat_map(|&m| ls.iter().map(move |&l| n_minus_one(l, m)))
            .collect();
        (ls, ms, ns)
    }

    /// (l, m, n′) of every pixel, row by row, as the one-pixel-per-thread kernels read them.
    pub fn pixel_directions(self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let (mut ls, mut ms, mut ns) = (Vec::new(), Vec::new(), Vec::new());
        for row in 0..self.height {
            for col in 0..self.width {
                let (l, m) = self.direction_of((col, row));
                ls.push(l);
                ms.push(m);
                ns.push(n_minus_one(l, m));
            }
        }
        (ls, ms, ns)
    }

    /// The image at the pixels `at` (indices row by row), in f64 on the CPU with rayon.
    pub fn image_f64(self, obs: &Observation, at: &[usize]) -> Vec<[f64; 2]> {
        let n_vis = obs.vis.len();
        at.par_iter()
            .map(|&p| {
                let (l, m) = self.direction_of((p % self.width, p / self.width));
                let n = n_minus_one(l, m);
                let mut sum = Complex64::new(0.0, 0.0);
                for j in 0..n_vis {
                    let turns = obs.u[j] * l + obs.v[j] * m + obs.w[j] * n;
                    sum += obs.vis[j] * Complex64::from_polar(1.0, std::f64::consts::TAU * turns);
                }
                [sum.re / n_vis as f64, sum.im / n_vis as f64]
            })
            .collect()
    }
}

/// The quadrant on the GPU, in f32, with the image's size as the kernels take it.
pub struct Quadrant {
    pub ls: CudaSlice<f32>,
    pub ms: CudaSlice<f32>,
    pub ns: CudaSlice<f32>,
    pub width: i32,
    pub height: i32,
}

fn send(stream: &Arc<CudaStream>, xs: &[f64]) -> Result<CudaSlice<f32>, DriverError> {
    stream.clone_htod(&xs.iter().map(|&x| x as f32).collect::<Vec<f32>>())
}

/// Sides up to 4096 pixels, whose counts fit the kernels' `int`s.
fn int(count: usize) -> i32 {
    i32::try_from(count).expect("a count that fits an int")
}

pub fn upload_quadrant(stream: &Arc<CudaStream>, rect: Rectangle) -> Result<Quadrant, DriverError> {
    let (ls, ms, ns) = rect.quadrant();
    Ok(Quadrant {
        ls: send(stream, &ls)?,
        ms: send(stream, &ms)?,
        ns: send(stream, &ns)?,
        width: int(rect.width),
        height: int(rect.height),
    })
}

/// `obs` and every pixel of `rect` in f32, in the form the one-pixel-per-thread kernels of
/// `kernels/ch07-imaging.cu` take ([`crate::sky::upload`] does this for a square).
pub fn upload(
    stream: &Arc<CudaStream>,
    obs: &Observation,
    rect: Rectangle,
) -> Result<OnGpu<f32>, DriverError> {
    let (ls, ms, ns) = rect.pixel_directions();
    let vis: Vec<[f32; 2]> = obs.vis.iter().map(|z| [z.re as f32, z.im as f32]).collect();
    Ok(OnGpu {
        ls: send(stream, &ls)?,
        ms: send(stream, &ms)?,
        ns: send(stream, &ns)?,
        n_px: int(rect.pixels()),
        us: send(stream, &obs.u)?,
        vs: send(stream, &obs.v)?,
        ws: send(stream, &obs.w)?,
        vis: stream.clone_htod(&vis)?,
        n_vis: int(obs.vis.len()),
        inv_n: 1.0 / obs.vis.len() as f32,
    })
}

fn blocks_of_256(threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (threads.div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `image_rectangle`, one thread per group, writing four sums per group to `parts`.
pub fn launch_groups(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    q: &Quadrant,
    d: &OnGpu<f32>,
    parts: &mut CudaSlice<[f32; 2]>,
) -> Result<(), DriverError> {
    let groups = (q.width as usize / 2 + 1) * (q.height as usize / 2 + 1);
    let mut launch = stream.launch_builder(kernel);
    launch
        .arg(&q.ls)
        .arg(&q.ms)
        .arg(&q.ns)
        .arg(&q.width)
        .arg(&q.height);
    launch
        .arg(&d.us)
        .arg(&d.vs)
        .arg(&d.ws)
        .arg(&d.vis)
        .arg(&d.n_vis);
    launch.arg(parts);
    unsafe { launch.launch(blocks_of_256(groups)) }.map(|_| ())
}

/// `image_place_rectangle`, one thread per pixel, writing the image scaled by `inv_n`.
pub fn launch_place(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    q: &Quadrant,
    parts: &CudaSlice<[f32; 2]>,
    inv_n: f32,
    img: &mut CudaSlice<[f32; 2]>,
) -> Result<(), DriverError> {
    let pixels = q.width as usize * q.height as usize;
    let mut launch = stream.launch_builder(kernel);
    launch
        .arg(parts)
        .arg(&q.width)
        .arg(&q.height)
        .arg(&inv_n)
        .arg(img);
    unsafe { launch.launch(blocks_of_256(pixels)) }.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [(usize, usize); 5] = [(7, 4), (8, 5), (6, 9), (5, 11), (12, 10)];

    /// No two pixels share a (group, image), and each pixel's image has its own direction:
    /// (±l, ±m) from the quadrant, with the group's n′ bit for bit.
    #[test]
    fn every_pixel_is_one_image_of_one_group() {
        for (width, height) in SIZES {
            let rect = Rectangle { width, height };
            let (ls, ms, ns) = rect.quadrant();
            let mut seen = std::collections::HashSet::new();
            for row in 0..height {
                for col in 0..width {
                    let (g, image) = rect.group_of((col, row));
                    assert!(g < rect.groups() && image < 4);
                    assert!(
                        seen.insert((g, image)),
                        "{width}x{height}: ({col}, {row}) repeats"
                    );
                    let (a, b) = (g % rect.column_offsets(), g / rect.column_offsets());
                    let sign = |minus: bool| if minus { -1.0 } else { 1.0 };
                    let l = sign(image % 2 == 1) * ls[a];
                    let m = sign(image / 2 == 1) * ms[b];
                    let (pl, pm) = rect.direction_of((col, row));
                    assert_eq!((l, m), (pl, pm), "{width}x{height}: ({col}, {row})");
                    assert_eq!(ns[g].to_bits(), n_minus_one(pl, pm).to_bits());
                }
            }
            assert_eq!(seen.len(), rect.pixels());
        }
    }

    /// The centre pixel (width/2, height/2) is at (0, 0), and the longer side spans the field.
    #[test]
    fn the_centre_and_the_cell() {
        for (width, height) in SIZES {
            let rect = Rectangle { width, height };
            assert_eq!(rect.direction_of((width / 2, height / 2)), (0.0, 0.0));
            assert!((rect.cell() * width.max(height) as f64 - FIELD).abs() < 1e-15);
        }
    }

    /// A square is chapter 7's square image, bit for bit.
    #[test]
    fn a_square_is_the_chapters_image() {
        for side in [7, 8] {
            let rect = Rectangle {
                width: side,
                height: side,
            };
            assert_eq!(rect.pixel_directions(), crate::sky::pixels(side));
        }
    }
}
