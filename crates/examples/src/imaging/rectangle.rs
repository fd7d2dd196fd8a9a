//! Chapter 7's challenge "Mirrors for a rectangular image" (`kernels/ch07-imaging-rectangle.cu`):
//! an image of `width` columns by `height` rows, imaged in groups of four mirrored pixels.
//!
//! The rule: pixels are square, `cell = FIELD / max(width, height)`, so that the longer side
//! spans the field as a square image's side does, and pixel (col, row) lies at
//! l = (col − width/2)·cell, m = (row − height/2)·cell; a square image of the chapter is the
//! rectangle of equal sides. Which group and which of its four images a pixel is, the kernels
//! alone decide (`image_place_rectangle`, `image_place_groups`); the tests below evaluate those
//! kernels' own index lines against the host's tables.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DriverError, LaunchConfig};
use num_complex::Complex64;
use rayon::prelude::*;

use super::Quadrant;
use super::sky::{FIELD, Observation, OnGpu, n_minus_one};
use crate::launch::{LaunchError, Launcher};

/// Threads per block of `image_rectangle`: the file's `TILE`, one visibility per thread.
pub const TILE: u32 = 256;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rectangle {
    pub width: usize,
    pub height: usize,
}

impl Rectangle {
    /// A `side` × `side` image: the chapter's square.
    pub const fn square(side: usize) -> Rectangle {
        Rectangle {
            width: side,
            height: side,
        }
    }

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

/// `obs` and every pixel of `rect` in f32, in the form the one-pixel-per-thread kernels of
/// `kernels/ch07-imaging.cu` take ([`super::sky::upload`] does this for a square).
pub fn upload(
    stream: &Arc<CudaStream>,
    obs: &Observation,
    rect: Rectangle,
) -> Result<OnGpu<f32>, DriverError> {
    super::upload_pixels(stream, obs, rect.pixel_directions(), |x| x as f32)
}

fn blocks_of_256(threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (threads.div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The launch of `image_rectangle` for `rect`: one thread per group, in blocks of [`TILE`].
pub fn groups_config(rect: Rectangle) -> LaunchConfig {
    blocks_of_256(rect.groups())
}

/// The launch of `image_place_rectangle` for `rect`: one thread per pixel.
pub fn place_config(rect: Rectangle) -> LaunchConfig {
    blocks_of_256(rect.pixels())
}

/// `image_rectangle`'s launcher, as [`crate::imaging_launchers!`]`(rectangle)` generates it.
pub trait GroupsKernel: Launcher {
    /// Launch it with `config` on the data `d` and the quadrant `q`, writing `parts`.
    fn launch_groups(
        &self,
        stream: &CudaStream,
        config: LaunchConfig,
        q: &Quadrant,
        d: &OnGpu<f32>,
        parts: &mut CudaSlice<[f32; 2]>,
    ) -> Result<(), LaunchError>;
}

/// `image_place_rectangle`'s launcher, as [`crate::imaging_launchers!`]`(rectangle)` generates
/// it.
pub trait PlaceKernel: Launcher {
    /// Launch it with `config`, adding `parts` into the pixels of `q`'s rectangle, scaled by
    /// `inv_n`.
    fn launch_place(
        &self,
        stream: &CudaStream,
        config: LaunchConfig,
        q: &Quadrant,
        parts: &CudaSlice<[f32; 2]>,
        inv_n: f32,
        img: &mut CudaSlice<[f32; 2]>,
    ) -> Result<(), LaunchError>;
}

/// `image_rectangle`, one thread per group, writing four sums per group to `parts`.
pub fn launch_groups(
    stream: &Arc<CudaStream>,
    kernel: &impl GroupsKernel,
    q: &Quadrant,
    d: &OnGpu<f32>,
    parts: &mut CudaSlice<[f32; 2]>,
) -> Result<(), LaunchError> {
    kernel.launch_groups(stream, groups_config(q.rect()), q, d, parts)
}

/// `image_place_rectangle`, one thread per pixel, writing the image scaled by `inv_n`.
pub fn launch_place(
    stream: &Arc<CudaStream>,
    kernel: &impl PlaceKernel,
    q: &Quadrant,
    parts: &CudaSlice<[f32; 2]>,
    inv_n: f32,
    img: &mut CudaSlice<[f32; 2]>,
) -> Result<(), LaunchError> {
    kernel.launch_place(stream, place_config(q.rect()), q, parts, inv_n, img)
}

#[cfg(test)]
mod tests {
    use super::super::kernel_text::{Env, anchor, declarations, index_of};
    use super::*;

    const SIZES: [(usize, usize); 5] = [(7, 4), (8, 5), (6, 9), (5, 11), (12, 10)];

    /// Check the mapping of `place` (a kernel's index lines, pixel p to its entry of `parts`)
    /// and of `group` (the entry's group to its offsets a, b, given the names a group's thread
    /// knows) against the host's tables: no two pixels share an entry, every group lies within
    /// the `rect.groups()` the launch and the buffer are sized for, and each pixel's entry is
    /// the image whose (±l, ±m) from [`Rectangle::quadrant`] is the pixel's direction, with the
    /// group's n′ bit for bit.
    fn check_mapping(
        rect: Rectangle,
        place: &str,
        group: &str,
        names: impl Fn(usize) -> Env,
        parts: usize,
    ) {
        let (ls, ms, ns) = rect.quadrant();
        let (w, h) = (rect.width, rect.height);
        let mut seen = std::collections::HashSet::new();
        for p in 0..rect.pixels() {
            let (col, row) = (p % w, p / w);
            let mut env = names(p);
            env.insert("p".into(), p as i64);
            declarations(place, &mut env);
            let entry = usize::try_from(index_of(place, "parts", &env)).expect("an entry");
            assert!(entry < 4 * parts, "{w}x{h}: ({col}, {row}) past the parts");
            let (g, image) = (entry / 4, entry % 4);
            assert!(g < rect.groups(), "{w}x{h}: ({col}, {row}) past the groups");
            assert!(seen.insert(entry), "{w}x{h}: ({col}, {row}) repeats");
            let mut env = names(g);
            declarations(group, &mut env);
            let (a, b) = (env["a"] as usize, env["b"] as usize);
            let sign = |minus: bool| if minus { -1.0 } else { 1.0 };
            let l = sign(image % 2 == 1) * ls[a];
            let m = sign(image / 2 == 1) * ms[b];
            let (pl, pm) = rect.direction_of((col, row));
            assert_eq!((l, m), (pl, pm), "{w}x{h}: ({col}, {row})");
            assert_eq!(ns[g].to_bits(), n_minus_one(pl, pm).to_bits());
        }
    }

    /// `image_place_rectangle` maps each pixel to one image of one group, and `image_rectangle`
    /// gives that group the offsets whose directions are the pixel's, read from the kernel file.
    #[test]
    fn every_pixel_is_one_image_of_one_group() {
        let file = crate::kernel_file!("ch07-imaging-rectangle.cu");
        let (place, group) = (anchor(file.source, "place"), anchor(file.source, "groups"));
        for (width, height) in SIZES {
            let rect = Rectangle { width, height };
            // The names the kernels' lines read: the image's size and a thread's indices
            // (group g is thread g of the one-dimensional launch, in blocks of TILE).
            let names = |g: usize| {
                Env::from([
                    ("width".into(), width as i64),
                    ("height".into(), height as i64),
                    ("TILE".into(), i64::from(TILE)),
                    ("blockIdx.x".into(), (g / TILE as usize) as i64),
                    ("blockDim.x".into(), i64::from(TILE)),
                    ("threadIdx.x".into(), (g % TILE as usize) as i64),
                ])
            };
            check_mapping(rect, place, group, names, rect.groups());
            let launched = blocks_of_256(rect.groups()).grid_dim.0 as usize * 256;
            assert!(
                launched >= rect.groups(),
                "{width}x{height}: groups left out"
            );
        }
    }

    /// The same for a square, with the kernels of steps 9 and 10: `image_place_groups` and
    /// `image_mirrors` (one part: the first part's entries).
    #[test]
    fn every_pixel_of_a_square_is_one_image_of_one_group() {
        let file = crate::kernel_file!("ch07-imaging-mirrors.cu");
        let (place, group) = (anchor(file.source, "place"), anchor(file.source, "mirrors"));
        for side in [7, 8, 9, 12] {
            let rect = Rectangle::square(side);
            let names = |g: usize| {
                Env::from([
                    ("side".into(), side as i64),
                    ("part".into(), 0),
                    ("TILE".into(), 256),
                    ("blockIdx.x".into(), (g / 256) as i64),
                    ("blockDim.x".into(), 256),
                    ("threadIdx.x".into(), (g % 256) as i64),
                ])
            };
            check_mapping(rect, place, group, names, rect.groups());
            assert_eq!(
                rect.groups(),
                super::super::mirrors::values_computed(side) / 4
            );
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
}
