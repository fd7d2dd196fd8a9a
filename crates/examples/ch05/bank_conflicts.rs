//! A bank conflict, measured: the same sums read from a 32x32 shared tile by columns, without
//! and with a padding column, checked against the CPU and timed.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, ensure_memory, gpu_or_exit, problem_size};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_speedup, record, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

mod ch05_banks {
    course::kernels!("ch05-banks.cu");
}

const TILE: usize = 32;

/// What thread (lane, warp) of a block writes: the sum of row `lane` of the block's tile,
/// added in the kernel's order, from column `warp` round to column `warp - 1`.
fn row_sums_cpu(x: &[f32]) -> Vec<f32> {
    let mut sums = vec![0.0; x.len()];
    sums.par_chunks_mut(TILE * TILE)
        .zip(x.par_chunks(TILE * TILE))
        .for_each(|(out, tile)| {
            for warp in 0..TILE {
                for lane in 0..TILE {
                    let mut sum = 0.0f32;
                    for k in 0..TILE {
                        sum += tile[lane * TILE + (warp + k) % TILE];
                    }
                    out[warp * TILE + lane] = sum;
                }
            }
        });
    sums
}

/// One block of 32x32 threads per tile.
fn one_block_per_tile(tiles: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (TILE as u32, TILE as u32, 1),
        shared_mem_bytes: 0,
    }
}

fn main() {
    let (tiles, seed) = course::cli::parse(
        "Sums the rows of 32x32 tiles read by columns from shared memory, without and with \
         padding, and times both.",
        |args| {
            (
                args.usize(
                    "TILES",
                    "the number of 32x32 tiles",
                    // compute-sanitizer checks every shared access: a few hundred tiles do.
                    problem_size(1 << 15, 256),
                    1,
                    1 << 20,
                ),
                args.seed(),
            )
        },
    );
    let n = tiles * TILE * TILE;
    let ctx = gpu_or_exit();
    ensure_memory(&ctx, 8 * n, &format!("bank_conflicts on {tiles} tiles"));
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch05-banks.cu"), false);
    let k = ch05_banks::Kernels::load(&module);
    require_block_size(
        &k.row_sums_unpadded.function,
        "row_sums_unpadded",
        TILE * TILE,
    );
    require_block_size(&k.row_sums_padded.function, "row_sums_padded", TILE * TILE);

    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let want = row_sums_cpu(&x);
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let config = one_block_per_tile(tiles);
    println!("{tiles} tiles of {TILE}x{TILE} floats ({n} floats), seed {seed}");

    // ANCHOR: launch
    // The two kernels take the same arguments and the same launch.
    let run = |stream: &Arc<CudaStream>, padded: bool, out: &mut CudaSlice<f32>| match padded {
        false => k
            .row_sums_unpadded
            .launch(stream, config, &d_x, out)
            .or_exit_launching(&k.row_sums_unpadded),
        true => k
            .row_sums_padded
            .launch(stream, config, &d_x, out)
            .or_exit_launching(&k.row_sums_padded),
    };
    // ANCHOR_END: launch
    let mut times = Vec::new();
    for (padded, name) in [(false, "unpadded [32][32]"), (true, "padded [32][33]")] {
        let mut d_sums = alloc_poisoned::<f32>(&stream, n);
        run(&stream, padded, &mut d_sums);
        let sums = stream.clone_dtoh(&d_sums).or_exit("copy from the GPU");
        let wrong = count_mismatches(&sums, &want);
        let t = time_gpu(&stream, 3, 21, || run(&stream, padded, &mut d_sums));
        record(
            &format!("row sums, {name}"),
            &t,
            Work::Bytes(8.0 * n as f64),
        );
        println!(
            "{name:<18} sums that differ from the CPU's: {wrong} of {n}: {}",
            verdict(wrong == 0)
        );
        times.push(t.median_ms);
    }
    let ratio = times[0] / times[1];
    println!(
        "the column read without padding is {} slower, at least 4x: {}",
        fmt_speedup(times[0], times[1]),
        verdict(ratio >= 4.0)
    );
}
