//! Smoothing a row of integers step after step with several threads, each owning a slice and
//! reading one value past each end of it. Two ways to keep the threads in step: threads that
//! end after every step (the end of `thread::scope` is the barrier), and threads that live for
//! the whole run and meet at a `std::sync::Barrier` twice per step. Both must match the serial
//! loop exactly.
use std::sync::Barrier;
use std::sync::atomic::{AtomicU32, Ordering};

use course::compare::{count_mismatches, verdict};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, time_cpu};

// ANCHOR: rule
/// The new value of a point from its left neighbour, itself and its right neighbour. Integers,
/// so every way of computing it gives the same bits.
fn smooth_point(left: u32, centre: u32, right: u32) -> u32 {
    (left + 2 * centre + right) / 4
}

/// The neighbours of point `i` in a row of `n` points: the ends use themselves instead.
fn neighbours(i: usize, n: usize) -> (usize, usize) {
    (i.saturating_sub(1), (i + 1).min(n - 1))
}
// ANCHOR_END: rule

// ANCHOR: serial
/// One thread: read the whole row from `cur`, write the new row into `next`, swap, repeat.
fn smooth_serial(x: &[u32], steps: usize) -> Vec<u32> {
    let n = x.len();
    let (mut cur, mut next) = (x.to_vec(), vec![0; n]);
    for _ in 0..steps {
        for i in 0..n {
            let (l, r) = neighbours(i, n);
            next[i] = smooth_point(cur[l], cur[i], cur[r]);
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}
// ANCHOR_END: serial

// ANCHOR: scoped
/// Threads for one step at a time. Every thread reads all of `cur` (shared, read-only) and
/// writes only its own slice of `next` (a `&mut` nobody else has). The scope ends when every
/// thread has finished: that is the barrier between two steps.
fn smooth_scoped(x: &[u32], steps: usize, threads: usize) -> Vec<u32> {
    let n = x.len();
    let chunk = n.div_ceil(threads);
    let (mut cur, mut next) = (x.to_vec(), vec![0; n]);
    for _ in 0..steps {
        let cur_row = &cur;
        std::thread::scope(|s| {
            for (k, mine) in next.chunks_mut(chunk).enumerate() {
                s.spawn(move || {
                    for (j, out) in mine.iter_mut().enumerate() {
                        let i = k * chunk + j;
                        let (l, r) = neighbours(i, n);
                        *out = smooth_point(cur_row[l], cur_row[i], cur_row[r]);
                    }
                });
            }
        }); // every thread of this step has joined here
        std::mem::swap(&mut cur, &mut next);
    }
    cur
}
// ANCHOR_END: scoped

// ANCHOR: barrier
/// Threads for the whole run, and one shared row that they update in place, like a tile of
/// shared memory on the GPU. The row is made of atomics because several threads hold it at
/// once and one of them writes; the barriers decide who may touch what, and when.
fn smooth_barrier(x: &[u32], steps: usize, threads: usize) -> Vec<u32> {
    let n = x.len();
    let chunk = n.div_ceil(threads);
    let row: Vec<AtomicU32> = x.iter().map(|&v| AtomicU32::new(v)).collect();
    let barrier = Barrier::new(threads);
    std::thread::scope(|s| {
        for k in 0..threads {
            let (row, barrier) = (&row, &barrier);
            s.spawn(move || {
                let mine = (k * chunk).min(n)..((k + 1) * chunk).min(n); // may be empty
                let mut new = vec![0; mine.len()];
                let get = |i: usize| row[i].load(Ordering::Relaxed);
                for _ in 0..steps {
                    for (j, i) in mine.clone().enumerate() {
                        let (l, r) = neighbours(i, n);
                        new[j] = smooth_point(get(l), get(i), get(r));
                    }
                    barrier.wait(); // 1: every thread has read its neighbours' edges...
                    for (j, i) in mine.clone().enumerate() {
                        row[i].store(new[j], Ordering::Relaxed); // ...before anyone overwrites them
                    }
                    barrier.wait(); // 2: every new value is in before the next step reads
                }
            });
        }
    });
    row.into_iter().map(AtomicU32::into_inner).collect()
}
// ANCHOR_END: barrier

/// The known answer: on the ramp 4i, every point whose neighbours are all still on the ramp
/// keeps its value, since (4(i - 1) + 8i + 4(i + 1)) / 4 = 4i. Only the ends change, and each
/// step carries the change one point further in, so after `steps` steps every point more
/// than `steps` from both ends must still read 4i. Returns how many such points there are.
fn ramp_keeps_its_middle(n: usize, steps: usize) -> (usize, bool) {
    let ramp: Vec<u32> = (0..n as u32).map(|i| 4 * i).collect();
    let got = smooth_serial(&ramp, steps);
    let middle = steps.min(n)..n.saturating_sub(steps);
    let kept = middle.clone().all(|i| got[i] == ramp[i]);
    (middle.len(), kept)
}

fn main() {
    let (n, steps, threads, seed) = course::cli::parse(
        "Smooths a row of integers with threads kept in step by barriers.",
        |args| {
            (
                args.usize("N", "the number of points", 20_000, 1, 100_000_000),
                args.usize("STEPS", "the number of steps", 100, 0, 1_000_000),
                args.usize("THREADS", "the number of threads", 4, 1, 256),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let mut rng = Rng::new(seed);
    let x: Vec<u32> = (0..n).map(|_| rng.below(1 << 20) as u32).collect();
    println!("{n} random integers below 2^20, {steps} smoothing steps, {threads} threads");
    println!("seed {seed}");
    let (points, kept) = ramp_keeps_its_middle(n, steps);
    println!(
        "the serial loop keeps the ramp 4i at the {points} points more than {steps} from the ends: {}",
        verdict(kept)
    );

    // ANCHOR: main
    let want = smooth_serial(&x, steps);
    let ways: [(&str, fn(&[u32], usize, usize) -> Vec<u32>); 2] = [
        ("new threads every step", smooth_scoped),
        ("one Barrier, two waits per step", smooth_barrier),
    ];
    // ANCHOR_END: main
    let serial = time_cpu(0, 3, || {
        // ANCHOR: main
        smooth_serial(&x, steps)
        // ANCHOR_END: main
    });
    // ANCHOR: main
    println!(
        "{:<34}{:>10}   elements that differ from serial",
        "way", "time"
    );
    // ANCHOR_END: main
    println!("{:<34}{:>10}", "serial", fmt_ms(serial.median_ms));
    // ANCHOR: main
    let mut all_exact = true;
    for (name, smooth) in ways {
        let got = smooth(&x, steps, threads);
        let wrong = count_mismatches(&got, &want);
        all_exact &= wrong == 0;
        // ANCHOR_END: main
        let t = time_cpu(0, 3, || {
            // ANCHOR: main
            smooth(&x, steps, threads)
            // ANCHOR_END: main
        });
        println!("{name:<34}{:>10}   {wrong} of {n}", fmt_ms(t.median_ms));
        // ANCHOR: main
    }
    // ANCHOR_END: main
    println!(
        "both ways match the serial loop exactly: {}",
        verdict(all_exact)
    );
}
