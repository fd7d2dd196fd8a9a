//! Chapter 5's tile reversal written in Rust: every cube reverses one tile of 256 floats through
//! shared memory, and the barrier between the writes and the reads makes it right. Its C++ twin
//! is `reverse_tiles` of `kernels/ch05-tiles.cu`.

use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned};
use course::kernel::{KernelFile, load, require_block_size};
use course::random::Rng;
use course::timing::{Timing, fmt_ms, time_gpu};
use cubecl::prelude::*;
use cudarc::driver::{CudaContext, LaunchConfig};
use rayon::prelude::*;

use crate::args::ProblemSize;
use crate::device::Gpu;
use crate::report;
use crate::timing::{REPS, WARMUP, first_launch, time_batches};

pub const SIZE: ProblemSize = ProblemSize {
    what: "the number of tiles",
    min: 1,
    max: 1 << 20,
    cuda: 1 << 18,
    wgpu: 4096,
};

const TILE: usize = 256;

// ANCHOR: kernel
/// Reverses each `tile`-long piece of `x` into `out`: one cube of `tile` units per tile, and a
/// grid that covers `x` exactly, so no bounds test.
#[cube(launch_unchecked)]
pub fn reverse_tiles(x: &Array<f32>, out: &mut Array<f32>, #[comptime] tile: usize) {
    let mut slots = SharedMemory::<f32>::new(tile); // one copy per cube
    let t = UNIT_POS as usize;
    let i = CUBE_POS * tile + t;
    slots[t] = x[i]; // unit t fills slot t ...
    sync_cube(); // ... and waits until every slot is filled
    out[i] = slots[tile - 1 - t]; // slot tile-1-t was filled by another plane
}
// ANCHOR_END: kernel

mod ch05_tiles {
    course::kernels!("ch05-tiles.cu");
}

const CH05_TILES: KernelFile = KernelFile {
    name: "ch05-tiles.cu",
    source: include_str!("../../../../kernels/ch05-tiles.cu"),
};

/// The CPU reference: every `tile`-long piece of `x`, reversed.
fn reverse_each_tile(x: &[f32], tile: usize) -> Vec<f32> {
    let mut out = x.to_vec();
    out.par_chunks_mut(tile).for_each(|piece| piece.reverse());
    out
}

pub fn run<R: Runtime>(gpu: &Gpu<R>, tiles: usize, seed: u64) {
    let (most, _, _) = R::max_cube_count();
    if tiles > most as usize {
        course::cli::fail(&format!(
            "this runtime launches at most {most} cubes in a row, so at most {most} tiles"
        ));
    }
    let n = tiles * TILE;
    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    println!("{n} floats in {tiles} tiles of {TILE}, seed {seed}");
    let started = std::time::Instant::now();
    let want = reverse_each_tile(&x, TILE);
    println!(
        "CPU, rayon: {}",
        fmt_ms(started.elapsed().as_secs_f64() * 1e3)
    );

    let x_d = gpu.upload(&x);
    let out_d = gpu.poisoned(n * size_of::<f32>());
    let launch = |x: &cubecl::server::Handle, out: &cubecl::server::Handle, len: usize| {
        // SAFETY: `x` and `out` hold len floats, a whole number of tiles, and the grid has one
        // cube of TILE units per tile: unit t of cube c touches element c * TILE + t only.
        unsafe {
            reverse_tiles::launch_unchecked::<R>(
                &gpu.client,
                CubeCount::Static((len / TILE) as u32, 1, 1),
                CubeDim::new_1d(TILE as u32),
                ArrayArg::from_raw_parts(x.clone(), len),
                ArrayArg::from_raw_parts(out.clone(), len),
                TILE,
            )
        }
    };
    let first = first_launch(|| gpu.sync(), || launch(&x_d, &out_d, n));
    let out: Vec<f32> = gpu.download(out_d.clone());
    // A known answer: on 0, 1, 2, ... (exact in float32 up to 2^24), slot s of tile k must
    // hold 256k + 255 - s.
    let m = n.min(1 << 24);
    let counting: Vec<f32> = (0..m).map(|i| i as f32).collect();
    let counted_d = gpu.poisoned(m * size_of::<f32>());
    launch(&gpu.upload(&counting), &counted_d, m);
    let counted: Vec<f32> = gpu.download(counted_d);
    check("CubeCL", &out, &want, &counted);
    report::compilation("CubeCL reverse_tiles", first);

    let batch = report::batch(gpu.cuda.is_some());
    let cubecl = time_batches(batch, || gpu.sync(), || launch(&x_d, &out_d, n));
    let bytes = 2.0 * 4.0 * n as f64;
    report::method(batch);
    report::rate("CubeCL reverse_tiles", &cubecl, bytes);
    if let Some(ctx) = &gpu.cuda {
        let cpp = cpp_twin(ctx, &x, &want, &counting, batch, bytes);
        report::ratio(&cubecl, &cpp);
    }
}

fn check(who: &str, out: &[f32], want: &[f32], counted: &[f32]) {
    let wrong = count_mismatches(out, want);
    println!(
        "{who} elements that differ from the CPU: {wrong} of {}: {}",
        out.len(),
        verdict(wrong == 0)
    );
    let known = counted
        .iter()
        .enumerate()
        .all(|(i, &v)| v == (i / TILE * TILE + TILE - 1 - i % TILE) as f32);
    println!(
        "{who} on the input 0, 1, ..., {}: slot s of tile k holds 256k + 255 - s: {}",
        counted.len() - 1,
        verdict(known)
    );
}

/// The C++ `reverse_tiles` on the same floats: checked, then timed.
fn cpp_twin(
    ctx: &Arc<CudaContext>,
    x: &[f32],
    want: &[f32],
    counting: &[f32],
    batch: usize,
    bytes: f64,
) -> Timing {
    let stream = ctx.default_stream();
    let kernels = ch05_tiles::Kernels::load(&load(ctx, &CH05_TILES, false));
    require_block_size(&kernels.reverse_tiles.function, "reverse_tiles", TILE);
    let reverse = |x: &cudarc::driver::CudaSlice<f32>, out: &mut cudarc::driver::CudaSlice<f32>| {
        let config = LaunchConfig {
            grid_dim: ((x.len() / TILE) as u32, 1, 1),
            block_dim: (TILE as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        kernels
            .reverse_tiles
            .launch(&stream, config, x, out)
            .or_exit_launching(&kernels.reverse_tiles)
    };
    let x_d = stream.clone_htod(x).or_exit("copy x to the GPU");
    let mut out_d = alloc_poisoned::<f32>(&stream, x.len());
    reverse(&x_d, &mut out_d);
    let out = stream
        .clone_dtoh(&out_d)
        .or_exit("copy out back from the GPU");
    let counting_d = stream.clone_htod(counting).or_exit("copy to the GPU");
    let mut counted_d = alloc_poisoned::<f32>(&stream, counting.len());
    reverse(&counting_d, &mut counted_d);
    let counted = stream
        .clone_dtoh(&counted_d)
        .or_exit("copy back from the GPU");
    let batched = time_batches(
        batch,
        || stream.synchronize().or_exit("wait for the GPU"),
        || reverse(&x_d, &mut out_d),
    );
    let events = time_gpu(&stream, WARMUP, REPS, || reverse(&x_d, &mut out_d));
    report::rate("C++ reverse_tiles (chapter 5)", &batched, bytes);
    report::rate("C++ reverse_tiles, CUDA events", &events, bytes);
    check("C++", &out, want, &counted);
    batched
}
