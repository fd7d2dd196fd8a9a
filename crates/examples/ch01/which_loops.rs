//! Solutions to "which loops can run in parallel?": loops A, B and E run in parallel as they
//! stand; C and D share mutable state, so they are rewritten as a filter and a reduction.
//! Every parallel result is compared with the serial loop's.
use std::sync::Mutex;

use course::compare::verdict;
use course::machine::describe_cpu;
use course::random::Rng;
use rayon::prelude::*;

fn report(label: &str, how: &str, same: bool) {
    println!(
        "{label:<26}{how:<18} equals the serial loop: {}",
        verdict(same)
    );
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Runs the challenge's five loops serially and in parallel, and compares the results.",
        |args| {
            (
                args.usize("N", "the array length", 1_000_000, 3, 100_000_000),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let xs = Rng::new(seed).vec_f64(n, -1.0, 1.0);
    let threshold = 0.5;
    println!("{n} values uniform in [-1, 1), seed {seed}");

    let mut ys = vec![0.0; n];
    // ANCHOR: loops
    // A
    for i in 0..n - 1 {
        ys[i] = xs[i] * xs[i] + xs[i + 1] * xs[i + 1];
    }
    // ANCHOR_END: loops
    // ANCHOR: safe
    // A: xs is only read, so every thread may read all of it; each ys[i] has one writer.
    let mut ys_par = vec![0.0; n];
    ys_par[..n - 1]
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, y)| {
            *y = xs[i] * xs[i] + xs[i + 1] * xs[i + 1];
        });
    // ANCHOR_END: safe
    report("A  squares of neighbours", "par_iter_mut", ys_par == ys);

    let mut ys = vec![0.0; n];
    // ANCHOR: loops

    // B
    for i in 1..n - 1 {
        ys[i] = 0.5 * (xs[i - 1] + xs[i + 1]);
    }
    // ANCHOR_END: loops
    // ANCHOR: safe

    // B: reads xs, writes another array; par_windows(3) hands out xs[i - 1..=i + 1].
    let mut ys_par = vec![0.0; n];
    ys_par[1..n - 1]
        .par_iter_mut()
        .zip(xs.par_windows(3))
        .for_each(|(y, w)| {
            *y = 0.5 * (w[0] + w[2]);
        });
    // ANCHOR_END: safe
    report("B  mean of neighbours", "par_iter_mut", ys_par == ys);

    let mut indices = Vec::new();
    // ANCHOR: loops

    // C
    for i in 0..n {
        if xs[i] > threshold {
            indices.push(i);
        }
    }
    // ANCHOR_END: loops
    // ANCHOR: fixed
    // C: every piece of work keeps the indices it found; collect joins them in order.
    let indices_par: Vec<usize> = (0..n)
        .into_par_iter()
        .filter(|&i| xs[i] > threshold)
        .collect();
    // ANCHOR_END: fixed
    report(
        &format!("C  indices above {threshold}"),
        "filter + collect",
        indices_par == indices,
    );

    // ANCHOR: loops

    // D
    let mut x_min = xs[0];
    for i in 0..n {
        if xs[i] < x_min {
            x_min = xs[i];
        }
    }
    // ANCHOR_END: loops
    // ANCHOR: fixed

    // D: a minimum per piece of work, then the minimum of those, as with the partial sums.
    let x_min_par = xs.par_iter().copied().reduce(|| f64::INFINITY, f64::min);
    // ANCHOR_END: fixed
    report("D  smallest value", "reduce", x_min_par == x_min);

    let mut ys = vec![0.0; n];
    // ANCHOR: loops

    // E
    for i in 0..n {
        if xs[i] > 0.0 {
            ys[i] = xs[i].sqrt();
        }
    }
    // ANCHOR_END: loops
    // ANCHOR: safe

    // E: the test and the write both concern element i only.
    let mut ys_par = vec![0.0; n];
    ys_par.par_iter_mut().zip(&xs).for_each(|(y, &x)| {
        if x > 0.0 {
            *y = x.sqrt();
        }
    });
    // ANCHOR_END: safe
    report("E  roots of positives", "par_iter_mut", ys_par == ys);

    // ANCHOR: mutex
    // C with a lock: it compiles and loses nothing, but the order is whatever the threads made.
    let found = Mutex::new(Vec::new());
    (0..n).into_par_iter().for_each(|i| {
        if xs[i] > threshold {
            found.lock().unwrap().push(i);
        }
    });
    let mut locked = found.into_inner().unwrap();
    // ANCHOR_END: mutex
    let misplaced = locked.iter().zip(&indices).filter(|(a, b)| a != b).count();
    println!("C with a Mutex: indices not where the serial loop put them: {misplaced} (varies)");
    locked.sort();
    report("C with a Mutex, sorted", "Mutex<Vec>", locked == indices);
}
