//! Solving A·x = y and factorising A on the GPU with what cuBLAS offers: its batched LU (getrf),
//! triangular solve (getrs), inverse (getri) and QR (geqrf) routines, called with a batch of one.
//! CuPy's `linalg.solve` and `linalg.qr` call cuSOLVER instead, which this course's cudarc
//! features do not include. Checked on the CPU by residuals, not by trusting the GPU.
use std::sync::Arc;

use ndarray::{Array2, ShapeBuilder};

use cudarc::cublas::sys::{self as blas_sys, cublasOperation_t};
use cudarc::cublas::{CudaBlas, Gemv, GemvConfig};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};

use course::compare::{relative_error, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::random::Rng;
use course::timing::{fmt_ms, time_gpu};

fn main() {
    let seed = course::cli::parse(
        "Solves a random system with cuBLAS's batched LU, inverse and QR, checked by residuals.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let n = problem_size(1000, 100);
    // A is stored column by column, as cuBLAS expects: element (i, j) at a[j * n + i].
    let a_host: Vec<f64> = (0..n * n).map(|_| rng.normal()).collect();
    let y_host: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
    let blas = CudaBlas::new(stream.clone()).or_exit("start cuBLAS");
    let a = stream.clone_htod(&a_host).or_exit("copy to the GPU");
    let y = stream.clone_htod(&y_host).or_exit("copy to the GPU");

    // ANCHOR: lu
    // LU-factorise a copy of A in place (P·A = L·U), then solve with the factors.
    let mut lu = stream.clone_dtod(&a).or_exit("copy on the GPU");
    let mut pivots = alloc_poisoned::<i32>(&stream, n);
    let mut lu_info = alloc_poisoned::<i32>(&stream, 1);
    getrf(&stream, &blas, &mut lu, &mut pivots, &mut lu_info);
    let mut x1 = stream.clone_dtod(&y).or_exit("copy on the GPU"); // getrs overwrites y with x
    getrs(&stream, &blas, &lu, &pivots, &mut x1);
    // ANCHOR_END: lu
    let singular = stream.clone_dtoh(&lu_info).or_exit("copy from the GPU")[0];
    println!(
        "LU of a {n}x{n} matrix: info {singular}, which is 0 when no pivot is zero: {}",
        verdict(singular == 0)
    );

    // ANCHOR: inverse
    // The inverse from the same factors, then x0 = inv(A)·y with a matrix-vector product.
    let mut inverse = alloc_poisoned::<f64>(&stream, n * n);
    let mut inv_info = alloc_poisoned::<i32>(&stream, 1);
    getri(&stream, &blas, &lu, &pivots, &mut inverse, &mut inv_info);
    let mut x0 = alloc_poisoned::<f64>(&stream, n);
    let cfg = GemvConfig {
        trans: cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: n as i32,
        alpha: 1.0,
        lda: n as i32,
        incx: 1,
        beta: 0.0,
        incy: 1,
    };
    // SAFETY: inverse holds n x n values (lda = n), y and x0 n each, as cfg says.
    unsafe { blas.gemv(cfg, &inverse, &y, &mut x0) }.or_exit("run DGEMV");
    // ANCHOR_END: inverse

    // ANCHOR: check
    let x0 = stream.clone_dtoh(&x0).or_exit("copy from the GPU");
    let x1 = stream.clone_dtoh(&x1).or_exit("copy from the GPU");
    let a_cpu = Array2::from_shape_vec((n, n).f(), a_host.clone()).expect("n*n values");
    let residual = |x: &[f64]| {
        let ax = a_cpu.dot(&ndarray::ArrayView1::from(x));
        relative_error(ax.as_slice().expect("contiguous"), &y_host)
    };
    // ANCHOR_END: check
    let checks = [
        within_bound("solve:   |A·x1 - y| / |y|", residual(&x1), 1e-10),
        within_bound("inverse: |A·x0 - y| / |y|", residual(&x0), 1e-8),
        within_bound(
            "x0 against x1, relative difference",
            relative_error(&x0, &x1),
            1e-6,
        ),
    ];
    for (line, _) in checks {
        println!("{line}");
    }

    // ANCHOR: qr
    // QR: geqrf leaves R in the upper triangle (and Q as Householder vectors below it). Since Q
    // is orthogonal, AᵀA = RᵀR: a check that needs neither Q nor trust in the GPU.
    let mut qr = stream.clone_dtod(&a).or_exit("copy on the GPU");
    let mut tau = alloc_poisoned::<f64>(&stream, n);
    // A QR this size is slow with the batched routine, so the one run is also the timed run.
    // ANCHOR_END: qr
    let t_qr = time_gpu(&stream, 0, 1, || {
        // ANCHOR: qr
        geqrf(&stream, &blas, &mut qr, &mut tau)
        // ANCHOR_END: qr
    });
    // ANCHOR: qr
    let qr_host = stream.clone_dtoh(&qr).or_exit("copy from the GPU");
    let r = Array2::from_shape_fn(
        (n, n),
        |(i, j)| if i <= j { qr_host[j * n + i] } else { 0.0 },
    );
    let ata = a_cpu.t().dot(&a_cpu);
    let rtr = r.t().dot(&r);
    let err = relative_error(
        rtr.as_slice().expect("contiguous"),
        ata.as_slice().expect("contiguous"),
    );
    // ANCHOR_END: qr
    let (line, _) = within_bound("QR: RᵀR against AᵀA, relative error", err, 1e-12);
    println!("{line}");

    // Each timed run starts from a fresh copy of A, since the routines overwrite their input.
    let mut work = stream.clone_dtod(&a).or_exit("copy on the GPU");
    let t_lu = time_gpu(&stream, 1, 10, || {
        stream.memcpy_dtod(&a, &mut work).or_exit("copy on the GPU");
        getrf(&stream, &blas, &mut work, &mut pivots, &mut lu_info);
    });
    let mut rhs = stream.clone_dtod(&y).or_exit("copy on the GPU");
    let t_solve = time_gpu(&stream, 1, 10, || {
        stream.memcpy_dtod(&y, &mut rhs).or_exit("copy on the GPU");
        getrs(&stream, &blas, &lu, &pivots, &mut rhs);
    });
    println!(
        "getrf (LU) {}, getrs (solve) {}, geqrf (QR) {}",
        fmt_ms(t_lu.median_ms),
        fmt_ms(t_solve.median_ms),
        fmt_ms(t_qr.median_ms)
    );
}

// ANCHOR: wrappers
// The batched routines take device arrays of device pointers, one per matrix of the batch.
fn pointer_to<T>(stream: &Arc<CudaStream>, buffer: &CudaSlice<T>) -> CudaSlice<u64> {
    let (ptr, _record) = buffer.device_ptr(stream);
    stream.clone_htod(&[ptr]).or_exit("copy to the GPU")
}

fn raw<T, U>(stream: &Arc<CudaStream>, buffer: &CudaSlice<T>) -> *mut U {
    let (ptr, _record) = buffer.device_ptr(stream);
    ptr as *mut U
}

fn getrf(
    stream: &Arc<CudaStream>,
    blas: &CudaBlas,
    a: &mut CudaSlice<f64>,
    pivots: &mut CudaSlice<i32>,
    info: &mut CudaSlice<i32>,
) {
    let n = pivots.len() as i32; // A is n x n: one pivot per row
    let matrices = pointer_to(stream, a);
    // SAFETY: a batch of one: `matrices` holds one pointer, to a, which every caller makes n x n
    // (lda = n); pivots holds n values and info one. The stream orders the call after the copy
    // of the pointer, and the borrows keep the buffers alive until it is queued.
    unsafe {
        blas_sys::cublasDgetrfBatched(
            *blas.handle(),
            n,
            raw(stream, &matrices),
            n,
            raw(stream, pivots),
            raw(stream, info),
            1,
        )
    }
    .result()
    .or_exit("run cublasDgetrfBatched");
}

fn getrs(
    stream: &Arc<CudaStream>,
    blas: &CudaBlas,
    lu: &CudaSlice<f64>,
    pivots: &CudaSlice<i32>,
    b: &mut CudaSlice<f64>,
) {
    let n = pivots.len() as i32;
    let (matrices, rhs) = (pointer_to(stream, lu), pointer_to(stream, b));
    let mut info = 0i32; // this one is a host pointer: it reports bad arguments only
    // SAFETY: a batch of one: the two pointer arrays hold one pointer each, to lu (n x n, as
    // every caller makes it) and b (n values, one right-hand side); pivots holds n values.
    unsafe {
        blas_sys::cublasDgetrsBatched(
            *blas.handle(),
            cublasOperation_t::CUBLAS_OP_N,
            n,
            1,
            raw::<u64, *const f64>(stream, &matrices),
            n,
            raw(stream, pivots),
            raw(stream, &rhs),
            n,
            &mut info,
            1,
        )
    }
    .result()
    .or_exit("run cublasDgetrsBatched");
    if info != 0 {
        course::cli::fail(&format!("cublasDgetrsBatched rejected argument {}", -info));
    }
}

fn getri(
    stream: &Arc<CudaStream>,
    blas: &CudaBlas,
    lu: &CudaSlice<f64>,
    pivots: &CudaSlice<i32>,
    inverse: &mut CudaSlice<f64>,
    info: &mut CudaSlice<i32>,
) {
    let n = pivots.len() as i32;
    let (matrices, inverses) = (pointer_to(stream, lu), pointer_to(stream, inverse));
    // SAFETY: a batch of one: one pointer each, to lu and inverse, both n x n as every caller
    // makes them; pivots holds n values and info one.
    unsafe {
        blas_sys::cublasDgetriBatched(
            *blas.handle(),
            n,
            raw::<u64, *const f64>(stream, &matrices),
            n,
            raw(stream, pivots),
            raw(stream, &inverses),
            n,
            raw(stream, info),
            1,
        )
    }
    .result()
    .or_exit("run cublasDgetriBatched");
}

fn geqrf(
    stream: &Arc<CudaStream>,
    blas: &CudaBlas,
    a: &mut CudaSlice<f64>,
    tau: &mut CudaSlice<f64>,
) {
    let n = tau.len() as i32; // A is n x n: one Householder reflection per column
    let (matrices, taus) = (pointer_to(stream, a), pointer_to(stream, tau));
    let mut info = 0i32; // a host pointer again
    // SAFETY: a batch of one: one pointer each, to a (n x n, as every caller makes it) and tau
    // (n values, one per column).
    unsafe {
        blas_sys::cublasDgeqrfBatched(
            *blas.handle(),
            n,
            n,
            raw(stream, &matrices),
            n,
            raw(stream, &taus),
            &mut info,
            1,
        )
    }
    .result()
    .or_exit("run cublasDgeqrfBatched");
    if info != 0 {
        course::cli::fail(&format!("cublasDgeqrfBatched rejected argument {}", -info));
    }
}
// ANCHOR_END: wrappers
