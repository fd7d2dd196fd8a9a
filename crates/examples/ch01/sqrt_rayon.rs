//! Solution to the square-root challenge: fill `ys` with the square roots of `xs` in parallel,
//! and check every element against the serial `f64::sqrt`.
use course::compare::{count_mismatches, verdict};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_times, time_cpu};
use rayon::prelude::*;

// ANCHOR: solution
fn sqrt_rayon(xs: &[f64], ys: &mut [f64]) {
    ys.par_iter_mut().zip(xs).for_each(|(y, &x)| *y = x.sqrt());
}
// ANCHOR_END: solution

fn main() {
    let (n, seed) = course::cli::parse(
        "Takes square roots with rayon and checks them against the serial f64::sqrt.",
        |args| {
            (
                args.usize("N", "the array length", 1_000_000, 1, 200_000_000),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let xs = Rng::new(seed).vec_f64(n, 0.0, 10.0);
    println!("{n} values uniform in [0, 10), seed {seed}");
    // ANCHOR: check
    let mut ys = vec![0.0; n];
    // ANCHOR_END: check
    let parallel = time_cpu(1, 10, || {
        // ANCHOR: check
        sqrt_rayon(&xs, &mut ys)
        // ANCHOR_END: check
    });
    // ANCHOR: check
    let mut want = vec![0.0; n];
    // ANCHOR_END: check
    let serial = time_cpu(1, 10, || {
        // ANCHOR: check
        for (w, x) in want.iter_mut().zip(&xs) {
            *w = x.sqrt();
        }
        // ANCHOR_END: check
    });
    // ANCHOR: check
    // IEEE 754 rounds a square root correctly, so both must agree to the last bit.
    let wrong = count_mismatches(&ys, &want);
    // ANCHOR_END: check
    println!(
        "elements that differ from the serial f64::sqrt: {wrong} of {n}: {}",
        verdict(wrong == 0)
    );
    // Roots known in advance: the perfect squares 0, 1, 4, ..., 999².
    let squares: Vec<f64> = (0..1000).map(|k| (k * k) as f64).collect();
    let mut roots = vec![0.0; squares.len()];
    sqrt_rayon(&squares, &mut roots);
    let exact = roots.iter().enumerate().all(|(k, &r)| r == k as f64);
    println!(
        "the roots of 0, 1, 4, ..., 999 squared are 0, 1, 2, ..., 999 exactly: {}",
        verdict(exact)
    );
    println!(
        "serial {}, rayon {}, speedup {}",
        fmt_ms(serial.median_ms),
        fmt_ms(parallel.median_ms),
        fmt_times(serial.median_ms / parallel.median_ms)
    );
}
