//! The judge's entries for chapter 4's exercises. Results that are exact on both sides are
//! compared exactly: the adders' and the multiplier's sums and products (one IEEE operation,
//! rounded once), the matrix products on the GPU (whole numbers, so every sum is exact in f32),
//! launch configurations and thread counts. The CPU matrix product is compared with a triple
//! loop within 1e-12 relative, the CPU DFTs with rustfft within 1e-10 and the f32 GPU DFT with
//! rustfft in f64 within 1e-3 (relative norms). On the GPU, output buffers reach past the end
//! of the data, poisoned, so that a thread writing past the end is seen, not a fault. The
//! timing of "which is faster?" is only checked to be a positive, finite time.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use std::sync::Arc;

use course::compare::relative_error;
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaModule, CudaSlice, CudaStream, CudaView, CudaViewMut, LaunchConfig};
use num_complex::Complex64;
use rustfft::FftPlanner;

use crate::exercise::{
    self, Code, CpuPart, Exercise, Gpu, GpuPart, Shape, Work, close, cuda, same, shape,
};

mod bounds_check;
mod bounds_check_solution;
mod dft;
mod dft_gpu;
mod dft_gpu_solution;
mod dft_rayon;
mod dft_rayon_solution;
mod dft_solution;
mod matmul_1d;
mod matmul_1d_solution;
mod matmul_2d;
mod matmul_2d_solution;
mod multiplier;
mod multiplier_solution;
mod which_candidate;
mod which_candidate_solution;
mod which_faster;
mod which_faster_solution;

// The learner's kernel files. Each solution's file declares kernels of the same names that
// take the same arguments, so these launchers serve both. The learner's kernels have no
// contract, so their launchers are unsafe.
mod ch04_exercise_bounds {
    course::kernels!("ch04-exercise-bounds.cu");
}
mod ch04_exercise_grid_stride {
    course::kernels!("ch04-exercise-grid-stride.cu");
}
mod ch04_exercise_raw_indices {
    course::kernels!("ch04-exercise-raw-indices.cu");
}
mod ch04_exercise_multiplier {
    course::kernels!("ch04-exercise-multiplier.cu");
}
mod ch04_exercise_matmul_2d {
    course::kernels!("ch04-exercise-matmul-2d.cu");
}
mod ch04_exercise_matmul_1d {
    course::kernels!("ch04-exercise-matmul-1d.cu");
}
mod ch04_exercise_dft {
    course::kernels!("ch04-exercise-dft.cu");
}
// The course's own adder, for "which is faster?": the learner gives its launch shape.
mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

/// The path and the text of the starter or of its solution.
macro_rules! source {
    ($code:expr, $starter:literal, $solution:literal) => {
        $code.pick(
            (
                concat!("crates/examples/ch04/exercises/", $starter),
                include_str!($starter),
            ),
            (
                concat!("crates/examples/ch04/exercises/", $solution),
                include_str!($solution),
            ),
        )
    };
}

type ConfigFn<'a> = &'a dyn Fn(usize) -> LaunchConfig;

/// `Ok` when `config(n)` is one thread per element in blocks of 256, the fewest blocks.
fn check_config_for(name: &str, config: ConfigFn, n: usize) -> Result<LaunchConfig, String> {
    let got = config(n);
    let blocks = n.div_ceil(256) as u32;
    let want = ((blocks, 1, 1), (256, 1, 1));
    if (got.grid_dim, got.block_dim) != want {
        return Err(format!(
            "{name}({n}) has grid {:?} and blocks {:?}, expected {:?} and {:?}",
            got.grid_dim, got.block_dim, want.0, want.1
        ));
    }
    Ok(got)
}

fn check_config(name: &str, config: ConfigFn, sizes: &[usize], seed: u64) -> Result<(), String> {
    let fresh = 1 + Rng::new(seed).below(50_000_000) as usize;
    // The page's sizes come last, so that the first answer the judge shows is not the page's.
    for &n in [257, 1, 255, 256, fresh].iter().chain(sizes) {
        check_config_for(name, config, n)?;
    }
    Ok(())
}

/// `Ok` when every value of `tail`, which starts at element `start` of buffer `name`, still
/// holds the poison's bits (all ones), that is, when no thread wrote past the end; `how` says
/// which launch.
fn untouched<T: Copy>(
    name: &str,
    tail: &[T],
    start: usize,
    bits: fn(T) -> u64,
    how: &str,
) -> Result<(), String> {
    match tail.iter().position(|&v| bits(v) != u64::MAX) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{name}[{}] was written, past the end of its {start} elements ({how})",
            start + i
        )),
    }
}

fn f64_bits(v: f64) -> u64 {
    v.to_bits()
}

fn f32_bits(v: f32) -> u64 {
    v.to_bits() as u64 | 0xFFFF_FFFF_0000_0000
}

fn float2_bits(v: [f32; 2]) -> u64 {
    (v[0].to_bits() as u64) << 32 | v[1].to_bits() as u64
}

fn blocks_of(cfg: &LaunchConfig) -> String {
    format!("{} blocks of {} threads", cfg.grid_dim.0, cfg.block_dim.0)
}

// ---- What does the bounds check cost? (kernel.md) ----

type PastEndFn<'a> = &'a dyn Fn(usize, usize, usize) -> Vec<usize>;

/// Grids for the bounds check: random lengths on just enough blocks, on more blocks than that,
/// on blocks of another size; then one element, a length that fills its blocks, and the
/// page's 1,000 elements on 4 blocks of 256 last, so that the first answer the judge shows is
/// not the page's.
fn bounds_grids(seed: u64) -> Vec<(usize, usize, usize)> {
    let mut rng = Rng::new(seed);
    let mut grids = Vec::new();
    for block in [256, 128, 96] {
        let n = 1 + rng.below(100_000) as usize;
        let blocks = n.div_ceil(block);
        grids.push((n, blocks, block));
        grids.push((n, blocks + 1 + rng.below(3) as usize, block));
    }
    grids.extend([(1, 1, 256), (1024, 4, 256), (1000, 4, 256)]);
    grids
}

fn check_bounds_cpu(past_end: PastEndFn, seed: u64) -> Result<(), String> {
    for (n, blocks, block) in bounds_grids(seed) {
        let want: Vec<usize> = (n..blocks * block).collect();
        let what = format!("written_past_end({n}, {blocks}, {block})");
        same(&what, &past_end(n, blocks, block), &want)?;
    }
    Ok(())
}

/// Runs the adder without its bounds check on buffers as long as the grid, `zs` poisoned, and
/// compares the elements written past `n` with the learner's answer.
fn check_bounds_gpu(gpu: &Gpu, past_end: PastEndFn, seed: u64) -> Result<(), String> {
    gpu.function("adder_no_bounds_check")?;
    let k = ch04_exercise_bounds::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    for (n, blocks, block) in bounds_grids(seed) {
        // Buffers of a whole grid: the threads past n touch memory the judge owns and reads.
        let len = blocks * block;
        let xs = rng.vec_f64(len, -1.0, 1.0);
        let ys = rng.vec_f64(len, -1.0, 1.0);
        let xs_dev = cuda(s.clone_htod(&xs), "copy xs to the GPU")?;
        let ys_dev = cuda(s.clone_htod(&ys), "copy ys to the GPU")?;
        let mut zs_dev = alloc_poisoned::<f64>(s, len);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (block as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // Without its bounds check every thread of the grid, past n too, reads two f64 and
        // writes one.
        gpu.timed(Work::Bytes(24.0 * len as f64), || {
            // SAFETY: xs, ys and zs hold one element per thread of the grid, so the kernel may
            // do without its bounds check; it must touch only its own thread's element.
            let launched = unsafe {
                k.adder_no_bounds_check
                    .launch(s, cfg, &xs_dev, &ys_dev, &mut zs_dev, n as i32)
            };
            cuda(launched, "launch adder_no_bounds_check")
        })?;
        let zs = cuda(s.clone_dtoh(&zs_dev), "copy zs from the GPU")?;
        if let Some(i) = (0..n.min(len)).find(|&i| zs[i].to_bits() != (xs[i] + ys[i]).to_bits()) {
            return Err(format!(
                "zs[{i}] is {}, expected {} (n = {n}, {blocks} blocks of {block} threads)",
                zs[i],
                xs[i] + ys[i]
            ));
        }
        let written: Vec<usize> = (n..len).filter(|&i| f64_bits(zs[i]) != u64::MAX).collect();
        let what =
            format!("written_past_end({n}, {blocks}, {block}), against what the GPU wrote past n");
        same(&what, &past_end(n, blocks, block), &written)?;
    }
    Ok(())
}

// ---- Which is faster? (cpu-vs-gpu.md) ----

type AddCpuFn = fn(&[f64], &[f64], &mut [f64]);
/// Runs and times the GPU adder on device buffers; returns milliseconds.
type AddGpuFn = fn(
    &Arc<CudaStream>,
    &Arc<CudaModule>,
    &CudaView<f64>,
    &CudaView<f64>,
    &mut CudaViewMut<f64>,
) -> f64;

/// `Ok` when the lengths go from 1,000 to 100,000,000, ascending, with one in every decade.
fn check_lengths(lengths: fn() -> Vec<usize>) -> Result<(), String> {
    let ns = lengths();
    let (Some(&first), Some(&last)) = (ns.first(), ns.last()) else {
        return Err("lengths() is empty".into());
    };
    if first != 1000 {
        return Err(format!("lengths() starts at {first}, expected 1000"));
    }
    if let Some(w) = ns.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!(
            "lengths() has {} after {}: they must ascend",
            w[1], w[0]
        ));
    }
    if last != 100_000_000 {
        return Err(format!("lengths() ends at {last}, expected 100000000"));
    }
    for decade in 3..8 {
        let (low, high) = (10usize.pow(decade), 10usize.pow(decade + 1));
        if !ns.iter().any(|n| (low..high).contains(n)) {
            return Err(format!(
                "lengths() has none from {low} to {high}: at least one per decade"
            ));
        }
    }
    Ok(())
}

fn check_add_cpu(add: AddCpuFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(300_000) as usize;
    for n in [257, 1, 2, 7, 255, 4097, (1 << 16) + 1, fresh, 1000] {
        let xs = rng.vec_f64(n, -1.0, 1.0);
        let ys = rng.vec_f64(n, -1.0, 1.0);
        let want: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| x + y).collect();
        let mut zs = vec![f64::NAN; n];
        add(&xs, &ys, &mut zs);
        same(&format!("add_cpu's zs (n = {n})"), &zs, &want)?;
    }
    Ok(())
}

/// The adders' inputs on the GPU, their sum, and zs with a poisoned tail past its n elements,
/// to see a write past the end.
struct AdderData {
    xs_dev: CudaSlice<f64>,
    ys_dev: CudaSlice<f64>,
    want: Vec<f64>,
    zs_dev: CudaSlice<f64>,
}

fn adder_data(s: &Arc<CudaStream>, rng: &mut Rng, n: usize) -> Result<AdderData, String> {
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    Ok(AdderData {
        want: xs.iter().zip(&ys).map(|(x, y)| x + y).collect(),
        xs_dev: cuda(s.clone_htod(&xs), "copy xs to the GPU")?,
        ys_dev: cuda(s.clone_htod(&ys), "copy ys to the GPU")?,
        zs_dev: alloc_poisoned::<f64>(s, n + 256),
    })
}

/// The learner's own launch and timing, where the learner has a GPU: the sums, and a
/// positive, finite time.
fn check_add_gpu_ms(gpu: &Gpu, add: AddGpuFn, seed: u64) -> Result<(), String> {
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    // The same lengths as the plan's: the fresh one is the seed's first draw.
    rng.below(3_000_000);
    for n in adder_sizes(seed) {
        let AdderData {
            xs_dev,
            ys_dev,
            want,
            mut zs_dev,
        } = adder_data(s, &mut rng, n)?;
        let ms = add(
            s,
            &gpu.module,
            &xs_dev.slice(..),
            &ys_dev.slice(..),
            &mut zs_dev.slice_mut(..n),
        );
        let zs = cuda(s.clone_dtoh(&zs_dev), "copy zs from the GPU")?;
        same(&format!("add_gpu_ms's zs (n = {n})"), &zs[..n], &want)?;
        untouched("zs", &zs[n..], n, f64_bits, "add_gpu_ms")?;
        if !(ms > 0.0 && ms.is_finite()) {
            return Err(format!(
                "add_gpu_ms returned {ms} ms for n = {n}, expected a positive, finite time"
            ));
        }
    }
    Ok(())
}

/// The lengths the GPU adder is checked on: the fresh one is the first number the seed draws.
fn adder_sizes(seed: u64) -> Vec<usize> {
    let fresh = 1 + Rng::new(seed).below(3_000_000) as usize;
    vec![257, 1, (1 << 20) + 3, fresh, 1000]
}

/// The course's adder, launched with the learner's `adder_config`; the largest launch timed.
fn check_add_gpu(gpu: &Gpu, seed: u64, config: &dyn Fn(usize) -> Shape) -> Result<(), String> {
    // A file without the kernel is a verdict: look for it before `load`, which would exit.
    gpu.function("adder")?;
    let k = ch04_adder::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let mut rng = Rng::new(seed ^ 1);
    for n in adder_sizes(seed) {
        let cfg = check_config_for("adder_config", &|n| exercise::config(config(n)), n)?;
        let AdderData {
            xs_dev,
            ys_dev,
            want,
            mut zs_dev,
        } = adder_data(s, &mut rng, n)?;
        let work = Work::Bytes(24.0 * n as f64);
        gpu.timed(work, || {
            let launched = k.adder.launch(
                s,
                cfg,
                &xs_dev.slice(..),
                &ys_dev.slice(..),
                &mut zs_dev.slice_mut(..n),
            );
            cuda(launched, "launch the adder with adder_config")
        })?;
        let zs = cuda(s.clone_dtoh(&zs_dev), "copy zs from the GPU")?;
        same(&format!("the adder's zs (n = {n})"), &zs[..n], &want)?;
        untouched("zs", &zs[n..], n, f64_bits, "adder_config")?;
    }
    Ok(())
}

// ---- Any grid, any array; the raw indices (grids.md) ----

/// Launch an adder `zs = xs + ys` (its first `n` elements) with a configuration.
type AdderLaunch<'a> = &'a dyn Fn(
    LaunchConfig,
    &CudaSlice<f64>,
    &CudaSlice<f64>,
    &mut CudaSlice<f64>,
    i32,
) -> Result<(), String>;

/// A grid-stride adder on grids too small, just right and too large, for awkward lengths.
fn check_adder_any_grid(gpu: &Gpu, seed: u64, launch: AdderLaunch) -> Result<(), String> {
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(2_000_000) as usize;
    for n in [257, 1, (1 << 20) + 3, fresh, 1000] {
        let full = n.div_ceil(256) as u32;
        let grids = [
            (full, 256),
            (1, 256),
            (40, 256),
            (2 * full + 1, 256),
            (3, 1024),
            (5, 96),
        ];
        // Room past n for every thread of the largest grid, to see writes past the end.
        let len = n.max(((2 * full + 1) * 256) as usize) + 1;
        let xs = rng.vec_f64(len, -1.0, 1.0);
        let ys = rng.vec_f64(len, -1.0, 1.0);
        let want: Vec<f64> = xs[..n].iter().zip(&ys[..n]).map(|(x, y)| x + y).collect();
        let xs_dev = cuda(s.clone_htod(&xs), "copy xs to the GPU")?;
        let ys_dev = cuda(s.clone_htod(&ys), "copy ys to the GPU")?;
        for (blocks, threads) in grids {
            let cfg = LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (threads, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut zs_dev = alloc_poisoned::<f64>(s, len);
            let mut run = || launch(cfg, &xs_dev, &ys_dev, &mut zs_dev, n as i32);
            // One thread per element is the grid timed (the others test the stride): xs and ys
            // read, zs written, n f64 each.
            if (blocks, threads) == (full, 256) {
                gpu.timed(Work::Bytes(24.0 * n as f64), run)?;
            } else {
                run()?;
            }
            let zs = cuda(s.clone_dtoh(&zs_dev), "copy zs from the GPU")?;
            let what = format!("zs (n = {n}, {})", blocks_of(&cfg));
            same(&what, &zs[..n], &want)?;
            untouched("zs", &zs[n..], n, f64_bits, &blocks_of(&cfg))?;
        }
    }
    Ok(())
}

fn check_grid_stride_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    gpu.function("adder_grid_stride")?;
    let k = ch04_exercise_grid_stride::Kernels::load(&gpu.module);
    check_adder_any_grid(gpu, seed, &|cfg, xs, ys, zs, n| {
        // SAFETY: xs, ys and zs reach past n, and past the grid's threads; the learner's kernel
        // must index them only below n, on any grid, as the exercise asks.
        let launched = unsafe { k.adder_grid_stride.launch(&gpu.stream, cfg, xs, ys, zs, n) };
        cuda(
            launched,
            &format!("launch adder_grid_stride on {}", blocks_of(&cfg)),
        )
    })
}

fn check_raw_indices_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    gpu.function("adder_grid_stride_raw")?;
    let k = ch04_exercise_raw_indices::Kernels::load(&gpu.module);
    check_adder_any_grid(gpu, seed, &|cfg, xs, ys, zs, n| {
        // SAFETY: as for adder_grid_stride.
        let launched = unsafe {
            k.adder_grid_stride_raw
                .launch(&gpu.stream, cfg, xs, ys, zs, n)
        };
        cuda(
            launched,
            &format!("launch adder_grid_stride_raw on {}", blocks_of(&cfg)),
        )
    })
}

// ---- A multiplier (challenge-multiplier.md) ----

/// The multiplier's one length.
const MULTIPLIER_N: usize = 12_000_000;

fn check_multiplier_gpu(gpu: &Gpu, config: ConfigFn, seed: u64) -> Result<(), String> {
    let n = MULTIPLIER_N;
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    let want: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| x * y).collect();
    let s = &gpu.stream;
    let xs_dev = cuda(s.clone_htod(&xs), "copy xs to the GPU")?;
    let ys_dev = cuda(s.clone_htod(&ys), "copy ys to the GPU")?;
    // A file without the kernel is a verdict: look for it before `load`, which would exit.
    gpu.function("multiplier")?;
    let k = ch04_exercise_multiplier::Kernels::load(&gpu.module);
    let n_arg = n as i32;
    let small_grid = LaunchConfig {
        grid_dim: (40, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    for (how, cfg) in [
        ("your launch_config", config(n)),
        ("a grid of 40 blocks", small_grid),
    ] {
        let mut zs_dev = alloc_poisoned::<f64>(s, n);
        let mut run = || {
            // SAFETY: xs, ys and zs hold n elements each; the learner's kernel must keep to
            // i < n, on any grid, as the exercise asks (a file of exercises states no contract).
            let launched = unsafe {
                k.multiplier
                    .launch(s, cfg, &xs_dev, &ys_dev, &mut zs_dev, n_arg)
            };
            cuda(launched, &format!("launch the multiplier with {how}"))
        };
        // The learner's launch is the one timed: xs and ys read, zs written, n f64 each.
        if how == "your launch_config" {
            gpu.timed(Work::Bytes(24.0 * n as f64), run)?;
        } else {
            run()?;
        }
        let zs = cuda(s.clone_dtoh(&zs_dev), "copy zs from the GPU")?;
        same(&format!("zs, launched with {how},"), &zs, &want)?;
    }
    Ok(())
}

// ---- Which candidate? (matmul.md) ----

/// C = A·B from A, B, m, n and p.
type ProductFn = fn(&[f64], &[f64], usize, usize, usize) -> Vec<f64>;

struct Candidate {
    choice: u32,
    threads: fn(u64, u64, u64) -> [u64; 4],
    in_parallel: ProductFn,
}

fn triple_loop(a: &[f64], b: &[f64], m: usize, n: usize, p: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * p];
    for i in 0..m {
        for j in 0..p {
            for k in 0..n {
                c[i * p + j] += a[i * n + k] * b[k * p + j];
            }
        }
    }
    c
}

fn check_candidate(c: &Candidate, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let mut fresh = || 1 + rng.below(64);
    let fresh = (fresh(), fresh(), fresh());
    // The page's shapes come last, so that the first answer the judge shows is not the page's.
    for (m, n, p) in [
        (7, 300, 5),
        (1, 1, 1),
        fresh,
        (2048, 2048, 2048),
        (32, 16, 24),
    ] {
        let want = [m * n * p, m * p, m * n, m];
        let got = (c.threads)(m, n, p);
        if got != want {
            return Err(format!(
                "threads({m}, {n}, {p}) is {got:?}, expected {want:?}"
            ));
        }
    }
    let mut rng = Rng::new(seed);
    let fresh = |rng: &mut Rng| 1 + rng.below(64) as usize;
    let fresh = (fresh(&mut rng), fresh(&mut rng), fresh(&mut rng));
    for (m, n, p) in [(7, 300, 5), (1, 1, 1), (33, 1, 17), fresh, (32, 16, 24)] {
        let a = rng.vec_f64(m * n, -1.0, 1.0);
        let b = rng.vec_f64(n * p, -1.0, 1.0);
        let got = (c.in_parallel)(&a, &b, m, n, p);
        let what = format!("choice_in_parallel's C (A {m}x{n}, B {n}x{p})");
        close(&what, &got, &triple_loop(&a, &b, m, n, p), 1e-12)?;
    }
    match c.choice {
        2 => Ok(()),
        1 | 3 => Err(format!(
            "CHOICE is {}, whose threads race: several of them add into the same element of C",
            c.choice
        )),
        4 => Err(
            "CHOICE is 4, which launches only m threads: compare threads(2048, 2048, 2048)".into(),
        ),
        other => Err(format!("CHOICE is {other}, not a candidate (1 to 4)")),
    }
}

// ---- Write candidate 2; one dimension (matmul.md) ----

type Grid2Fn<'a> = &'a dyn Fn(usize, usize) -> LaunchConfig;

fn check_grid_2d_for(grid_2d: Grid2Fn, m: usize, p: usize) -> Result<LaunchConfig, String> {
    let got = grid_2d(m, p);
    let want = (
        (p.div_ceil(16) as u32, m.div_ceil(16) as u32, 1),
        (16, 16, 1),
    );
    if (got.grid_dim, got.block_dim) != want {
        return Err(format!(
            "grid_2d({m}, {p}) has grid {:?} and blocks {:?}, expected {:?} and {:?}",
            got.grid_dim, got.block_dim, want.0, want.1
        ));
    }
    Ok(got)
}

/// `Ok` when `grid_1d(m, p)` is a 1-D launch of at least m·p threads, in blocks of at most
/// 1024, with no block wholly past the end.
fn check_grid_1d_for(grid_1d: Grid2Fn, m: usize, p: usize) -> Result<LaunchConfig, String> {
    let got = grid_1d(m, p);
    let (g, b) = (got.grid_dim, got.block_dim);
    let shown = format!("grid_1d({m}, {p}), grid {g:?} and blocks {b:?},");
    if (g.1, g.2, b.1, b.2) != (1, 1, 1, 1) {
        return Err(format!("{shown} is not 1-D: y and z must be 1"));
    }
    if b.0 == 0 || b.0 > 1024 {
        return Err(format!(
            "{shown} has blocks of {} threads, not 1 to 1024",
            b.0
        ));
    }
    let (threads, need) = (g.0 as u64 * b.0 as u64, (m * p) as u64);
    if threads < need {
        return Err(format!(
            "{shown} launches {threads} threads, fewer than the {need} elements of C"
        ));
    }
    if threads - b.0 as u64 >= need {
        return Err(format!(
            "{shown} launches {threads} threads: its last block is wholly past the {need} \
             elements of C"
        ));
    }
    Ok(got)
}

fn check_grid_cpu(
    check_for: fn(Grid2Fn, usize, usize) -> Result<LaunchConfig, String>,
    grid: Grid2Fn,
    seed: u64,
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fresh = (1 + rng.below(5000) as usize, 1 + rng.below(5000) as usize);
    // The page's 2048 x 2048 comes last, so that the first answer shown is not the page's.
    for (m, p) in [
        (100, 50),
        (1, 1),
        (16, 17),
        (17, 16),
        (4096, 1),
        fresh,
        (2048, 2048),
    ] {
        check_for(grid, m, p)?;
    }
    Ok(())
}

/// Shapes (m, n, p) for the GPU's matrix products: square, awkward, tiny and fresh.
fn matmul_shapes(rng: &mut Rng) -> Vec<(usize, usize, usize)> {
    let mut fresh = || 1 + rng.below(150) as usize;
    let fresh = (fresh(), fresh(), fresh());
    vec![(64, 64, 64), (100, 37, 50), (1, 1, 1), (17, 300, 33), fresh]
}

/// Whole numbers from -4 to 4: every product and every sum of up to 300 of them is exact in
/// f32, so the GPU's C must equal the exact product whatever the order of its additions.
fn whole_numbers(rng: &mut Rng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.below(9) as f32 - 4.0).collect()
}

fn exact_product(a: &[f32], b: &[f32], m: usize, n: usize, p: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * p];
    for i in 0..m {
        for j in 0..p {
            let sum: i64 = (0..n)
                .map(|k| a[i * n + k] as i64 * b[k * p + j] as i64)
                .sum();
            c[i * p + j] = sum as f32;
        }
    }
    c
}

/// A and B of an m×n·n×p product, each followed by `pad_a` and `pad_b` zeros, on the GPU.
struct Operands {
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    want: Vec<f32>,
}

fn operands(
    s: &Arc<CudaStream>,
    rng: &mut Rng,
    (m, n, p): (usize, usize, usize),
    (pad_a, pad_b): (usize, usize),
) -> Result<Operands, String> {
    let mut a = whole_numbers(rng, m * n);
    let mut b = whole_numbers(rng, n * p);
    let want = exact_product(&a, &b, m, n, p);
    a.resize(m * n + pad_a, 0.0);
    b.resize(n * p + pad_b, 0.0);
    Ok(Operands {
        a: cuda(s.clone_htod(&a), "copy A to the GPU")?,
        b: cuda(s.clone_htod(&b), "copy B to the GPU")?,
        want,
    })
}

/// C's m·p elements exact, and the rest of its buffer untouched.
fn check_c(
    name: &str,
    c: &[f32],
    want: &[f32],
    (m, n, p): (usize, usize, usize),
) -> Result<(), String> {
    let what = format!("{name}'s C (A {m}x{n}, B {n}x{p})");
    same(&what, &c[..m * p], want)?;
    let how = format!("{name}, A {m}x{n}, B {n}x{p}");
    untouched("C", &c[m * p..], m * p, f32_bits, &how)
}

/// The (m, p) of the shapes the GPU matrix products are checked on.
fn matmul_grids_asked(seed: u64) -> Vec<(usize, usize)> {
    let shapes = matmul_shapes(&mut Rng::new(seed));
    shapes.into_iter().map(|(m, _, p)| (m, p)).collect()
}

fn check_matmul_2d_gpu(gpu: &Gpu, grid_2d: Grid2Fn, seed: u64) -> Result<(), String> {
    gpu.function("matmul_sum_in_global")?;
    gpu.function("matmul_sum_in_register")?;
    let k = ch04_exercise_matmul_2d::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    for (m, n, p) in matmul_shapes(&mut rng) {
        // A wrong grid would leave elements unwritten, or launch far too many threads.
        let cfg = check_grid_2d_for(grid_2d, m, p)?;
        let (rows, cols) = (
            (cfg.grid_dim.1 * 16) as usize,
            (cfg.grid_dim.0 * 16) as usize,
        );
        // Room for the rows and columns of the grid past C, so that a missing bounds test
        // shows as a wrong or extra element, not a fault.
        let ops = operands(s, &mut rng, (m, n, p), ((rows - m) * n, cols))?;
        for (name, kernel) in [
            ("matmul_sum_in_global", &k.matmul_sum_in_global),
            ("matmul_sum_in_register", &k.matmul_sum_in_register),
        ] {
            let mut c = alloc_poisoned::<f32>(s, rows * p + cols);
            let (mi, ni, pi) = (m as i32, n as i32, p as i32);
            let mut run = || {
                // SAFETY: A, B and C reach past their m·n, n·p and m·p elements by the rows
                // and columns of the grid beyond C; the learner's kernel must read A[i][k] and
                // B[k][j] and write C[i][j] for its own i and j only.
                let launched = unsafe { kernel.launch(s, cfg, &ops.a, &ops.b, &mut c, mi, ni, pi) };
                cuda(launched, &format!("launch {name}"))
            };
            // The kernel timed is the one that keeps its sum in a register, the better of
            // the two: 2mnp operations, a multiply and an add per term.
            if name == "matmul_sum_in_register" {
                gpu.timed(Work::Flops(2.0 * (m * n * p) as f64), run)?;
            } else {
                run()?;
            }
            let c = cuda(s.clone_dtoh(&c), "copy C from the GPU")?;
            check_c(name, &c, &ops.want, (m, n, p))?;
        }
    }
    Ok(())
}

fn check_matmul_1d_gpu(gpu: &Gpu, grid_1d: Grid2Fn, seed: u64) -> Result<(), String> {
    gpu.function("matmul_1d")?;
    let k = ch04_exercise_matmul_1d::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    for (m, n, p) in matmul_shapes(&mut rng) {
        let cfg = check_grid_1d_for(grid_1d, m, p)?;
        let threads = (cfg.grid_dim.0 * cfg.block_dim.0) as usize;
        // Rows of A for the threads past C, whose row would be m or more.
        let rows = (threads - 1) / p + 1;
        let ops = operands(s, &mut rng, (m, n, p), ((rows - m) * n, 0))?;
        let mut c = alloc_poisoned::<f32>(s, threads);
        let (mi, ni, pi) = (m as i32, n as i32, p as i32);
        // 2mnp operations: a multiply and an add per term.
        gpu.timed(Work::Flops(2.0 * (m * n * p) as f64), || {
            // SAFETY: A and C reach past their ends for every thread of the grid; the
            // learner's kernel must read A[i][k] and B[k][j] and write C[i][j] for its own i
            // and j only.
            let launched = unsafe {
                k.matmul_1d
                    .launch(s, cfg, &ops.a, &ops.b, &mut c, mi, ni, pi)
            };
            cuda(launched, "launch matmul_1d")
        })?;
        let c = cuda(s.clone_dtoh(&c), "copy C from the GPU")?;
        check_c("matmul_1d", &c, &ops.want, (m, n, p))?;
    }
    Ok(())
}

// ---- The DFT, three parts (dft.md) ----

fn random_complex(rng: &mut Rng, n: usize) -> Vec<Complex64> {
    (0..n)
        .map(|_| Complex64::new(rng.f64() * 2.0 - 1.0, rng.f64() * 2.0 - 1.0))
        .collect()
}

fn fft(xs: &[Complex64]) -> Vec<Complex64> {
    let mut out = xs.to_vec();
    FftPlanner::<f64>::new()
        .plan_fft_forward(xs.len())
        .process(&mut out);
    out
}

/// `Ok` when ‖got − want‖ / ‖want‖ is at most `bound`; else that error and the worst X[k].
fn close_transform(
    what: &str,
    got: &[Complex64],
    want: &[Complex64],
    bound: f64,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what} has {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    let flat = |v: &[Complex64]| -> Vec<f64> { v.iter().flat_map(|c| [c.re, c.im]).collect() };
    let error = relative_error(&flat(got), &flat(want));
    if error <= bound {
        return Ok(());
    }
    let distance = |k: usize| {
        let d = (got[k] - want[k]).norm();
        if d.is_nan() { f64::INFINITY } else { d }
    };
    let worst = (0..got.len())
        .max_by(|&a, &b| distance(a).total_cmp(&distance(b)))
        .unwrap_or(0);
    Err(format!(
        "{what} is {error:.2e} from rustfft's FFT (relative), more than {bound:e}; the worst is \
         X[{worst}] = {}, expected {}",
        got[worst], want[worst]
    ))
}

/// Transform lengths: a prime, the smallest, a power of 2, a fresh one and, last, the book's 100.
fn dft_lengths(rng: &mut Rng) -> [usize; 6] {
    [97, 1, 2, 128, 1 + rng.below(500) as usize, 100]
}

fn check_dft_loops(dft: fn(&[Complex64]) -> Vec<Complex64>, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    for n in dft_lengths(&mut rng) {
        let xs = random_complex(&mut rng, n);
        close_transform(&format!("dft's X (N = {n})"), &dft(&xs), &fft(&xs), 1e-10)?;
    }
    Ok(())
}

type KernelFn = fn(usize, &[Complex64], &mut Complex64);
type ParallelFn = fn(&[Complex64], &mut [Complex64]);

fn check_dft_rayon(kernel: KernelFn, parallel: ParallelFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let unwritten = Complex64::new(f64::NAN, f64::NAN);
    for n in dft_lengths(&mut rng) {
        let xs = random_complex(&mut rng, n);
        let want = fft(&xs);
        let mut one_by_one = vec![unwritten; n];
        for (k, x_k) in one_by_one.iter_mut().enumerate() {
            kernel(k, &xs, x_k);
        }
        let what = format!("dft_kernel(k, ..) for every k (N = {n})");
        close_transform(&what, &one_by_one, &want, 1e-10)?;
        let mut out = vec![unwritten; n];
        parallel(&xs, &mut out);
        close_transform(&format!("dft_parallel's X (N = {n})"), &out, &want, 1e-10)?;
    }
    Ok(())
}

/// The f32 DFT's tolerance. Up to N = 1,000 even the naive f32 phase stays within it (about
/// 1e-4); a wrong index, sign or missing term is far outside.
const DFT_GPU_BOUND: f64 = 1e-3;

/// The lengths the GPU DFT is checked on: the fresh one is the first number `rng` draws.
fn dft_sizes(rng: &mut Rng) -> Vec<usize> {
    let fresh = 1 + rng.below(1000) as usize;
    vec![257, 1, fresh, 100, 1000]
}

fn check_dft_gpu(gpu: &Gpu, config: ConfigFn, seed: u64) -> Result<(), String> {
    gpu.function("dft_naive_phase")?;
    let k = ch04_exercise_dft::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    for n in dft_sizes(&mut rng) {
        let cfg = check_config_for("dft_config", config, n)?;
        let xs: Vec<[f32; 2]> = (0..n)
            .map(|_| [rng.f32() * 2.0 - 1.0, rng.f32() * 2.0 - 1.0])
            .collect();
        let exact: Vec<Complex64> = xs
            .iter()
            .map(|x| Complex64::new(x[0] as f64, x[1] as f64))
            .collect();
        let xs_dev = cuda(s.clone_htod(&xs), "copy x to the GPU")?;
        // One slot per thread of the grid, so that a missing `k < n` shows past the end.
        let threads = (cfg.grid_dim.0 * cfg.block_dim.0) as usize;
        let mut out_dev = alloc_poisoned::<[f32; 2]>(s, threads);
        // 8 N² operations: a complex multiply (6) and add (2) per term; the phase and its sine
        // and cosine not counted, as ch04/dft_gpu.rs counts.
        gpu.timed(Work::Flops(8.0 * (n * n) as f64), || {
            // SAFETY: xs holds n values and out one per thread; the learner's kernel must read
            // xs only below n and write only its own out[k].
            let launched = unsafe {
                k.dft_naive_phase
                    .launch(s, cfg, &xs_dev, &mut out_dev, n as i32)
            };
            cuda(launched, "launch dft_naive_phase")
        })?;
        let out = cuda(s.clone_dtoh(&out_dev), "copy X from the GPU")?;
        let got: Vec<Complex64> = out[..n]
            .iter()
            .map(|x| Complex64::new(x[0] as f64, x[1] as f64))
            .collect();
        close_transform(&format!("X (N = {n})"), &got, &fft(&exact), DFT_GPU_BOUND)?;
        untouched("out", &out[n..], n, float2_bits, "is k checked against n?")?;
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let config: fn(usize) -> LaunchConfig = code.pick(
        multiplier::launch_config,
        multiplier_solution::launch_config,
    );
    let source = source!(code, "multiplier.rs", "multiplier_solution.rs");
    let candidate = code.pick(
        Candidate {
            choice: which_candidate::CHOICE,
            threads: which_candidate::threads,
            in_parallel: which_candidate::choice_in_parallel,
        },
        Candidate {
            choice: which_candidate_solution::CHOICE,
            threads: which_candidate_solution::threads,
            in_parallel: which_candidate_solution::choice_in_parallel,
        },
    );
    let candidate_source = source!(code, "which_candidate.rs", "which_candidate_solution.rs");
    let past_end: fn(usize, usize, usize) -> Vec<usize> = code.pick(
        bounds_check::written_past_end,
        bounds_check_solution::written_past_end,
    );
    let bounds_source = source!(code, "bounds_check.rs", "bounds_check_solution.rs");
    let lengths: fn() -> Vec<usize> =
        code.pick(which_faster::lengths, which_faster_solution::lengths);
    let add_cpu: AddCpuFn = code.pick(which_faster::add_cpu, which_faster_solution::add_cpu);
    let add_gpu: AddGpuFn = code.pick(which_faster::add_gpu_ms, which_faster_solution::add_gpu_ms);
    let adder_config: fn(usize) -> LaunchConfig = code.pick(
        which_faster::adder_config,
        which_faster_solution::adder_config,
    );
    let faster_source = source!(code, "which_faster.rs", "which_faster_solution.rs");
    let grid_2d: fn(usize, usize) -> LaunchConfig =
        code.pick(matmul_2d::grid_2d, matmul_2d_solution::grid_2d);
    let grid_2d_source = source!(code, "matmul_2d.rs", "matmul_2d_solution.rs");
    let grid_1d: fn(usize, usize) -> LaunchConfig =
        code.pick(matmul_1d::grid_1d, matmul_1d_solution::grid_1d);
    let grid_1d_source = source!(code, "matmul_1d.rs", "matmul_1d_solution.rs");
    let dft: fn(&[Complex64]) -> Vec<Complex64> = code.pick(dft::dft, dft_solution::dft);
    let dft_source = source!(code, "dft.rs", "dft_solution.rs");
    let kernel: KernelFn = code.pick(dft_rayon::dft_kernel, dft_rayon_solution::dft_kernel);
    let parallel: ParallelFn = code.pick(dft_rayon::dft_parallel, dft_rayon_solution::dft_parallel);
    let rayon_source = source!(code, "dft_rayon.rs", "dft_rayon_solution.rs");
    let dft_config: fn(usize) -> LaunchConfig =
        code.pick(dft_gpu::dft_config, dft_gpu_solution::dft_config);
    let dft_gpu_source = source!(code, "dft_gpu.rs", "dft_gpu_solution.rs");
    vec![
        Exercise {
            name: "bounds_check",
            cpu: Some(CpuPart {
                sources: vec![bounds_source],
                check: Box::new(move |seed| check_bounds_cpu(&past_end, seed)),
            }),
            gpu: Some(GpuPart::planned(
                kernel_file!("ch04-exercise-bounds.cu"),
                bounds_source,
                bounds_grids,
                move |(n, blocks, block)| past_end(n, blocks, block),
                |gpu, seed, past_end| {
                    check_bounds_gpu(gpu, &|n, blocks, block| past_end((n, blocks, block)), seed)
                },
            )),
        },
        Exercise {
            name: "which_faster",
            cpu: Some(CpuPart {
                sources: vec![faster_source],
                check: Box::new(move |seed| {
                    check_lengths(lengths)?;
                    check_add_cpu(add_cpu, seed)
                }),
            }),
            gpu: Some(
                GpuPart::planned(
                    kernel_file!("ch04-adder.cu"),
                    faster_source,
                    adder_sizes,
                    move |n| shape(adder_config(n)),
                    check_add_gpu,
                )
                .also_here(move |gpu, seed| check_add_gpu_ms(gpu, add_gpu, seed)),
            ),
        },
        Exercise {
            name: "grid_stride",
            cpu: None,
            gpu: Some(GpuPart::kernel(
                code.pick(
                    kernel_file!("ch04-exercise-grid-stride.cu"),
                    kernel_file!("ch04-grids.cu"),
                ),
                check_grid_stride_gpu,
            )),
        },
        Exercise {
            name: "raw_indices",
            cpu: None,
            gpu: Some(GpuPart::kernel(
                code.pick(
                    kernel_file!("ch04-exercise-raw-indices.cu"),
                    kernel_file!("ch04-grids.cu"),
                ),
                check_raw_indices_gpu,
            )),
        },
        Exercise {
            name: "multiplier",
            cpu: Some(CpuPart {
                sources: vec![source],
                check: Box::new(move |seed| {
                    check_config("launch_config", &config, &[MULTIPLIER_N], seed)
                }),
            }),
            gpu: Some(GpuPart::planned(
                code.pick(
                    kernel_file!("ch04-exercise-multiplier.cu"),
                    kernel_file!("ch04-multiplier.cu"),
                ),
                source,
                |_| vec![MULTIPLIER_N],
                move |n| shape(config(n)),
                |gpu, seed, config| {
                    check_multiplier_gpu(gpu, &|n| exercise::config(config(n)), seed)
                },
            )),
        },
        Exercise {
            name: "which_candidate",
            cpu: Some(CpuPart {
                sources: vec![candidate_source],
                check: Box::new(move |seed| check_candidate(&candidate, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "matmul_2d",
            cpu: Some(CpuPart {
                sources: vec![grid_2d_source],
                check: Box::new(move |seed| check_grid_cpu(check_grid_2d_for, &grid_2d, seed)),
            }),
            gpu: Some(GpuPart::planned(
                code.pick(
                    kernel_file!("ch04-exercise-matmul-2d.cu"),
                    kernel_file!("ch04-matmul.cu"),
                ),
                grid_2d_source,
                matmul_grids_asked,
                move |(m, p)| shape(grid_2d(m, p)),
                |gpu, seed, grid| {
                    check_matmul_2d_gpu(gpu, &|m, p| exercise::config(grid((m, p))), seed)
                },
            )),
        },
        Exercise {
            name: "matmul_1d",
            cpu: Some(CpuPart {
                sources: vec![grid_1d_source],
                check: Box::new(move |seed| check_grid_cpu(check_grid_1d_for, &grid_1d, seed)),
            }),
            gpu: Some(GpuPart::planned(
                code.pick(
                    kernel_file!("ch04-exercise-matmul-1d.cu"),
                    kernel_file!("ch04-matmul.cu"),
                ),
                grid_1d_source,
                matmul_grids_asked,
                move |(m, p)| shape(grid_1d(m, p)),
                |gpu, seed, grid| {
                    check_matmul_1d_gpu(gpu, &|m, p| exercise::config(grid((m, p))), seed)
                },
            )),
        },
        Exercise {
            name: "dft_loops",
            cpu: Some(CpuPart {
                sources: vec![dft_source],
                check: Box::new(move |seed| check_dft_loops(dft, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "dft_rayon",
            cpu: Some(CpuPart {
                sources: vec![rayon_source],
                check: Box::new(move |seed| check_dft_rayon(kernel, parallel, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "dft_gpu",
            cpu: Some(CpuPart {
                sources: vec![dft_gpu_source],
                check: Box::new(move |seed| {
                    check_config("dft_config", &dft_config, &[100_000], seed)
                }),
            }),
            gpu: Some(GpuPart::planned(
                code.pick(
                    kernel_file!("ch04-exercise-dft.cu"),
                    kernel_file!("ch04-dft.cu"),
                ),
                dft_gpu_source,
                |seed| dft_sizes(&mut Rng::new(seed)),
                move |n| shape(dft_config(n)),
                |gpu, seed, config| check_dft_gpu(gpu, &|n| exercise::config(config(n)), seed),
            )),
        },
    ]
}
