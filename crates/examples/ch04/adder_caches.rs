//! The serial and the rayon adder on this CPU, from arrays that fit in the first-level
//! cache to arrays that only fit in main memory. The time per element jumps each time the
//! three arrays outgrow a cache, and two cores help less once memory is the limit.
use course::compare::{count_mismatches, verdict};
use course::machine::{data_cache_kib, describe_cpu};
use course::random::Rng;
use course::timing::{fmt_gb_per_s, fmt_ms, fmt_times, time_cpu};
use rayon::prelude::*;

// ANCHOR: adders
fn add_serial(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    for (i, z) in zs.iter_mut().enumerate() {
        *z = xs[i] + ys[i];
    }
}

fn add_rayon(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    zs.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
}
// ANCHOR_END: adders

/// 1000, 3000, 10000, 30000, ... up to `largest`.
fn sizes_up_to(largest: usize) -> Vec<usize> {
    let mut sizes = vec![1000];
    loop {
        let last = *sizes.last().unwrap();
        let next = if last.to_string().starts_with('1') {
            last * 3
        } else {
            last / 3 * 10
        };
        if next > largest {
            return sizes;
        }
        sizes.push(next);
    }
}

fn main() {
    let (largest, seed) = course::cli::parse(
        "Times the serial and the rayon adder from arrays that fit in L1 to main memory.",
        |args| {
            let largest = args.usize(
                "N",
                "the largest array length",
                10_000_000,
                1000,
                200_000_000,
            );
            (largest, args.seed())
        },
    );
    println!("{}", describe_cpu());
    // ANCHOR: caches
    println!(
        "data caches of this CPU: L1 {} KiB and L2 {} KiB per core, L3 {} KiB shared (this machine)",
        data_cache_kib(1),
        data_cache_kib(2),
        data_cache_kib(3)
    );
    // ANCHOR_END: caches
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(largest, -1.0, 1.0);
    let ys = rng.vec_f64(largest, -1.0, 1.0);
    println!("inputs drawn with seed {seed}");

    // ANCHOR: sweep
    println!(
        "{:>10} {:>12} {:>10} {:>10} {:>12} {:>12} {:>8}",
        "n", "3 arrays KiB", "serial", "rayon", "serial", "rayon", "speedup"
    );
    let mut all_right = true;
    let sizes = sizes_up_to(largest);
    for &n in &sizes {
        let (x, y) = (&xs[..n], &ys[..n]);
        let (mut z_serial, mut z_rayon) = (vec![0.0; n], vec![0.0; n]);
        let serial = time_cpu(2, 10, || add_serial(x, y, &mut z_serial));
        let rayon = time_cpu(2, 10, || add_rayon(x, y, &mut z_rayon));
        all_right &= count_mismatches(&z_rayon, &z_serial) == 0;
        // Bytes moved: two arrays read and one written, 8 bytes per element each.
        let bytes = 24.0 * n as f64;
        println!(
            "{n:>10} {:>12} {:>10} {:>10} {:>12} {:>12} {:>8}",
            24 * n / 1024,
            fmt_ms(serial.median_ms),
            fmt_ms(rayon.median_ms),
            fmt_gb_per_s(bytes, serial.median_ms),
            fmt_gb_per_s(bytes, rayon.median_ms),
            fmt_times(serial.median_ms / rayon.median_ms)
        );
    }
    // ANCHOR_END: sweep
    println!(
        "rayon's sums equal the serial ones at every size: {}",
        verdict(all_right)
    );
}
