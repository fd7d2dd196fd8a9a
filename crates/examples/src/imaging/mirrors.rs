//! Chapter 7's steps beyond the special-function floor (`kernels/ch07-imaging-mirrors.cu`): the
//! image computed in groups of four mirrored pixels (±l, ±m). A group is named by its column
//! and row offsets (a, b) from the centre pixel `side / 2`, both in `0..=side / 2`.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig};

use super::Quadrant;
use super::sky::OnGpu;
use crate::gpu::OrExit;
use crate::launch::LaunchError;

/// The kernel file's TILE (image_mirrors: threads per block and visibilities per tile), THREADS
/// (image_tables_G: threads per block) and COLUMNS (image_tables_G: columns of groups per block,
/// so a block owns COLUMNS columns by THREADS / (COLUMNS / G) = 8·G rows).
const TILE: u32 = 256;
const THREADS: u32 = 256;
const COLUMNS: u32 = 32;
const KERNELS: [&str; 5] = [
    "image_mirrors",
    "image_tables_1",
    "image_tables_2",
    "image_tables_4",
    "image_tables_8",
];

/// Stops with one sentence unless the loaded kernel file has the shape [`Shape`] launches:
/// its `mirrors_shape` constant holds TILE, THREADS and COLUMNS, and each kernel was built for
/// blocks of that many threads.
pub fn check_shape(module: &Arc<CudaModule>, stream: &Arc<CudaStream>) {
    let global = module
        .get_global("mirrors_shape", stream)
        .or_exit("find mirrors_shape in kernels/ch07-imaging-mirrors.cu");
    let bytes = stream.clone_dtoh(&global).or_exit("read mirrors_shape");
    let shape: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if shape != [TILE, THREADS, COLUMNS] {
        crate::exit::fail(
            crate::exit::EXIT_CUDA_FAILED,
            &format!(
                "kernels/ch07-imaging-mirrors.cu has TILE, THREADS, COLUMNS = {shape:?}, but the host launches {:?}.",
                [TILE, THREADS, COLUMNS]
            ),
        );
    }
    for name in KERNELS {
        let threads = if name == "image_mirrors" {
            TILE
        } else {
            THREADS
        };
        let kernel = crate::kernel::function(module, name);
        crate::kernel::require_block_size(&kernel, name, threads as usize);
    }
}

/// Groups per row (and per column) of a `side` × `side` image: offsets 0 to `side / 2`.
pub fn offsets(side: usize) -> usize {
    side / 2 + 1
}

/// How many pixel values the groups compute (four each), of which `side²` are on the image.
pub fn values_computed(side: usize) -> usize {
    4 * offsets(side) * offsets(side)
}

/// How a kernel of the file is launched: `image_mirrors` with one group per thread, or an
/// `image_tables_G` kernel with `groups` (G) groups per thread and the visibilities split into
/// `parts` parts.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    Mirrors,
    Tables { groups: usize, parts: usize },
}

impl Shape {
    /// The kernel's name in the file, which instantiates G = 1, 2, 4 and 8.
    pub const fn kernel(&self) -> &'static str {
        match self {
            Shape::Mirrors => "image_mirrors",
            Shape::Tables { groups: 1, .. } => "image_tables_1",
            Shape::Tables { groups: 2, .. } => "image_tables_2",
            Shape::Tables { groups: 4, .. } => "image_tables_4",
            Shape::Tables { groups: 8, .. } => "image_tables_8",
            Shape::Tables { .. } => panic!("the kernel file has image_tables_G for G = 1, 2, 4, 8"),
        }
    }

    /// Groups each thread computes.
    pub fn groups_per_thread(&self) -> usize {
        match self {
            Shape::Mirrors => 1,
            Shape::Tables { groups, .. } => *groups,
        }
    }

    /// For `image_tables_G`: the sine-cosine pairs its tables cost per visibility, one for each
    /// column and each row of every block's tile (the parts hold different visibilities).
    pub fn table_sincos_per_visibility(&self, side: usize) -> Option<usize> {
        match self {
            Shape::Mirrors => None,
            Shape::Tables { groups, .. } => {
                let (x, y, _) = self.config(side).grid_dim;
                Some((x * y) as usize * (COLUMNS as usize + 8 * groups))
            }
        }
    }

    pub fn parts(&self) -> usize {
        match self {
            Shape::Mirrors => 1,
            Shape::Tables { parts, .. } => *parts,
        }
    }

    /// Grid and block of the launch for a `side` × `side` image (a block of image_tables_G owns
    /// COLUMNS columns by 8·G rows of groups).
    fn config(&self, side: usize) -> LaunchConfig {
        let n = offsets(side) as u32;
        let (grid_dim, threads) = match self {
            Shape::Mirrors => (((n * n).div_ceil(TILE), 1, 1), TILE),
            Shape::Tables { groups, parts } => {
                let rows = THREADS / (COLUMNS / *groups as u32);
                let grid = (n.div_ceil(COLUMNS), n.div_ceil(rows), *parts as u32);
                (grid, THREADS)
            }
        };
        LaunchConfig {
            grid_dim,
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The launch's blocks in all.
    pub fn blocks(&self, side: usize) -> u32 {
        let g = self.config(side).grid_dim;
        g.0 * g.1 * g.2
    }
}

/// The buffer of partial sums a shape writes: four values per group and part.
pub fn parts_buffer(stream: &Arc<CudaStream>, shape: Shape, side: usize) -> CudaSlice<[f32; 2]> {
    crate::gpu::alloc_poisoned(stream, shape.parts() * values_computed(side))
}

/// The kernels of `kernels/ch07-imaging-mirrors.cu`, as [`crate::imaging_launchers!`]`(mirrors)`
/// generates them: the kernel of each [`Shape`] and `image_place_groups`.
pub trait MirrorKernels {
    /// The function of `shape`'s kernel, for its registers and occupancy.
    fn function(&self, shape: Shape) -> &CudaFunction;

    /// Launch `shape`'s kernel on the data `d` and the quadrant `q`, writing `parts`.
    fn launch_groups(
        &self,
        shape: Shape,
        stream: &CudaStream,
        config: LaunchConfig,
        q: &Quadrant,
        d: &OnGpu<f32>,
        parts: &mut CudaSlice<[f32; 2]>,
    ) -> Result<(), LaunchError>;

    /// `image_place_groups`'s function.
    fn place_function(&self) -> &CudaFunction;

    /// Launch `image_place_groups`: `n_parts` parts per group into the `side²` pixels of `img`.
    #[allow(clippy::too_many_arguments)]
    fn launch_place(
        &self,
        stream: &CudaStream,
        config: LaunchConfig,
        parts: &CudaSlice<[f32; 2]>,
        n_parts: i32,
        side: i32,
        inv_n: f32,
        img: &mut CudaSlice<[f32; 2]>,
    ) -> Result<(), LaunchError>;
}

/// Run the kernel of `shape` (one of `k`) on the data `d` and the quadrant `q`, writing `parts`,
/// then `image_place_groups`, which adds the parts up into the `side²` pixels of `img`.
pub fn launch(
    stream: &Arc<CudaStream>,
    k: &impl MirrorKernels,
    shape: Shape,
    d: &OnGpu<f32>,
    q: &Quadrant,
    parts: &mut CudaSlice<[f32; 2]>,
    img: &mut CudaSlice<[f32; 2]>,
) {
    assert_eq!(q.width, q.height, "steps 9 and 10 image a square");
    let config = shape.config(q.width as usize);
    k.launch_groups(shape, stream, config, q, d, parts)
        .or_exit_launching(k.function(shape));

    let pixels = (q.width as u32).pow(2);
    let config = LaunchConfig {
        grid_dim: (pixels.div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let n_parts = shape.parts() as i32;
    k.launch_place(stream, config, parts, n_parts, q.width, d.inv_n, img)
        .or_exit_launching(k.place_function());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square's quadrant (what steps 9 and 10 read) holds the directions of the pixels at
    /// +a columns and +b rows from the centre, bit for bit, and ms is ls.
    #[test]
    fn the_quadrant_matches_the_pixels() {
        for side in [7, 8, 700, 701] {
            let (ls, ms, ns) = super::super::rectangle::Rectangle::square(side).quadrant();
            assert_eq!(ls, ms);
            let (pl, _, pn) = super::super::sky::pixels(side);
            let c = side / 2;
            for (a, &l) in ls.iter().enumerate().filter(|(a, _)| c + a < side) {
                assert_eq!(l, pl[c + a]);
                // The mirror image at −a has the same n′, bit for bit.
                assert_eq!(ns[a], pn[c * side + c - a]);
            }
        }
        assert_eq!(values_computed(700), 4 * 351 * 351);
    }

    /// `Shape::config` launches what the kernel file is written for.
    #[test]
    fn the_launch_matches_the_kernel_file() {
        let file = crate::kernel_file!("ch07-imaging-mirrors.cu");
        for define in [
            "#define TILE 256",
            "#define THREADS 256",
            "#define COLUMNS 32",
        ] {
            assert!(
                file.source.contains(define),
                "the kernel file lacks `{define}`"
            );
        }
        let config = Shape::Tables {
            groups: 8,
            parts: 64,
        }
        .config(700);
        assert_eq!(config.grid_dim, (11, 6, 64));
    }

    /// The kernels' algebra, in f64: the eight products of `accumulate`, combined as
    /// `store_group` does, give V·e^{2πi(±ul ± vm + wn′)} for the four images in their order.
    #[test]
    fn eight_products_make_four_pixels() {
        use num_complex::Complex64 as C;
        let unit = |t: f64| C::from_polar(1.0, std::f64::consts::TAU * t);
        let (v, u, vv, w, l, m, n) = (C::new(0.3, -1.7), 41.3, -17.9, 5.5, 0.013, 0.007, -1.2e-4);
        let (a, b, c) = (unit(w * n), unit(u * l), unit(vv * m));
        let q = [v * c, v * c.conj()];
        let mut acc = [0.0; 8];
        for s in 0..2 {
            let r = a * q[s];
            acc[4 * s..4 * s + 4].copy_from_slice(&[
                r.re * b.re,
                r.im * b.im,
                r.re * b.im,
                r.im * b.re,
            ]);
        }
        for (i, (sl, sm)) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
            .into_iter()
            .enumerate()
        {
            let p = &acc[4 * (i / 2)..];
            let got = match i % 2 {
                0 => C::new(p[0] - p[1], p[2] + p[3]),
                _ => C::new(p[0] + p[1], p[3] - p[2]),
            };
            let want = v * unit(sl * u * l + sm * vv * m + w * n);
            assert!((got - want).norm() < 1e-12, "image {i}: {got} != {want}");
        }
    }
}
