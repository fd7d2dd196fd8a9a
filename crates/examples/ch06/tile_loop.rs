//! Smooth every 256-point tile of an array in shared memory, step after step, with the two
//! barriers each step needs; check it exactly against the CPU and time it.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::LaunchConfig;
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
        "Smooths every 256-point tile of an array in shared memory, with two barriers a step.",
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
    let last = n - (tiles - 1) * TILE;
    println!(
        "{n} random integers in {tiles} tiles of {TILE} (the last has {last}), {steps} steps per tile"
    );
    println!("seed {seed}");

    // ANCHOR: launch
    let module = load(&ctx, &kernel_file!("ch06-barriers.cu"), false);
    let k = ch06_barriers::Kernels::load(&module);
    require_block_size(&k.smooth_tiles.function, "smooth_tiles", TILE);
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let mut d_out = alloc_poisoned::<u32>(&stream, n);
    let cfg = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (TILE as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let launch = |x: &_, out: &mut _| {
        k.smooth_tiles
            .launch(&stream, cfg, x, out, steps as i32)
            .or_exit_launching(&k.smooth_tiles);
    };
    launch(&d_x, &mut d_out);
    let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
    let wrong = count_mismatches(&out, &want);
    // ANCHOR_END: launch
    println!(
        "matches the CPU exactly ({wrong} of {n} elements differ): {}",
        verdict(wrong == 0)
    );

    // The known answer: in every tile, the ramp 4j (j = 0..255) keeps its value at every point
    // more than `steps` from the tile's ends, since (4(j - 1) + 8j + 4(j + 1)) / 4 = 4j.
    let ramp: Vec<u32> = (0..n).map(|i| 4 * (i % TILE) as u32).collect();
    let d_ramp = stream.clone_htod(&ramp).or_exit("copy to the GPU");
    launch(&d_ramp, &mut d_out);
    let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
    let kept = out
        .chunks(TILE)
        .zip(ramp.chunks(TILE))
        .all(|(got, ramp)| (steps..ramp.len().saturating_sub(steps)).all(|j| got[j] == ramp[j]));
    println!(
        "the ramp 4j of each tile keeps its value more than {steps} points from the tile's ends: {}",
        verdict(kept)
    );

    let t = time_gpu(&stream, 2, 20, || launch(&d_x, &mut d_out));
    let bytes = 2.0 * 4.0 * n as f64; // each point read once and written once
    record(
        &format!("smooth_tiles n={n} steps={steps}"),
        &t,
        Work::Bytes(bytes),
    );
    println!(
        "kernel time {}, {} (read + written)",
        fmt_ms(t.median_ms),
        fmt_gb_per_s(bytes, t.median_ms)
    );
}
