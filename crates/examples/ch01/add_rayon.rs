//! Element-wise addition of two arrays, first with a serial loop, then with rayon: both timed
//! in the same run and their results compared exactly.
use course::compare::{count_mismatches, verdict};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_cpu};
use rayon::prelude::*;

// ANCHOR: serial
/// `zs[i] = xs[i] + ys[i]`, one element after another.
fn add_serial(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    for i in 0..zs.len() {
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: serial

// ANCHOR: rayon
/// The same loop, with the elements of `zs` shared out among rayon's threads.
fn add_rayon(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    zs.par_iter_mut().enumerate().for_each(|(i, z)| {
        *z = xs[i] + ys[i];
    });
}
// ANCHOR_END: rayon

fn main() {
    let (n, seed) = course::cli::parse(
        "Adds two arrays of random numbers, serially and with rayon, and compares the two.",
        |args| {
            (
                args.usize("N", "the array length", 1_000_000, 1, 200_000_000),
                args.seed(),
            )
        },
    );
    // ANCHOR: main
    println!("{}", describe_cpu());
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    println!("adding two arrays of {n} f64 values, seed {seed}");

    // The outputs are allocated once, outside the functions, and passed in.
    let mut zs_serial = vec![0.0; n];
    let mut zs_rayon = vec![0.0; n];
    // ANCHOR_END: main
    let serial = time_cpu(2, 10, || {
        // ANCHOR: main
        add_serial(&xs, &ys, &mut zs_serial)
        // ANCHOR_END: main
    });
    let rayon = time_cpu(2, 10, || {
        // ANCHOR: main
        add_rayon(&xs, &ys, &mut zs_rayon)
        // ANCHOR_END: main
    });
    println!("serial loop:    {}", fmt_ms(serial.median_ms));
    println!("rayon par_iter: {}", fmt_ms(rayon.median_ms));
    println!(
        "speedup:        {}",
        fmt_speedup(serial.median_ms, rayon.median_ms)
    );
    // ANCHOR: main
    let wrong = count_mismatches(&zs_rayon, &zs_serial);
    // ANCHOR_END: main
    println!(
        "elements where rayon and the serial loop differ: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );
    known_answer(n);
}

/// Both versions on inputs whose sum is known: `i + (n - i)` is `n`, exactly, for every `i`.
fn known_answer(n: usize) {
    let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let ys: Vec<f64> = (0..n).map(|i| (n - i) as f64).collect();
    let (mut serial, mut rayon) = (vec![0.0; n], vec![0.0; n]);
    add_serial(&xs, &ys, &mut serial);
    add_rayon(&xs, &ys, &mut rayon);
    let all_n = serial.iter().chain(&rayon).all(|&z| z == n as f64);
    println!(
        "adding i and {n} - i gives {n} in every element, in both versions: {}",
        verdict(all_n)
    );
}
