//! C = A·B for 2048×2048 f32 matrices with one thread per element of C, three ways: summing
//! in global memory, summing in a register, and on a 1-D grid. Each is checked against
//! ndarray on the CPU and timed against cuBLAS on the same GPU.
use std::sync::Arc;

use course::compare::{relative_error, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gflop_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use ndarray::ArrayView2;

mod ch04_matmul {
    course::kernels!("ch04-matmul.cu");
}

fn main() {
    // The sizes default to 2048, a multiple of the 16x16 blocks; sizes that are not (and a
    // C that is not square) reach the kernels' bounds tests, `i < m && j < p` and `ij < m * p`.
    let (m, n, p, seed) = course::cli::parse(
        "Multiplies two f32 matrices (2048x2048 unless given) with three kernels, against ndarray and cuBLAS.",
        |args| {
            (
                args.usize("M", "the rows of A and C", 2048, 1, 4096),
                args.usize("N", "the columns of A and rows of B", 2048, 1, 4096),
                args.usize("P", "the columns of B and C", 2048, 1, 4096),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-matmul.cu"), false);
    let k = ch04_matmul::Kernels::load(&module);

    // ANCHOR: data
    let mut rng = Rng::new(seed);
    let (a_host, b_host) = (rng.vec_f32(m * n, -1.0, 1.0), rng.vec_f32(n * p, -1.0, 1.0));
    let a = ArrayView2::from_shape((m, n), &a_host).or_exit("shape A");
    let b = ArrayView2::from_shape((n, p), &b_host).or_exit("shape B");
    println!("A and B: {m}x{n} and {n}x{p} f32, seed {seed}");
    // The reference: the same inputs multiplied by ndarray in f64.
    let want = a.mapv(f64::from).dot(&b.mapv(f64::from));
    let want: Vec<f64> = want.iter().copied().collect();
    // ANCHOR_END: data
    let a_dev = stream.clone_htod(&a_host).or_exit("copy A to the GPU");
    let b_dev = stream.clone_htod(&b_host).or_exit("copy B to the GPU");
    let flops = 2.0 * (m * n * p) as f64;
    // The name of the timings: `n=2048` for the book's square case.
    let shape = if m == n && n == p {
        format!("n={n}")
    } else {
        format!("{m}x{n}x{p}")
    };

    // ANCHOR: cublas
    // cuBLAS is column-major; a row-major C = A·B is the column-major Cᵀ = Bᵀ·Aᵀ, so the
    // operands go in swapped.
    let blas = CudaBlas::new(stream.clone()).or_exit("start cuBLAS");
    let mut c_blas = alloc_poisoned::<f32>(&stream, m * p);
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: p as i32,
        n: m as i32,
        k: n as i32,
        alpha: 1.0f32,
        lda: p as i32,
        ldb: n as i32,
        beta: 0.0f32,
        ldc: p as i32,
    };
    // ANCHOR_END: cublas
    let t_blas = time_gpu(&stream, 2, 10, || {
        // ANCHOR: cublas
        // SAFETY: cfg reads b_dev as p×n (leading dimension p), a_dev as n×m (n) and writes
        // c_blas as p×m (p), column-major: n·p, m·n and m·p elements, their exact lengths.
        unsafe { blas.gemm(cfg, &b_dev, &a_dev, &mut c_blas) }.or_exit("run cuBLAS SGEMM");
        // ANCHOR_END: cublas
    });
    // ANCHOR: cublas
    let c_blas_host = stream
        .clone_dtoh(&c_blas)
        .or_exit("copy C back from the GPU");
    // ANCHOR_END: cublas
    record(
        &format!("cuBLAS SGEMM, {shape}"),
        &t_blas,
        Work::Flops(flops),
    );

    // ANCHOR: kernels
    let (mi, ni, pi) = (m as i32, n as i32, p as i32);
    let grid_2d = LaunchConfig {
        grid_dim: ((p as u32).div_ceil(16), (m as u32).div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let grid_1d = LaunchConfig {
        grid_dim: (((m * p) as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let runs = [
        ("matmul_sum_in_global", grid_2d),
        ("matmul_sum_in_register", grid_2d),
        ("matmul_1d", grid_1d),
    ];
    let mut results: Vec<(&str, Timing, Vec<f32>)> = Vec::new();
    for (name, config) in runs {
        let mut c: CudaSlice<f32> = alloc_poisoned(&stream, m * p);
        // The two 2-D kernels share a launcher; the 1-D one has a contract of its own.
        // ANCHOR_END: kernels
        let t = time_gpu(&stream, 2, 10, || {
            // ANCHOR: kernels
            match k.like_matmul_sum_in_global(name) {
                Some(kernel) => kernel
                    .launch(&stream, config, &a_dev, &b_dev, &mut c, mi, ni, pi)
                    .or_exit_launching(kernel),
                None => k
                    .matmul_1d
                    .launch(&stream, config, &a_dev, &b_dev, &mut c, mi, ni, pi)
                    .or_exit_launching(&k.matmul_1d),
            }
            // ANCHOR_END: kernels
        });
        record(&format!("{name}, {shape}"), &t, Work::Flops(flops));
        // ANCHOR: kernels
        results.push((name, t, host(&stream, &c)));
    }
    // ANCHOR_END: kernels

    // ANCHOR: report
    let as_f64 = |v: &[f32]| -> Vec<f64> { v.iter().map(|&x| x as f64).collect() };
    println!(
        "{:<24} {:>9} {:>14} {:>12}",
        "kernel", "time", "rate", "of cuBLAS"
    );
    for (name, t, _) in &results {
        println!(
            "{name:<24} {:>9} {:>14} {:>12}",
            fmt_ms(t.median_ms),
            fmt_gflop_per_s(flops, t.median_ms),
            fmt_times(t_blas.median_ms / t.median_ms)
        );
    }
    println!(
        "{:<24} {:>9} {:>14}",
        "cuBLAS SGEMM",
        fmt_ms(t_blas.median_ms),
        fmt_gflop_per_s(flops, t_blas.median_ms)
    );
    // Rounding in f32 over 2048 terms stays far below 1e-5 of the result; a wrong element
    // moves the relative error by far more.
    let bound = 1e-5;
    for (name, _, c) in &results {
        let (line, _) = within_bound(
            &format!("{name}: relative error against ndarray (f64)"),
            relative_error(&as_f64(c), &want),
            bound,
        );
        println!("{line}");
        let (line, _) = within_bound(
            &format!("{name}: relative difference from cuBLAS"),
            relative_error(c, &c_blas_host),
            bound,
        );
        println!("{line}");
    }
    let (line, _) = within_bound(
        "cuBLAS: relative error against ndarray (f64)",
        relative_error(&as_f64(&c_blas_host), &want),
        bound,
    );
    println!("{line}");
    // ANCHOR_END: report
}

fn host(stream: &Arc<CudaStream>, c: &CudaSlice<f32>) -> Vec<f32> {
    stream.clone_dtoh(c).or_exit("copy C back from the GPU")
}
