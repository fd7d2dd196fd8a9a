//! A solution to the exercise in `outer_product.rs`, as in
//! `crates/examples/ch03/outer_product.rs`.
use cudarc::cublas::{GemmConfig, sys::cublasOperation_t};

pub fn outer_product_gemm(m: i32, n: i32) -> GemmConfig<f32> {
    // Column-major, the row-major m x n result is the n x m product of the column y and the
    // row x.
    GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n,
        n: m,
        k: 1,
        alpha: 1.0f32,
        lda: n,
        ldb: 1,
        beta: 0.0f32,
        ldc: n,
    }
}
