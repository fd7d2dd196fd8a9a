//! Three correct parallel sums beside the serial loop: rayon's `sum`, an explicit fold into
//! partial sums, and an atomic `fetch_add` per element. All are timed and must agree exactly.
use std::sync::atomic::{AtomicU64, Ordering};

use course::compare::verdict;
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_times, time_cpu};
use rayon::prelude::*;

fn sum_serial(xs: &[u64]) -> u64 {
    let mut sum = 0;
    for &x in xs {
        sum += x;
    }
    sum
}

// ANCHOR: fold
/// Each piece of work rayon hands out keeps its own running total; then the totals are added.
fn sum_fold(xs: &[u64]) -> u64 {
    xs.par_iter()
        .fold(|| 0u64, |partial, &x| partial + x)
        .reduce(|| 0u64, |a, b| a + b)
}
// ANCHOR_END: fold

// ANCHOR: sum
/// The same plan, written for us by rayon.
fn sum_rayon(xs: &[u64]) -> u64 {
    xs.par_iter().sum()
}
// ANCHOR_END: sum

// ANCHOR: atomic
/// One shared total, updated by a single indivisible read-add-write per element.
fn sum_atomic(xs: &[u64]) -> u64 {
    let sum = AtomicU64::new(0);
    xs.par_iter().for_each(|&x| {
        sum.fetch_add(x, Ordering::Relaxed);
    });
    sum.into_inner()
}
// ANCHOR_END: atomic

/// The atomic update again, from one thread only: what the instruction costs without rivals.
fn sum_atomic_one_thread(xs: &[u64]) -> u64 {
    let sum = AtomicU64::new(0);
    for &x in xs {
        sum.fetch_add(x, Ordering::Relaxed);
    }
    sum.into_inner()
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Times a serial sum and three correct parallel ones, and checks that they agree.",
        |args| {
            (
                args.usize("N", "the number of values", 2_000_000, 1, 100_000_000),
                args.seed(),
            )
        },
    );
    // ANCHOR: main
    println!("{}", describe_cpu());
    let mut rng = Rng::new(seed);
    let xs: Vec<u64> = (0..n).map(|_| rng.below(1000)).collect();
    let want = sum_serial(&xs);
    println!("{n} random integers below 1000, seed {seed}, sum {want}");

    let methods: [(&str, fn(&[u64]) -> u64); 5] = [
        ("serial loop", sum_serial),
        ("rayon sum()", sum_rayon),
        ("rayon fold + reduce", sum_fold),
        ("atomic fetch_add, 1 thread", sum_atomic_one_thread),
        ("atomic fetch_add, rayon", sum_atomic),
    ];
    println!("{:<28}{:>10}{:>14}   same sum", "method", "time", "speedup");
    let mut serial_ms = 0.0;
    let mut all_same = true;
    for (name, sum) in methods {
        // ANCHOR_END: main
        let t = time_cpu(1, 5, || {
            // ANCHOR: main
            sum(&xs)
            // ANCHOR_END: main
        });
        // ANCHOR: main
        if name == "serial loop" {
            serial_ms = t.median_ms;
        }
        let ok = sum(&xs) == want;
        // ANCHOR_END: main
        println!(
            "{name:<28}{:>10}{:>13}    {}",
            fmt_ms(t.median_ms),
            fmt_times(serial_ms / t.median_ms),
            verdict(ok)
        );
        // ANCHOR: main
        all_same &= ok;
    }
    // ANCHOR_END: main
    println!(
        "every method gives the serial loop's sum: {}",
        verdict(all_same)
    );
    // A sum known without adding: 1 + 2 + ... + n = n(n + 1)/2.
    let ones_to_n: Vec<u64> = (1..=n as u64).collect();
    let gauss = n as u64 * (n as u64 + 1) / 2;
    let right = methods.iter().all(|(_, sum)| sum(&ones_to_n) == gauss);
    println!(
        "1 + 2 + ... + {n} = n(n + 1)/2 = {gauss} by every method: {}",
        verdict(right)
    );
}
