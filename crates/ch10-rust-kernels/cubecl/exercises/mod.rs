//! The judge's entry for chapter 10's challenge, `plane`: the reduction's plane step,
//! `plane_total`, in `plane_total.rs` (the learner's file).
//!
//! Two checks, on the book's seed and on a fresh one; the first wrong result decides.
//!
//! 1. Planes alone: 4096 units, each plane adding up whole numbers in [1, 1000] drawn from the
//!    seed with the learner's step. Every plane's first unit is compared exactly with the sum
//!    (whole numbers below 2²⁴ add exactly in float32, in any order). A wrong plane is named,
//!    and a second launch tells which units of a plane never reach its first unit, or reach it
//!    more than once: plane p holds a 1 in unit p mod PLANE_DIM and 0 elsewhere, so each unit of
//!    a plane is the only 1 of some plane, and that plane's total counts it.
//! 2. The block sum: `sum_planes` of `src/reduce.rs` with the learner's step, on 1, 256, 4099,
//!    1000003 and 2²⁰ floats in [0, 1) and on a count drawn from the seed, within the bound that
//!    `reduce` states ([`reduce::BOUND`]) of a float64 sum.
//!
//! Which answer is judged: the learner's file, the course's `plane_total` (`--solutions`), or,
//! for the judge's tests, a wrong answer from `tests/wrong_steps/` named by `COURSE_MUTANT`.

use ch10_cubecl::device::Gpu;
use ch10_cubecl::reduce::{self, PlaneStep, Shuffles};
use course::random::Rng;
use cubecl::prelude::*;

mod plane_total;
#[path = "../tests/wrong_steps/quarter.rs"]
mod quarter;
#[path = "../tests/wrong_steps/warp_32.rs"]
mod warp_32;

/// An exercise of chapter 10: its name on the judge's command line, and what it asks.
pub struct Exercise {
    pub name: &'static str,
    pub about: &'static str,
}

pub const EXERCISES: [Exercise; 1] = [Exercise {
    name: "plane",
    about: "the reduction's plane step, `plane_total`",
}];

/// A file that the judge reads for a `TODO`: its path as the learner sees it, and its text.
pub type Source = (&'static str, &'static str);

/// Whose plane step is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// The learner's, in `plane_total.rs`.
    Learner,
    /// The course's `plane_total`, in `src/reduce.rs` (`--solutions`).
    Solution,
    /// The wrong answers of `tests/wrong_steps/`, for the judge's tests.
    Quarter,
    Warp32,
}

/// The wrong answers that `COURSE_MUTANT` can name.
pub const MUTANTS: [(&str, Answer); 2] = [
    ("plane-quarter", Answer::Quarter),
    ("plane-warp-32", Answer::Warp32),
];

impl Answer {
    /// The file the answer is in.
    pub fn source(self) -> Source {
        match self {
            Answer::Learner => (
                "crates/ch10-rust-kernels/cubecl/exercises/plane_total.rs",
                include_str!("plane_total.rs"),
            ),
            Answer::Solution => (
                "crates/ch10-rust-kernels/cubecl/src/reduce.rs",
                include_str!("../src/reduce.rs"),
            ),
            Answer::Quarter => (
                "crates/ch10-rust-kernels/cubecl/tests/wrong_steps/quarter.rs",
                include_str!("../tests/wrong_steps/quarter.rs"),
            ),
            Answer::Warp32 => (
                "crates/ch10-rust-kernels/cubecl/tests/wrong_steps/warp_32.rs",
                include_str!("../tests/wrong_steps/warp_32.rs"),
            ),
        }
    }
}

/// The learner's plane step.
struct Learner;

#[cube]
impl PlaneStep for Learner {
    fn total(v: f32) -> f32 {
        plane_total::plane_total(v)
    }
}

struct Quarter;

#[cube]
impl PlaneStep for Quarter {
    fn total(v: f32) -> f32 {
        quarter::plane_total(v)
    }
}

struct Warp32;

#[cube]
impl PlaneStep for Warp32 {
    fn total(v: f32) -> f32 {
        warp_32::plane_total(v)
    }
}

/// Check `answer` on the inputs drawn from `seed`: `Err` says what was wrong.
pub fn check<R: Runtime>(gpu: &Gpu<R>, answer: Answer, seed: u64) -> Result<(), String> {
    match answer {
        Answer::Learner => check_step::<Learner, R>(gpu, seed),
        Answer::Solution => check_step::<Shuffles, R>(gpu, seed),
        Answer::Quarter => check_step::<Quarter, R>(gpu, seed),
        Answer::Warp32 => check_step::<Warp32, R>(gpu, seed),
    }
}

fn check_step<S: PlaneStep, R: Runtime>(gpu: &Gpu<R>, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    check_planes::<S, R>(gpu, &mut rng)?;
    check_block_sums::<S, R>(gpu, &mut rng)
}

/// Units of the plane check: 16 cubes of 256, enough for planes of up to 64 units to each have
/// a plane for every unit in the second launch.
const CUBE: u32 = 256;
const CUBES: u32 = 16;
const UNITS: usize = (CUBE * CUBES) as usize;

/// Each plane's total, by its first unit, in `totals[plane]`; and the plane size.
#[cube(launch_unchecked)]
fn plane_totals<S: PlaneStep>(x: &Array<f32>, totals: &mut Array<f32>, plane_dim: &mut Array<u32>) {
    let total = S::total(x[ABSOLUTE_POS]);
    if UNIT_POS_PLANE == 0 {
        totals[ABSOLUTE_POS / PLANE_DIM as usize] = total;
    }
    if ABSOLUTE_POS == 0 {
        plane_dim[0] = PLANE_DIM;
    }
}

/// What the first unit of each plane holds after the step `S` on `x` (one value per unit), and
/// the plane size.
fn plane_sums<S: PlaneStep, R: Runtime>(gpu: &Gpu<R>, x: &[f32]) -> (Vec<f32>, usize) {
    let x_d = gpu.upload(x);
    // NaN until written: a plane whose first unit wrote nothing cannot pass.
    let totals = gpu.poisoned(4 * UNITS);
    let plane_dim = gpu.poisoned(4);
    // SAFETY: x holds UNITS floats, one per unit; totals holds UNITS floats, more than there are
    // planes; plane_dim holds one.
    unsafe {
        plane_totals::launch_unchecked::<S, R>(
            &gpu.client,
            CubeCount::Static(CUBES, 1, 1),
            CubeDim::new_1d(CUBE),
            ArrayArg::from_raw_parts(x_d, UNITS),
            ArrayArg::from_raw_parts(totals.clone(), UNITS),
            ArrayArg::from_raw_parts(plane_dim.clone(), 1),
        )
    }
    let totals = gpu.download::<f32>(totals);
    (totals, gpu.download::<u32>(plane_dim)[0] as usize)
}

fn check_planes<S: PlaneStep, R: Runtime>(gpu: &Gpu<R>, rng: &mut Rng) -> Result<(), String> {
    let x: Vec<f32> = (0..UNITS).map(|_| 1.0 + rng.below(1000) as f32).collect();
    let (totals, size) = plane_sums::<S, R>(gpu, &x);
    let planes = UNITS / size;
    let want = |p: usize| x[p * size..][..size].iter().sum::<f32>();
    let wrong: Vec<usize> = (0..planes).filter(|&p| totals[p] != want(p)).collect();
    let Some(&p) = wrong.first() else {
        return Ok(());
    };
    Err(format!(
        "plane_total on its own: the first unit of plane {p} (units {} to {}) holds {}, but the \
         plane's whole numbers add up to {}; {} of {planes} planes of {size} units are wrong. {}",
        p * size,
        p * size + size - 1,
        totals[p],
        want(p),
        wrong.len(),
        diagnosis::<S, R>(gpu, size)
    ))
}

/// Which units of a plane reach its first unit, found by a launch on ones and zeros, and what
/// that suggests.
fn diagnosis<S: PlaneStep, R: Runtime>(gpu: &Gpu<R>, size: usize) -> String {
    if UNITS / size < size {
        return format!("(planes of {size} are too wide for the judge to say which units)");
    }
    let hot: Vec<f32> = (0..UNITS)
        .map(|u| f32::from(u % size == (u / size) % size))
        .collect();
    let (totals, _) = plane_sums::<S, R>(gpu, &hot);
    // Plane k holds its 1 in unit k: its total counts how often unit k reached unit 0.
    let counts = &totals[..size];
    let missing: Vec<usize> = (0..size).filter(|&k| counts[k] == 0.0).collect();
    let repeated: Vec<usize> = (0..size).filter(|&k| counts[k] > 1.0).collect();
    let odd = (0..size).find(|&k| !counts[k].is_finite() || counts[k].fract() != 0.0);
    let half: Vec<usize> = (size / 2..size).collect();
    let all_but_first: Vec<usize> = (1..size).collect();
    if let Some(k) = odd {
        format!(
            "A 1 in unit {k} of a plane, 0 elsewhere, gives {}: a shuffle read past the end of \
             the plane, or a value never set.",
            counts[k]
        )
    } else if missing == all_but_first && counts[0] == 1.0 {
        "The first unit ends with its own value only: nothing was added to it.".into()
    } else if missing == all_but_first {
        format!(
            "The first unit ends with its own value {} times and nothing from the other units: \
             did the shuffles go up instead of down?",
            counts[0]
        )
    } else if missing == half && repeated.is_empty() {
        format!(
            "Only the first {} of {size} units were added: the first shuffle must reach across \
             half the plane.",
            size / 2
        )
    } else if missing.is_empty() && counts.iter().all(|&c| c == counts[0] && c > 1.0) {
        format!(
            "Every unit was added {} times: a shuffle whose offset reaches past the plane's end \
             gives each unit its own value back, which doubles what it holds. Did the offsets \
             start at PLANE_DIM, or at a number meant for a warp of 32?",
            counts[0]
        )
    } else if missing.is_empty() && !repeated.is_empty() {
        format!(
            "Units {} reach the first unit more than once: did a shuffle go past the plane's \
             end, which gives a unit back its own value?",
            list(&repeated)
        )
    } else if missing.is_empty() {
        "Every unit reaches the first unit once on ones and zeros: check which unit holds the \
         total."
            .into()
    } else {
        format!(
            "Units {} of {size} never reach the first unit{}.",
            list(&missing),
            match repeated.is_empty() {
                true => String::new(),
                false => format!(", and units {} reach it more than once", list(&repeated)),
            }
        )
    }
}

/// `[1, 2, 3, 7]` as `1 to 3, 7`.
fn list(units: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &u in units {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == u => *end = u,
            _ => runs.push((u, u)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|&(a, b)| match a == b {
            true => a.to_string(),
            false => format!("{a} to {b}"),
        })
        .collect();
    runs.join(", ")
}

/// Float counts of the block sum: one, one cube's units, ragged ones (no 4-float loads), and
/// one of 4-float loads only.
const SIZES: [usize; 5] = [1, 256, 4099, 1_000_003, 1 << 20];

fn check_block_sums<S: PlaneStep, R: Runtime>(gpu: &Gpu<R>, rng: &mut Rng) -> Result<(), String> {
    let fresh = 1 + rng.below(1 << 20) as usize;
    for n in SIZES.into_iter().chain([fresh]) {
        let x = rng.vec_f32(n, 0.0, 1.0);
        let want: f64 = x.iter().map(|&v| v as f64).sum();
        let got = reduce::sum_with::<S, R>(gpu, &x) as f64;
        // Written so that NaN fails.
        let within = (got - want).abs() <= reduce::BOUND * want.max(1.0);
        if !within {
            return Err(format!(
                "in sum_planes: the sum of {n} floats in [0, 1) is {got}, expected {want:.3} \
                 within a relative {:e}",
                reduce::BOUND
            ));
        }
    }
    Ok(())
}
