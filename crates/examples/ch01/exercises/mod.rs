//! The judge's entries for chapter 1's exercises: each learner function is compared exactly
//! with the serial loop, written out here, on random arrays and on the shortest one (3 values).
use course::random::Rng;

use crate::exercise::{Code, CpuPart, Exercise, same};

mod which_loops;
mod which_loops_solution;

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
    vec![Exercise {
        name: "which_loops",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |seed| check_loops(&loops, seed)),
        }),
        gpu: None,
    }]
}
