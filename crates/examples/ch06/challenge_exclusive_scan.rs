//! Challenge: an exclusive scan in a warp, checked exactly against the CPU, and used on keep
//! flags to give each kept element its position among its warp's kept elements, the same
//! position that the ballot and __popc give in stream compaction.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch06_challenges {
    course::kernels!("ch06-challenges.cu");
}

/// Exclusive scans of each warp's 32 values: element k of a warp gets the sum of elements
/// 0..k of that warp, wrapping like u32 on the GPU.
fn exclusive_per_warp(values: &[u32]) -> Vec<u32> {
    let mut out = values.to_vec();
    out.par_chunks_mut(32).for_each(|warp| {
        let mut sum = 0u32;
        for x in warp {
            let v = *x;
            *x = sum;
            sum = sum.wrapping_add(v);
        }
    });
    out
}

/// The known answer, a property of any exclusive scan: each warp starts at 0, and the
/// difference of two neighbouring results gives back the input value between them.
fn is_exclusive_scan_of(scan: &[u32], values: &[u32]) -> bool {
    scan.par_chunks(32)
        .zip(values.par_chunks(32))
        .all(|(s, v)| s[0] == 0 && (1..s.len()).all(|k| s[k].wrapping_sub(s[k - 1]) == v[k - 1]))
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Challenge: an exclusive warp scan, and each kept element's position two ways.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of values",
                    problem_size(1 << 22, 1 << 20),
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
    let module = load(&ctx, &kernel_file!("ch06-challenges.cu"), false);
    let k = ch06_challenges::Kernels::load(&module);
    let mut rng = Rng::new(seed);
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    println!("{n} values, seed {seed}");

    // ANCHOR: check_scan
    let values: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let d_values = stream.clone_htod(&values).or_exit("copy to the GPU");
    let mut d_out = alloc_poisoned::<u32>(&stream, n);
    k.exclusive_scan_warps
        .launch(&stream, cfg, &d_values, &mut d_out)
        .or_exit_launching(&k.exclusive_scan_warps);
    let got = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
    let wrong = count_mismatches(&got, &exclusive_per_warp(&values));
    // ANCHOR_END: check_scan
    println!(
        "exclusive warp scan of random u32 equals the CPU exactly ({wrong} differ): {}",
        verdict(wrong == 0)
    );
    println!(
        "it starts every warp at 0, and its differences give back the input: {}",
        verdict(is_exclusive_scan_of(&got, &values))
    );

    // ANCHOR: check_positions
    let floats = rng.vec_f32(n, 0.0, 1.0);
    let threshold = 0.5f32;
    let flags: Vec<u32> = floats.iter().map(|&v| u32::from(v > threshold)).collect();
    let want = exclusive_per_warp(&flags);
    let d_floats = stream.clone_htod(&floats).or_exit("copy to the GPU");
    let mut d_by_scan = alloc_poisoned::<u32>(&stream, n);
    let mut d_by_ballot = alloc_poisoned::<u32>(&stream, n);
    k.positions_two_ways
        .launch(
            &stream,
            cfg,
            &d_floats,
            threshold,
            &mut d_by_scan,
            &mut d_by_ballot,
        )
        .or_exit_launching(&k.positions_two_ways);
    let by_scan = stream.clone_dtoh(&d_by_scan).or_exit("copy from the GPU");
    let by_ballot = stream.clone_dtoh(&d_by_ballot).or_exit("copy from the GPU");
    let (w1, w2) = (
        count_mismatches(&by_scan, &want),
        count_mismatches(&by_ballot, &want),
    );
    // ANCHOR_END: check_positions
    println!(
        "positions from the scan of keep flags equal the CPU ({w1} differ): {}",
        verdict(w1 == 0)
    );
    println!(
        "positions from __popc(ballot & lanes below) equal the CPU ({w2} differ): {}",
        verdict(w2 == 0)
    );
}
