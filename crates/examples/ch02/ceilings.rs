//! The two ceilings every timing in this book is measured against: how fast this GPU copies
//! memory, and how fast cuBLAS multiplies FP32 matrices.
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use course::compare::{relative_error, verdict, within_bound};
use course::gpu::{OrExit, describe, gpu_or_exit, problem_size};
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_gflop_per_s, fmt_ms, record, time_gpu};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};

fn main() {
    let seed = course::cli::parse(
        "Measures this GPU's two ceilings: a device-to-device copy and cuBLAS SGEMM.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    copy_bandwidth(&stream);
    sgemm_rate(&stream, seed);
}

// ANCHOR: copy
/// Copy 1 GiB from one device buffer to another: far larger than any cache, so every byte
/// goes to device memory and back. Bandwidth counts the bytes read plus the bytes written.
fn copy_bandwidth(stream: &Arc<CudaStream>) {
    let n = 1usize << 28; // 2^28 f32 = 1 GiB
    let src = stream
        .clone_htod(&vec![1.0f32; n])
        .or_exit("copy to the GPU");
    let mut dst = stream.alloc_zeros::<f32>(n).or_exit("allocate GPU memory");
    let t = time_gpu(stream, 3, 20, || {
        stream
            .memcpy_dtod(&src, &mut dst)
            .or_exit("copy on the GPU");
    });
    let bytes = 2.0 * (n * 4) as f64;
    // ANCHOR_END: copy
    record("device-to-device copy, 1 GiB", &t, Work::Bytes(bytes));
    // ANCHOR: copy
    println!(
        "device-to-device copy of 1 GiB: {} median of {}, {}",
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gb_per_s(bytes, t.median_ms)
    );
    let copied = stream.clone_dtoh(&dst).or_exit("copy from the GPU");
    let wrong = copied.iter().filter(|&&x| x != 1.0).count();
    // ANCHOR_END: copy
    println!(
        "elements of the copy that differ from the source: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );
    // ANCHOR: copy
}
// ANCHOR_END: copy

// ANCHOR: sgemm
/// C = A·B for square FP32 matrices through cuBLAS: 2n³ floating-point operations.
fn sgemm_rate(stream: &Arc<CudaStream>, seed: u64) {
    // Under compute-sanitizer, cuBLAS's kernels are checked just as well on a smaller product.
    let n = problem_size(8192, 1024);
    println!("random matrices in [-1, 1), seed {seed}");
    let mut rng = Rng::new(seed);
    let a = stream
        .clone_htod(&rng.vec_f32(n * n, -1.0, 1.0))
        .or_exit("copy to the GPU");
    let b = stream
        .clone_htod(&rng.vec_f32(n * n, -1.0, 1.0))
        .or_exit("copy to the GPU");
    let mut c = stream
        .alloc_zeros::<f32>(n * n)
        .or_exit("allocate GPU memory");
    let blas = CudaBlas::new(stream.clone()).or_exit("start cuBLAS");
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: n as i32,
        k: n as i32,
        alpha: 1.0f32,
        lda: n as i32,
        ldb: n as i32,
        beta: 0.0f32,
        ldc: n as i32,
    };
    let t = time_gpu(stream, 2, 10, || {
        // SAFETY: a, b and c each hold n × n floats, the sizes and leading dimensions of cfg.
        unsafe { blas.gemm(cfg, &a, &b, &mut c) }.or_exit("run SGEMM");
    });
    let flops = 2.0 * (n as f64).powi(3);
    // ANCHOR_END: sgemm
    record(&format!("cuBLAS SGEMM, n={n}"), &t, Work::Flops(flops));
    // ANCHOR: sgemm
    println!(
        "cuBLAS SGEMM, {n}x{n}: {} median of {}, {}",
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gflop_per_s(flops, t.median_ms)
    );
    let host = |m: &CudaSlice<f32>| stream.clone_dtoh(m).or_exit("copy from the GPU");
    check_rows(n, &host(&a), &host(&b), &host(&c), &mut rng);
}
// ANCHOR_END: sgemm

/// A product that is fast but wrong would make a poor ceiling: check 8 random rows of C
/// against a float64 product on the CPU.
fn check_rows(n: usize, ha: &[f32], hb: &[f32], hc: &[f32], rng: &mut Rng) {
    let rows: Vec<usize> = (0..8).map(|_| rng.below(n as u64) as usize).collect();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for &i in &rows {
        // cuBLAS is column-major: element (i, j) of C is at c[j * n + i].
        let row_of_a: Vec<f64> = (0..n).map(|k| ha[k * n + i] as f64).collect();
        for j in 0..n {
            let column_of_b = &hb[j * n..(j + 1) * n];
            let sum: f64 = row_of_a
                .iter()
                .zip(column_of_b)
                .map(|(x, &y)| x * y as f64)
                .sum();
            got.push(hc[j * n + i] as f64);
            want.push(sum);
        }
    }
    let err = relative_error(&got, &want);
    let (line, _) = within_bound(
        "8 random rows, relative error from a float64 CPU product",
        err,
        1e-4,
    );
    println!("{line}");
}
