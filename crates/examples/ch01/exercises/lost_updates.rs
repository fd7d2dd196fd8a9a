//! Exercise: the Challenge of "Data races". Is the racy sum ever right, and does that change
//! with a thousand ones? `lost_updates` answers by running it; `tally` is the counting, as a
//! function: run a sum `runs` times on `n` ones and count what came out, as in
//! `tally(&racy_sum, 1000, 100)`. Check it with `cargo run --bin judge -- ch01`, which gives
//! it sums whose answers it knows.
#![allow(unused_variables)]
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

/// What `runs` runs of a sum of `n` ones gave.
#[derive(Debug, PartialEq)]
pub struct Tally {
    /// Runs whose sum was `n`, the right answer.
    pub right: usize,
    /// The most updates one run lost: `n` minus its sum (0 if every run was right).
    pub most_lost: u64,
}

/// The racy sum of `lost_updates.rs`, to measure (wrong on purpose).
pub fn racy_sum(xs: &[u64]) -> u64 {
    let sum = AtomicU64::new(0);
    xs.par_iter().for_each(|&x| {
        let seen = sum.load(Ordering::Relaxed);
        sum.store(seen + x, Ordering::Relaxed);
    });
    sum.into_inner()
}

/// Make `n` ones, add them up with `sum` `runs` times, and tally the results.
pub fn tally(sum: &dyn Fn(&[u64]) -> u64, n: usize, runs: usize) -> Tally {
    // TODO: call sum on n ones, runs times, and count the right runs and the worst loss.
    Tally {
        right: 0,
        most_lost: 0,
    }
}
