//! A made-up radio observation for chapter 7: a radio galaxy loosely like Fornax A (a bright
//! core, two jets and two extended lobes) and a few point sources, seen by an interferometer of
//! 64 antennas while the Earth turns.
//! Everything is computed in f64. The imaging programs all take their data from here, so they
//! image the same sky.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, LaunchConfig};
use num_complex::Complex64;

use super::rectangle::Rectangle;
use crate::gpu::OrExit;
use crate::launch::{LaunchError, Launcher};

use crate::random::Rng;

/// The width of the imaged field, in radians (about 2.3 degrees).
pub const FIELD: f64 = 0.04;
/// Observing wavelength in metres (150 MHz).
const WAVELENGTH: f64 = 2.0;
const ANTENNAS: usize = 64;
/// Site latitude and the field's declination, in degrees (roughly the MWA and Fornax A).
const LATITUDE: f64 = -26.7;
const DECLINATION: f64 = -37.2;
/// The Earth turns by this hour angle (radians) between two time steps: two minutes.
const HOUR_ANGLE_STEP: f64 = 2.0 * std::f64::consts::TAU / (24.0 * 60.0);

/// One component of the sky: `flux` (Jy) centred at direction cosines `(l, m)`; a point source
/// when both widths are zero, otherwise a Gaussian with standard deviations `sigma_l`, `sigma_m`.
struct Component {
    l: f64,
    m: f64,
    flux: f64,
    sigma_l: f64,
    sigma_m: f64,
}

/// A compact component: all its flux in one direction.
const fn point(l: f64, m: f64, flux: f64) -> Component {
    gaussian(l, m, flux, 0.0, 0.0)
}

const fn gaussian(l: f64, m: f64, flux: f64, sigma_l: f64, sigma_m: f64) -> Component {
    Component {
        l,
        m,
        flux,
        sigma_l,
        sigma_m,
    }
}

/// The radio galaxy's core, at the centre of the field. It lies on a pixel centre at every
/// image size, and it is the brightest pixel of every image: no lobe packs as much flux into
/// one beam.
const CORE: Component = point(0.0, 0.0, 8.0);

/// A radio galaxy and a few unrelated sources, fluxes in Jy and directions in radians. The two
/// lobes lie on an axis through the core, tilted a little from east-west. Each lobe is a faint
/// broad envelope, a few smaller overlapping bodies that give it texture and a brighter outer
/// rim, and a compact hot spot at its far end; a chain of knots (the jet) runs from the core
/// towards each.
const SKY: &[Component] = &[
    CORE,
    // West lobe (smaller l): the larger and brighter one.
    gaussian(-0.0105, 0.0032, 25.0, 0.0030, 0.0030),
    gaussian(-0.0090, 0.0026, 18.0, 0.0016, 0.0018),
    gaussian(-0.0108, 0.0040, 18.0, 0.0016, 0.0016),
    gaussian(-0.0112, 0.0018, 12.0, 0.0014, 0.0012),
    gaussian(-0.0125, 0.0032, 12.0, 0.0010, 0.0016),
    gaussian(-0.0098, 0.0050, 8.0, 0.0012, 0.0010),
    gaussian(-0.0134, 0.0036, 4.0, 0.0004, 0.0004),
    // West jet.
    gaussian(-0.0025, 0.0007, 4.0, 0.0004, 0.0003),
    gaussian(-0.0042, 0.0012, 3.5, 0.0005, 0.0003),
    gaussian(-0.0060, 0.0018, 3.0, 0.0006, 0.0004),
    // East lobe: fainter, with a filament along its northern side.
    gaussian(0.0098, -0.0028, 20.0, 0.0030, 0.0026),
    gaussian(0.0085, -0.0022, 14.0, 0.0016, 0.0014),
    gaussian(0.0102, -0.0036, 14.0, 0.0014, 0.0016),
    gaussian(0.0112, -0.0014, 10.0, 0.0018, 0.0008),
    gaussian(0.0120, -0.0034, 9.0, 0.0010, 0.0014),
    gaussian(0.0127, -0.0037, 3.5, 0.0005, 0.0005),
    // East jet.
    gaussian(0.0024, -0.0007, 3.5, 0.0004, 0.0003),
    gaussian(0.0041, -0.0012, 3.0, 0.0005, 0.0003),
    gaussian(0.0058, -0.0017, 2.5, 0.0006, 0.0004),
    // Unrelated compact sources in the field.
    point(0.0135, 0.0125, 3.0),
    point(-0.0140, -0.0130, 2.0),
    point(0.0035, 0.0155, 1.5),
    point(-0.0050, -0.0150, 1.2),
];

/// Where the brightest compact source lies, as direction cosines `(l, m)`: the core.
pub fn brightest_point() -> (f64, f64) {
    (CORE.l, CORE.m)
}

/// Measured data: baseline coordinates `(u, v, w)` in wavelengths and one visibility for each.
pub struct Observation {
    pub u: Vec<f64>,
    pub v: Vec<f64>,
    pub w: Vec<f64>,
    pub vis: Vec<Complex64>,
    /// How many antennas and time steps gave these baselines.
    pub antennas: usize,
    pub time_steps: usize,
}

/// `n'` = `n − 1` = `sqrt(1 − l² − m²) − 1`, written so that nothing cancels near the centre.
pub fn n_minus_one(l: f64, m: f64) -> f64 {
    let r2 = l * l + m * m;
    -r2 / (1.0 + (1.0 - r2).sqrt())
}

/// Antenna positions (east, north, up) in metres: a fixed layout, denser near the centre (a Gaussian of 500 m).
fn antennas() -> Vec<[f64; 3]> {
    let mut rng = Rng::new(0x5EED_A11A);
    (0..ANTENNAS)
        .map(|_| {
            [
                500.0 * rng.normal(),
                500.0 * rng.normal(),
                3.0 * rng.normal(),
            ]
        })
        .collect()
}

/// `n_vis` visibilities: every pair of antennas at successive time steps, as many steps as
/// needed. With `noise`, each visibility gets Gaussian noise of 1 Jy in each part.
pub fn observe(n_vis: usize, noise: Option<&mut Rng>) -> Observation {
    observe_sky(n_vis, SKY, noise)
}

/// The same baselines as [`observe`], looking at a sky of one point source of 1 Jy at `(l, m)`
/// and nothing else, without noise. Imaged at `(l, m)` itself every term of the sum is
/// V·e^{+iφ} = e^{−iφ}·e^{+iφ} = 1, so the pixel there is exactly 1, and no pixel is brighter:
/// an answer known without running any imaging code.
pub fn observe_point_source(n_vis: usize, (l, m): (f64, f64)) -> Observation {
    let source = Component {
        l,
        m,
        flux: 1.0,
        sigma_l: 0.0,
        sigma_m: 0.0,
    };
    observe_sky(n_vis, &[source], None)
}

fn observe_sky(n_vis: usize, sky: &[Component], mut noise: Option<&mut Rng>) -> Observation {
    let ants = antennas();
    let (lat, dec) = (LATITUDE.to_radians(), DECLINATION.to_radians());
    let mut baselines = Vec::new();
    for a in 0..ants.len() {
        for b in a + 1..ants.len() {
            let d: Vec<f64> = (0..3)
                .map(|k| (ants[b][k] - ants[a][k]) / WAVELENGTH)
                .collect();
            // East-north-up to equatorial X (towards hour angle 0), Y (east), Z (north pole).
            baselines.push([
                -lat.sin() * d[1] + lat.cos() * d[2],
                d[0],
                lat.cos() * d[1] + lat.sin() * d[2],
            ]);
        }
    }
    let time_steps = n_vis.div_ceil(baselines.len());
    let mut obs = Observation {
        u: Vec::new(),
        v: Vec::new(),
        w: Vec::new(),
        vis: Vec::new(),
        antennas: ants.len(),
        time_steps,
    };
    'fill: for t in 0..time_steps {
        let h = (t as f64 - (time_steps as f64 - 1.0) / 2.0) * HOUR_ANGLE_STEP;
        for &[x, y, z] in &baselines {
            if obs.u.len() == n_vis {
                break 'fill;
            }
            let u = h.sin() * x + h.cos() * y;
            let v = -dec.sin() * h.cos() * x + dec.sin() * h.sin() * y + dec.cos() * z;
            let w = dec.cos() * h.cos() * x - dec.cos() * h.sin() * y + dec.sin() * z;
            let mut vis = Complex64::new(0.0, 0.0);
            for c in sky {
                // A Gaussian of widths σ has the Gaussian taper exp(−2π²(σ_l²u² + σ_m²v²)).
                let taper = (-2.0
                    * std::f64::consts::PI.powi(2)
                    * (c.sigma_l.powi(2) * u * u + c.sigma_m.powi(2) * v * v))
                    .exp();
                let phase =
                    -std::f64::consts::TAU * (u * c.l + v * c.m + w * n_minus_one(c.l, c.m));
                vis += c.flux * taper * Complex64::from_polar(1.0, phase);
            }
            if let Some(rng) = noise.as_deref_mut() {
                vis += Complex64::new(rng.normal(), rng.normal());
            }
            obs.u.push(u);
            obs.v.push(v);
            obs.w.push(w);
            obs.vis.push(vis);
        }
    }
    obs
}

/// The arguments of the chapter's imaging programs: SIDE and VISIBILITIES, the workshop's 700
/// and 262,144 by default (64 and 4,096 under compute-sanitizer), and the seed.
pub fn image_args(args: &mut crate::cli::Args) -> (usize, usize, u64) {
    let size = crate::sanitizer::problem_size;
    (
        args.usize("SIDE", "the image side in pixels", size(700, 64), 8, 4096),
        args.usize(
            "VISIBILITIES",
            "the number of visibilities",
            size(1 << 18, 4096),
            1,
            1 << 22,
        ),
        args.seed(),
    )
}

/// The direction cosines `(l, m, n')` of every pixel of a `side` × `side` image of the field,
/// row by row (`m` grows with the row, `l` with the column), pixel `side / 2` at the centre:
/// the rule of [`Rectangle::pixel_directions`], for a square.
pub fn pixels(side: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    Rectangle::square(side).pixel_directions()
}

/// The direction cosines `(l, m)` of pixel (column, row), exactly as [`pixels`] computes them.
pub fn direction_of(side: usize, at: (usize, usize)) -> (f64, f64) {
    Rectangle::square(side).direction_of(at)
}

/// The pixel (column, row) of a `side` × `side` image nearest to direction `(l, m)`.
pub fn pixel_of(side: usize, (l, m): (f64, f64)) -> (usize, usize) {
    let cell = FIELD / side as f64;
    let to = |x: f64| ((x / cell).round() + (side / 2) as f64) as usize;
    (to(l), to(m))
}

/// An observation and the pixels of a `side` × `side` image on the GPU, in one precision
/// (`f64` or `f32`): everything an imaging kernel of chapter 7 reads, in the order it takes
/// them (`ls, ms, ns, n_px, us, vs, ws, vis, n_vis, inv_n`, then the image it writes). The
/// library's launchers derive `n_px` and `n_vis` from the buffers; the fields are for the
/// judge, which launches a learner's kernel through a launcher without a contract.
pub struct OnGpu<T> {
    pub ls: CudaSlice<T>,
    pub ms: CudaSlice<T>,
    pub ns: CudaSlice<T>,
    pub n_px: i32,
    pub us: CudaSlice<T>,
    pub vs: CudaSlice<T>,
    pub ws: CudaSlice<T>,
    pub vis: CudaSlice<[T; 2]>,
    pub n_vis: i32,
    /// 1 / the number of visibilities, the image's normalisation.
    pub inv_n: T,
}

/// Copy `obs` and the pixels of a `side` × `side` image to the GPU, converted by `to`.
pub fn upload<T: DeviceRepr + Copy>(
    stream: &Arc<CudaStream>,
    obs: &Observation,
    side: usize,
    to: fn(f64) -> T,
) -> OnGpu<T> {
    super::upload_pixels(stream, obs, pixels(side), to).or_exit("copy data to the GPU")
}

/// Threads per block of every imaging launch. The tiled kernels of `kernels/ch07-imaging.cu`
/// fill one entry of a tile per thread, so they are written for blocks of exactly `TILE`
/// threads and declare it with `__launch_bounds__(TILE)`; [`check_block`] compares the two.
pub const BLOCK: u32 = 256;

/// Exit with one sentence unless the kernel file's `#define TILE` is [`BLOCK`].
pub fn check_block(file: &crate::kernel::KernelFile) {
    let tile = file
        .source
        .lines()
        .find_map(|line| line.strip_prefix("#define TILE "))
        .and_then(|value| value.trim().parse::<u32>().ok());
    if tile != Some(BLOCK) {
        let message = format!(
            "kernels/{} is written for blocks of {tile:?} threads, but the program launches {BLOCK}.",
            file.name
        );
        crate::exit::fail(crate::exit::EXIT_CUDA_FAILED, &message);
    }
}

/// An imaging kernel that reads an [`OnGpu<T>`]: any kernel of `kernels/ch07-imaging.cu` (`T` =
/// `f32`) or of `kernels/ch07-imaging-f64.cu` (`f64`). They all take the same eleven arguments,
/// so each file has one launcher type for all its kernels, whose contract (in the file) derives
/// `n_px` and `n_vis` from the buffers' lengths. [`crate::imaging_launchers!`] implements it.
pub trait ImageKernel<T>: Launcher {
    /// Launch the kernel with `config` on the data `d`, writing `img`.
    fn image(
        &self,
        stream: &CudaStream,
        config: LaunchConfig,
        d: &OnGpu<T>,
        img: &mut CudaSlice<[T; 2]>,
    ) -> Result<(), LaunchError>;
}

/// The kernel of a file's family called `name`; one sentence and exit status 1 if the file
/// has none.
pub fn named<'a, K>(found: Option<&'a K>, file: &str, name: &str) -> &'a K {
    found.unwrap_or_else(|| {
        let message = format!("kernels/{file} has no imaging kernel named `{name}`.");
        crate::exit::fail(crate::exit::EXIT_CUDA_FAILED, &message)
    })
}

impl<T: DeviceRepr> OnGpu<T> {
    /// Launch one imaging kernel (any of chapter 7's: they all take these eleven arguments)
    /// with `per_thread` pixels per thread, in blocks of [`BLOCK`] threads, writing `img`.
    pub fn launch(
        &self,
        stream: &Arc<CudaStream>,
        kernel: &impl ImageKernel<T>,
        per_thread: usize,
        img: &mut CudaSlice<[T; 2]>,
    ) {
        self.launch_in_blocks(stream, kernel, per_thread, BLOCK, img);
    }

    /// [`OnGpu::launch`] in blocks of `block` threads.
    pub fn launch_in_blocks(
        &self,
        stream: &Arc<CudaStream>,
        kernel: &impl ImageKernel<T>,
        per_thread: usize,
        block: u32,
        img: &mut CudaSlice<[T; 2]>,
    ) {
        let config = self.config(per_thread, block);
        kernel
            .image(stream, config, self, img)
            .or_exit_launching(kernel);
    }

    /// The launch of [`OnGpu::launch_in_blocks`]: enough blocks of `block` threads for
    /// `per_thread` pixels each.
    pub fn config(&self, per_thread: usize, block: u32) -> LaunchConfig {
        let threads = (self.n_px as usize).div_ceil(per_thread) as u32;
        LaunchConfig {
            grid_dim: (threads.div_ceil(block), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}
