//! The judge's entries for chapter 9's challenges.
//!
//! `fragments`, the ldmatrix fragment mapping: every warp multiplies its own 16×16 tile of A by
//! its own 16×8 tile of B with one `mma.sync`, and each 16×8 tile of C is compared, on 1, 3, 4
//! (one whole block of four warps) and 301 tiles and a fresh count, in two ways: exactly with an
//! integer product on whole numbers in [-8, 8] (exact in bf16; every product and every partial
//! sum of 16 of them is a whole number below 2²⁴, exact in f32 however the tensor core adds),
//! and within γ₁₆·Σ|a||b| with the tensor cores' unit 2⁻²² (`course::gemm::TENSOR_CORE_UNIT`)
//! of a float64 product on random values in [-1, 1) rounded to bf16. C reaches four tiles past
//! its end, poisoned, so that a write outside it is seen (a grid of four-warp blocks has at
//! most three warps past the last tile). A wrong entry is named by its tile, row and column,
//! with how many of its tile's entries are wrong.
//!
//! `tma`, the producer's loop of a transpose through shared memory fed by the TMA: on rows × cols
//! of 32 × 32 (one box), 64 × 256 (two rounds of the four stages), 33 × 45 (ragged both ways),
//! 100 × 1000 and a fresh size, random floats whose rows are padded to a pitch of a multiple of
//! four with NaN, which a copy of the wrong columns would bring in. `out` is compared bit for bit
//! with the transpose, and reaches 1024 floats past its end, poisoned. A kernel that stops
//! itself (a wait on a stage that never fills) is told apart from a wrong result.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use course::bf16::{Bf16, round_all, widen_all};
use course::gemm::{TENSOR_CORE_UNIT, gamma_with, whole_numbers};
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use course::tma::{Swizzle, TensorMap, Tiled};
use cudarc::driver::LaunchConfig;

use crate::exercise::{Code, Exercise, Gpu, GpuPart, Work, cuda};

// The launcher of the learner's kernel. Its file states the contract that ch09-fragments.cu
// states for tile_products, which takes the same arguments, so the one launcher type serves both.
mod ch09_exercise_fragments {
    course::kernels!("ch09-exercise-fragments.cu");
}
use ch09_exercise_fragments::TileProductsExercise as Launcher;

// The transpose's launcher, from the starter, whose contract is the solution's
// (ch09-tma-transpose.cu).
mod ch09_exercise_tma {
    course::kernels!("ch09-exercise-tma.cu");
}
use ch09_exercise_tma::TmaTransposeExercise as TransposeLauncher;

/// Elements of one tile: A's is 16×16, B's 16×8 (16 rows along k), C's 16×8.
const A_TILE: usize = 16 * 16;
const B_TILE: usize = 16 * 8;
const C_TILE: usize = 16 * 8;

/// Warps per block, as the kernel's contract has it (`block.x = 128`).
const WARPS: usize = 4;

/// One tile, a block's worth with one warp missing, one whole block, and a ragged many.
const TILE_COUNTS: [usize; 4] = [1, 3, 4, 301];

/// C = A·B tile by tile, as `launcher` computes it: `a` holds `tiles` tiles of A one after
/// another, `b` as many tiles of B.
fn products(
    gpu: &Gpu,
    launcher: &Launcher,
    a: &[Bf16],
    b: &[Bf16],
    tiles: usize,
) -> Result<Vec<f32>, String> {
    let s = &gpu.stream;
    let a_dev = cuda(s.clone_htod(a), "copy A's tiles to the GPU")?;
    let b_dev = cuda(s.clone_htod(b), "copy B's tiles to the GPU")?;
    // C's tiles and, past them, room for what the spare warps of the last block could write.
    let len = C_TILE * (tiles + WARPS);
    let mut c_dev = alloc_poisoned::<f32>(s, len);
    let config = LaunchConfig {
        grid_dim: (tiles.div_ceil(WARPS) as u32, 1, 1),
        block_dim: (32 * WARPS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    // 2·16·16·8 operations a tile: a multiply and an add per term.
    gpu.timed(Work::Flops(2.0 * (16 * 16 * 8 * tiles) as f64), || {
        let launched = launcher.launch(
            s,
            config,
            &a_dev,
            &b_dev,
            &mut c_dev.slice_mut(..C_TILE * tiles),
            tiles as i32,
        );
        cuda(launched, &format!("launch {}", launcher.name))
    })?;
    let c = cuda(s.clone_dtoh(&c_dev), "copy C from the GPU")?;
    if let Some(i) = c[C_TILE * tiles..]
        .iter()
        .position(|v| v.to_bits() != u32::MAX)
    {
        return Err(format!(
            "C[{}] was written, past the end of its {tiles} tiles ({} floats)",
            C_TILE * tiles + i,
            C_TILE * tiles
        ));
    }
    Ok(c[..C_TILE * tiles].to_vec())
}

/// Entry (i, j) of tile `t` of A·B in f64, and Σ|a||b| over its terms. Each product of two
/// bf16 values is exact in f64, and so is the sum on whole numbers; on random values its
/// rounding is some 2³⁰ times smaller than the bound.
fn exact_entry(a: &[f32], b: &[f32], t: usize, i: usize, j: usize) -> (f64, f64) {
    let (a, b) = (&a[A_TILE * t..][..A_TILE], &b[B_TILE * t..][..B_TILE]);
    let (mut sum, mut size) = (0.0f64, 0.0f64);
    for p in 0..16 {
        let term = a[16 * i + p] as f64 * b[8 * p + j] as f64;
        sum += term;
        size += term.abs();
    }
    (sum, size)
}

/// `Ok` when every entry of `c` is within `bound(Σ|a||b|)` of the exact product of `a` and `b`
/// (both already bf16 values); else the first entry that is not, by tile, row and column.
fn check_tiles(
    c: &[f32],
    (a, b): (&[f32], &[f32]),
    tiles: usize,
    inputs: &str,
    bound: impl Fn(f64) -> f64,
) -> Result<(), String> {
    let wrong = |t: usize, i: usize, j: usize| {
        let (want, size) = exact_entry(a, b, t, i, j);
        let got = c[C_TILE * t + 8 * i + j] as f64;
        // Written so that NaN, an entry never written, is wrong.
        let within = (got - want).abs() <= bound(size);
        (!within).then_some((got, want, bound(size)))
    };
    for t in 0..tiles {
        let first = (0..16)
            .flat_map(|i| (0..8).map(move |j| (i, j)))
            .find_map(|(i, j)| wrong(t, i, j).map(|w| (i, j, w)));
        let Some((i, j, (got, want, bound))) = first else {
            continue;
        };
        let count = (0..16)
            .flat_map(|i| (0..8).map(move |j| (i, j)))
            .filter(|&(i, j)| wrong(t, i, j).is_some())
            .count();
        let expected = match bound == 0.0 {
            true => format!("{want}"),
            false => format!("{want:e} within {bound:e} (γ₁₆·Σ|a||b|, u = 2⁻²²)"),
        };
        return Err(format!(
            "C of tile {t}, row {i}, column {j} ({tiles} tiles, {inputs}) is {got}, expected \
             {expected}; {count} of the tile's 128 entries are wrong"
        ));
    }
    Ok(())
}

fn check_fragments_gpu(gpu: &Gpu, name: &'static str, seed: u64) -> Result<(), String> {
    // A file without the kernel is a verdict: look for it before launching.
    let launcher = Launcher {
        function: gpu.function(name)?,
        name,
    };
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(1000) as usize;
    for tiles in TILE_COUNTS.into_iter().chain([fresh]) {
        // Whole numbers in [-8, 8]: exact in bf16, and every sum exact in f32.
        let a = round_all(&whole_numbers(A_TILE * tiles, &mut rng));
        let b = round_all(&whole_numbers(B_TILE * tiles, &mut rng));
        let c = products(gpu, &launcher, &a, &b, tiles)?;
        check_tiles(
            &c,
            (&widen_all(&a), &widen_all(&b)),
            tiles,
            "whole numbers",
            |_| 0.0,
        )?;

        let a = round_all(&rng.vec_f32(A_TILE * tiles, -1.0, 1.0));
        let b = round_all(&rng.vec_f32(B_TILE * tiles, -1.0, 1.0));
        let c = products(gpu, &launcher, &a, &b, tiles)?;
        let gamma = gamma_with(16, TENSOR_CORE_UNIT);
        check_tiles(
            &c,
            (&widen_all(&a), &widen_all(&b)),
            tiles,
            "random values in [-1, 1) as bf16",
            |size| gamma * size,
        )?;
    }
    Ok(())
}

/// A band's rows and a box's side in `tma_transpose`.
const BOX: usize = 32;

/// Sizes (rows, cols): one box, two rounds of the four stages, ragged both ways, many boxes.
const TRANSPOSE_SIZES: [(usize, usize); 4] = [(32, 32), (64, 256), (33, 45), (100, 1000)];

/// Floats past the end of `out` that must stay poisoned.
const OUT_MARGIN: usize = 1024;

/// The transpose of `x` (rows × cols, row-major) that `launcher` computes, as bits.
fn transposed(
    gpu: &Gpu,
    launcher: &TransposeLauncher,
    x: &[f32],
    (rows, cols): (usize, usize),
) -> Result<Vec<u32>, String> {
    let s = &gpu.stream;
    // Rows padded to a multiple of 4 floats (16 bytes, as the TMA needs), the padding NaN.
    let pitch = cols.next_multiple_of(4);
    let mut padded = vec![f32::NAN; rows * pitch];
    for (row, from) in padded.chunks_mut(pitch).zip(x.chunks(cols)) {
        row[..cols].copy_from_slice(from);
    }
    let in_dev = cuda(s.clone_htod(&padded), "copy the matrix to the GPU")?;
    let shape = Tiled {
        rows,
        cols,
        pitch,
        box_rows: BOX,
        box_cols: BOX,
        swizzle: Swizzle::None,
    };
    let map = TensorMap::tiled(&in_dev, s, shape)?;
    let mut out_dev = alloc_poisoned::<f32>(s, rows * cols + OUT_MARGIN);
    let config = LaunchConfig {
        grid_dim: (rows.div_ceil(BOX) as u32, 1, 1),
        block_dim: (160, 1, 1),
        shared_mem_bytes: 0,
    };
    // Each float read once and written once.
    gpu.timed(Work::Bytes(8.0 * (rows * cols) as f64), || {
        let launched = launcher.launch(
            s,
            config,
            &map,
            &mut out_dev.slice_mut(..rows * cols),
            rows as i32,
            cols as i32,
        );
        cuda(launched, &format!("launch {}", launcher.name))
    })?;
    let out = s.clone_dtoh(&out_dev).map_err(|e| {
        let e = e.to_string();
        match e.contains("LAUNCH_FAILED") {
            true => format!(
                "{} stopped itself on {rows} × {cols}: a stage's full or empty barrier never \
                 completed its phase (a copy not started, a byte count that is not the box's, \
                 or a wait on the wrong phase); the GPU said {e}",
                launcher.name
            ),
            false => format!("could not copy out from the GPU: {e}"),
        }
    })?;
    if let Some(i) = out[rows * cols..]
        .iter()
        .position(|v| v.to_bits() != u32::MAX)
    {
        return Err(format!(
            "out[{}] was written, past the end of its {rows} × {cols} floats",
            rows * cols + i
        ));
    }
    Ok(out[..rows * cols].iter().map(|v| v.to_bits()).collect())
}

fn check_transpose_gpu(gpu: &Gpu, name: &'static str, seed: u64) -> Result<(), String> {
    let launcher = TransposeLauncher {
        function: gpu.function(name)?,
        name,
    };
    let mut rng = Rng::new(seed);
    let fresh = (1 + rng.below(300) as usize, 1 + rng.below(2000) as usize);
    for (rows, cols) in TRANSPOSE_SIZES.into_iter().chain([fresh]) {
        let x = rng.vec_f32(rows * cols, -1.0, 1.0);
        let out = transposed(gpu, &launcher, &x, (rows, cols))?;
        // out[c][r] = x[r][c], bit for bit.
        let wrong = |i: usize| out[i] != x[(i % rows) * cols + i / rows].to_bits();
        let Some(first) = (0..rows * cols).find(|&i| wrong(i)) else {
            continue;
        };
        let count = (0..rows * cols).filter(|&i| wrong(i)).count();
        let (c, r) = (first / rows, first % rows);
        let got = f32::from_bits(out[first]);
        return Err(format!(
            "out[{c}][{r}] ({rows} × {cols}) is {got}, expected in[{r}][{c}] = {}; {count} of \
             {} entries are wrong (the box of in[{r}][{c}] is box {} of band {})",
            x[r * cols + c],
            rows * cols,
            c / BOX,
            r / BOX
        ));
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    vec![
        Exercise {
            name: "fragments",
            cpu: None,
            gpu: Some(GpuPart::named_kernel(
                code,
                (
                    kernel_file!("ch09-exercise-fragments.cu"),
                    "tile_products_exercise",
                ),
                (kernel_file!("ch09-fragments.cu"), "tile_products"),
                check_fragments_gpu,
            )),
        },
        Exercise {
            name: "tma",
            cpu: None,
            gpu: Some(GpuPart::named_kernel(
                code,
                (
                    kernel_file!("ch09-exercise-tma.cu"),
                    "tma_transpose_exercise",
                ),
                (kernel_file!("ch09-tma-transpose.cu"), "tma_transpose"),
                check_transpose_gpu,
            )),
        },
    ]
}
