//! Chapter 6's block sum written in Rust: each unit adds up its share of the floats with a
//! grid-stride loop, the plane (CubeCL's word for a warp) combines its units' sums with
//! shuffles, shared memory collects one sum per plane, the first plane adds those up, and one
//! unit adds the cube's sum to the total. Its C++ twin is `sum_shuffle` of
//! `kernels/ch06-block-reduce.cu` on one wave of blocks, the fastest sum of chapter 6.

use std::marker::PhantomData;
use std::sync::Arc;

use course::compare::{verdict, within_bound};
use course::gpu::OrExit;
use course::kernel::{KernelFile, load};
use course::random::Rng;
use course::timing::{Timing, fmt_ms, time_gpu};
use cubecl::prelude::*;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

use crate::args::ProblemSize;
use crate::device::Gpu;
use crate::timing::{REPS, WARMUP, first_launch, time_batches};
use crate::{mutant, report};

pub const SIZE: ProblemSize = ProblemSize {
    what: "the number of floats",
    min: 1,
    max: 1 << 28,
    cuda: 1 << 26,
    wgpu: 1 << 20,
};

// ANCHOR: plane
/// The sum of `v` over the plane, complete in its first unit: five shuffles on a plane of 32.
#[cube]
pub fn plane_total(v: f32) -> f32 {
    let mut sum = v;
    let mut offset = PLANE_DIM / 2;
    while offset > 0 {
        sum += plane_shuffle_down(sum, offset);
        offset /= 2;
    }
    sum
}
// ANCHOR_END: plane

/// The plane step of [`sum_planes`]: the course's [`plane_total`] ([`Shuffles`]), the mutant
/// [`HalfPlane`], or, in the chapter's judge (`judge/main.rs`), the learner's.
#[cube]
pub trait PlaneStep: 'static + Send + Sync {
    fn total(v: f32) -> f32;
}

/// The course's plane step, [`plane_total`].
pub struct Shuffles;

#[cube]
impl PlaneStep for Shuffles {
    fn total(v: f32) -> f32 {
        plane_total(v)
    }
}

/// The mutant `reduce-half-plane`: the shuffles start at a quarter of the plane, so its upper
/// half is never added in.
pub struct HalfPlane;

#[cube]
impl PlaneStep for HalfPlane {
    fn total(v: f32) -> f32 {
        let mut sum = v;
        let mut offset = PLANE_DIM / 4;
        while offset > 0 {
            sum += plane_shuffle_down(sum, offset);
            offset /= 2;
        }
        sum
    }
}

// ANCHOR: kernel
/// Adds the sum of `x` to `total[0]`, each plane's share added up by the plane step `S`.
/// `max_planes`: the most planes a cube can hold (its units over the smallest plane size of the
/// device).
#[cube(launch_unchecked)]
pub fn sum_planes<N: Size, S: PlaneStep>(
    x: &Array<Vector<f32, N>>,
    total: &mut Array<Atomic<f32>>,
    #[comptime] max_planes: usize,
) {
    // Level zero: vectors i, i + stride, i + 2 stride, ..., then the lanes of the vector.
    let mut share = Vector::<f32, N>::new(0.0);
    let stride = CUBE_COUNT * CUBE_DIM as usize;
    let mut i = ABSOLUTE_POS;
    while i < x.len() {
        share += x[i];
        i += stride;
    }
    let mut v = 0.0f32;
    #[unroll]
    for k in 0..N::value() {
        v += share[k];
    }

    // Level one: each plane's sum, in registers, then in shared memory.
    v = S::total(v);
    let mut plane_sums = SharedMemory::<f32>::new(max_planes);
    let plane = UNIT_POS / PLANE_DIM;
    if UNIT_POS_PLANE == 0 {
        plane_sums[plane as usize] = v;
    }
    sync_cube();

    // Level two: the first plane adds up the planes' sums (more of them than its units on a
    // device whose planes are narrow).
    if plane == 0 {
        let planes = CUBE_DIM / PLANE_DIM;
        let mut w = 0.0f32;
        let mut p = UNIT_POS_PLANE;
        while p < planes {
            w += plane_sums[p as usize];
            p += PLANE_DIM;
        }
        w = S::total(w);
        if UNIT_POS_PLANE == 0 {
            total[0].fetch_add(w);
        }
    }
}
// ANCHOR_END: kernel

mod ch06_block_reduce {
    course::kernels!("ch06-block-reduce.cu");
}

const CH06_BLOCK_REDUCE: KernelFile = KernelFile {
    name: "ch06-block-reduce.cu",
    source: include_str!("../../../../kernels/ch06-block-reduce.cu"),
};

const CUBE: u32 = 256;
/// Cubes on wgpu, where no occupancy is asked: a few per core of a CPU, or per unit of a GPU.
const WGPU_CUBES: u32 = 64;

/// The bound on the relative error of a float32 sum against the float64 sum.
pub const BOUND: f64 = 1e-4;

/// Launches of the CubeCL sum with the plane step `S`.
struct CubeclSum<'a, R: Runtime, S: PlaneStep> {
    gpu: &'a Gpu<R>,
    cubes: u32,
    max_planes: usize,
    step: PhantomData<S>,
}

impl<'a, R: Runtime, S: PlaneStep> CubeclSum<'a, R, S> {
    fn new(gpu: &'a Gpu<R>, cubes: u32) -> Self {
        let smallest_plane = gpu.client.properties().hardware.plane_size_min;
        CubeclSum {
            gpu,
            cubes,
            max_planes: (CUBE / smallest_plane) as usize,
            step: PhantomData,
        }
    }

    /// Queue one sum of `x` (`n` floats) into `total`.
    fn launch(&self, x: &cubecl::server::Handle, n: usize, total: &cubecl::server::Handle) {
        let width = vector_width(n);
        // SAFETY: `x` holds n floats, n / width vectors (lengths count elements, x.len()
        // vectors); the kernel reads below x.len() only, writes total[0] only, and its shared
        // array holds `max_planes` sums.
        unsafe {
            sum_planes::launch_unchecked::<S, R>(
                &self.gpu.client,
                CubeCount::Static(self.cubes, 1, 1),
                CubeDim::new_1d(CUBE),
                width,
                ArrayArg::from_raw_parts(x.clone(), n),
                ArrayArg::from_raw_parts(total.clone(), 1),
                self.max_planes,
            )
        }
    }

    /// One sum of `x` from a zero total, read back.
    fn sum(&self, x: &cubecl::server::Handle, n: usize) -> f32 {
        let total = self.gpu.upload(&[0.0f32]);
        self.launch(x, n, &total);
        self.gpu.download::<f32>(total)[0]
    }
}

/// Floats per load: 4 (16 bytes) when `n` allows it.
fn vector_width(n: usize) -> usize {
    [4, 2, 1]
        .into_iter()
        .find(|&w| n.is_multiple_of(w))
        .unwrap_or(1)
}

/// The sum of `x` by `sum_planes` with the plane step `S`, on as many cubes as `reduce` takes on
/// wgpu: how the chapter's judge checks a learner's step.
pub fn sum_with<S: PlaneStep, R: Runtime>(gpu: &Gpu<R>, x: &[f32]) -> f32 {
    CubeclSum::<R, S>::new(gpu, WGPU_CUBES).sum(&gpu.upload(x), x.len())
}

pub fn run<R: Runtime>(gpu: &Gpu<R>, n: usize, seed: u64) {
    match mutant::is("reduce-half-plane") {
        true => run_with::<R, HalfPlane>(gpu, n, seed),
        false => run_with::<R, Shuffles>(gpu, n, seed),
    }
}

fn run_with<R: Runtime, S: PlaneStep>(gpu: &Gpu<R>, n: usize, seed: u64) {
    let x = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    println!("{n} floats in [0, 1) ({} MiB), seed {seed}", (n * 4) >> 20);
    let started = std::time::Instant::now();
    let want: f64 = x.par_iter().map(|&v| v as f64).sum();
    let cpu_ms = started.elapsed().as_secs_f64() * 1e3;
    let serial: f64 = x.iter().map(|&v| v as f64).sum();
    let (line, _) = within_bound(
        &format!("rayon's float64 sum {want:.6}, relative difference from a serial sum"),
        (want - serial) / serial,
        1e-12,
    );
    println!("{line}");
    println!("CPU, rayon: {}", fmt_ms(cpu_ms));

    let cubes = gpu.cuda.as_ref().map_or(WGPU_CUBES, twin_one_wave);
    let sum = CubeclSum::<R, S>::new(gpu, cubes);
    let machine = if gpu.cuda.is_some() {
        " (this machine)"
    } else {
        ""
    };
    let width = vector_width(n);
    let floats = if width == 1 { "float" } else { "floats" };
    println!(
        "CubeCL sum_planes: {cubes} cubes of {CUBE} units, {width} {floats} per load{machine}"
    );
    let x_d = gpu.upload(&x);
    let total = gpu.upload(&[0.0f32]);
    let first = first_launch(|| gpu.sync(), || sum.launch(&x_d, n, &total));
    let got = sum.sum(&x_d, n);
    check(
        "CubeCL",
        got,
        want,
        sum.sum(&gpu.upload(&known_input()), 1 << 20),
    );
    report::compilation("CubeCL sum_planes", first);

    let batch = report::batch(gpu.cuda.is_some());
    let cubecl = time_batches(batch, || gpu.sync(), || sum.launch(&x_d, n, &total));
    let bytes = 4.0 * n as f64;
    report::method(batch);
    report::rate("CubeCL sum_planes", &cubecl, bytes);
    if let Some(ctx) = &gpu.cuda {
        let cpp = cpp_twin(ctx, &x, want, cubes, batch, bytes);
        report::ratio(&cubecl, &cpp);
    }
}

/// x[i] = i mod 16 over 2^20 values: every partial sum is a whole number below 2^24, which
/// float32 holds exactly, so in any order of addition the sum is exactly 7864320.
fn known_input() -> Vec<f32> {
    (0..1 << 20).map(|i| (i % 16) as f32).collect()
}

fn check(who: &str, got: f32, want: f64, known: f32) {
    let (line, _) = within_bound(
        &format!("{who} sum {got:.1}, relative error against the float64 sum"),
        (got as f64 - want) / want,
        BOUND,
    );
    println!("{line}");
    println!(
        "{who} sum of i mod 16 over 2^20 values {known:.1}, exactly 7864320: {}",
        verdict(known == 7_864_320.0)
    );
}

/// The one-wave grid of the C++ twin: as many blocks as fit on the GPU at once.
fn twin_one_wave(ctx: &Arc<CudaContext>) -> u32 {
    let module = load(ctx, &CH06_BLOCK_REDUCE, false);
    let kernels = ch06_block_reduce::Kernels::load(&module);
    let per_sm = kernels
        .sum_shuffle
        .function
        .occupancy_max_active_blocks_per_multiprocessor(CUBE, 0, None)
        .or_exit("ask for the occupancy");
    let sms = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .or_exit("count the SMs") as u32;
    per_sm * sms
}

/// The C++ `sum_shuffle` on the same floats and the same grid: checked, then timed.
fn cpp_twin(
    ctx: &Arc<CudaContext>,
    x: &[f32],
    want: f64,
    blocks: u32,
    batch: usize,
    bytes: f64,
) -> Timing {
    let stream = ctx.default_stream();
    let module = load(ctx, &CH06_BLOCK_REDUCE, false);
    let kernels = ch06_block_reduce::Kernels::load(&module);
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (CUBE, 1, 1),
        shared_mem_bytes: 0,
    };
    let launch = |x: &CudaSlice<f32>, total: &mut CudaSlice<f32>| {
        kernels
            .sum_shuffle
            .launch(&stream, config, x, total)
            .or_exit_launching(&kernels.sum_shuffle)
    };
    let sum_once = |x: &CudaSlice<f32>| -> f32 {
        let mut total = stream.alloc_zeros::<f32>(1).or_exit("allocate the total");
        launch(x, &mut total);
        stream.clone_dtoh(&total).or_exit("copy the total back")[0]
    };
    let x_d = stream.clone_htod(x).or_exit("copy x to the GPU");
    let known_d = stream.clone_htod(&known_input()).or_exit("copy to the GPU");
    let mut total = stream.alloc_zeros::<f32>(1).or_exit("allocate the total");
    let batched = time_batches(batch, || sync(&stream), || launch(&x_d, &mut total));
    let events = time_gpu(&stream, WARMUP, REPS, || launch(&x_d, &mut total));
    report::rate("C++ sum_shuffle (chapter 6)", &batched, bytes);
    report::rate("C++ sum_shuffle, CUDA events", &events, bytes);
    check("C++", sum_once(&x_d), want, sum_once(&known_d));
    batched
}

fn sync(stream: &Arc<CudaStream>) {
    stream.synchronize().or_exit("wait for the GPU");
}
