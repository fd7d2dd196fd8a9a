//! What each piece of the look-back guards against, shown by scans that lack it: flags read with
//! plain loads, a value loaded before its flag with no fences, and one word that holds first the
//! aggregate and then the prefix. Each runs five times on 2^22 unsigned integers, against the
//! CPU's scan; then separate words with their fences, which must be right every time.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod ch08_scan_pitfalls {
    course::kernels!("ch08-scan-pitfalls.cu");
}
use ch08_scan_pitfalls::{Kernels, ScanPlainLoads as Launcher};

const RUNS: usize = 5;

/// One run of `kernel` from fresh status words: how many elements are wrong, and whether a
/// tile gave up waiting.
fn run(
    stream: &Arc<CudaStream>,
    kernel: &Launcher,
    input: &CudaSlice<u32>,
    want: &[u32],
) -> (usize, bool) {
    let n = want.len();
    let tiles = n.div_ceil(256);
    let mut out = alloc_poisoned::<u32>(stream, n);
    let zeros = |len: usize| {
        stream
            .alloc_zeros::<u32>(len)
            .or_exit("allocate the status")
    };
    let (mut aggregates, mut prefixes) = (zeros(tiles), zeros(tiles));
    let (mut flags, mut next_tile) = (zeros(tiles), zeros(1));
    let mut stalled = stream
        .alloc_zeros::<i32>(1)
        .or_exit("allocate the stall flag");
    let config = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    kernel
        .launch(
            stream,
            config,
            input,
            &mut out,
            &mut aggregates,
            &mut prefixes,
            &mut flags,
            &mut next_tile,
            &mut stalled,
        )
        .or_exit_launching(kernel);
    let got = stream.clone_dtoh(&out).or_exit("copy the scan back");
    let stalled = stream.clone_dtoh(&stalled).or_exit("read the stall flag")[0] != 0;
    (count_mismatches(&got, want), stalled)
}

fn main() {
    let seed = course::cli::parse(
        "Runs look-back scans that lack a piece (volatile loads, fences) five times each, and one that has them.",
        |args| args.seed(),
    );
    let n = problem_size(1 << 22, 1 << 16);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let k = Kernels::load(&load(&ctx, &kernel_file!("ch08-scan-pitfalls.cu"), false));
    let mut rng = Rng::new(seed);
    let input: Vec<u32> = (0..n).map(|_| (rng.next_u64() >> 40) as u32).collect();
    let want: Vec<u32> = input
        .iter()
        .scan(0u32, |sum, &x| {
            *sum = sum.wrapping_add(x);
            Some(*sum)
        })
        .collect();
    let input_dev = stream
        .clone_htod(&input)
        .or_exit("copy the input to the GPU");
    println!(
        "n=2^{}: u32 below 2^24, seed {seed}; {RUNS} runs of each kernel",
        n.trailing_zeros()
    );

    // ANCHOR: runs
    for (what, kernel) in [
        ("flags read with plain loads", &k.scan_plain_loads),
        (
            "value loaded before its flag, no fences",
            &k.scan_split_reordered,
        ),
        ("aggregate and prefix in one word", &k.scan_one_word),
    ] {
        let runs: Vec<(usize, bool)> = (0..RUNS)
            .map(|_| run(&stream, kernel, &input_dev, &want))
            .collect();
        let wrong_runs = runs.iter().filter(|&&(wrong, _)| wrong > 0).count();
        let stalled_runs = runs.iter().filter(|&&(_, stalled)| stalled).count();
        let most = runs.iter().map(|&(wrong, _)| wrong).max().unwrap_or(0);
        println!("{what}:");
        println!(
            "  runs with wrong elements {wrong_runs}, with a tile that gave up {stalled_runs}, \
             at most {most} of {n} elements wrong (varies)"
        );
        // ANCHOR_END: runs
        println!(
            "  went wrong in at least one run: {}",
            verdict(wrong_runs > 0)
        );
        // ANCHOR: runs
    }
    let runs: Vec<(usize, bool)> = (0..RUNS)
        .map(|_| run(&stream, &k.scan_split_fenced, &input_dev, &want))
        .collect();
    let right = runs.iter().all(|&(wrong, stalled)| wrong == 0 && !stalled);
    println!("separate words, loaded in order, with fences:");
    // ANCHOR_END: runs
    println!(
        "  equal to the CPU's scan in all {RUNS} runs, no tile stalled: {}",
        verdict(right)
    );
}
