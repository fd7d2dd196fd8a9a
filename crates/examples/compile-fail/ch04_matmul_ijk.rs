// Candidate 1 for C = A·B under rayon: one task per (i, j, k), each adding its product
// into C[i][j]. The n tasks that share (i, j) would all write the same element.
use rayon::prelude::*;

fn main() {
    let (m, n, p) = (32, 16, 24);
    let a = vec![1.0f64; m * n];
    let b = vec![2.0f64; n * p];
    let mut c = vec![0.0f64; m * p];
    (0..m * p * n).into_par_iter().for_each(|ijk| {
        let (i, j, k) = (ijk / (p * n), ijk / n % p, ijk % n);
        c[i * p + j] += a[i * n + k] * b[k * p + j];
    });
    println!("C[0][0] = {}", c[0]);
}
