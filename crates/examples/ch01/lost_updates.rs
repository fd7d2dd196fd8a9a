//! A sum that races even though it compiles: every thread reads the shared total, adds its
//! number and writes the total back, as two separate atomic steps. Updates get lost.
use std::sync::atomic::{AtomicU64, Ordering};

use course::compare::verdict;
use course::gpu::OrExit;
use course::machine::describe_cpu;
use rayon::prelude::*;

/// The most runs the program makes while waiting for one that loses updates.
const MAX_RUNS: usize = 1000;
/// From this many ones up, two threads overlap often enough that a loss always turns up.
const PROMISED_FROM: usize = 10_000_000;

// ANCHOR: racy
/// Wrong on purpose: between this thread's load and its store, another thread may store.
fn racy_sum(xs: &[u64]) -> u64 {
    let sum = AtomicU64::new(0);
    xs.par_iter().for_each(|&x| {
        let seen = sum.load(Ordering::Relaxed); // 1. read the total
        let updated = seen + x; // 2. add to it
        sum.store(updated, Ordering::Relaxed); // 3. write it back
    });
    sum.into_inner()
}
// ANCHOR_END: racy

fn main() {
    let n = course::cli::parse(
        "Adds up ones with a racy read-add-write, and counts the updates it loses.",
        |args| args.usize("N", "the number of ones to add", 10_000_000, 1, 100_000_000),
    );
    println!("{}", describe_cpu());
    // A race needs two threads: with RAYON_NUM_THREADS=1 there would be nobody to race with.
    let threads = rayon::current_num_threads().max(2);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let pool = pool.or_exit("start the threads");
    println!("threads that race: {threads} (this machine)");
    // ANCHOR: runs
    let xs = vec![1u64; n];
    println!("adding up {n} ones: the right answer is {n}");
    let mut sums = Vec::new();
    for run in 1..=3 {
        let sum = pool.install(|| racy_sum(&xs));
        println!(
            "run {run}: sum {sum}, {} updates lost (varies)",
            n as u64 - sum
        );
        sums.push(sum);
    }
    // The threads lose updates only when they overlap: if none did yet, keep trying.
    while sums.iter().all(|&sum| sum == n as u64) && sums.len() < MAX_RUNS {
        sums.push(pool.install(|| racy_sum(&xs)));
    }
    // ANCHOR_END: runs
    println!("runs made: {} (varies)", sums.len());
    let lost = sums.iter().any(|&sum| sum != n as u64);
    if n >= PROMISED_FROM {
        println!(
            "updates were lost in at least one of {MAX_RUNS} runs at most: {}",
            verdict(lost)
        );
    } else {
        println!("with fewer than {PROMISED_FROM} ones, no loss is promised");
    }
    // Each store writes one more than a total some thread saw, so no run can overshoot.
    let never_over = sums.iter().all(|&sum| sum <= n as u64);
    println!(
        "no run's sum exceeded the right answer: {}",
        verdict(never_over)
    );
}
