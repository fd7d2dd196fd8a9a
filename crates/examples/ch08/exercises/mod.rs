//! The judge's entries for chapter 8's challenges.
//!
//! `blocking_2d`, the register-blocked inner loop: the kernel's C is compared on several
//! shapes, most of them multiples of no tile, in two ways: exactly with an integer product on
//! whole numbers in [-8, 8] (every product and partial sum is a whole number below 2²⁴, so
//! exact in f32 in any order), and within γ_k·Σ|a||b| of a float64 product on random floats in
//! [-1, 1) (`course::gemm::gamma`). C reaches past its m·n elements, poisoned, so that a write
//! outside it is seen.
//!
//! `lookback`, the look-back of one tile: the scan is compared exactly with a wrapping scan on
//! the CPU, on lengths around the edges of tiles, a length with many windows of 32 tiles, a
//! fresh length, and all ones (0xFFFF_FFFF) so that every sum wraps. A tile that gave up
//! waiting fails, and so does a write past the scan's n elements.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use course::gemm::{Shape, gamma, integer_product, whole_numbers};
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

use crate::exercise::{Code, Exercise, Gpu, GpuPart, Work, cuda};

// The launcher of the learner's kernel. Its file states the contract that ch08-sgemm.cu states
// for sgemm_2d_blocking, which takes the same arguments, so the one launcher type serves both.
mod ch08_exercise_blocking {
    course::kernels!("ch08-exercise-blocking.cu");
}
use ch08_exercise_blocking::Sgemm2dBlockingExercise as Launcher;

// The same for the look-back: the file states for scan_lookback_exercise the contract that
// ch08-scan.cu states for scan_lookback.
mod ch08_exercise_lookback {
    course::kernels!("ch08-exercise-lookback.cu");
}
use ch08_exercise_lookback::ScanLookbackExercise as ScanLauncher;

/// m×k times k×n: awkward shapes first (one element, k below a tile, sides that are
/// multiples of no tile), then whole tiles.
const SHAPES: [(usize, usize, usize); 6] = [
    (131, 77, 259),
    (1, 1, 1),
    (200, 3, 129),
    (1, 300, 130),
    (129, 9, 1),
    (256, 64, 128),
];

/// The product that `launcher` computes of `a` (m×k) and `b` (k×n), as in `sgemm_ladder`.
fn product(
    gpu: &Gpu,
    launcher: &Launcher,
    a: &[f32],
    b: &[f32],
    (m, k, n): (usize, usize, usize),
) -> Result<Vec<f32>, String> {
    let s = &gpu.stream;
    let a_dev = cuda(s.clone_htod(a), "copy A to the GPU")?;
    let b_dev = cuda(s.clone_htod(b), "copy B to the GPU")?;
    // C and, past it, room for every place a grid of 128×128 tiles could write.
    let len = m * n + 128 * n + 128;
    let mut c_dev = alloc_poisoned::<f32>(s, len);
    let config = LaunchConfig {
        grid_dim: (n.div_ceil(128) as u32, m.div_ceil(128) as u32, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    // 2mkn operations: a multiply and an add per term.
    gpu.timed(Work::Flops(2.0 * (m * k * n) as f64), || {
        let launched = launcher.launch(
            s,
            config,
            &a_dev,
            &b_dev,
            &mut c_dev.slice_mut(..m * n),
            mi,
            ni,
            ki,
        );
        cuda(launched, &format!("launch {}", launcher.name))
    })?;
    let c = cuda(s.clone_dtoh(&c_dev), "copy C from the GPU")?;
    if let Some(i) = c[m * n..].iter().position(|v| v.to_bits() != u32::MAX) {
        return Err(format!(
            "C[{}] was written, past the end of its {m}x{n} elements ({m}x{k} times {k}x{n})",
            m * n + i
        ));
    }
    Ok(c[..m * n].to_vec())
}

fn check_blocking_gpu(gpu: &Gpu, name: &'static str, seed: u64) -> Result<(), String> {
    // A file without the kernel is a verdict: look for it before launching.
    let launcher = Launcher {
        function: gpu.function(name)?,
        name,
    };
    let mut rng = Rng::new(seed);
    let mut side = || 1 + rng.below(300) as usize;
    let fresh = (side(), side(), side());
    for (m, k, n) in SHAPES.into_iter().chain([fresh]) {
        let shape = format!("{m}x{k} times {k}x{n}");
        let a = whole_numbers(m * k, &mut rng);
        let b = whole_numbers(k * n, &mut rng);
        let c = product(gpu, &launcher, &a, &b, (m, k, n))?;
        let exact = integer_product(&a, &b, Shape { m, k, n });
        for i in 0..m {
            for j in 0..n {
                let (got, want) = (c[i * n + j], exact[i * n + j]);
                if got != want {
                    return Err(format!(
                        "C[{i}][{j}] of {shape}, whole numbers, is {got}, expected {want}"
                    ));
                }
            }
        }
        let a = rng.vec_f32(m * k, -1.0, 1.0);
        let b = rng.vec_f32(k * n, -1.0, 1.0);
        let c = product(gpu, &launcher, &a, &b, (m, k, n))?;
        for i in 0..m {
            for j in 0..n {
                let (mut want, mut size) = (0.0f64, 0.0f64);
                for p in 0..k {
                    let term = a[i * k + p] as f64 * b[p * n + j] as f64;
                    want += term;
                    size += term.abs();
                }
                let (got, bound) = (c[i * n + j] as f64, gamma(k) * size);
                let within = (got - want).abs() <= bound; // false for NaN
                if !within {
                    return Err(format!(
                        "C[{i}][{j}] of {shape}, random floats, is {got:e}, expected {want:e} \
                         within {bound:e} (γ_k·Σ|a||b|)"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Threads per block and elements per tile of the scan: THREADS and THREADS × ITEMS of its
/// kernel file.
const THREADS: usize = 128;
const TILE: usize = THREADS * 40;

/// One element, the edges of one tile, one past three tiles, and more than 32 tiles, so that
/// the look-back's window moves.
const SCAN_LENGTHS: [usize; 6] = [1, TILE - 1, TILE, TILE + 1, 3 * TILE + 1, (1 << 20) + 3];

/// The inclusive scan that `launcher` computes of `input`, with fresh statuses, tile counter
/// and stall flag; an error if a tile gave up waiting or a write landed past the end.
fn scan(gpu: &Gpu, launcher: &ScanLauncher, input: &[u32]) -> Result<Vec<u32>, String> {
    let s = &gpu.stream;
    let (n, tiles) = (input.len(), input.len().div_ceil(TILE));
    let in_dev = cuda(s.clone_htod(input), "copy the input to the GPU")?;
    // The scan and, past it, one more tile, poisoned: nothing may write there.
    let mut out_dev = alloc_poisoned::<u32>(s, n + TILE);
    let mut status = cuda(s.alloc_zeros::<u64>(tiles), "allocate the tile status")?;
    let mut next_tile = cuda(s.alloc_zeros::<u32>(1), "allocate the tile counter")?;
    let mut stalled = cuda(s.alloc_zeros::<i32>(1), "allocate the stall flag")?;
    let config = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    // n u32 read and n written, as ch08/scan_lookback.rs counts (the tiles' statuses are few).
    gpu.timed(Work::Bytes(8.0 * n as f64), || {
        let launched = launcher.launch(
            s,
            config,
            &in_dev,
            &mut out_dev.slice_mut(..n),
            &mut status,
            &mut next_tile,
            &mut stalled,
        );
        cuda(launched, &format!("launch {}", launcher.name))
    })?;
    let out = cuda(s.clone_dtoh(&out_dev), "copy the scan back")?;
    let stalled = cuda(s.clone_dtoh(&stalled), "read the stall flag")?;
    if stalled[0] != 0 {
        return Err(format!(
            "a tile gave up waiting in the scan of {n} elements: a tile before it never published"
        ));
    }
    if let Some(i) = out[n..].iter().position(|&v| v != u32::MAX) {
        return Err(format!(
            "out[{}] was written, past the end of the scan's {n} elements",
            n + i
        ));
    }
    Ok(out[..n].to_vec())
}

fn check_lookback_gpu(gpu: &Gpu, name: &'static str, seed: u64) -> Result<(), String> {
    let launcher = ScanLauncher {
        function: gpu.function(name)?,
        name,
    };
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(1 << 22) as usize;
    let random = SCAN_LENGTHS.into_iter().chain([fresh]).map(|n| (n, false));
    for (n, all_ones) in random.chain([((1 << 20) + 3, true)]) {
        let (input, what): (Vec<u32>, _) = match all_ones {
            true => (vec![u32::MAX; n], "all 0xFFFFFFFF"),
            false => {
                let random = (0..n).map(|_| (rng.next_u64() >> 32) as u32);
                (random.collect(), "random u32")
            }
        };
        let got = scan(gpu, &launcher, &input)?;
        let mut sum = 0u32;
        for (i, (&x, &g)) in input.iter().zip(&got).enumerate() {
            sum = sum.wrapping_add(x);
            if g != sum {
                return Err(format!(
                    "out[{i}] of the scan of {n} elements ({what}) is {g}, expected {sum}"
                ));
            }
        }
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    vec![
        Exercise {
            name: "blocking_2d",
            cpu: None,
            gpu: Some(GpuPart::named_kernel(
                code,
                (
                    kernel_file!("ch08-exercise-blocking.cu"),
                    "sgemm_2d_blocking_exercise",
                ),
                (kernel_file!("ch08-sgemm.cu"), "sgemm_2d_blocking"),
                check_blocking_gpu,
            )),
        },
        Exercise {
            name: "lookback",
            cpu: None,
            gpu: Some(GpuPart::named_kernel(
                code,
                (
                    kernel_file!("ch08-exercise-lookback.cu"),
                    "scan_lookback_exercise",
                ),
                (kernel_file!("ch08-scan.cu"), "scan_lookback"),
                check_lookback_gpu,
            )),
        },
    ]
}
