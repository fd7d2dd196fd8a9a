//! Solution to the square-root challenge: fill `ys` with the square roots of `xs` in parallel,
//! and check every element against the serial `f64::sqrt`.
use course::cli::arg_usize;
use course::compare::{count_mismatches, verdict};
use course::machine::describe_cpu;
use course::random::{Rng, fresh_seed};
use course::timing::{fmt_ms, fmt_times, time_cpu};
use rayon::prelude::*;

// ANCHOR: solution
fn sqrt_rayon(xs: &[f64], ys: &mut [f64]) {
    ys.par_iter_mut().zip(xs).for_each(|(y, &x)| *y = x.sqrt());
}
// ANCHOR_END: solution

fn main() {
    let n = arg_usize(1, "the array length", 1_000_000, 1, 200_000_000);
    println!("{}", describe_cpu());
    let seed = fresh_seed();
    let xs = Rng::new(seed).vec_f64(n, 0.0, 10.0);
    println!("{n} values uniform in [0, 10), seed {seed} (varies)");
    // ANCHOR: check
    let mut ys = vec![0.0; n];
    let parallel = time_cpu(1, 10, || sqrt_rayon(&xs, &mut ys));
    let mut want = vec![0.0; n];
    let serial = time_cpu(1, 10, || {
        for (w, x) in want.iter_mut().zip(&xs) {
            *w = x.sqrt();
        }
    });
    // IEEE 754 rounds a square root correctly, so both must agree to the last bit.
    let wrong = count_mismatches(&ys, &want);
    println!("elements that differ from the serial f64::sqrt: {wrong}");
    println!("matches exactly: {}", verdict(wrong == 0));
    // ANCHOR_END: check
    println!(
        "serial {}, rayon {}, speedup {}",
        fmt_ms(serial.median_ms),
        fmt_ms(parallel.median_ms),
        fmt_times(serial.median_ms / parallel.median_ms)
    );
}
