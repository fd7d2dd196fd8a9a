//! The tile smoothing of `tile_loop` without the barrier after the reads, launched three times:
//! how many elements come out wrong? Then both kernels are timed, to see what the barrier costs.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_ms, fmt_speedup, record, time_gpu};
use cudarc::driver::{CudaSlice, LaunchConfig};
use rayon::prelude::*;

const TILE: usize = 256;

mod ch06_barriers {
    course::kernels!("ch06-barriers.cu");
}

fn smooth_point(left: u32, centre: u32, right: u32) -> u32 {
    (left + 2 * centre + right) / 4
}

/// The CPU reference: each tile of `x` smoothed `steps` times on its own, its ends using
/// themselves as the missing neighbour (a rayon task per tile).
fn smooth_each_tile(x: &[u32], steps: usize) -> Vec<u32> {
    let mut out = x.to_vec();
    out.par_chunks_mut(TILE).for_each(|tile| {
        let len = tile.len();
        let mut next = vec![0; len];
        for _ in 0..steps {
            for i in 0..len {
                next[i] = smooth_point(
                    tile[i.saturating_sub(1)],
                    tile[i],
                    tile[(i + 1).min(len - 1)],
                );
            }
            tile.copy_from_slice(&next);
        }
    });
    out
}

fn main() {
    let (n, steps, seed) = course::cli::parse(
        "Runs the tile smoothing without the barrier after the reads, and counts what goes wrong.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of points",
                    problem_size(10_000_000, 100_000),
                    1,
                    1 << 28,
                ),
                args.usize("STEPS", "the number of steps", 16, 0, 10_000),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));

    let mut rng = Rng::new(seed);
    let x: Vec<u32> = (0..n).map(|_| rng.below(1 << 20) as u32).collect();
    let want = smooth_each_tile(&x, steps);
    let tiles = n.div_ceil(TILE);
    println!("{n} random integers in {tiles} tiles of {TILE}, {steps} steps per tile");
    println!("seed {seed}");

    let module = load(&ctx, &kernel_file!("ch06-barriers.cu"), false);
    let k = ch06_barriers::Kernels::load(&module);
    require_block_size(&k.smooth_tiles.function, "smooth_tiles", TILE);
    require_block_size(
        &k.smooth_tiles_one_barrier.function,
        "smooth_tiles_one_barrier",
        TILE,
    );
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let cfg = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (TILE as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let two_barriers = |out: &mut CudaSlice<u32>| {
        k.smooth_tiles
            .launch(&stream, cfg, &d_x, out, steps as i32)
            .or_exit_launching(&k.smooth_tiles);
    };
    // The racing kernel has no contract, so its launcher is unsafe.
    let one_barrier = |out: &mut CudaSlice<u32>| {
        // SAFETY: the same buffers, grid and blocks of TILE threads as smooth_tiles, whose
        // contract they keep: every thread stays inside x, out and its tile. The missing
        // barrier races only on values in shared memory, which is what this program shows.
        unsafe {
            k.smooth_tiles_one_barrier
                .launch(&stream, cfg, &d_x, out, n as i32, steps as i32)
        }
        .or_exit_launching(&k.smooth_tiles_one_barrier);
    };

    // ANCHOR: launches
    let mut any_wrong = false;
    for attempt in 0..3 {
        let mut d_out = alloc_poisoned::<u32>(&stream, n);
        one_barrier(&mut d_out);
        ctx.synchronize().or_exit("wait for the GPU"); // also when compute-sanitizer reports
        let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
        let wrong = count_mismatches(&out, &want);
        any_wrong |= wrong > 0;
        println!(
            "one barrier, launch {attempt}: {wrong} of {n} elements differ from the CPU (varies)"
        );
    }
    // ANCHOR_END: launches
    println!(
        "one barrier: elements came out wrong in at least one of 3 launches: {}",
        verdict(any_wrong)
    );
    // ANCHOR: launches
    let mut d_out = alloc_poisoned::<u32>(&stream, n);
    two_barriers(&mut d_out);
    let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
    let wrong = count_mismatches(&out, &want);
    // ANCHOR_END: launches
    println!(
        "two barriers: matches the CPU exactly ({wrong} of {n} elements differ): {}",
        verdict(wrong == 0)
    );

    // ANCHOR: timing
    let bytes = 2.0 * 4.0 * n as f64;
    let t2 = time_gpu(&stream, 2, 20, || two_barriers(&mut d_out));
    let t1 = time_gpu(&stream, 2, 20, || one_barrier(&mut d_out));
    record(
        &format!("smooth_tiles (two barriers) n={n} steps={steps}"),
        &t2,
        Work::Bytes(bytes),
    );
    record(
        &format!("smooth_tiles_one_barrier n={n} steps={steps}"),
        &t1,
        Work::Bytes(bytes),
    );
    println!("time with two barriers per step: {}", fmt_ms(t2.median_ms));
    println!("time with one barrier per step:  {}", fmt_ms(t1.median_ms));
    println!(
        "two barriers take {} the time of one",
        fmt_speedup(t2.median_ms, t1.median_ms)
    );
    // ANCHOR_END: timing
}
