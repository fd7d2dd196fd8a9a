//! Matrix multiplication by broadcasting with ndarray: build the m x n x p array of products,
//! then sum its middle axis. Correct, and a lesson in how much memory an expression can take.
use ndarray::{Array2, Axis, NewAxis, s};

use course::compare::within_bound;
use course::random::Rng;

// ANCHOR: matmul
/// C = A·B as `(A[:, :, None] * B[None, :, :]).sum(axis=1)`.
fn matmul_broadcast(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    let products = &a.slice(s![.., .., NewAxis]) * &b.slice(s![NewAxis, .., ..]); // m x n x p
    products.sum_axis(Axis(1))
}
// ANCHOR_END: matmul

fn main() {
    let seed = course::cli::parse(
        "Multiplies two random matrices by broadcasting with ndarray, and counts what it costs.",
        |args| args.seed(),
    );
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let (m, n, p) = (100, 1000, 100);
    let a = Array2::from_shape_vec((m, n), rng.vec_f64(m * n, -1.0, 1.0)).expect("m*n values");
    let b = Array2::from_shape_vec((n, p), rng.vec_f64(n * p, -1.0, 1.0)).expect("n*p values");

    // ANCHOR: check
    let c = matmul_broadcast(&a, &b);
    let want = a.dot(&b);
    let err = (&c - &want).mapv(|d| d * d).sum().sqrt() / want.mapv(|w| w * w).sum().sqrt();
    println!("{m}x{n} times {n}x{p}: shape {:?}", c.shape());
    // ANCHOR_END: check
    let (line, _) = within_bound("  relative error against ndarray's dot", err, 1e-12);
    println!("{line}");

    // ANCHOR: danger
    println!("memory the intermediate array needs (f64):");
    println!(
        "{:>6} {:>6} {:>6} {:>14} {:>14}",
        "m", "n", "p", "A, B and C", "m x n x p"
    );
    for (m, n, p) in [
        (100, 1000, 100),
        (1000, 1000, 1000),
        (4096, 4096, 4096),
        (10_000, 10_000, 10_000),
    ] {
        let inputs_and_output = 8 * (m * n + n * p + m * p);
        let intermediate = 8 * m * n * p;
        println!(
            "{m:>6} {n:>6} {p:>6} {:>14} {:>14}",
            bytes(inputs_and_output),
            bytes(intermediate)
        );
    }
    // ANCHOR_END: danger
}

/// `80.0 MB`, `8.00 GB`, `8.00 TB`: decimal units, three significant digits.
fn bytes(b: usize) -> String {
    let b = b as f64;
    let (v, unit) = if b >= 1e12 {
        (b / 1e12, "TB")
    } else if b >= 1e9 {
        (b / 1e9, "GB")
    } else {
        (b / 1e6, "MB")
    };
    if v >= 100.0 {
        format!("{v:.0} {unit}")
    } else if v >= 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.2} {unit}")
    }
}
