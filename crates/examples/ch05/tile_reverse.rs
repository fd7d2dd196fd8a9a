//! Reverse every 256-element tile of an array through shared memory, and check it on the CPU
//! and on an input whose answer is known.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel::require_block_size;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaStream, LaunchConfig};
use rayon::prelude::*;

const TILE: usize = 256;

mod ch05_tiles {
    course::kernels!("ch05-tiles.cu");
}

/// The CPU reference: every `tile`-long piece of `x`, reversed in place.
fn reverse_each_tile(x: &[f32], tile: usize) -> Vec<f32> {
    let mut out = x.to_vec();
    out.par_chunks_mut(tile).for_each(|piece| piece.reverse());
    out
}

// ANCHOR: launch
/// Reverse each tile of `x` (a whole number of tiles) on the GPU, one block per tile.
fn reverse_on_gpu(
    stream: &Arc<CudaStream>,
    reverse_tiles: &ch05_tiles::ReverseTiles,
    x: &[f32],
) -> Vec<f32> {
    let d_x = stream.clone_htod(x).or_exit("copy to the GPU");
    let mut d_out = alloc_poisoned::<f32>(stream, x.len());
    let one_block_per_tile = LaunchConfig {
        grid_dim: ((x.len() / TILE) as u32, 1, 1),
        block_dim: (TILE as u32, 1, 1),
        shared_mem_bytes: 0, // the kernel's tile is static: its size is in the PTX
    };
    reverse_tiles
        .launch(stream, one_block_per_tile, &d_x, &mut d_out)
        .or_exit_launching(reverse_tiles);
    stream.clone_dtoh(&d_out).or_exit("copy from the GPU")
}
// ANCHOR_END: launch

fn main() {
    let (tiles, seed) = course::cli::parse(
        "Reverses every 256-float tile of an array through shared memory on the GPU.",
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
    let module = load(&ctx, &kernel_file!("ch05-tiles.cu"), false);
    let k = ch05_tiles::Kernels::load(&module);
    require_block_size(&k.reverse_tiles.function, "reverse_tiles", TILE);

    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let want = reverse_each_tile(&x, TILE);
    let out = reverse_on_gpu(&stream, &k.reverse_tiles, &x);

    // A known answer: on 0, 1, 2, ... (exact in float32 up to 2^24), slot s of tile k must
    // hold 256k + 255 - s.
    let m = n.min(1 << 24);
    let counting: Vec<f32> = (0..m).map(|i| i as f32).collect();
    let counted = reverse_on_gpu(&stream, &k.reverse_tiles, &counting);
    let known = counted
        .iter()
        .enumerate()
        .all(|(i, &v)| v == (i / TILE * TILE + TILE - 1 - i % TILE) as f32);

    // ANCHOR: print
    println!("{n} floats in {tiles} tiles of {TILE}, seed {seed}");
    println!("x,   slots 0..4 of tile 0:     {}", show(&x[..4]));
    println!(
        "out, slots 252..256 of tile 0: {}",
        show(&out[TILE - 4..TILE])
    );
    println!(
        "elements that differ from the CPU: {} of {n}",
        count_mismatches(&out, &want)
    );
    println!("matches the CPU: {}", verdict(out == want));
    println!(
        "on the input 0, 1, ..., {}: slot s of tile k holds 256k + 255 - s: {}",
        m - 1,
        verdict(known)
    );
    // ANCHOR_END: print
}

fn show(values: &[f32]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:6.3}")).collect();
    format!("[{}]", items.join(", "))
}
