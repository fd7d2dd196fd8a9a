//! The outer-product challenge, two ways on the GPU: cuBLAS (a matrix product with an inner
//! dimension of 1) and a broadcasting kernel; both checked against ndarray on the CPU.
use ndarray::{Array1, NewAxis, s};

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
use cudarc::driver::LaunchConfig;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};

const N: usize = 10_000;

mod ch03_broadcast {
    course::kernels!("ch03-broadcast.cu");
}

fn main() {
    let seed = course::cli::parse(
        "Computes an outer product on the GPU with cuBLAS and with a kernel.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = kernel::load(&ctx, &kernel_file!("ch03-broadcast.cu"), false);
    let k = ch03_broadcast::Kernels::load(&module);
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let x_host = rng.vec_f32(N, -1.0, 1.0);
    let y_host = rng.vec_f32(N, -1.0, 1.0);
    let x = stream.clone_htod(&x_host).or_exit("copy to the GPU");
    let y = stream.clone_htod(&y_host).or_exit("copy to the GPU");
    let n = N as i32;

    // ANCHOR: cublas
    // Way 1: the library. The outer product is the matrix product of an N x 1 column and a
    // 1 x N row. cuBLAS is column-major, so ask for the transpose (y times x), which is the
    // row-major result.
    let blas = CudaBlas::new(stream.clone()).or_exit("start cuBLAS");
    let mut by_blas = alloc_poisoned::<f32>(&stream, N * N);
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n,
        n,
        k: 1,
        alpha: 1.0f32,
        lda: n,
        ldb: 1,
        beta: 0.0f32,
        ldc: n,
    };
    // ANCHOR_END: cublas
    let t_blas = time_gpu(&stream, 2, 10, || {
        // ANCHOR: cublas
        // SAFETY: y is the N x 1 matrix A (lda = N), x the 1 x N matrix B (ldb = 1), and
        // by_blas the N x N result (ldc = N): every buffer holds what cfg says it reads or writes.
        unsafe { blas.gemm(cfg, &y, &x, &mut by_blas) }.or_exit("run SGEMM")
        // ANCHOR_END: cublas
    });

    // ANCHOR: kernel
    // Way 2: broadcasting, written as a kernel: out[i][j] = x[i] * y[j].
    let mut by_kernel = alloc_poisoned::<f32>(&stream, N * N);
    // ANCHOR_END: kernel
    let t_kernel = time_gpu(&stream, 2, 10, || {
        // ANCHOR: kernel
        let cfg = LaunchConfig::for_num_elems((N * N) as u32);
        k.outer_product
            .launch(&stream, cfg, &x, &y, &mut by_kernel)
            .or_exit_launching(&k.outer_product);
        // ANCHOR_END: kernel
    });

    // ANCHOR: check
    // The CPU reference, by broadcasting with ndarray: x[:, None] * y[None, :].
    let (xs, ys) = (Array1::from(x_host), Array1::from(y_host));
    let want = &xs.slice(s![.., NewAxis]) * &ys.slice(s![NewAxis, ..]);
    let want = want.as_slice().expect("row-major");
    let blas_result = stream.clone_dtoh(&by_blas).or_exit("copy from the GPU");
    let kernel_result = stream.clone_dtoh(&by_kernel).or_exit("copy from the GPU");
    // One multiplication per element, rounded once: all three should agree bit for bit.
    for (who, result) in [("cuBLAS", &blas_result), ("the kernel", &kernel_result)] {
        let differ = count_mismatches(result, want);
        // ANCHOR_END: check
        println!(
            "{who}: {differ} of {} elements differ from ndarray's: {}",
            want.len(),
            verdict(differ == 0)
        );
        // ANCHOR: check
    }
    // ANCHOR_END: check

    let bytes = (N * N * size_of::<f32>()) as f64 + 2.0 * (N * size_of::<f32>()) as f64;
    record(
        "outer product by SGEMM, 10000x10000",
        &t_blas,
        Work::Bytes(bytes),
    );
    record(
        "outer product by a broadcasting kernel, 10000x10000",
        &t_kernel,
        Work::Bytes(bytes),
    );
    println!("{N} x {N} outer product ({:.0} MB written):", bytes / 1e6);
    println!(
        "  cuBLAS SGEMM, k = 1:  {:>9}  {:>10}",
        fmt_ms(t_blas.median_ms),
        fmt_gb_per_s(bytes, t_blas.median_ms)
    );
    println!(
        "  broadcasting kernel:  {:>9}  {:>10}",
        fmt_ms(t_kernel.median_ms),
        fmt_gb_per_s(bytes, t_kernel.median_ms)
    );
}
