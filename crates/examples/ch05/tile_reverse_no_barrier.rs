//! The tile reverse with its barrier removed, launched three times: how many elements come
//! out wrong each time?
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel::require_block_size;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

const TILE: usize = 256;

mod ch05_no_barrier {
    course::kernels!("ch05-no-barrier.cu");
}

fn reverse_each_tile(x: &[f32], tile: usize) -> Vec<f32> {
    let mut out = x.to_vec();
    out.par_chunks_mut(tile).for_each(|piece| piece.reverse());
    out
}

fn main() {
    let (tiles, seed) = course::cli::parse(
        "Reverses 256-float tiles without the barrier, three times, and counts the wrong elements.",
        |args| {
            (
                args.usize("TILES", "the number of tiles", 4096, 1, 1 << 20),
                args.seed(),
            )
        },
    );
    let n = tiles * TILE;
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{n} floats in {tiles} tiles of {TILE}, seed {seed}");

    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let want = reverse_each_tile(&x, TILE);

    let module = load(&ctx, &kernel_file!("ch05-no-barrier.cu"), false);
    let reverse_no_barrier = ch05_no_barrier::Kernels::load(&module).reverse_tiles_no_barrier;
    require_block_size(
        &reverse_no_barrier.function,
        "reverse_tiles_no_barrier",
        TILE,
    );

    // ANCHOR: launches
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let cfg = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (TILE as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launches_with_wrong_elements = 0;
    for launch in 0..3 {
        let mut d_out = alloc_poisoned::<f32>(&stream, n);
        // No `unsafe`: the contract is about bounds, which hold; the race is in shared memory.
        reverse_no_barrier
            .launch(&stream, cfg, &d_x, &mut d_out)
            .or_exit_launching(&reverse_no_barrier);
        ctx.synchronize().or_exit("wait for the GPU"); // also when compute-sanitizer reports
        let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
        let wrong = count_mismatches(&out, &want);
        println!("launch {launch}: {wrong} of {n} elements wrong (varies)");
        if wrong > 0 {
            launches_with_wrong_elements += 1;
        }
    }
    // ANCHOR_END: launches
    println!(
        "elements came out wrong in at least one of the 3 launches: {}",
        verdict(launches_with_wrong_elements > 0)
    );
}
