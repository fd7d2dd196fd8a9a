// A word-for-word port of a `prange` loop: every thread would write zs[i] for its own i,
// but the closure would need `zs` mutably, and every thread has the same closure.
use rayon::prelude::*;

fn main() {
    let n = 1_000_000;
    let xs = vec![1.0; n];
    let ys = vec![2.0; n];
    let mut zs = vec![0.0; n];
    (0..n).into_par_iter().for_each(|i| {
        zs[i] = xs[i] + ys[i];
    });
    println!("{}", zs[0]);
}
