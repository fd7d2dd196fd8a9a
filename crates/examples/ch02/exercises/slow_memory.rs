//! Exercise: "Challenge: slower memory", in numbers. In the simulation of `latency_hiding`,
//! `cores` cores each issue one instruction per cycle, and `threads` threads, all resident,
//! each start with a load whose value arrives `load_latency` cycles after it was issued.
//! Predict, then measure with `cargo run --release --bin latency_hiding -- CORES LATENCY
//! THREADS`; `cargo run --bin judge -- ch02` checks these functions against a simulation.
#![allow(unused_variables)]

/// Core-cycles with nothing to issue, from cycle 0 until the first load's value arrives
/// (with 10 cores, a latency of 400 and 1000 threads, the solution's 3000).
pub fn idle_before_first_value(cores: usize, load_latency: usize, threads: usize) -> usize {
    // TODO: how many cycles do the loads take to issue, and what is left before cycle
    // load_latency?
    0
}

/// The fewest threads that leave no core idle before the first value arrives.
pub fn threads_to_hide(cores: usize, load_latency: usize) -> usize {
    // TODO: Little's law.
    0
}
