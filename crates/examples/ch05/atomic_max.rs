//! The largest value of an array with atomics: atomicMax on int32, the float bit trick (right
//! only when the values are not negative), and compare-and-swap loops and a sign split that
//! are right for all floats, tried on random values and on -0.0, NaN and infinities hidden
//! among them. Every result is checked against the CPU's maximum.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaStream, LaunchConfig};
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch05_atomic_max {
    course::kernels!("ch05-atomic-max.cu");
}
/// The float kernels, which all launch alike.
type MaxFloat = ch05_atomic_max::MaxFloatBits;

/// Launch `kernel` (one thread per value) with the result starting at `start`; return it.
fn gpu_max_f32(stream: &Arc<CudaStream>, kernel: &MaxFloat, values: &[f32], start: f32) -> f32 {
    let n = values.len();
    let d_values = stream.clone_htod(values).or_exit("copy to the GPU");
    let mut d_result = stream.clone_htod(&[start]).or_exit("copy to the GPU");
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    kernel
        .launch(stream, cfg, &d_values, &mut d_result)
        .or_exit_launching(kernel);
    stream.clone_dtoh(&d_result).or_exit("copy from the GPU")[0]
}

// ANCHOR: references
/// What `f32::max` makes of the values, from `start`: a NaN is skipped, and -0.0 equals +0.0.
/// The CAS loop computes this (its `<` is false for a NaN).
fn cpu_max(values: &[f32], start: f32) -> f32 {
    values.par_iter().copied().reduce(|| start, f32::max)
}

/// The maximum in IEEE 754's total order (`f32::total_cmp`), from `start`: -0.0 below +0.0, a
/// NaN with the sign bit clear above +inf, one with it set below -inf. The sign split computes
/// this.
fn cpu_max_total_order(values: &[f32], start: f32) -> f32 {
    let larger = |a: f32, b: f32| if b.total_cmp(&a).is_gt() { b } else { a };
    values.par_iter().copied().reduce(|| start, larger)
}
// ANCHOR_END: references

/// `values` with `specials` written over the values at random places.
fn hide(values: &[f32], specials: &[f32], rng: &mut Rng) -> Vec<f32> {
    let mut out = values.to_vec();
    for &s in specials {
        let at = rng.below(out.len() as u64) as usize;
        out[at] = s;
    }
    out
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Finds the largest of n values with atomics on the GPU, several ways, on several inputs.",
        |args| {
            (
                args.usize("N", "the number of values", 1 << 20, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch05-atomic-max.cu"), false);
    let k = ch05_atomic_max::Kernels::load(&module);
    let mut rng = Rng::new(seed);
    println!("{n} values in each test, seed {seed}");

    // ANCHOR: int
    let ints: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let d_ints = stream.clone_htod(&ints).or_exit("copy to the GPU");
    let mut d_result = stream.clone_htod(&[i32::MIN]).or_exit("copy to the GPU");
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    k.max_int
        .launch(&stream, cfg, &d_ints, &mut d_result)
        .or_exit_launching(&k.max_int);
    let gpu = stream.clone_dtoh(&d_result).or_exit("copy from the GPU")[0];
    let cpu = ints.par_iter().copied().max().unwrap_or(i32::MIN);
    println!(
        "{:<38} GPU {gpu}, CPU {cpu}, right: {}",
        "atomicMax, any int32",
        verdict(gpu == cpu)
    );
    // ANCHOR_END: int

    // ANCHOR: floats
    let non_negative = rng.vec_f32(n, 0.0, 1.0);
    let negative = rng.vec_f32(n, -100.0, -1.0);
    let mixed = rng.vec_f32(n, -100.0, 100.0);
    let neg_inf = f32::NEG_INFINITY;
    let tests = [
        (
            "bit trick, from 0, in [0, 1)",
            &k.max_float_bits,
            &non_negative,
            0.0,
        ),
        (
            "bit trick, from 0, in [-100, -1)",
            &k.max_float_bits,
            &negative,
            0.0,
        ),
        (
            "bit trick, from -inf, in [-100, -1)",
            &k.max_float_bits,
            &negative,
            neg_inf,
        ),
        (
            "CAS loop, from -inf, in [-100, -1)",
            &k.max_float_cas,
            &negative,
            neg_inf,
        ),
        (
            "CAS loop, from -inf, in [-100, 100)",
            &k.max_float_cas,
            &mixed,
            neg_inf,
        ),
        (
            "sign split, from -inf, in [-100, -1)",
            &k.max_float_sign_split,
            &negative,
            neg_inf,
        ),
        (
            "sign split, from -inf, in [-100, 100)",
            &k.max_float_sign_split,
            &mixed,
            neg_inf,
        ),
    ];
    for (label, kernel, values, start) in tests {
        let gpu = gpu_max_f32(&stream, kernel, values, start);
        let cpu = cpu_max(values, neg_inf); // the largest value in the data
        // ANCHOR_END: floats
        println!(
            "{label:<38} GPU {gpu:>10.6}, CPU {cpu:>10.6}, right: {}",
            verdict(gpu == cpu)
        );
        // ANCHOR: floats
    }
    // ANCHOR_END: floats

    // ANCHOR: specials
    let nan = f32::NAN;
    let (cas, split) = (&k.max_float_cas, &k.max_float_sign_split);
    let by_value = &k.max_float_sign_split_by_value;
    let inputs: [(&str, Vec<f32>, &[&MaxFloat]); 6] = [
        (
            "{-1, -0.0, -3}",
            vec![-1.0, -0.0, -3.0],
            &[cas, split, by_value],
        ),
        (
            "[-100, -1) and -0.0",
            hide(&negative, &[-0.0], &mut rng),
            &[cas, split],
        ),
        // Which zero f32::max returns, or the CAS loop keeps, is not defined: total order only.
        (
            "[-100, -1), -0.0 and +0.0",
            hide(&negative, &[-0.0, 0.0], &mut rng),
            &[split],
        ),
        (
            "[-100, 100) and NaN",
            hide(&mixed, &[nan], &mut rng),
            &[cas, split],
        ),
        (
            "[-100, 100) and +inf",
            hide(&mixed, &[f32::INFINITY], &mut rng),
            &[cas, split],
        ),
        (
            "[-100, -1), -NaN and -inf",
            hide(&negative, &[-nan, neg_inf], &mut rng),
            &[cas, split],
        ),
    ];
    println!("from -inf; the CAS loop against f32::max, the sign splits against f32::total_cmp:");
    for (input, values, kernels) in &inputs {
        for &kernel in kernels.iter() {
            let gpu = gpu_max_f32(&stream, kernel, values, neg_inf);
            let (cpu, right) = if kernel.name == cas.name {
                let cpu = cpu_max(values, neg_inf);
                (cpu, gpu == cpu)
            } else {
                let cpu = cpu_max_total_order(values, neg_inf);
                (cpu, gpu.to_bits() == cpu.to_bits()) // tells -0.0 from +0.0
            };
            let label = format!("{}, {input}", kernel.name);
            // ANCHOR_END: specials
            println!(
                "{label:<56} GPU {gpu:>10.6}, CPU {cpu:>10.6}, right: {}",
                verdict(right)
            );
            // ANCHOR: specials
        }
    }
    // ANCHOR_END: specials
}
