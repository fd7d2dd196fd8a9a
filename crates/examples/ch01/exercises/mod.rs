//! The judge's entries for chapter 1's exercises: each learner function is compared exactly
//! with the serial loop, written out here, on random arrays and on the shortest one (3 values).
//! The square roots must equal the serial `f64::sqrt` to the bit. The racy sum's tally is
//! checked exactly on scripted sums, and on the real racy sum run by one thread, which loses
//! nothing.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use std::cell::Cell;

use course::random::Rng;

use crate::exercise::{Code, CpuPart, Exercise, same};

mod lost_updates;
mod lost_updates_solution;
mod sqrt_rayon;
mod sqrt_rayon_solution;
mod which_loops;
mod which_loops_solution;

use lost_updates::Tally;

struct Loops {
    a: fn(&[f64]) -> Vec<f64>,
    b: fn(&[f64]) -> Vec<f64>,
    c: fn(&[f64], f64) -> Vec<usize>,
    d: fn(&[f64]) -> f64,
    e: fn(&[f64]) -> Vec<f64>,
}

fn check_loops(f: &Loops, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let long = rng.vec_f64(100_003, -1.0, 1.0);
    let short = rng.vec_f64(3, -1.0, 1.0);
    for xs in [&long, &short] {
        let n = xs.len();
        let mut ys = vec![0.0; n];
        for i in 0..n - 1 {
            ys[i] = xs[i] * xs[i] + xs[i + 1] * xs[i + 1];
        }
        same(&format!("loop A's ys (n = {n})"), &(f.a)(xs), &ys)?;
        let mut ys = vec![0.0; n];
        for i in 1..n - 1 {
            ys[i] = 0.5 * (xs[i - 1] + xs[i + 1]);
        }
        same(&format!("loop B's ys (n = {n})"), &(f.b)(xs), &ys)?;
        let indices: Vec<usize> = (0..n).filter(|&i| xs[i] > 0.5).collect();
        same(
            &format!("loop C's indices (n = {n})"),
            &(f.c)(xs, 0.5),
            &indices,
        )?;
        let x_min = xs.iter().copied().fold(xs[0], f64::min);
        same(
            &format!("loop D's minimum (n = {n})"),
            &[(f.d)(xs)],
            &[x_min],
        )?;
        let ys: Vec<f64> = xs
            .iter()
            .map(|&x| if x > 0.0 { x.sqrt() } else { 0.0 })
            .collect();
        same(&format!("loop E's ys (n = {n})"), &(f.e)(xs), &ys)?;
    }
    Ok(())
}

type SqrtFn = fn(&[f64], &mut [f64]);
type TallyFn = fn(&dyn Fn(&[u64]) -> u64, usize, usize) -> Tally;

fn check_sqrt(sqrt: SqrtFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let odd = 1 + rng.below(10_000) as usize;
    let squares: Vec<f64> = (0..1000).map(|k| (k * k) as f64).collect();
    let mut cases = vec![squares, rng.vec_f64(1, 0.0, 10.0)];
    cases.push(rng.vec_f64(1_000_000, 0.0, 10.0));
    cases.push(rng.vec_f64(odd, 0.0, 10.0));
    for xs in &cases {
        let n = xs.len();
        // NaN where nothing was written: it equals nothing, so a skipped element fails.
        let mut ys = vec![f64::NAN; n];
        sqrt(xs, &mut ys);
        let want: Vec<f64> = xs.iter().map(|x| x.sqrt()).collect();
        // IEEE 754 rounds a square root correctly: exact equality, no tolerance.
        same(&format!("ys (n = {n})"), &ys, &want)?;
    }
    Ok(())
}

/// A stand-in for the racy sum: it returns the scripted totals, one call after another.
struct Script {
    n: usize,
    totals: Vec<u64>,
    calls: Cell<usize>,
    /// What it was called on, if not on `n` ones.
    wrong_input: Cell<Option<usize>>,
}

impl Script {
    fn sum(&self, xs: &[u64]) -> u64 {
        if xs.len() != self.n || xs.iter().any(|&x| x != 1) {
            self.wrong_input.set(Some(xs.len()));
        }
        let k = self.calls.get();
        self.calls.set(k + 1);
        self.totals.get(k).copied().unwrap_or(self.n as u64)
    }
}

fn check_tally(tally: TallyFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fresh = (1 + rng.below(100_000) as usize, 1 + rng.below(50) as usize);
    for (n, runs) in [(1000, 100), (1, 1), (1, 7), fresh] {
        // Half the runs right, the others losing between 1 and n updates.
        let totals: Vec<u64> = (0..runs)
            .map(|_| match rng.below(2) {
                0 => n as u64,
                _ => n as u64 - 1 - rng.below(n as u64),
            })
            .collect();
        let want = Tally {
            right: totals.iter().filter(|&&t| t == n as u64).count(),
            most_lost: totals.iter().map(|&t| n as u64 - t).max().unwrap_or(0),
        };
        let script = Script {
            n,
            totals,
            calls: Cell::new(0),
            wrong_input: Cell::new(None),
        };
        let got = tally(&|xs| script.sum(xs), n, runs);
        if let Some(len) = script.wrong_input.get() {
            return Err(format!(
                "tally(sum, {n}, {runs}) called sum on {len} values that were not {n} ones"
            ));
        }
        if script.calls.get() != runs {
            return Err(format!(
                "tally(sum, {n}, {runs}) called sum {} times, expected {runs}",
                script.calls.get()
            ));
        }
        if got != want {
            return Err(format!(
                "tally(sum, {n}, {runs}) on scripted totals is {got:?}, expected {want:?}"
            ));
        }
    }
    // The real racy sum: one thread has nobody to race with; two keep to the invariants.
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
        let pool = pool.map_err(|e| format!("could not start {threads} threads: {e}"))?;
        let (n, runs) = (100_000, 5);
        let got = pool.install(|| tally(&lost_updates::racy_sum, n, runs));
        let consistent = got.right <= runs
            && got.most_lost <= n as u64
            && (got.right == runs) == (got.most_lost == 0);
        if (threads == 1
            && got
                != (Tally {
                    right: runs,
                    most_lost: 0,
                }))
            || !consistent
        {
            return Err(format!(
                "tally(racy_sum, {n}, {runs}) on {threads} thread(s) is {got:?}, which cannot be"
            ));
        }
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let loops = code.pick(
        Loops {
            a: which_loops::loop_a,
            b: which_loops::loop_b,
            c: which_loops::loop_c,
            d: which_loops::loop_d,
            e: which_loops::loop_e,
        },
        Loops {
            a: which_loops_solution::loop_a,
            b: which_loops_solution::loop_b,
            c: which_loops_solution::loop_c,
            d: which_loops_solution::loop_d,
            e: which_loops_solution::loop_e,
        },
    );
    let source = code.pick(
        (
            "crates/examples/ch01/exercises/which_loops.rs",
            include_str!("which_loops.rs"),
        ),
        (
            "crates/examples/ch01/exercises/which_loops_solution.rs",
            include_str!("which_loops_solution.rs"),
        ),
    );
    let sqrt: SqrtFn = code.pick(sqrt_rayon::sqrt_rayon, sqrt_rayon_solution::sqrt_rayon);
    let sqrt_source = code.pick(
        (
            "crates/examples/ch01/exercises/sqrt_rayon.rs",
            include_str!("sqrt_rayon.rs"),
        ),
        (
            "crates/examples/ch01/exercises/sqrt_rayon_solution.rs",
            include_str!("sqrt_rayon_solution.rs"),
        ),
    );
    let tally: TallyFn = code.pick(lost_updates::tally, lost_updates_solution::tally);
    let tally_source = code.pick(
        (
            "crates/examples/ch01/exercises/lost_updates.rs",
            include_str!("lost_updates.rs"),
        ),
        (
            "crates/examples/ch01/exercises/lost_updates_solution.rs",
            include_str!("lost_updates_solution.rs"),
        ),
    );
    vec![
        Exercise {
            name: "sqrt_rayon",
            cpu: Some(CpuPart {
                sources: vec![sqrt_source],
                check: Box::new(move |seed| check_sqrt(sqrt, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "lost_updates",
            cpu: Some(CpuPart {
                sources: vec![tally_source],
                check: Box::new(move |seed| check_tally(tally, seed)),
            }),
            gpu: None,
        },
        Exercise {
            name: "which_loops",
            cpu: Some(CpuPart {
                sources: vec![source],
                check: Box::new(move |seed| check_loops(&loops, seed)),
            }),
            gpu: None,
        },
    ]
}
