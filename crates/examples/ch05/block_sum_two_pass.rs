//! Practice 4: the block sum without atomics. Each block writes its partial sum to a slot of
//! its own, and the same kernel reduces the partials again until one value is left. The order
//! of every addition is fixed, so three runs give the same bits, and so does the CPU when it
//! adds in that same order.
use std::sync::Arc;

use course::compare::{verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel::require_block_size;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch05_block_sum {
    course::kernels!("ch05-block-sum.cu");
}

// ANCHOR: two_pass
/// Reduce `d_x` to one float: 2^24 values become 65,536 partial sums, then 256, then 1.
fn sum_without_atomics(
    stream: &Arc<CudaStream>,
    partial_sums: &ch05_block_sum::BlockPartialSums,
    d_x: &CudaSlice<f32>,
) -> f32 {
    let mut len = d_x.len();
    let mut current: Option<CudaSlice<f32>> = None;
    while len > 1 || current.is_none() {
        let blocks = len.div_ceil(THREADS);
        let mut next = alloc_poisoned::<f32>(stream, blocks);
        let input = current.as_ref().unwrap_or(d_x);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        partial_sums
            .launch(stream, cfg, input, &mut next)
            .or_exit_launching(partial_sums);
        current = Some(next);
        len = blocks;
    }
    let last = current.expect("at least one pass ran");
    stream.clone_dtoh(&last).or_exit("copy from the GPU")[0]
}
// ANCHOR_END: two_pass

// ANCHOR: cpu_same_order
/// The same additions in the same order on the CPU: each block of 256 is summed as the
/// kernel's tree does it (slot t += slot t + stride, stride 128, 64, ..., 1), in float32.
fn sum_in_kernel_order(x: &[f32]) -> f32 {
    let mut values = x.to_vec();
    loop {
        values = values
            .par_chunks(THREADS)
            .map(|chunk| {
                let mut s = [0.0f32; THREADS];
                s[..chunk.len()].copy_from_slice(chunk);
                let mut stride = THREADS / 2;
                while stride > 0 {
                    for t in 0..stride {
                        s[t] += s[t + stride];
                    }
                    stride /= 2;
                }
                s[0]
            })
            .collect();
        if values.len() == 1 {
            return values[0];
        }
    }
}
// ANCHOR_END: cpu_same_order

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums floats on the GPU without atomics, in passes over per-block partial sums.",
        |args| {
            (
                args.usize("N", "the number of floats", 1 << 24, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{n} floats, seed {seed}");
    let x = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    let reference: f64 = x.iter().map(|&v| v as f64).sum(); // in order: the same every run
    let same_order = sum_in_kernel_order(&x);

    let module = load(&ctx, &kernel_file!("ch05-block-sum.cu"), false);
    let k = ch05_block_sum::Kernels::load(&module);
    let partial_sums = &k.block_partial_sums;
    require_block_size(&partial_sums.function, "block_partial_sums", THREADS);
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");

    // ANCHOR: runs
    let totals: Vec<f32> = (0..3)
        .map(|_| sum_without_atomics(&stream, partial_sums, &d_x))
        .collect();
    for (run, total) in totals.iter().enumerate() {
        println!("run {run}: two-pass float32 total {total:.2}");
    }
    println!("float64 sum on the CPU:     {reference:.2}");
    println!("float32 sum on the CPU in the kernel's order: {same_order:.2}");
    let identical = totals.iter().all(|t| t.to_bits() == totals[0].to_bits());
    // ANCHOR_END: runs
    println!("the three runs are bit-identical: {}", verdict(identical));
    println!(
        "bit-identical to the CPU in the same order: {}",
        verdict(totals[0].to_bits() == same_order.to_bits())
    );
    // ANCHOR: runs
    let error = (totals[0] as f64 - reference).abs() / reference;
    // ANCHOR_END: runs
    println!(
        "{}",
        within_bound("relative error from the float64 sum", error, 1e-4).0
    );

    // Ones: every partial sum is a whole number no larger than 2^24, so exact in float32.
    let m = n.min(1 << 24);
    let d_ones = stream
        .clone_htod(&vec![1.0f32; m])
        .or_exit("copy to the GPU");
    let total = sum_without_atomics(&stream, partial_sums, &d_ones);
    println!(
        "on {m} ones the total is {total:.1}, exactly {m}: {}",
        verdict(total == m as f32)
    );

    let t = time_gpu(&stream, 1, 5, || {
        sum_without_atomics(&stream, partial_sums, &d_x);
    });
    let bytes = (n * size_of::<f32>()) as f64;
    record(
        &format!("two-pass block sum, n={n}"),
        &t,
        Work::Bytes(bytes),
    );
    println!(
        "two-pass sum, all passes and the copy back: {} median of {}, {}",
        fmt_ms(t.median_ms),
        t.reps,
        fmt_gb_per_s(bytes, t.median_ms)
    );
}
