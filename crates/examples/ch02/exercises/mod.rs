//! The judge's entries for chapter 2's exercises. The residency arithmetic is checked against
//! a simulation that fills the SMs block by block and runs the grid wave by wave.
use course::random::Rng;

use crate::exercise::{Code, CpuPart, Exercise};

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
    // The workshop's GPU, the same with the H200's 2048 threads per SM, then random ones.
    let mut cases = vec![(80, 16, None, 2000, 256), (80, 16, Some(2048), 2000, 256)];
    let mut rng = Rng::new(seed);
    for _ in 0..200 {
        let block = 32 * (1 + rng.below(32) as usize);
        let limit = (rng.below(2) == 1).then(|| block * (1 + rng.below(8) as usize));
        let sms = 1 + rng.below(200) as usize;
        let per_sm = 1 + rng.below(32) as usize;
        cases.push((sms, per_sm, limit, 1 + rng.below(100_000) as usize, block));
    }
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
    vec![Exercise {
        name: "waves",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |seed| check(f, seed)),
        }),
        gpu: None,
    }]
}
