//! Reverse every 256-element tile of an array through shared memory, and check it on the CPU.
use course::cli::arg_usize;
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use rayon::prelude::*;

const TILE: usize = 256;

/// The CPU reference: every `tile`-long piece of `x`, reversed in place.
fn reverse_each_tile(x: &[f32], tile: usize) -> Vec<f32> {
    let mut out = x.to_vec();
    out.par_chunks_mut(tile).for_each(|piece| piece.reverse());
    out
}

fn main() {
    let tiles = arg_usize(1, "the number of tiles", 4096, 1, 1 << 20);
    let n = tiles * TILE;
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));

    let seed = fresh_seed();
    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let want = reverse_each_tile(&x, TILE);

    // ANCHOR: launch
    let module = load(&ctx, &kernel_file!("ch05-tiles.cu"), false);
    let reverse_tiles = function(&module, "reverse_tiles");
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");
    let mut d_out = alloc_poisoned::<f32>(&stream, n);
    let one_block_per_tile = LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: (TILE as u32, 1, 1),
        shared_mem_bytes: 0, // the kernel's tile is static: its size is in the PTX
    };
    unsafe {
        stream
            .launch_builder(&reverse_tiles)
            .arg(&d_x)
            .arg(&mut d_out)
            .launch(one_block_per_tile)
    }
    .or_exit("launch reverse_tiles");
    let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
    // ANCHOR_END: launch

    // ANCHOR: print
    println!("{n} floats in {tiles} tiles of {TILE}");
    println!("x,   slots 0..4 of tile 0:     {} (varies)", show(&x[..4]));
    println!(
        "out, slots 252..256 of tile 0: {} (varies)",
        show(&out[TILE - 4..TILE])
    );
    println!(
        "elements that differ from the CPU: {}",
        count_mismatches(&out, &want)
    );
    println!("matches the CPU: {}", verdict(out == want));
    println!("seed {seed} (varies)");
    // ANCHOR_END: print
}

fn show(values: &[f32]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:6.3}")).collect();
    format!("[{}]", items.join(", "))
}
