//! Exercise: matrix multiplication by broadcasting ("Broadcasting"), on the CPU with ndarray
//! here and on the GPU in `kernels/ch03-exercise-broadcast.cu`.
//! Check your answers with `cargo run --bin judge -- ch03`.
#![allow(unused_imports)]
use ndarray::{Array2, Axis, NewAxis, s};

/// C = A·B, built as the m × n × p array of products a[i][k] · b[k][j], summed over k.
pub fn matmul_broadcast(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    // TODO: give `a` a last axis and `b` a first axis of length 1 (`s![.., .., NewAxis]`),
    // multiply them, and sum the middle axis.
    Array2::zeros((a.nrows(), b.ncols()))
}
