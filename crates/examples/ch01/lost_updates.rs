//! A sum that races even though it compiles: every thread reads the shared total, adds its
//! number and writes the total back, as two separate atomic steps. Updates get lost.
use std::sync::atomic::{AtomicU64, Ordering};

use course::cli::arg_usize;
use course::machine::describe_cpu;
use rayon::prelude::*;

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
    let n = arg_usize(1, "the number of ones to add", 1_000_000, 1, 100_000_000);
    println!("{}", describe_cpu());
    // ANCHOR: runs
    let xs = vec![1u64; n];
    println!("adding up {n} ones: the right answer is {n}");
    for run in 1..=3 {
        let sum = racy_sum(&xs);
        println!(
            "run {run}: sum {sum}, {} updates lost (varies)",
            n as u64 - sum
        );
    }
    // ANCHOR_END: runs
}
