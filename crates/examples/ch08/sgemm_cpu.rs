//! Matrix multiplication on the CPU, the ladder's first rung: a cache-blocked SGEMM in safe Rust,
//! parallel with rayon over blocks of rows of C, timed against ndarray's `dot` (matrixmultiply,
//! with its threads on) on the same f32 inputs. Both are checked against float64 within their
//! rounding bound, and the blocked loops exactly against a triple loop on whole numbers.
use course::compare::{count_mismatches, verdict};
use course::gemm::{Samples, Shape};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_gflop_per_s, fmt_ms, fmt_speedup, time_cpu};
use ndarray::ArrayView2;
use rayon::prelude::*;

// ANCHOR: blocks
/// Rows of C per rayon task: each task reuses a block of B for all of its rows.
const ROWS: usize = 32;
/// A block of B is KC rows of B by NC columns: 64 × 512 floats, 128 KiB, which stays in a
/// core's L2 cache while the task's rows go past it.
const KC: usize = 64;
const NC: usize = 512;
// ANCHOR_END: blocks

// ANCHOR: blocked
/// C = A·B, row-major: A is m×k, B is k×n, C is m×n.
fn sgemm_blocked(a: &[f32], b: &[f32], c: &mut [f32], shape: Shape) {
    let Shape { k, n, .. } = shape;
    // One task per block of ROWS rows of C: the tasks write rows that no other task touches.
    c.par_chunks_mut(ROWS * n)
        .enumerate()
        .for_each(|(block, c_rows)| {
            c_rows.fill(0.0);
            let first_row = block * ROWS;
            for p0 in (0..k).step_by(KC) {
                let p1 = (p0 + KC).min(k);
                for j0 in (0..n).step_by(NC) {
                    let j1 = (j0 + NC).min(n);
                    // The block B[p0..p1, j0..j1] serves every row of the task.
                    for (r, c_row) in c_rows.chunks_mut(n).enumerate() {
                        let a_row = &a[(first_row + r) * k..][..k];
                        let c_part = &mut c_row[j0..j1];
                        for p in p0..p1 {
                            let a_ip = a_row[p];
                            let b_part = &b[p * n + j0..p * n + j1];
                            // i-k-j order: one a times a row of B, added to a row of C. The
                            // slices have one length, so no bounds checks: the compiler
                            // turns this loop into vector instructions.
                            for (c_ij, &b_pj) in c_part.iter_mut().zip(b_part) {
                                *c_ij += a_ip * b_pj;
                            }
                        }
                    }
                }
            }
        });
}
// ANCHOR_END: blocked

/// The plain triple loop, one sum per entry of C, in order.
fn sgemm_triple_loop(a: &[f32], b: &[f32], c: &mut [f32], shape: Shape) {
    let Shape { m, k, n } = shape;
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for p in 0..k {
                sum += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
    }
}

// ANCHOR: dot
/// C = A·B by ndarray's `dot` on views of the same buffers: matrixmultiply does the work.
fn sgemm_ndarray(a: &[f32], b: &[f32], shape: Shape) -> ndarray::Array2<f32> {
    let Shape { m, k, n } = shape;
    let a = ArrayView2::from_shape((m, k), a).expect("A holds m·k values");
    let b = ArrayView2::from_shape((k, n), b).expect("B holds k·n values");
    a.dot(&b)
}
// ANCHOR_END: dot

fn main() {
    // A small default keeps the book's own run of this listing (unoptimised) quick; the
    // recorded runs ask for 1024.
    let (n, seed) = course::cli::parse(
        "Multiplies two NxN f32 matrices with cache-blocked rayon loops and with ndarray's dot.",
        |args| {
            (
                args.usize("N", "the side of the square matrices", 256, 1, 8192),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    exact_on_whole_numbers(seed);

    let shape = Shape { m: n, k: n, n };
    let mut rng = Rng::new(seed);
    let a = rng.vec_f32(n * n, -1.0, 1.0);
    let b = rng.vec_f32(n * n, -1.0, 1.0);
    let samples = Samples::new(&a, &b, shape, 4096, &mut rng);
    println!(
        "A and B {n}x{n}, f32 in [-1, 1), seed {seed}; {} entries of C checked against f64",
        samples.len()
    );
    println!(
        "rayon: {} tasks of up to {ROWS} rows of C, on {} threads (this machine)",
        n.div_ceil(ROWS),
        rayon::current_num_threads()
    );

    // ANCHOR: time
    let mut c_blocked = vec![0.0f32; n * n];
    let t_blocked = time_cpu(1, 5, || sgemm_blocked(&a, &b, &mut c_blocked, shape));
    let mut c_dot = ndarray::Array2::<f32>::zeros((0, 0));
    let t_dot = time_cpu(1, 5, || c_dot = sgemm_ndarray(&a, &b, shape));
    let c_dot = c_dot.as_slice().expect("dot returns a row-major array");

    let rate = |ms: f64| fmt_gflop_per_s(shape.flops(), ms);
    let (blocked, dot) = (t_blocked.median_ms, t_dot.median_ms);
    println!(
        "blocked rayon: {:>9} {:>14}",
        fmt_ms(blocked),
        rate(blocked)
    );
    println!("ndarray's dot: {:>9} {:>14}", fmt_ms(dot), rate(dot));
    println!(
        "blocked loops' time over dot's: {}",
        fmt_speedup(blocked, dot)
    );
    // ANCHOR_END: time

    // ANCHOR: check
    for (name, c) in [("blocked rayon", &c_blocked[..]), ("ndarray's dot", c_dot)] {
        let worst = samples.worst_ratio(c, n);
        // ANCHOR_END: check
        println!(
            "{name} against f64: largest error over γ_K·Σ|a||b| {worst:.1e}, bound 1: {}",
            verdict(worst <= 1.0)
        );
        // ANCHOR: check
    }
    // ANCHOR_END: check
}

// ANCHOR: exact
/// The blocked loops against the triple loop on whole numbers in [-8, 8], at sides that are
/// multiples of no block: every product and partial sum is a whole number below 2²⁴, exact in
/// f32 in any order, so the two must agree in every entry.
fn exact_on_whole_numbers(seed: u64) {
    let shape = Shape {
        m: 2 * ROWS + 3,
        k: 2 * KC + 5,
        n: NC + 131,
    };
    let Shape { m, k, n } = shape;
    let mut rng = Rng::new(seed);
    let mut whole =
        |len: usize| -> Vec<f32> { (0..len).map(|_| rng.below(17) as f32 - 8.0).collect() };
    let (a, b) = (whole(m * k), whole(k * n));
    let (mut want, mut got) = (vec![0.0f32; m * n], vec![f32::NAN; m * n]);
    sgemm_triple_loop(&a, &b, &mut want, shape);
    sgemm_blocked(&a, &b, &mut got, shape);
    let wrong = count_mismatches(&got, &want);
    // ANCHOR_END: exact
    println!(
        "whole numbers {m}x{k} by {k}x{n}: blocked differs from a triple loop \
         in {wrong} of {} entries: {}",
        m * n,
        verdict(wrong == 0)
    );
    // ANCHOR: exact
}
// ANCHOR_END: exact
