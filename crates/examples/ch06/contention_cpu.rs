//! Contention on the CPU: the same sum with one shared atomic per element, one atomic per
//! element but a counter per thread, one shared atomic per chunk, and no atomics at all
//! (rayon's fold and reduce). Every total must equal the serial sum exactly.
use std::sync::atomic::{AtomicU64, Ordering};

use course::compare::verdict;
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_times, time_cpu};
use rayon::prelude::*;

/// Values per rayon task in the chunked sum: one atomic per this many elements.
const CHUNK: usize = 1 << 16;

fn sum_serial(xs: &[u64]) -> u64 {
    xs.iter().sum()
}

// ANCHOR: shared
/// Every element is one `fetch_add` on the one total that all threads share.
fn sum_one_counter(xs: &[u64]) -> u64 {
    let total = AtomicU64::new(0);
    xs.par_iter().for_each(|&x| {
        total.fetch_add(x, Ordering::Relaxed);
    });
    total.into_inner()
}
// ANCHOR_END: shared

// ANCHOR: per_thread
/// A counter on its own 128 bytes, so that two counters never share a cache line.
#[repr(align(128))]
struct Padded(AtomicU64);

/// As many atomics as above, but each rayon thread adds into a counter of its own.
fn sum_counter_per_thread(xs: &[u64]) -> u64 {
    let counters: Vec<Padded> = (0..rayon::current_num_threads())
        .map(|_| Padded(AtomicU64::new(0)))
        .collect();
    xs.par_iter().for_each(|&x| {
        let mine = rayon::current_thread_index().unwrap_or(0);
        counters[mine].0.fetch_add(x, Ordering::Relaxed);
    });
    counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
}
// ANCHOR_END: per_thread

// ANCHOR: chunked
/// Each task adds up a chunk in a local variable, then makes one `fetch_add` on the shared
/// total: the CPU's version of one atomic per block.
fn sum_one_atomic_per_chunk(xs: &[u64]) -> u64 {
    let total = AtomicU64::new(0);
    xs.par_chunks(CHUNK).for_each(|chunk| {
        let local: u64 = chunk.iter().sum();
        total.fetch_add(local, Ordering::Relaxed);
    });
    total.into_inner()
}
// ANCHOR_END: chunked

// ANCHOR: fold
/// No atomics: each piece of work rayon hands out keeps its own total, and the totals are
/// added in pairs as the pieces finish.
fn sum_fold_reduce(xs: &[u64]) -> u64 {
    xs.par_iter()
        .fold(|| 0u64, |acc, &x| acc + x)
        .reduce(|| 0, |a, b| a + b)
}
// ANCHOR_END: fold

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums integers with shared atomics, per-thread atomics, one atomic per chunk and none.",
        |args| {
            (
                args.usize("N", "the number of values", 2_000_000, 1, 100_000_000),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let mut rng = Rng::new(seed);
    let xs: Vec<u64> = (0..n).map(|_| rng.below(1 << 16)).collect();
    let want = sum_serial(&xs);
    println!("{n} random integers below 2^16, seed {seed}, sum {want}");

    // ANCHOR: main
    let threads = rayon::current_num_threads();
    let ways: [(&str, fn(&[u64]) -> u64, usize); 5] = [
        ("serial loop", sum_serial, 0),
        ("one shared counter", sum_one_counter, n),
        ("one counter per thread", sum_counter_per_thread, n),
        (
            "one shared atomic per chunk",
            sum_one_atomic_per_chunk,
            n.div_ceil(CHUNK),
        ),
        ("fold + reduce, no atomics", sum_fold_reduce, 0),
    ];
    println!(
        "{:<30}{:>10}{:>10}{:>13}   same sum",
        "way", "atomics", "time", "speedup"
    );
    let mut serial_ms = 0.0;
    let mut all_same = true;
    for (name, sum, atomics) in ways {
        let ok = sum(&xs) == want;
        all_same &= ok;
        // ANCHOR_END: main
        let t = time_cpu(1, 5, || {
            // ANCHOR: main
            sum(&xs)
            // ANCHOR_END: main
        });
        // ANCHOR: main
        if serial_ms == 0.0 {
            serial_ms = t.median_ms;
        }
        // ANCHOR_END: main
        println!(
            "{name:<30}{atomics:>10}{:>10}{:>12}    {}",
            fmt_ms(t.median_ms),
            fmt_times(serial_ms / t.median_ms),
            verdict(ok)
        );
        // ANCHOR: main
    }
    // ANCHOR_END: main
    println!(
        "every way's total equals the serial sum: {}",
        verdict(all_same)
    );
    // ANCHOR: main
    println!("(one counter per thread: {threads} counters, one per rayon thread) (this machine)");
    // ANCHOR_END: main

    // The known answer: 0 + 1 + ... + (n - 1) = n(n - 1)/2, for every way.
    let ramp: Vec<u64> = (0..n as u64).collect();
    let gauss = n as u64 * (n as u64 - 1) / 2;
    println!(
        "on 0, 1, ..., {}, every way's total is n(n - 1)/2 = {gauss}: {}",
        n - 1,
        verdict(ways.iter().all(|(_, sum, _)| sum(&ramp) == gauss))
    );
}
