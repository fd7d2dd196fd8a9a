//! Warp votes on one warp, checked against the same masks computed on the CPU; then stream
//! compaction of a large array, with one atomic per kept element, one per warp and one per
//! block.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch06_votes {
    course::kernels!("ch06-votes.cu");
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Warp votes on one warp, then stream compaction with fewer and fewer atomics.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of values",
                    problem_size(1 << 26, 1 << 20),
                    1,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-votes.cu"), false);
    let kernels = ch06_votes::Kernels::load(&module);
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    vote_demo(&stream, &kernels, &mut rng);
    compaction(&stream, &kernels, &mut rng, n);
}

/// A 32-bit mask with lane 31 on the left, as the hardware numbers the bits.
fn bits(mask: u32) -> String {
    format!("{mask:032b}")
}

// ANCHOR: vote_demo
fn vote_demo(stream: &Arc<CudaStream>, kernels: &ch06_votes::Kernels, rng: &mut Rng) {
    let values = rng.vec_f32(32, 0.0, 1.0);
    let threshold = 0.5f32;
    let d_values = stream.clone_htod(&values).or_exit("copy to the GPU");
    let mut d_seen = alloc_poisoned::<u32>(stream, 32 * 6);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let vote_demo = &kernels.vote_demo;
    vote_demo
        .launch(stream, cfg, &d_values, threshold, &mut d_seen)
        .or_exit_launching(vote_demo);
    let seen = stream.clone_dtoh(&d_seen).or_exit("copy from the GPU");

    // The same answers, worked out on the CPU.
    let ballot: u32 = (0..32)
        .filter(|&k| values[k] > threshold)
        .map(|k| 1u32 << k)
        .sum();
    let any = ballot != 0;
    let all = ballot == u32::MAX;
    let below = |lane: usize| (ballot & ((1u64 << lane) - 1) as u32).count_ones();

    let row = |lane: usize| &seen[6 * lane..6 * lane + 6];
    let same_everywhere = (0..32).all(|l| {
        row(l)[0] == ballot
            && (row(l)[1] != 0) == any
            && (row(l)[2] != 0) == all
            && row(l)[3] == ballot.count_ones()
    });
    let ranks_right = (0..32).all(|l| row(l)[4] == below(l));
    // __activemask promises only the lanes that run this instruction together: a subset of
    // the lanes in the branch, always including the lane itself.
    let active_right = (0..32)
        .filter(|&l| ballot >> l & 1 == 1)
        .all(|l| row(l)[5] & !ballot == 0 && row(l)[5] >> l & 1 == 1);
    println!("one warp votes on value > {threshold}:");
    println!("  __ballot_sync   {}", bits(ballot));
    println!("  __popc(ballot)  {} lanes vote yes", ballot.count_ones());
    println!("  __any_sync {any}, __all_sync {all}");
    // Which lanes run the branch together is up to the hardware, run by run.
    match (0..32).find(|&l| ballot >> l & 1 == 1) {
        Some(first) => println!(
            "  __activemask    {} in the branch, seen by lane {first} (varies)",
            bits(row(first)[5])
        ),
        None => println!("  __activemask    not called: no lane is in the branch (varies)"),
    }
    // ANCHOR_END: vote_demo
    println!(
        "every lane saw the CPU's ballot, count, any and all: {}",
        verdict(same_everywhere)
    );
    println!(
        "every lane's count of yes votes below it matches the CPU: {}",
        verdict(ranks_right)
    );
    println!(
        "every __activemask in the branch lies within the ballot and holds its lane: {}",
        verdict(active_right)
    );
    // ANCHOR: vote_demo
}
// ANCHOR_END: vote_demo

// ANCHOR: compaction
fn compaction(stream: &Arc<CudaStream>, kernels: &ch06_votes::Kernels, rng: &mut Rng, n: usize) {
    let values = rng.vec_f32(n, 0.0, 1.0);
    let threshold = 0.5f32;
    // The CPU's answer: the indices of the kept values, in order.
    let want: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .filter(|&i| values[i as usize] > threshold)
        .collect();
    // Groups of `size` consecutive values with at least one kept: one atomic each as written.
    let groups_with_keepers = |size: usize| {
        values
            .par_chunks(size)
            .filter(|g| g.iter().any(|&v| v > threshold))
            .count()
    };
    println!(
        "{n} values in [0, 1), kept above {threshold}: {}",
        want.len()
    );
    // The CPU's answer checked against the definition: its indices are increasing, each
    // points at a value above the threshold, and the input holds no other such value.
    let above = values.par_iter().filter(|&&v| v > threshold).count();
    let definition = want.len() == above
        && want.par_windows(2).all(|w| w[0] < w[1])
        && want.par_iter().all(|&i| values[i as usize] > threshold);
    // ANCHOR_END: compaction
    println!(
        "the CPU's indices are every value above {threshold}, once each, in order: {}",
        verdict(definition)
    );
    // ANCHOR: compaction

    let d_values = stream.clone_htod(&values).or_exit("copy to the GPU");
    // label, kernel, threads per block, atomics as written, and the group whose elements the
    // kernel promises to keep together and in order (None: no promise).
    for (label, kernel, threads, atomics, promise) in [
        (
            "(a) one atomic per kept element",
            &kernels.compact_atomic,
            THREADS,
            want.len(),
            None,
        ),
        (
            "(b) one atomic per warp",
            &kernels.compact_warp,
            THREADS,
            groups_with_keepers(32),
            Some(("warp", 32)),
        ),
        (
            "(c) one atomic per block of 256",
            &kernels.compact_block,
            256,
            groups_with_keepers(256),
            Some(("block", 256)),
        ),
        (
            "(d) one atomic per block of 1024",
            &kernels.compact_block,
            1024,
            groups_with_keepers(1024),
            Some(("block", 1024)),
        ),
    ] {
        let cfg = LaunchConfig {
            grid_dim: (n.div_ceil(threads) as u32, 1, 1),
            block_dim: (threads as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let launch =
            |out: &mut CudaSlice<f32>, index: &mut CudaSlice<u32>, count: &mut CudaSlice<u32>| {
                stream.memset_zeros(count).or_exit("zero the counter");
                // SAFETY: n is the length of d_values, out and index, and the counter starts at
                // 0 (just above), so every kept element claims a slot below n. A contract cannot
                // state what a buffer holds, so these kernels have none.
                unsafe {
                    kernel.launch(
                        stream, cfg, &d_values, n as i32, threshold, out, index, count,
                    )
                }
                .or_exit_launching(kernel);
            };
        // The checked run: one launch into freshly poisoned outputs, so that every element the
        // checks read was written by this launch.
        let mut d_out = alloc_poisoned::<f32>(stream, n);
        let mut d_index = alloc_poisoned::<u32>(stream, n);
        let mut d_count = alloc_poisoned::<u32>(stream, 1);
        launch(&mut d_out, &mut d_index, &mut d_count);
        let count = stream.clone_dtoh(&d_count).or_exit("copy from the GPU")[0] as usize;
        let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
        let index = stream.clone_dtoh(&d_index).or_exit("copy from the GPU");
        let (out, index) = (&out[..count.min(n)], &index[..count.min(n)]);
        // Then the timed runs, into the same buffers.
        // ANCHOR_END: compaction
        let t = time_gpu(stream, 2, 10, || {
            // ANCHOR: compaction
            launch(&mut d_out, &mut d_index, &mut d_count)
            // ANCHOR_END: compaction
        });
        // ANCHOR: compaction

        // Bytes: every value read once, each kept value and its index written once.
        let bytes = (n * 4 + count * 8) as f64;
        // ANCHOR_END: compaction
        record(
            &format!("compaction {label}, n={n}"),
            &t,
            Work::Bytes(bytes),
        );
        // ANCHOR: compaction
        println!(
            "{label}: {}, {}, {atomics} atomicAdd calls as written",
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms)
        );
        report(&values, &want, out, index, promise);
    }
}
// ANCHOR_END: compaction

// ANCHOR: checks
/// The checks: the count, the kept elements as a set (their indices, sorted), each value
/// against its index, and whether each group's elements (a warp's, or a block's) came out
/// together and in input order.
fn report(
    values: &[f32],
    want: &[u32],
    out: &[f32],
    index: &[u32],
    promise: Option<(&str, usize)>,
) {
    // ANCHOR_END: checks
    println!(
        "    count equals the CPU's: {}",
        verdict(out.len() == want.len())
    );
    // ANCHOR: checks
    let mut sorted = index.to_vec();
    sorted.par_sort_unstable();
    // ANCHOR_END: checks
    println!(
        "    kept the same elements as the CPU: {}",
        verdict(sorted == want)
    );
    // ANCHOR: checks
    let values_right = index
        .iter()
        .zip(out)
        .all(|(&i, &v)| values.get(i as usize) == Some(&v));
    // ANCHOR_END: checks
    println!(
        "    every value is the input's value at its index: {}",
        verdict(values_right)
    );
    // ANCHOR: checks
    // A group's elements are in order if each kept index follows the previous one of the
    // same group, and the group's elements are together if each group starts only one run.
    let (name, size) = promise.unwrap_or(("warp", 32));
    let group = |i: u32| i as usize / size;
    let mut runs = 0usize;
    let mut out_of_order = 0usize;
    for (k, &i) in index.iter().enumerate() {
        match k.checked_sub(1).map(|p| index[p]) {
            Some(prev) if group(prev) == group(i) => out_of_order += usize::from(prev > i),
            _ => runs += 1,
        }
    }
    let groups = want.chunk_by(|&a, &b| group(a) == group(b)).count();
    if promise.is_some() {
        // ANCHOR_END: checks
        println!(
            "    each {name}'s elements together and in input order: {}",
            verdict(runs == groups && out_of_order == 0)
        );
        // ANCHOR: checks
    } else {
        println!(
            "    runs of one {name}'s elements: {runs} for {groups} {name}s, \
             {out_of_order} out of order (varies)"
        );
    }
}
// ANCHOR_END: checks
