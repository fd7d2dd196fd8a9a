//! A solution to the exercise in `broadcast.rs`, as in `crates/examples/ch03/broadcast_matmul.rs`.
use ndarray::{Array2, Axis, NewAxis, s};

pub fn matmul_broadcast(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    let products = &a.slice(s![.., .., NewAxis]) * &b.slice(s![NewAxis, .., ..]);
    products.sum_axis(Axis(1))
}
