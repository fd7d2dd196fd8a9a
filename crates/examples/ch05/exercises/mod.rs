//! The judge's entries for chapter 5's practice problems. The tile reverse is compared with the
//! CPU's exactly; the block sum's bits with the same float32 additions, in the kernel's order,
//! written out here, and with the exact sum of ones. The retry count must be 0 for one thread
//! and above 0 for ascending values; the histograms must equal the CPU's exactly.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK;
use cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
use cudarc::driver::{CudaSlice, LaunchConfig};

use crate::exercise::{self, Code, CpuPart, Exercise, Gpu, GpuPart, Work, cuda, same, shape};

// The launchers of the learner's kernel files; the solutions' files have the same kernels.
mod ch05_exercise_tiles {
    course::kernels!("ch05-exercise-tiles.cu");
}
mod ch05_exercise_block_sum {
    course::kernels!("ch05-exercise-block-sum.cu");
}
mod ch05_exercise_cas_retries {
    course::kernels!("ch05-exercise-cas-retries.cu");
}
mod ch05_exercise_histogram_bins {
    course::kernels!("ch05-exercise-histogram-bins.cu");
}

mod block_sum;
mod block_sum_solution;
mod many_bins;
mod many_bins_solution;
mod tile_reverse;
mod tile_reverse_solution;

use block_sum::THREADS;

type TileLaunchFn<'a> = &'a dyn Fn(usize, usize) -> LaunchConfig;
type SumFn = fn(&[f32]) -> f32;
type BinsLaunchFn<'a> = &'a dyn Fn(usize, usize) -> LaunchConfig;
type OptInFn<'a> = &'a dyn Fn(usize, usize) -> Option<usize>;

fn check_tile_launch(tile_launch: TileLaunchFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let tile = 32 << rng.below(6);
    let fresh = (tile * (1 + rng.below(5000) as usize), tile);
    // The page's launches come last, so that the first answer the judge shows is not the page's.
    for (n, tile) in [fresh, (1 << 20, 512), (1 << 20, 128)] {
        checked_tile_launch(tile_launch, n, tile)?;
    }
    Ok(())
}

/// `tile_launch(n, tile)` if it is one block of `tile` threads per tile, with the tile's bytes
/// of shared memory; else why not.
fn checked_tile_launch(
    tile_launch: TileLaunchFn,
    n: usize,
    tile: usize,
) -> Result<LaunchConfig, String> {
    let got = tile_launch(n, tile);
    let want = (
        ((n / tile) as u32, 1, 1),
        (tile as u32, 1, 1),
        4 * tile as u32,
    );
    if (got.grid_dim, got.block_dim, got.shared_mem_bytes) != want {
        return Err(format!(
            "tile_launch({n}, {tile}) has grid {:?}, blocks {:?} and {} bytes of shared memory, \
             expected {:?}, {:?} and {}",
            got.grid_dim, got.block_dim, got.shared_mem_bytes, want.0, want.1, want.2
        ));
    }
    Ok(got)
}

/// The GPU tile reversal's length and tiles.
const TILES_N: usize = 1 << 20;
const TILES: [usize; 3] = [128, 512, 1024];

fn check_tiles_gpu(gpu: &Gpu, tile_launch: TileLaunchFn, seed: u64) -> Result<(), String> {
    let n = TILES_N;
    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let s = &gpu.stream;
    let d_x = cuda(s.clone_htod(&x), "copy x to the GPU")?;
    let k = ch05_exercise_tiles::Kernels::load(&gpu.module);
    for tile in TILES {
        let mut d_out = alloc_poisoned::<f32>(s, n);
        // A launch with too little shared memory would fault and spoil the GPU for the rest.
        let cfg = checked_tile_launch(tile_launch, n, tile)?;
        let mut run = || {
            // SAFETY: the grid covers x and out exactly, one block per tile (checked above),
            // and the learner's kernel must index only its block's tile, of blockDim.x floats,
            // in x, out and the blockDim.x * 4 bytes of shared memory.
            let launched = unsafe { k.reverse_tiles_dynamic.launch(s, cfg, &d_x, &mut d_out) };
            cuda(launched, "launch reverse_tiles_dynamic")
        };
        // The page's tile of 512 is the one timed: x read and out written, n f32 each.
        if tile == 512 {
            gpu.timed(Work::Bytes(8.0 * n as f64), run)?;
        } else {
            run()?;
        }
        let out = cuda(s.clone_dtoh(&d_out), "copy out from the GPU")?;
        let want: Vec<f32> = x
            .chunks(tile)
            .flat_map(|t| t.iter().rev().copied())
            .collect();
        same(&format!("out (tiles of {tile})"), &out, &want)?;
    }
    Ok(())
}

/// The kernel's additions, one block after another, pass after pass.
fn tree_order_sum(x: &[f32]) -> f32 {
    let mut values = x.to_vec();
    loop {
        let mut sums = Vec::new();
        for block in values.chunks(THREADS) {
            let mut s = [0.0f32; THREADS];
            s[..block.len()].copy_from_slice(block);
            let mut stride = THREADS / 2;
            while stride > 0 {
                for t in 0..stride {
                    s[t] += s[t + stride];
                }
                stride /= 2;
            }
            sums.push(s[0]);
        }
        if sums.len() == 1 {
            return sums[0];
        }
        values = sums;
    }
}

fn same_bits(what: &str, got: f32, want: f32) -> Result<(), String> {
    match got.to_bits() == want.to_bits() {
        true => Ok(()),
        false => Err(format!("{what} is {got:e}, expected {want:e} to the bit")),
    }
}

fn check_sum_cpu(sum: SumFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(300_000) as usize;
    same_bits("the sum of 70,000 ones", sum(&vec![1.0; 70_000]), 70_000.0)?;
    for n in [1, 100_000, n] {
        let x = rng.vec_f32(n, 0.0, 1.0);
        same_bits(
            &format!("the sum of {n} random values"),
            sum(&x),
            tree_order_sum(&x),
        )?;
    }
    Ok(())
}

/// Launch `partial_sums` on `d_x`, then on its partial sums, until one value is left; each
/// pass timed (the first, the largest, is the one kept).
fn sum_on_gpu(
    gpu: &Gpu,
    partial_sums: &ch05_exercise_block_sum::BlockPartialSums,
    d_x: &CudaSlice<f32>,
) -> Result<f32, String> {
    let s = &gpu.stream;
    let mut len = d_x.len();
    let mut current: Option<CudaSlice<f32>> = None;
    while len > 1 || current.is_none() {
        let blocks = len.div_ceil(THREADS);
        let mut next = alloc_poisoned::<f32>(s, blocks);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let input = current.as_ref().unwrap_or(d_x);
        // len f32 read, one written per block.
        gpu.timed(Work::Bytes(4.0 * (len + blocks) as f64), || {
            // SAFETY: input has len elements and next one slot per block; the learner's kernel
            // must read x only below n and write only partials[blockIdx.x].
            let launched = unsafe { partial_sums.launch(s, cfg, input, len as i32, &mut next) };
            cuda(launched, "launch block_partial_sums")
        })?;
        current = Some(next);
        len = blocks;
    }
    let last = cuda(
        s.clone_dtoh(&current.expect("one pass ran")),
        "copy the sum from the GPU",
    )?;
    Ok(last[0])
}

fn check_sum_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let n = 1 << 24;
    let s = &gpu.stream;
    let k = ch05_exercise_block_sum::Kernels::load(&gpu.module);
    let partial_sums = &k.block_partial_sums;
    let ones = cuda(s.clone_htod(&vec![1.0f32; n]), "copy to the GPU")?;
    same_bits(
        "the GPU's sum of 2^24 ones",
        sum_on_gpu(gpu, partial_sums, &ones)?,
        n as f32,
    )?;
    let x = Rng::new(seed).vec_f32(n - 12_345, 0.0, 1.0);
    let d_x = cuda(s.clone_htod(&x), "copy to the GPU")?;
    let got = sum_on_gpu(gpu, partial_sums, &d_x)?;
    same_bits(
        &format!("the GPU's sum of {} random values", x.len()),
        got,
        tree_order_sum(&x),
    )
}

/// The maximum and the retry count of one run of `max_float_cas_counted` on `values`; `timed`:
/// the run is timed.
fn cas_retries(gpu: &Gpu, values: &[f32], timed: bool) -> Result<(f32, u32), String> {
    let s = &gpu.stream;
    let k = ch05_exercise_cas_retries::Kernels::load(&gpu.module);
    let d_values = cuda(s.clone_htod(values), "copy the values to the GPU")?;
    let mut d_max = cuda(s.clone_htod(&[f32::NEG_INFINITY]), "copy -inf to the GPU")?;
    let mut d_retries = cuda(s.clone_htod(&[0u32]), "copy 0 to the GPU")?;
    let cfg = LaunchConfig {
        grid_dim: (values.len().div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let n = values.len() as i32;
    let kernel = &k.max_float_cas_counted;
    let mut run = || {
        // SAFETY: values has n elements and the result and the count one each; the learner's
        // kernel must read values only below n and touch only result[0] and retries[0].
        let launched = unsafe { kernel.launch(s, cfg, &d_values, n, &mut d_max, &mut d_retries) };
        cuda(launched, "launch max_float_cas_counted")
    };
    // The values read, 4 bytes each (the maximum and the count are 8 bytes more).
    if timed {
        gpu.timed(Work::Bytes(4.0 * values.len() as f64), run)?;
    } else {
        run()?;
    }
    let max = cuda(s.clone_dtoh(&d_max), "copy the maximum from the GPU")?;
    let retries = cuda(s.clone_dtoh(&d_retries), "copy the count from the GPU")?;
    Ok((max[0], retries[0]))
}

fn check_retries_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    // One thread has nobody to lose to: a count above 0 counts more than the lost swaps.
    let (max, retries) = cas_retries(gpu, &[0.5], false)?;
    if max != 0.5 || retries != 0 {
        return Err(format!(
            "on one value 0.5 it found {max} with {retries} retries, expected 0.5 with 0"
        ));
    }
    let random = Rng::new(seed).vec_f32(1 << 20, 0.0, 1.0);
    let mut ascending = random.clone();
    ascending.sort_by(f32::total_cmp);
    let want = ascending[ascending.len() - 1];
    for (order, values) in [("random", &random), ("ascending", &ascending)] {
        // The random order is the one timed; ascending is the worst case, for the count.
        let (max, retries) = cas_retries(gpu, values, order == "random")?;
        if max.to_bits() != want.to_bits() {
            return Err(format!(
                "the maximum in {order} order is {max}, expected {want}"
            ));
        }
        // Ascending values make whole warps race for every new maximum: some CAS must lose.
        if order == "ascending" && retries == 0 {
            return Err("2^20 ascending values counted 0 retries".into());
        }
    }
    Ok(())
}

/// The default shared-memory limit of the GPUs the course runs on, 48 KiB.
const DEFAULT_LIMIT: usize = 48 * 1024;

fn check_bins_cpu(bins_launch: BinsLaunchFn, opt_in: OptInFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(20_000) as usize;
    // The page's launches come last, so that the first answer the judge shows is not the page's.
    for (bins, blocks) in [
        (fresh, 1 + rng.below(1000) as usize),
        (16384, 528),
        (1024, 528),
    ] {
        check_bins_launch(bins_launch, bins, blocks)?;
    }
    let edge = DEFAULT_LIMIT / 4;
    for bins in [edge, edge + 1, fresh, 16384, 1024] {
        let bytes = 4 * bins;
        let want = (bytes > DEFAULT_LIMIT).then_some(bytes);
        let got = opt_in(bins, DEFAULT_LIMIT);
        if got != want {
            return Err(format!(
                "opt_in_bytes({bins}, {DEFAULT_LIMIT}) is {got:?}, expected {want:?}"
            ));
        }
    }
    Ok(())
}

fn check_bins_launch(bins_launch: BinsLaunchFn, bins: usize, blocks: usize) -> Result<(), String> {
    let got = bins_launch(bins, blocks);
    let threads = many_bins::THREADS as u32;
    let want = ((blocks as u32, 1, 1), (threads, 1, 1), 4 * bins as u32);
    if (got.grid_dim, got.block_dim, got.shared_mem_bytes) != want {
        return Err(format!(
            "bins_launch({bins}, {blocks}) has grid {:?}, blocks {:?} and {} bytes of shared \
             memory, expected {:?}, {:?} and {}",
            got.grid_dim, got.block_dim, got.shared_mem_bytes, want.0, want.1, want.2
        ));
    }
    Ok(())
}

/// The GPU histograms' bins, and their blocks.
const BINS: [usize; 2] = [1024, 16384];
const BINS_BLOCKS: usize = 528;

fn check_bins_gpu(
    gpu: &Gpu,
    bins_launch: BinsLaunchFn,
    opt_in: OptInFn,
    seed: u64,
) -> Result<(), String> {
    let s = &gpu.stream;
    let kernel = ch05_exercise_histogram_bins::Kernels::load(&gpu.module).hist_shared_bins;
    let default_limit = cuda(
        s.context()
            .attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        "read the shared-memory limit",
    )? as usize;
    let mut rng = Rng::new(seed);
    let n: i32 = 1 << 20;
    for bins in BINS {
        // A launch with too little shared memory would fault and spoil the GPU for the rest.
        check_bins_launch(bins_launch, bins, BINS_BLOCKS)?;
        let values: Vec<u32> = (0..n).map(|_| rng.below(bins as u64) as u32).collect();
        let mut want = vec![0u32; bins];
        values.iter().for_each(|&v| want[v as usize] += 1);
        if let Some(bytes) = opt_in(bins, default_limit) {
            cuda(
                kernel.function.set_attribute(
                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                ),
                "raise the kernel's shared-memory limit",
            )?;
        }
        let d_values = cuda(s.clone_htod(&values), "copy the values to the GPU")?;
        let mut d_out = cuda(s.alloc_zeros::<u32>(bins), "allocate the histogram")?;
        let (bins_arg, cfg) = (bins as i32, bins_launch(bins, BINS_BLOCKS));
        // The values read and the bins written, 4 bytes each; the larger histogram is kept.
        gpu.timed(Work::Bytes(4.0 * (n as usize + bins) as f64), || {
            // SAFETY: every value is below bins, out has bins entries, and the launch gives
            // bins * 4 bytes of shared memory (checked above); the learner's kernel must index
            // local and out only below bins, and values only below n.
            let launched = unsafe { kernel.launch(s, cfg, &d_values, n, bins_arg, &mut d_out) };
            cuda(
                launched,
                &format!("launch hist_shared_bins with {bins} bins"),
            )
        })?;
        let got = cuda(s.clone_dtoh(&d_out), "copy the histogram from the GPU")?;
        same(&format!("the histogram of {bins} bins"), &got, &want)?;
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let tile_launch: fn(usize, usize) -> LaunchConfig = code.pick(
        tile_reverse::tile_launch,
        tile_reverse_solution::tile_launch,
    );
    let tile_source = code.pick(
        (
            "crates/examples/ch05/exercises/tile_reverse.rs",
            include_str!("tile_reverse.rs"),
        ),
        (
            "crates/examples/ch05/exercises/tile_reverse_solution.rs",
            include_str!("tile_reverse_solution.rs"),
        ),
    );
    let sum: SumFn = code.pick(
        block_sum::sum_in_kernel_order,
        block_sum_solution::sum_in_kernel_order,
    );
    let sum_source = code.pick(
        (
            "crates/examples/ch05/exercises/block_sum.rs",
            include_str!("block_sum.rs"),
        ),
        (
            "crates/examples/ch05/exercises/block_sum_solution.rs",
            include_str!("block_sum_solution.rs"),
        ),
    );
    let bins_launch: fn(usize, usize) -> LaunchConfig =
        code.pick(many_bins::bins_launch, many_bins_solution::bins_launch);
    let opt_in: fn(usize, usize) -> Option<usize> =
        code.pick(many_bins::opt_in_bytes, many_bins_solution::opt_in_bytes);
    let bins_source = code.pick(
        (
            "crates/examples/ch05/exercises/many_bins.rs",
            include_str!("many_bins.rs"),
        ),
        (
            "crates/examples/ch05/exercises/many_bins_solution.rs",
            include_str!("many_bins_solution.rs"),
        ),
    );
    vec![
        Exercise {
            name: "tile_reverse",
            cpu: Some(CpuPart {
                sources: vec![tile_source],
                check: Box::new(move |seed| check_tile_launch(&tile_launch, seed)),
            }),
            gpu: Some(GpuPart::planned(
                code.pick(
                    kernel_file!("ch05-exercise-tiles.cu"),
                    kernel_file!("ch05-tiles.cu"),
                ),
                tile_source,
                |_| TILES.map(|tile| (TILES_N, tile)).to_vec(),
                move |(n, tile)| shape(tile_launch(n, tile)),
                |gpu, seed, launch| {
                    check_tiles_gpu(gpu, &|n, tile| exercise::config(launch((n, tile))), seed)
                },
            )),
        },
        Exercise {
            name: "block_sum",
            cpu: Some(CpuPart {
                sources: vec![sum_source],
                check: Box::new(move |seed| check_sum_cpu(sum, seed)),
            }),
            gpu: Some(GpuPart::kernel(
                code.pick(
                    kernel_file!("ch05-exercise-block-sum.cu"),
                    kernel_file!("ch05-block-sum.cu"),
                ),
                check_sum_gpu,
            )),
        },
        Exercise {
            name: "cas_retries",
            cpu: None,
            gpu: Some(GpuPart::kernel(
                code.pick(
                    kernel_file!("ch05-exercise-cas-retries.cu"),
                    kernel_file!("ch05-atomic-max.cu"),
                ),
                check_retries_gpu,
            )),
        },
        Exercise {
            name: "many_bins",
            cpu: Some(CpuPart {
                sources: vec![bins_source],
                check: Box::new(move |seed| check_bins_cpu(&bins_launch, &opt_in, seed)),
            }),
            // Asked for the usual limit of 48 KiB: a GPU with another one finds no answer.
            gpu: Some(GpuPart::planned(
                code.pick(
                    kernel_file!("ch05-exercise-histogram-bins.cu"),
                    kernel_file!("ch05-histogram-bins.cu"),
                ),
                bins_source,
                |_| BINS.map(|bins| (bins, DEFAULT_LIMIT)).to_vec(),
                move |(bins, limit)| (shape(bins_launch(bins, BINS_BLOCKS)), opt_in(bins, limit)),
                |gpu, seed, answer| {
                    let launch = |bins, _| exercise::config(answer((bins, DEFAULT_LIMIT)).0);
                    check_bins_gpu(gpu, &launch, &|bins, limit| answer((bins, limit)).1, seed)
                },
            )),
        },
    ]
}
