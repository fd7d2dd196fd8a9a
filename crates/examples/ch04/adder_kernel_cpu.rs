//! The adder loop with its body pulled out as a function of the index: the "kernel". The
//! same function runs under a serial loop and under rayon, which decides how to share out
//! the indices.
use course::compare::{count_mismatches, verdict};
use course::random::Rng;
use rayon::prelude::*;

// ANCHOR: loop
/// The plain loop: one index after another, the same work at each.
fn adder_loop(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    for i in 0..zs.len() {
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: loop

// ANCHOR: kernel
/// Everything the loop does for one index `i`. It is told where it is (`i`) and is handed
/// the place to put its result (`z`); it returns nothing.
fn adder_kernel(i: usize, xs: &[f64], ys: &[f64], z: &mut f64) {
    *z = xs[i] + ys[i];
}

/// The loop that calls the kernel once per index, one index after another.
fn adder_serial(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    for (i, z) in zs.iter_mut().enumerate() {
        adder_kernel(i, xs, ys, z);
    }
}

/// The same kernel under rayon: which thread runs which index, and in what order, is
/// rayon's business.
fn adder_parallel(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    zs.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| adder_kernel(i, xs, ys, z));
}
// ANCHOR_END: kernel

fn main() {
    let (n, seed) = course::cli::parse(
        "Adds two random arrays with a kernel function, called serially and by rayon.",
        |args| {
            (
                args.usize("N", "the array length", 1000, 1, 100_000_000),
                args.seed(),
            )
        },
    );
    // ANCHOR: main
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    println!("{n} random f64 values in each input, seed {seed}");

    // Outputs are made by the caller and handed in: the kernel only fills them.
    let mut zs_loop = vec![0.0; n];
    let mut zs_serial = vec![0.0; n];
    let mut zs_parallel = vec![0.0; n];
    adder_loop(&xs, &ys, &mut zs_loop);
    adder_serial(&xs, &ys, &mut zs_serial);
    adder_parallel(&xs, &ys, &mut zs_parallel);
    let same = count_mismatches(&zs_serial, &zs_loop) == 0
        && count_mismatches(&zs_parallel, &zs_loop) == 0;
    // ANCHOR_END: main
    println!(
        "the kernel, called serially and by rayon, gives the plain loop's result: {}",
        verdict(same)
    );

    // A known answer: with x[i] = i and y[i] = n - i every sum is exactly n (whole numbers
    // this small are exact in f64), whoever runs which index.
    let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let ys: Vec<f64> = (0..n).map(|i| (n - i) as f64).collect();
    let mut zs = vec![0.0; n];
    adder_parallel(&xs, &ys, &mut zs);
    let off = zs.iter().filter(|&&z| z != n as f64).count();
    println!(
        "with x[i] = i and y[i] = {n} - i, sums other than {n}: {off} of {n}: {}",
        verdict(off == 0)
    );
}
