//! Matrix multiplication through cuBLAS (SGEMM and DGEMM, 8192 x 8192) against ndarray's `dot`
//! on the CPU (2048 x 2048, so that it takes seconds, not minutes), compared as rates.
use std::sync::Arc;

use ndarray::{Array2, LinalgScalar};

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
    let rate = |n: usize, t: &Timing| 2.0 * (n as f64).powi(3) / t.median_ms;
    println!(
        "cuBLAS SGEMM does {} the work per second of ndarray's f32 dot",
        fmt_times(rate(gpu_n(), &sgemm) / rate(CPU_N, &dot32))
    );
    println!(
        "cuBLAS DGEMM does {} the work per second of ndarray's f64 dot",
        fmt_times(rate(gpu_n(), &dgemm) / rate(CPU_N, &dot64))
    );
    println!(
        "on the GPU, DGEMM runs at {} the rate of SGEMM",
        fmt_times(rate(gpu_n(), &dgemm) / rate(gpu_n(), &sgemm))
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
    let t = time_gpu(stream, 2, 10, || {
        unsafe { blas.gemm(cfg, &a, &b, &mut c) }.or_exit("run GEMM")
    });
    let flops = 2.0 * (n as f64).powi(3);
    let label = if T::NAME == "f32" {
        format!("cuBLAS SGEMM, n={n}")
    } else {
        format!("cuBLAS DGEMM, n={n}, FP64")
    };
    record(&label, &t, Work::Flops(flops));
    println!(
        "{label}: {} median of {}, {}",
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gflop_per_s(flops, t.median_ms)
    );
    let c_host = stream.clone_dtoh(&c).or_exit("copy from the GPU");
    let error = sampled_rows_error(n, &a_host, &b_host, &c_host, rng);
    let what = "  8 random rows, relative error against a float64 product on the CPU";
    let (line, _) = within_bound(what, error, T::TOLERANCE);
    println!("{line}");
    t
}
// ANCHOR_END: gemm

// ANCHOR: cpu
/// The same product with ndarray's `dot` (the matrixmultiply crate, one thread), smaller.
fn cpu_dot<T: Real>(rng: &mut Rng) -> Timing {
    let n = CPU_N;
    let matrix =
        |rng: &mut Rng| Array2::from_shape_fn((n, n), |_| T::from_f64(rng.f64() * 2.0 - 1.0));
    let (a, b) = (matrix(rng), matrix(rng));
    let t = time_cpu(1, 3, || a.dot(&b));
    let flops = 2.0 * (n as f64).powi(3);
    println!(
        "ndarray dot, {} {n}x{n}: {} median of {}, {}",
        T::NAME,
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gflop_per_s(flops, t.median_ms)
    );
    t
}
// ANCHOR_END: cpu

/// cuBLAS is column-major: element (i, j) of an n x n matrix M is at m[j * n + i].
fn sampled_rows_error<T: Real>(n: usize, a: &[T], b: &[T], c: &[T], rng: &mut Rng) -> f64 {
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        let i = rng.below(n as u64) as usize;
        let row_of_a: Vec<f64> = (0..n).map(|k| a[k * n + i].into()).collect();
        for j in 0..n {
            let column_of_b = &b[j * n..(j + 1) * n];
            want.push(
                row_of_a
                    .iter()
                    .zip(column_of_b)
                    .map(|(&x, &y)| x * y.into())
                    .sum::<f64>(),
            );
            got.push(c[j * n + i].into());
        }
    }
    relative_error(&got, &want)
}
