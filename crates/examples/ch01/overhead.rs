//! When is rayon worth it? The element-wise addition again, serial and with rayon, over array
//! lengths from a hundred to ten million, and what it costs to start parallel work at all.
use course::machine::describe_cpu;
use course::timing::{fmt_ms, time_cpu};
use rayon::prelude::*;

fn add_serial(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    for i in 0..zs.len() {
        zs[i] = xs[i] + ys[i];
    }
}

fn add_rayon(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    zs.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
}

fn main() {
    let max_n = course::cli::parse(
        "Times serial and rayon additions over growing array lengths, and the cost of a thread.",
        |args| {
            args.usize(
                "MAX_N",
                "the largest array length",
                10_000_000,
                100,
                200_000_000,
            )
        },
    );
    println!("{}", describe_cpu());

    // ANCHOR: start
    let spawn = time_cpu(10, 100, || std::thread::spawn(|| ()).join());
    let join = time_cpu(10, 100, || rayon::join(|| (), || ()));
    println!(
        "start and join one new OS thread:       {}",
        fmt_ms(spawn.median_ms)
    );
    println!(
        "hand rayon's waiting threads two no-ops: {}",
        fmt_ms(join.median_ms)
    );
    // ANCHOR_END: start

    // ANCHOR: sweep
    // 100, 300, 1000, 3000, ... up to max_n.
    let sizes: Vec<usize> = (0..)
        .map(|k| {
            if k % 2 == 0 {
                100 * 10usize.pow(k / 2)
            } else {
                300 * 10usize.pow(k / 2)
            }
        })
        .take_while(|&n| n <= max_n)
        .collect();
    println!(
        "{:>10}{:>12}{:>12}{:>10}",
        "n", "serial", "rayon", "speedup"
    );
    let mut faster = Vec::new();
    let mut all_right = true;
    for &n in &sizes {
        let xs = vec![1.0; n];
        let ys = vec![2.0; n];
        let mut zs = vec![0.0; n];
        // More repetitions for the quick sizes, so that their medians are steady.
        let reps = (1_000_000 / n).clamp(3, 1000);
        let serial = time_cpu(1, reps, || add_serial(&xs, &ys, &mut zs));
        let rayon = time_cpu(1, reps, || add_rayon(&xs, &ys, &mut zs));
        all_right &= zs.iter().all(|&z| z == 3.0);
        let ratio = serial.median_ms / rayon.median_ms;
        println!(
            "{n:>10}{:>12}{:>12}{:>10}",
            fmt_ms(serial.median_ms),
            fmt_ms(rayon.median_ms),
            speedup(ratio)
        );
        faster.push(ratio > 1.0);
    }
    // Always a number (n = 100 is never worth a thread), so the line reads the same on any machine.
    let serial_won = sizes
        .iter()
        .zip(&faster)
        .filter(|(_, rayon_won)| !**rayon_won);
    let longest = serial_won.map(|(&n, _)| n).max().unwrap_or(0);
    println!("longest array at which the serial loop was faster: n = {longest} (varies)");
    // ANCHOR_END: sweep
    println!(
        "every element of every sum was 1 + 2 = 3: {}",
        course::compare::verdict(all_right)
    );
}

/// A speedup such as `1.59x`, with two significant digits for small ones (`0.0016x`, not `0.00x`).
fn speedup(ratio: f64) -> String {
    let decimals = (1 - ratio.log10().floor() as i32).max(2) as usize;
    format!("{ratio:.decimals$}x")
}
