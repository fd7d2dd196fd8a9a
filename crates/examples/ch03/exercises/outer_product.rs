//! Exercise: "Challenge: the outer product, two ways" ("Linear algebra"): the cuBLAS way here,
//! the kernel in `kernels/ch03-exercise-outer.cu`. Check both with
//! `cargo run --bin judge -- ch03`.
#![allow(unused_imports, unused_variables)]
use cudarc::cublas::{GemmConfig, sys::cublasOperation_t};

/// The settings of `blas.gemm(cfg, &y, &x, &mut out)` that make it write the outer product
/// out[i][j] = x[i] * y[j] of x (m values) and y (n values), row-major, m x n. cuBLAS reads
/// every matrix column-major, with y as its A and x as its B.
pub fn outer_product_gemm(m: i32, n: i32) -> GemmConfig<f32> {
    // TODO: a matrix product with an inner dimension of 1.
    todo!("transa, transb, m, n, k, alpha, lda, ldb, beta and ldc")
}
