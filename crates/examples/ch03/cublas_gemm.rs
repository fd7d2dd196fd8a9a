//! Matrix multiplication through cuBLAS (SGEMM and DGEMM, 8192 x 8192) against ndarray's `dot`
//! on every CPU core (2048 x 2048, so that it takes seconds, not minutes), compared as rates.
use std::sync::Arc;

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, Axis, LinalgScalar};
use rayon::prelude::*;

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
use cudarc::driver::{CudaStream, DeviceRepr};

use course::compare::{relative_error, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{
    Timing, Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_cpu, time_gpu,
};

/// The GPU's matrix side (smaller under compute-sanitizer, which checks every access).
fn gpu_n() -> usize {
    problem_size(8192, 1024)
}
const CPU_N: usize = 2048;

/// f32 or f64, with what the program needs to know about each.
trait Real: DeviceRepr + LinalgScalar + Into<f64> + Send + Sync {
    const NAME: &'static str;
    const TOLERANCE: f64;
    fn from_f64(v: f64) -> Self;
}
impl Real for f32 {
    const NAME: &'static str = "f32";
    const TOLERANCE: f64 = 1e-4;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}
impl Real for f64 {
    const NAME: &'static str = "f64";
    const TOLERANCE: f64 = 1e-12;
    fn from_f64(v: f64) -> f64 {
        v
    }
}

fn main() {
    let seed = course::cli::parse(
        "Times cuBLAS SGEMM and DGEMM against ndarray's dot on the CPU, and checks sampled rows.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let blas = CudaBlas::new(stream.clone()).or_exit("start cuBLAS");

    let sgemm = gpu_gemm::<f32>(&stream, &blas, &mut rng);
    let dgemm = gpu_gemm::<f64>(&stream, &blas, &mut rng);
    let dot32 = cpu_dot::<f32>(&mut rng);
    let dot64 = cpu_dot::<f64>(&mut rng);

    // ANCHOR: ratios
    let rate = |n: usize, t: &Timing| fmt_gflop_per_s(2.0 * (n as f64).powi(3), t.median_ms);
    let times = |n_a: usize, a: &Timing, n_b: usize, b: &Timing| {
        let (work_a, work_b) = ((n_a as f64).powi(3), (n_b as f64).powi(3));
        fmt_times(work_a / a.median_ms / (work_b / b.median_ms))
    };
    println!(
        "cuBLAS SGEMM does {} the work per second of ndarray's f32 dot ({} / {})",
        times(gpu_n(), &sgemm, CPU_N, &dot32),
        rate(gpu_n(), &sgemm),
        rate(CPU_N, &dot32)
    );
    println!(
        "cuBLAS DGEMM does {} the work per second of ndarray's f64 dot ({} / {})",
        times(gpu_n(), &dgemm, CPU_N, &dot64),
        rate(gpu_n(), &dgemm),
        rate(CPU_N, &dot64)
    );
    println!(
        "on the GPU, DGEMM runs at {} the rate of SGEMM ({} / {})",
        times(gpu_n(), &dgemm, gpu_n(), &sgemm),
        rate(gpu_n(), &dgemm),
        rate(gpu_n(), &sgemm)
    );
    // ANCHOR_END: ratios
}

// ANCHOR: gemm
/// C = A·B for n x n matrices of `T` through cuBLAS, the call that the `ceilings` program times.
fn gpu_gemm<T: Real>(stream: &Arc<CudaStream>, blas: &CudaBlas, rng: &mut Rng) -> Timing
where
    CudaBlas: Gemm<T>,
{
    let n = gpu_n();
    let host = |rng: &mut Rng| -> Vec<T> {
        rng.vec_f64(n * n, -1.0, 1.0)
            .into_iter()
            .map(T::from_f64)
            .collect()
    };
    let (a_host, b_host) = (host(rng), host(rng));
    let a = stream.clone_htod(&a_host).or_exit("copy to the GPU");
    let b = stream.clone_htod(&b_host).or_exit("copy to the GPU");
    let mut c = alloc_poisoned::<T>(stream, n * n);
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: n as i32,
        k: n as i32,
        alpha: T::one(),
        lda: n as i32,
        ldb: n as i32,
        beta: T::zero(),
        ldc: n as i32,
    };
    // ANCHOR_END: gemm
    let t = time_gpu(stream, 2, 10, || {
        // ANCHOR: gemm
        // SAFETY: a, b and c each hold the n x n values that cfg describes (leading dimension n).
        unsafe { blas.gemm(cfg, &a, &b, &mut c) }.or_exit("run GEMM")
        // ANCHOR_END: gemm
    });
    // ANCHOR: gemm
    let flops = 2.0 * (n as f64).powi(3);
    let label = if T::NAME == "f32" {
        format!("cuBLAS SGEMM, n={n}")
    } else {
        format!("cuBLAS DGEMM, n={n}, FP64")
    };
    // ANCHOR_END: gemm
    record(&label, &t, Work::Flops(flops));
    // ANCHOR: gemm
    println!(
        "{label}: {} median of {}, {}",
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gflop_per_s(flops, t.median_ms)
    );
    let c_host = stream.clone_dtoh(&c).or_exit("copy from the GPU");
    // cuBLAS is column-major: element (i, j) of an n x n matrix M is at m[j * n + i].
    let error = sampled_rows_error(n, &a_host, &b_host, &c_host, |i, j| j * n + i, rng);
    let what = "  8 random rows, relative error against a float64 product on the CPU";
    // ANCHOR_END: gemm
    let (line, _) = within_bound(what, error, T::TOLERANCE);
    println!("{line}");
    // ANCHOR: gemm
    t
}
// ANCHOR_END: gemm

// ANCHOR: cpu
/// The same product, smaller, on every CPU core: rayon hands each thread bands of 64 rows of C,
/// and each band is one call of ndarray's matrix product (the matrixmultiply crate, which on
/// its own uses one thread).
fn cpu_dot<T: Real>(rng: &mut Rng) -> Timing {
    let n = CPU_N;
    let matrix =
        |rng: &mut Rng| Array2::from_shape_fn((n, n), |_| T::from_f64(rng.f64() * 2.0 - 1.0));
    let (a, b) = (matrix(rng), matrix(rng));
    let mut c = Array2::<T>::zeros((n, n));
    // ANCHOR_END: cpu
    let t = time_cpu(1, 3, || {
        // ANCHOR: cpu
        c.axis_chunks_iter_mut(Axis(0), 64)
            .into_par_iter()
            .zip(a.axis_chunks_iter(Axis(0), 64))
            .for_each(|(mut c_band, a_band)| {
                general_mat_mul(T::one(), &a_band, &b, T::zero(), &mut c_band)
            });
        // ANCHOR_END: cpu
    });
    // ANCHOR: cpu
    let flops = 2.0 * (n as f64).powi(3);
    println!(
        "ndarray dot on every CPU thread, {} {n}x{n}: {} median of {}, {}",
        T::NAME,
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gflop_per_s(flops, t.median_ms)
    );
    // ndarray is row-major: element (i, j) is at [i * n + j].
    let (a, b, c) = (a.as_slice(), b.as_slice(), c.as_slice());
    let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
    let error = sampled_rows_error(n, a, b, c, |i, j| i * n + j, rng);
    let what = "  8 random rows, relative error against a float64 product";
    // ANCHOR_END: cpu
    let (line, _) = within_bound(what, error, T::TOLERANCE);
    println!("{line}");
    // ANCHOR: cpu
    t
}
// ANCHOR_END: cpu

/// The largest relative error of 8 random rows of C = A·B against a float64 product, where
/// `at(i, j)` is the index of element (i, j) in each matrix's storage.
fn sampled_rows_error<T: Real>(
    n: usize,
    a: &[T],
    b: &[T],
    c: &[T],
    at: impl Fn(usize, usize) -> usize + Sync,
    rng: &mut Rng,
) -> f64 {
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        let i = rng.below(n as u64) as usize;
        let row_of_a: Vec<f64> = (0..n).map(|k| a[at(i, k)].into()).collect();
        let dot = |j: usize| -> f64 { (0..n).map(|k| row_of_a[k] * b[at(k, j)].into()).sum() };
        want.par_extend((0..n).into_par_iter().map(dot));
        got.extend((0..n).map(|j| -> f64 { c[at(i, j)].into() }));
    }
    relative_error(&got, &want)
}
