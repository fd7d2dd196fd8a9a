//! The judge's entries for chapter 2's exercises. The residency arithmetic is checked against
//! a simulation that fills the SMs block by block and runs the grid wave by wave; the slower
//! memory's arithmetic against the latency-hiding simulation, run cycle by cycle up to the
//! first value that arrives.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use course::random::Rng;

use crate::exercise::{Code, CpuPart, Exercise};

mod slow_memory;
mod slow_memory_solution;
mod waves;
mod waves_solution;

use waves::Residency;

type ResidencyFn = fn(usize, usize, Option<usize>, usize, usize) -> Residency;

/// The answer the slow way: add blocks to one SM while both limits allow, then take waves of
/// resident blocks off the grid until none is left.
fn simulate(
    sms: usize,
    per_sm_limit: usize,
    threads_limit: Option<usize>,
    blocks: usize,
    block: usize,
) -> Residency {
    let mut on_one_sm = 0;
    while on_one_sm < per_sm_limit && threads_limit.is_none_or(|t| (on_one_sm + 1) * block <= t) {
        on_one_sm += 1;
    }
    let resident = on_one_sm * sms;
    let (mut left, mut waves, mut empty) = (blocks, 0, 0);
    while left > 0 {
        let running = left.min(resident);
        empty = resident - running;
        left -= running;
        waves += 1;
    }
    Residency {
        threads: blocks * block,
        resident,
        waves,
        empty_in_last_wave: empty,
    }
}

fn check(residency: ResidencyFn, seed: u64) -> Result<(), String> {
    // Random GPUs, then the page's (the workshop's GPU, and the same with the H200's 2048
    // threads per SM) last, so that the first answer the judge shows is not the page's.
    let mut cases = Vec::new();
    let mut rng = Rng::new(seed);
    for _ in 0..200 {
        let block = 32 * (1 + rng.below(32) as usize);
        let limit = (rng.below(2) == 1).then(|| block * (1 + rng.below(8) as usize));
        let sms = 1 + rng.below(200) as usize;
        let per_sm = 1 + rng.below(32) as usize;
        cases.push((sms, per_sm, limit, 1 + rng.below(100_000) as usize, block));
    }
    cases.extend([(80, 16, None, 2000, 256), (80, 16, Some(2048), 2000, 256)]);
    for (sms, per_sm, limit, blocks, block) in cases {
        let got = residency(sms, per_sm, limit, blocks, block);
        let want = simulate(sms, per_sm, limit, blocks, block);
        if got != want {
            return Err(format!(
                "residency({sms}, {per_sm}, {limit:?}, {blocks}, {block}) is {got:?}, expected {want:?}"
            ));
        }
    }
    Ok(())
}

type IdleFn = fn(usize, usize, usize) -> usize;
type HideFn = fn(usize, usize) -> usize;

/// The idle core-cycles of `latency_hiding`'s machine before the first value arrives: every
/// thread resident, a ready queue, and each core issuing one instruction per cycle from it.
fn simulate_idle(cores: usize, load_latency: usize, threads: usize) -> usize {
    let mut ready: VecDeque<usize> = (0..threads).collect();
    let mut waiting = BinaryHeap::new(); // (cycle its value arrives, thread)
    let (mut cycle, mut idle) = (0, 0);
    loop {
        let arrived = waiting.peek().is_some_and(|&Reverse((at, _))| at <= cycle);
        if arrived || (ready.is_empty() && waiting.is_empty()) {
            return idle;
        }
        for _ in 0..cores {
            match ready.pop_front() {
                // Before the first value arrives, every instruction issued is a load.
                Some(t) => waiting.push(Reverse((cycle + load_latency, t))),
                None => idle += 1,
            }
        }
        cycle += 1;
    }
}

/// The fewest threads that leave no core idle before the first value, by bisection.
fn fewest_hiding(cores: usize, load_latency: usize) -> usize {
    let (mut lo, mut hi) = (1, 1);
    while simulate_idle(cores, load_latency, hi) > 0 {
        hi *= 2;
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        match simulate_idle(cores, load_latency, mid) > 0 {
            true => lo = mid + 1,
            false => hi = mid,
        }
    }
    lo
}

fn check_slow_memory(idle: IdleFn, hide: HideFn, seed: u64) -> Result<(), String> {
    // One core with the shortest latency, random machines, and the page's machines last, so
    // that the first answer the judge shows is not the page's.
    let mut cases = vec![(1, 1, 1)];
    let mut rng = Rng::new(seed);
    for _ in 0..40 {
        let (cores, latency) = (1 + rng.below(32) as usize, 1 + rng.below(500) as usize);
        cases.push((
            cores,
            latency,
            1 + rng.below(2 * (cores * latency) as u64) as usize,
        ));
    }
    cases.extend([(10, 400, 1000), (10, 100, 1000), (10, 400, 4000)]);
    for &(cores, latency, threads) in &cases {
        let (got, want) = (
            idle(cores, latency, threads),
            simulate_idle(cores, latency, threads),
        );
        if got != want {
            return Err(format!(
                "idle_before_first_value({cores}, {latency}, {threads}) is {got}, expected {want}"
            ));
        }
        // Idle time only falls as threads are added: the answer is the T with none idle
        // whose T - 1 leaves some.
        let got = hide(cores, latency);
        let hides = |t: usize| t >= 1 && simulate_idle(cores, latency, t) == 0;
        if !hides(got) || hides(got - 1) {
            return Err(format!(
                "threads_to_hide({cores}, {latency}) is {got}, expected {}",
                fewest_hiding(cores, latency)
            ));
        }
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let f: ResidencyFn = code.pick(waves::residency, waves_solution::residency);
    let source = code.pick(
        (
            "crates/examples/ch02/exercises/waves.rs",
            include_str!("waves.rs"),
        ),
        (
            "crates/examples/ch02/exercises/waves_solution.rs",
            include_str!("waves_solution.rs"),
        ),
    );
    let idle: IdleFn = code.pick(
        slow_memory::idle_before_first_value,
        slow_memory_solution::idle_before_first_value,
    );
    let hide: HideFn = code.pick(
        slow_memory::threads_to_hide,
        slow_memory_solution::threads_to_hide,
    );
    let slow_source = code.pick(
        (
            "crates/examples/ch02/exercises/slow_memory.rs",
            include_str!("slow_memory.rs"),
        ),
        (
            "crates/examples/ch02/exercises/slow_memory_solution.rs",
            include_str!("slow_memory_solution.rs"),
        ),
    );
    vec![
        Exercise {
            name: "waves",
            cpu: Some(CpuPart {
                sources: vec![source],
                check: Box::new(move |seed| check(f, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "slow_memory",
            cpu: Some(CpuPart {
                sources: vec![slow_source],
                check: Box::new(move |seed| check_slow_memory(idle, hide, seed)),
            }),
            gpu: None,
        },
    ]
}
