//! The broadcasting challenge: matrix multiplication by broadcasting for 100x1000 times
//! 1000x100, on the CPU with ndarray and on the GPU with two element-wise kernels, beside the
//! library's DGEMM; then how large the intermediate array gets.
use ndarray::{Array2, Axis, NewAxis, s};

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
use cudarc::driver::{CudaSlice, LaunchConfig};

use course::compare::{relative_error, within_bound};
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{Work, fmt_ms, fmt_times, record, time_cpu, time_gpu};

mod ch03_broadcast {
    course::kernels!("ch03-broadcast.cu");
}

fn matmul_broadcast(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    let products = &a.slice(s![.., .., NewAxis]) * &b.slice(s![NewAxis, .., ..]);
    products.sum_axis(Axis(1))
}

fn main() {
    let seed = course::cli::parse(
        "Multiplies matrices by broadcasting on the CPU and on the GPU, beside cuBLAS's DGEMM.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    let module = kernel::load(&ctx, &kernel_file!("ch03-broadcast.cu"), false);
    let k = ch03_broadcast::Kernels::load(&module);

    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let (m, n, p) = (100usize, 1000usize, 100usize);
    let a = Array2::from_shape_vec((m, n), rng.vec_f64(m * n, -1.0, 1.0)).expect("m*n values");
    let b = Array2::from_shape_vec((n, p), rng.vec_f64(n * p, -1.0, 1.0)).expect("n*p values");
    let want = a.dot(&b);
    let a_gpu = stream
        .clone_htod(a.as_slice().expect("row-major"))
        .or_exit("copy to the GPU");
    let b_gpu = stream
        .clone_htod(b.as_slice().expect("row-major"))
        .or_exit("copy to the GPU");

    // ANCHOR: gpu
    // Like CuPy, each call allocates the m x n x p intermediate and the result.
    let (mi, ni, pi) = (m as i32, n as i32, p as i32);
    let matmul_broadcast_gpu = || -> CudaSlice<f64> {
        // SAFETY: left uninitialised, as CuPy's are; the kernels write every element (their
        // contracts make the grid cover both arrays) before anything reads it.
        let mut products = unsafe { stream.alloc::<f64>(m * n * p) }.or_exit("allocate GPU memory");
        // SAFETY: as above.
        let mut c = unsafe { stream.alloc::<f64>(m * p) }.or_exit("allocate GPU memory");
        let cfg = LaunchConfig::for_num_elems((m * n * p) as u32);
        k.broadcast_multiply
            .launch(&stream, cfg, &a_gpu, &b_gpu, &mut products, mi, ni, pi)
            .or_exit_launching(&k.broadcast_multiply);
        let cfg = LaunchConfig::for_num_elems((m * p) as u32);
        k.sum_middle_axis
            .launch(&stream, cfg, &products, &mut c, mi, ni, pi)
            .or_exit_launching(&k.sum_middle_axis);
        c
    };
    // ANCHOR_END: gpu
    let c = stream
        .clone_dtoh(&matmul_broadcast_gpu())
        .or_exit("copy from the GPU");
    let err = relative_error(&c, want.as_slice().expect("row-major"));
    let (line, _) = within_bound(
        "GPU broadcasting, relative error against ndarray's dot",
        err,
        1e-12,
    );
    println!("{line}");

    // The library's way: one DGEMM. cuBLAS is column-major, so ask it for C^T = B^T A^T, which
    // in row-major order is C.
    let blas = CudaBlas::new(stream.clone()).or_exit("start cuBLAS");
    let mut c_blas = course::gpu::alloc_poisoned::<f64>(&stream, m * p);
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: pi,
        n: mi,
        k: ni,
        alpha: 1.0f64,
        lda: pi,
        ldb: ni,
        beta: 0.0f64,
        ldc: pi,
    };
    // SAFETY: b_gpu is p x n column-major (lda = p), a_gpu n x m (ldb = n), and every c passed
    // holds m * p values (ldc = p): each buffer is as large as cfg says.
    let dgemm =
        |c: &mut CudaSlice<f64>| unsafe { blas.gemm(cfg, &b_gpu, &a_gpu, c) }.or_exit("run DGEMM");
    dgemm(&mut c_blas);
    let c = stream.clone_dtoh(&c_blas).or_exit("copy from the GPU");
    let err = relative_error(&c, want.as_slice().expect("row-major"));
    let (line, _) = within_bound(
        "cuBLAS DGEMM, relative error against ndarray's dot",
        err,
        1e-12,
    );
    println!("{line}");

    let cpu = time_cpu(1, 5, || matmul_broadcast(&a, &b));
    let cpu_dot = time_cpu(1, 5, || a.dot(&b));
    let gpu = time_gpu(&stream, 2, 20, || drop(matmul_broadcast_gpu()));
    let library = time_gpu(&stream, 2, 20, || dgemm(&mut c_blas));
    let flops = 2.0 * (m * n * p) as f64;
    record(
        "matmul by broadcasting 100x1000x100, f64",
        &gpu,
        Work::Flops(flops),
    );
    record(
        "cuBLAS DGEMM 100x1000x100, f64",
        &library,
        Work::Flops(flops),
    );
    println!("{m}x{n} times {n}x{p}:");
    println!(
        "  broadcasting, ndarray on the CPU: {:>9}",
        fmt_ms(cpu.median_ms)
    );
    println!(
        "  ndarray's dot on the CPU:         {:>9}  ({} faster than broadcasting)",
        fmt_ms(cpu_dot.median_ms),
        fmt_times(cpu.median_ms / cpu_dot.median_ms)
    );
    println!(
        "  broadcasting on the GPU:          {:>9}  ({} faster than on the CPU)",
        fmt_ms(gpu.median_ms),
        fmt_times(cpu.median_ms / gpu.median_ms)
    );
    println!(
        "  cuBLAS DGEMM on the GPU:          {:>9}  ({} faster than broadcasting)",
        fmt_ms(library.median_ms),
        fmt_times(gpu.median_ms / library.median_ms)
    );

    // ANCHOR: danger
    println!("the m x n x p array of f64, for square matrices of side:");
    for size in [1000usize, 2000, 4000, 8000] {
        let needed = 8.0 * (size as f64).powi(3);
        println!("  {size:>5}: {:>8.1} GB", needed / 1e9);
    }
    // What fits depends on the GPU, so these lines are marked as facts of this machine.
    let memory = ctx.total_mem().or_exit("read the GPU's memory size") as f64;
    println!(
        "this GPU has {:.0} GB of memory (this machine)",
        memory / 1e9
    );
    let largest = (memory / 8.0).cbrt().floor();
    println!("the largest side whose array fits in it: {largest} (this machine)");
    // ANCHOR_END: danger
}
