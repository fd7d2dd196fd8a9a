//! The judge's entries for chapter 3's exercises.
//! - copy_then_add: the sum that comes back equals the CPU's `a + b` exactly (one rounding).
//! - broadcast: both versions of the product are compared with a plain triple loop, within
//!   1e-12 relative (the order of the sums may differ).
//! - fusion: the fourth pass equals the CPU's `tmp + x` exactly; the fused kernel is within
//!   1e-6 relative (absolute below 1) of `cos(2 (x - 1)) + x` in float64.
//! - outer_product: the learner's SGEMM settings, through a CPU model of cuBLAS, and then
//!   cuBLAS itself and the learner's kernel, give every x[i] * y[j] exactly (one rounding).
//! - pipeline: the model's wall time is within 1e-9 relative of a simulation that runs the
//!   engines step by step.
//! - visible_gpus: the list equals CUDA's rule for `CUDA_VISIBLE_DEVICES`, written out here; on
//!   a GPU, its number of GPUs must be the driver's for this process.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use cudarc::cublas::sys::cublasOperation_t::{CUBLAS_OP_C, CUBLAS_OP_N, CUBLAS_OP_T};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, LaunchConfig};
use ndarray::Array2;

use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, Source, Work, close, cuda, same};

mod broadcast;
mod broadcast_solution;
mod copy_then_add;
mod copy_then_add_solution;
mod outer_product;
mod outer_product_solution;
mod pipeline;
mod pipeline_solution;
mod visible_gpus;
mod visible_gpus_solution;

// The launchers of the learners' kernel files; each solution's file declares its kernels alike.
mod ch03_exercise_broadcast {
    course::kernels!("ch03-exercise-broadcast.cu");
}
mod ch03_exercise_fusion {
    course::kernels!("ch03-exercise-fusion.cu");
}
mod ch03_exercise_outer {
    course::kernels!("ch03-exercise-outer.cu");
}
// The course's `a += b`, which `copy_then_add` launches.
mod ch03_elementwise {
    course::kernels!("ch03-elementwise.cu");
}

/// A learner's file, or its solution, as the judge names it.
macro_rules! source {
    ($code:expr, $file:literal, $solution:literal) => {
        $code.pick(
            (
                concat!("crates/examples/ch03/exercises/", $file),
                include_str!($file),
            ),
            (
                concat!("crates/examples/ch03/exercises/", $solution),
                include_str!($solution),
            ),
        )
    };
}

fn launch_in_blocks(threads: usize, block: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (threads.div_ceil(block) as u32, 1, 1),
        block_dim: (block as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

// --- copy_then_add ("Timing GPU work") ---

type CopyThenAddFn = fn(
    &std::sync::Arc<cudarc::driver::CudaStream>,
    &ch03_elementwise::AddInPlace,
    &[f32],
    &[f32],
) -> Result<cudarc::driver::CudaSlice<f32>, Box<dyn std::error::Error>>;

/// One element, a partial block on either side of 1024, and a fresh length.
fn check_copy_then_add(gpu: &Gpu, f: CopyThenAddFn, seed: u64) -> Result<(), String> {
    let s = &gpu.stream;
    let add = ch03_elementwise::Kernels::load(&gpu.module).add_in_place;
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(4_000_000) as usize;
    for n in [1, 1023, 1025, fresh] {
        let a = rng.vec_f32(n, -1.0, 1.0);
        let b = rng.vec_f32(n, -1.0, 1.0);
        let sum = f(s, &add, &a, &b)
            .map_err(|e| format!("copy_then_add on {n} elements returned an error: {e}"))?;
        let got = cuda(s.clone_dtoh(&sum), "copy the sum from the GPU")?;
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        same(&format!("a + b ({n} elements)"), &got, &want)?;
    }
    Ok(())
}

// --- broadcast ("Broadcasting") ---

const TOLERANCE: f64 = 1e-12;

fn random_matrix(rng: &mut Rng, rows: usize, cols: usize) -> Array2<f64> {
    Array2::from_shape_vec((rows, cols), rng.vec_f64(rows * cols, -1.0, 1.0)).expect("shape")
}

fn triple_loop(a: &Array2<f64>, b: &Array2<f64>) -> Vec<f64> {
    let (m, n, p) = (a.nrows(), a.ncols(), b.ncols());
    let mut c = vec![0.0; m * p];
    for i in 0..m {
        for j in 0..p {
            c[i * p + j] = (0..n).map(|k| a[[i, k]] * b[[k, j]]).sum();
        }
    }
    c
}

fn check_cpu(f: fn(&Array2<f64>, &Array2<f64>) -> Array2<f64>, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let (m, n, p) = (
        1 + rng.below(40) as usize,
        1 + rng.below(40) as usize,
        1 + rng.below(40) as usize,
    );
    for (m, n, p) in [(2, 2, 2), (m, n, p)] {
        let (a, b) = (random_matrix(&mut rng, m, n), random_matrix(&mut rng, n, p));
        let c = f(&a, &b);
        if c.dim() != (m, p) {
            return Err(format!(
                "C is {:?} for a {m} x {n} times a {n} x {p}, expected ({m}, {p})",
                c.dim()
            ));
        }
        let got: Vec<f64> = c.iter().copied().collect();
        close(
            &format!("C ({m} x {n} times {n} x {p})"),
            &got,
            &triple_loop(&a, &b),
            TOLERANCE,
        )?;
    }
    Ok(())
}

/// The challenge's sizes, 100 x 1000 times 1000 x 100, through the two kernels.
fn check_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let (m, n, p) = (100usize, 1000usize, 100usize);
    let mut rng = Rng::new(seed);
    let (a, b) = (random_matrix(&mut rng, m, n), random_matrix(&mut rng, n, p));
    let s = &gpu.stream;
    let a_gpu = cuda(
        s.clone_htod(a.as_slice().expect("standard layout")),
        "copy A to the GPU",
    )?;
    let b_gpu = cuda(
        s.clone_htod(b.as_slice().expect("standard layout")),
        "copy B to the GPU",
    )?;
    let mut products = alloc_poisoned::<f64>(s, m * n * p);
    let mut c = alloc_poisoned::<f64>(s, m * p);
    let (mi, ni, pi) = (m as i32, n as i32, p as i32);
    // A missing kernel is the learner's to fix: a verdict, where `Kernels::load` would exit.
    gpu.function("broadcast_multiply")?;
    gpu.function("sum_middle_axis")?;
    let k = ch03_exercise_broadcast::Kernels::load(&gpu.module);
    let cfg = |elements: usize| LaunchConfig {
        grid_dim: (elements.div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // Both kernels timed, by the f64 bytes they must move; the larger, kept, is the first's.
    // A and B read, the m * n * p products written.
    let work = Work::Bytes(8.0 * (m * n + n * p + m * n * p) as f64);
    gpu.timed(work, || {
        // SAFETY: one thread per product, in blocks of 256, for buffers of m * n, n * p and
        // m * n * p values: the learner's kernel must return for idx >= m * n * p and read a
        // and b only at i * n + k and k * p + j, as the file's comments ask.
        let launched = unsafe {
            k.broadcast_multiply.launch(
                s,
                cfg(m * n * p),
                &a_gpu,
                &b_gpu,
                &mut products,
                mi,
                ni,
                pi,
            )
        };
        cuda(launched, "launch broadcast_multiply")
    })?;
    // The products read, C written.
    let work = Work::Bytes(8.0 * (m * n * p + m * p) as f64);
    gpu.timed(work, || {
        // SAFETY: one thread per element of c (m * p values); the learner's kernel must return
        // for idx >= m * p and read prod only below m * n * p.
        let launched = unsafe {
            k.sum_middle_axis
                .launch(s, cfg(m * p), &products, &mut c, mi, ni, pi)
        };
        cuda(launched, "launch sum_middle_axis")
    })?;
    let got = cuda(s.clone_dtoh(&c), "copy C from the GPU")?;
    close("C", &got, &triple_loop(&a, &b), TOLERANCE)
}

// --- fusion ("Fusing operations") ---

const FUSED_TOLERANCE: f64 = 1e-6;

/// Both kernels on one float4, a partial block on either side of 256, and a fresh length, one
/// thread per float4 as `fusion` launches them.
fn check_fusion(gpu: &Gpu, seed: u64) -> Result<(), String> {
    // A missing kernel is the learner's to fix: a verdict, where `Kernels::load` would exit.
    gpu.function("add_arrays")?;
    gpu.function("cos_fused_plus_x")?;
    let k = ch03_exercise_fusion::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    let fresh = 1 + rng.below(1 << 20) as usize;
    for n4 in [1, 255, 257, fresh] {
        let x = rng.vec_f32(4 * n4, -4.0, 4.0);
        let tmp = rng.vec_f32(4 * n4, -1.0, 1.0);
        let x_gpu = cuda(s.clone_htod(x.as_chunks::<4>().0), "copy x to the GPU")?;
        let tmp_gpu = cuda(s.clone_htod(tmp.as_chunks::<4>().0), "copy tmp to the GPU")?;
        let cfg = launch_in_blocks(n4, 256);
        let n4_arg = n4 as i64;

        let mut y = alloc_poisoned::<[f32; 4]>(s, n4);
        // SAFETY: tmp, x and y hold n4 float4s each and the grid has at least n4 threads; the
        // learner's kernel must touch element i only for i < n4, as the file's comments ask.
        let launched = unsafe {
            k.add_arrays
                .launch(s, cfg, &tmp_gpu, &x_gpu, &mut y, n4_arg)
        };
        cuda(launched, "launch add_arrays")?;
        let got = cuda(s.clone_dtoh(&y), "copy y from the GPU")?.into_flattened();
        let want: Vec<f32> = tmp.iter().zip(&x).map(|(t, x)| t + x).collect();
        same(&format!("y of add_arrays ({n4} float4s)"), &got, &want)?;

        let mut y = alloc_poisoned::<[f32; 4]>(s, n4);
        // The fused kernel is the one timed: x read and y written, 16 bytes a float4 each.
        gpu.timed(Work::Bytes(32.0 * n4 as f64), || {
            // SAFETY: as above, for x and y.
            let launched = unsafe { k.cos_fused_plus_x.launch(s, cfg, &x_gpu, &mut y, n4_arg) };
            cuda(launched, "launch cos_fused_plus_x")
        })?;
        let got = cuda(s.clone_dtoh(&y), "copy y from the GPU")?.into_flattened();
        let got: Vec<f64> = got.iter().map(|&v| v as f64).collect();
        let want: Vec<f64> = x
            .iter()
            .map(|&x| (2.0 * (x as f64 - 1.0)).cos() + x as f64)
            .collect();
        close(
            &format!("y of cos_fused_plus_x ({n4} float4s)"),
            &got,
            &want,
            FUSED_TOLERANCE,
        )?;
    }
    Ok(())
}

// --- outer_product ("Linear algebra") ---

type GemmFn = fn(i32, i32) -> GemmConfig<f32>;

/// cuBLAS's SGEMM on the CPU: C = alpha op(A) op(B) + beta C, every matrix column-major, and C
/// not read when beta is 0. It refuses what cuBLAS refuses (a negative size, an operation
/// SGEMM does not take, a leading dimension too small) and, unlike cuBLAS, any read or write
/// outside a buffer.
fn sgemm_model(cfg: &GemmConfig<f32>, a: &[f32], b: &[f32], c: &mut [f32]) -> Result<(), String> {
    let (m, n, k) = (cfg.m, cfg.n, cfg.k);
    if m < 0 || n < 0 || k < 0 {
        return Err(format!(
            "cuBLAS refuses m = {m}, n = {n}, k = {k}: a size is negative"
        ));
    }
    let transposed = |op, name: &str| match op {
        CUBLAS_OP_N => Ok(false),
        CUBLAS_OP_T | CUBLAS_OP_C => Ok(true),
        other => Err(format!("cuBLAS's SGEMM refuses {name} = {other:?}")),
    };
    let (ta, tb) = (
        transposed(cfg.transa, "transa")?,
        transposed(cfg.transb, "transb")?,
    );
    // The rows of each matrix as it is stored.
    let a_rows = if ta { k } else { m };
    let b_rows = if tb { n } else { k };
    for (name, ld, rows) in [
        ("lda", cfg.lda, a_rows),
        ("ldb", cfg.ldb, b_rows),
        ("ldc", cfg.ldc, m),
    ] {
        if ld < rows.max(1) {
            return Err(format!(
                "cuBLAS refuses {name} = {ld}: with these settings it must be at least {}",
                rows.max(1)
            ));
        }
    }
    let [m, n, k, lda, ldb, ldc] = [m, n, k, cfg.lda, cfg.ldb, cfg.ldc].map(|v| v as usize);
    let read = |buf: &[f32], name: &str, at: usize| {
        buf.get(at).copied().ok_or_else(|| {
            format!(
                "SGEMM would read {name}[{at}], past the {} values there",
                buf.len()
            )
        })
    };
    for j in 0..n {
        for i in 0..m {
            let mut sum = 0.0f32;
            for l in 0..k {
                let a_il = read(a, "A", if ta { l + i * lda } else { i + l * lda })?;
                let b_lj = read(b, "B", if tb { j + l * ldb } else { l + j * ldb })?;
                sum += a_il * b_lj;
            }
            let at = i + j * ldc;
            let value = match cfg.beta == 0.0 {
                true => cfg.alpha * sum,
                false => cfg.alpha * sum + cfg.beta * read(c, "C", at)?,
            };
            let len = c.len();
            *c.get_mut(at).ok_or_else(|| {
                format!("SGEMM would write C[{at}], past the {len} values there")
            })? = value;
        }
    }
    Ok(())
}

/// out[i][j] = x[i] * y[j], row-major.
fn outer_reference(x: &[f32], y: &[f32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len() * y.len());
    for xi in x {
        for yj in y {
            out.push(xi * yj);
        }
    }
    out
}

/// The settings for `blas.gemm(cfg, &y, &x, &mut out)`, through the CPU model.
fn outer_by_model(gemm: GemmFn, x: &[f32], y: &[f32]) -> Result<Vec<f32>, String> {
    let (m, n) = (x.len(), y.len());
    let cfg = gemm(m as i32, n as i32);
    let mut out = vec![f32::NAN; m * n];
    sgemm_model(&cfg, y, x, &mut out)
        .map_err(|e| format!("with outer_product_gemm({m}, {n}), {e}"))?;
    Ok(out)
}

/// A square, one element, a row, a column and a fresh shape.
fn check_outer_cpu(gemm: GemmFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fresh = (1 + rng.below(60) as usize, 1 + rng.below(60) as usize);
    for (m, n) in [(4, 4), (1, 1), (1, 7), (7, 1), (3, 5), fresh] {
        let (x, y) = (rng.vec_f32(m, -1.0, 1.0), rng.vec_f32(n, -1.0, 1.0));
        let got = outer_by_model(gemm, &x, &y)?;
        let what = format!("out ({m} x {n}) from a CPU model of cuBLAS with your settings");
        same(&what, &got, &outer_reference(&x, &y))?;
    }
    Ok(())
}

/// The learner's kernel and cuBLAS with the learner's settings, each against the CPU, on one
/// element, a row, a column, a shape that leaves the last block partial, and a fresh one.
fn check_outer_gpu(gpu: &Gpu, gemm: GemmFn, seed: u64) -> Result<(), String> {
    gpu.function("outer_product")?;
    let k = ch03_exercise_outer::Kernels::load(&gpu.module);
    let s = &gpu.stream;
    let blas = cuda(CudaBlas::new(s.clone()), "start cuBLAS")?;
    let mut rng = Rng::new(seed);
    let fresh = (1 + rng.below(2000) as usize, 1 + rng.below(2000) as usize);
    for (m, n) in [(1, 1), (1, 1000), (1000, 1), (1000, 1025), fresh] {
        let (x, y) = (rng.vec_f32(m, -1.0, 1.0), rng.vec_f32(n, -1.0, 1.0));
        let want = outer_reference(&x, &y);
        let x_gpu = cuda(s.clone_htod(&x), "copy x to the GPU")?;
        let y_gpu = cuda(s.clone_htod(&y), "copy y to the GPU")?;

        let mut out = alloc_poisoned::<f32>(s, m * n);
        let cfg = LaunchConfig::for_num_elems((m * n) as u32);
        // SAFETY: x holds m values, y n and out m * n, and the grid has a thread for each
        // element of out; the learner's kernel must write out only below m * n.
        let launched = unsafe {
            k.outer_product
                .launch(s, cfg, &x_gpu, &y_gpu, &mut out, m as i32, n as i32)
        };
        cuda(launched, "launch outer_product")?;
        let got = cuda(s.clone_dtoh(&out), "copy out from the GPU")?;
        same(&format!("out of your kernel ({m} x {n})"), &got, &want)?;

        // The model refuses settings that would make cuBLAS read or write outside a buffer.
        outer_by_model(gemm, &x, &y)?;
        let mut out = alloc_poisoned::<f32>(s, m * n);
        // SAFETY: the CPU model above ran these settings on buffers of these lengths and found
        // every read and write inside them.
        let ran = unsafe { blas.gemm(gemm(m as i32, n as i32), &y_gpu, &x_gpu, &mut out) };
        cuda(ran, "run SGEMM with your settings")?;
        let got = cuda(s.clone_dtoh(&out), "copy out from the GPU")?;
        same(
            &format!("out of cuBLAS with your settings ({m} x {n})"),
            &got,
            &want,
        )?;
    }
    Ok(())
}

// --- pipeline ("Streams") ---

type PipelineFn = fn(usize, usize, f64, f64, f64) -> f64;

const PIPELINE_TOLERANCE: f64 = 1e-9;

/// The pipeline run as the GPU runs it: each engine (copy in, kernels, copy out) takes the next
/// chunk in order once it is idle and the chunk is ready; the clock jumps from one step's end to
/// the next. A copy in is ready when the stream's earlier chunk has left.
fn simulate_pipeline(chunks: usize, streams: usize, steps: [f64; 3]) -> f64 {
    let mut next = [0usize; 3]; // the chunk each engine takes next
    let mut busy: [Option<(usize, f64)>; 3] = [None; 3]; // (chunk, when it ends)
    let mut done = vec![0usize; chunks]; // steps each chunk has finished
    let (mut now, mut last_out) = (0.0f64, 0.0f64);
    loop {
        for e in 0..3 {
            let c = next[e];
            if busy[e].is_some() || c >= chunks || done[c] != e {
                continue;
            }
            if e == 0 && c >= streams && done[c - streams] < 3 {
                continue;
            }
            busy[e] = Some((c, now + steps[e]));
            next[e] += 1;
        }
        let Some(e) = (0..3)
            .filter_map(|e| busy[e].map(|(_, end)| (e, end)))
            .min_by(|p, q| p.1.total_cmp(&q.1))
            .map(|(e, _)| e)
        else {
            return last_out;
        };
        let (c, end) = busy[e].take().expect("busy");
        now = end;
        done[c] += 1;
        if e == 2 {
            last_out = last_out.max(end);
        }
    }
}

/// One chunk, random pipelines, then the page's pipeline (eight chunks, each step about as long
/// as the others) on 1, 2, 3 and 8 streams last, so that the first answer the judge shows is
/// not the page's.
fn check_pipeline(f: PipelineFn, seed: u64) -> Result<(), String> {
    let mut cases = vec![(1, 1, [1.0, 1.5, 0.5])];
    let mut rng = Rng::new(seed);
    for _ in 0..200 {
        let (chunks, streams) = (1 + rng.below(20) as usize, 1 + rng.below(10) as usize);
        let steps = [0; 3].map(|_| 0.1 + 3.0 * rng.f64());
        cases.push((chunks, streams, steps));
    }
    for streams in [1, 2, 3, 8] {
        cases.push((8, streams, [1.2, 1.4, 1.2]));
    }
    for (chunks, streams, [i, k, o]) in cases {
        let got = f(chunks, streams, i, k, o);
        let want = simulate_pipeline(chunks, streams, [i, k, o]);
        // Written so that NaN fails.
        if !((got - want).abs() <= PIPELINE_TOLERANCE * want) {
            return Err(format!(
                "pipeline_ms({chunks}, {streams}, {i}, {k}, {o}) is {got}, expected {want} \
                 (tolerance {PIPELINE_TOLERANCE:e} relative)"
            ));
        }
    }
    Ok(())
}

// --- visible_gpus ("Several GPUs") ---

type VisibleFn = fn(Option<&str>, usize) -> Vec<usize>;

/// CUDA's rule: unset, every GPU in order; set, the GPUs listed, in the list's order, up to the
/// first entry that is not the number of one of the machine's GPUs.
fn visible_reference(setting: Option<&str>, machine_gpus: usize) -> Vec<usize> {
    let Some(list) = setting else {
        return (0..machine_gpus).collect();
    };
    let mut seen = Vec::new();
    for entry in list.split(',') {
        let valid = !entry.is_empty() && entry.bytes().all(|b| b.is_ascii_digit());
        match entry.parse::<usize>() {
            Ok(gpu) if valid && gpu < machine_gpus => seen.push(gpu),
            _ => break,
        }
    }
    seen
}

/// A setting of distinct numbers, some beyond the machine's GPUs, and now and then a -1.
fn random_setting(rng: &mut Rng, machine_gpus: usize) -> String {
    let mut numbers: Vec<usize> = (0..machine_gpus + 2).collect();
    for i in (1..numbers.len()).rev() {
        numbers.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut entries: Vec<String> = numbers[..rng.below(numbers.len() as u64 + 1) as usize]
        .iter()
        .map(|g| g.to_string())
        .collect();
    if !entries.is_empty() && rng.below(4) == 0 {
        let at = rng.below(entries.len() as u64) as usize;
        entries[at] = "-1".into();
    }
    entries.join(",")
}

fn shown(setting: Option<&str>) -> String {
    setting.map_or("None".into(), |s| format!("Some({s:?})"))
}

/// CUDA's own examples, random settings, and the challenge's machine last, so that the first
/// answer the judge shows is not the page's.
fn check_visible_cpu(f: VisibleFn, seed: u64) -> Result<(), String> {
    let mut cases: Vec<(Option<String>, usize)> = vec![
        (None, 2),
        (Some("1".into()), 1),
        (Some("".into()), 2),
        (Some("2,1".into()), 3),
        (Some("0,2,-1,1".into()), 3),
    ];
    let mut rng = Rng::new(seed);
    for _ in 0..100 {
        let machine_gpus = 1 + rng.below(8) as usize;
        let setting = (rng.below(8) != 0).then(|| random_setting(&mut rng, machine_gpus));
        cases.push((setting, machine_gpus));
    }
    cases.push((Some("1".into()), 2));
    for (setting, machine_gpus) in &cases {
        let setting = setting.as_deref();
        let got = f(setting, *machine_gpus);
        let want = visible_reference(setting, *machine_gpus);
        if got != want {
            return Err(format!(
                "visible_gpus({}, {machine_gpus}) is {got:?}, expected {want:?}",
                shown(setting)
            ));
        }
    }
    Ok(())
}

/// The driver's count for this process. The machine's own number of GPUs is not known here,
/// so: unset, the function must show every one of them; set to numbers, some machine size must
/// give the driver's count. A setting of UUIDs, which the exercise leaves out, is checked as if
/// unset.
fn check_visible_gpu(f: VisibleFn, _seed: u64) -> Result<(), String> {
    let count = cuda(CudaContext::device_count(), "count the GPUs")? as usize;
    let setting = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let numeric = setting.as_deref().is_some_and(|s| {
        s.split(',').all(|e| {
            e.is_empty()
                || e.trim_start_matches('-')
                    .bytes()
                    .all(|b| b.is_ascii_digit())
        })
    });
    if !numeric {
        let got = f(None, count);
        let want: Vec<usize> = (0..count).collect();
        if got != want {
            return Err(format!(
                "the driver shows this process all {count} GPU(s) of a machine, but \
                 visible_gpus(None, {count}) is {got:?}"
            ));
        }
        return Ok(());
    }
    let s = setting.as_deref();
    if !(1..=64).any(|machine_gpus| f(s, machine_gpus).len() == count) {
        return Err(format!(
            "with CUDA_VISIBLE_DEVICES={:?} the driver shows this process {count} GPU(s), but \
             visible_gpus({}, N) gives another number for every N up to 64",
            s.unwrap_or_default(),
            shown(s)
        ));
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let broadcast_fn = code.pick(
        broadcast::matmul_broadcast as fn(&Array2<f64>, &Array2<f64>) -> Array2<f64>,
        broadcast_solution::matmul_broadcast,
    );
    let copy_fn: CopyThenAddFn = code.pick(
        copy_then_add::copy_then_add,
        copy_then_add_solution::copy_then_add,
    );
    let gemm: GemmFn = code.pick(
        outer_product::outer_product_gemm,
        outer_product_solution::outer_product_gemm,
    );
    let pipeline_fn: PipelineFn = code.pick(pipeline::pipeline_ms, pipeline_solution::pipeline_ms);
    let visible: VisibleFn = code.pick(
        visible_gpus::visible_gpus,
        visible_gpus_solution::visible_gpus,
    );
    let outer_source: Source = source!(code, "outer_product.rs", "outer_product_solution.rs");
    let visible_source: Source = source!(code, "visible_gpus.rs", "visible_gpus_solution.rs");
    vec![
        Exercise {
            name: "copy_then_add",
            cpu: None,
            // The course's kernel: the learner writes the host code around it.
            gpu: Some(GpuPart::local_only(
                kernel_file!("ch03-elementwise.cu"),
                source!(code, "copy_then_add.rs", "copy_then_add_solution.rs"),
                "its answer is Rust that copies to and from the GPU",
                Box::new(move |gpu, seed, _| check_copy_then_add(gpu, copy_fn, seed)),
            )),
        },
        Exercise {
            name: "broadcast",
            cpu: Some(CpuPart {
                sources: vec![source!(code, "broadcast.rs", "broadcast_solution.rs")],
                check: Box::new(move |seed| check_cpu(broadcast_fn, seed)),
            }),
            gpu: Some(GpuPart::kernel(
                code.pick(
                    kernel_file!("ch03-exercise-broadcast.cu"),
                    kernel_file!("ch03-broadcast.cu"),
                ),
                check_gpu,
            )),
        },
        Exercise {
            name: "fusion",
            cpu: None,
            gpu: Some(GpuPart::kernel(
                code.pick(
                    kernel_file!("ch03-exercise-fusion.cu"),
                    kernel_file!("ch03-exercise-fusion-solution.cu"),
                ),
                check_fusion,
            )),
        },
        Exercise {
            name: "outer_product",
            cpu: Some(CpuPart {
                sources: vec![outer_source],
                check: Box::new(move |seed| check_outer_cpu(gemm, seed)),
            }),
            gpu: Some(GpuPart::local_only(
                code.pick(
                    kernel_file!("ch03-exercise-outer.cu"),
                    kernel_file!("ch03-broadcast.cu"),
                ),
                outer_source,
                "its answer includes Rust that calls cuBLAS",
                Box::new(move |gpu, seed, _| check_outer_gpu(gpu, gemm, seed)),
            )),
        },
        Exercise {
            name: "pipeline",
            cpu: Some(CpuPart {
                sources: vec![source!(code, "pipeline.rs", "pipeline_solution.rs")],
                check: Box::new(move |seed| check_pipeline(pipeline_fn, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "visible_gpus",
            cpu: Some(CpuPart {
                sources: vec![visible_source],
                check: Box::new(move |seed| check_visible_cpu(visible, seed)),
            }),
            // multi_gpu's kernel file; the check itself asks the driver, not a kernel.
            gpu: Some(GpuPart::local_only(
                kernel_file!("ch03-streams.cu"),
                visible_source,
                "its answer is Rust that asks the driver for its GPUs",
                Box::new(move |_gpu, seed, _| check_visible_gpu(visible, seed)),
            )),
        },
    ]
}
