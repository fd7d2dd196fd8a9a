//! Practice 1: reversing tiles whose length the launch decides, through dynamic shared
//! memory. Tiles of 128 and of 512 floats, each checked against the CPU.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

mod ch05_tiles {
    course::kernels!("ch05-tiles.cu");
}

fn reverse_each_tile(x: &[f32], tile: usize) -> Vec<f32> {
    let mut out = x.to_vec();
    out.par_chunks_mut(tile).for_each(|piece| piece.reverse());
    out
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Reverses tiles of 128 and of 512 floats through dynamic shared memory on the GPU.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of floats (a multiple of 512)",
                    1 << 20,
                    512,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    if !n.is_multiple_of(512) {
        course::cli::fail(&format!(
            "the number of floats must be a multiple of 512, not {n}"
        ));
    }
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{n} floats, seed {seed}");
    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let module = load(&ctx, &kernel_file!("ch05-tiles.cu"), false);
    let k = ch05_tiles::Kernels::load(&module);
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");

    // ANCHOR: sizes
    for tile in [128usize, 512] {
        let mut d_out = alloc_poisoned::<f32>(&stream, n);
        let cfg = LaunchConfig {
            grid_dim: ((n / tile) as u32, 1, 1),
            block_dim: (tile as u32, 1, 1),
            // The kernel's `extern __shared__` tile.
            shared_mem_bytes: (tile * size_of::<f32>()) as u32,
        };
        k.reverse_tiles_dynamic
            .launch(&stream, cfg, &d_x, &mut d_out)
            .or_exit_launching(&k.reverse_tiles_dynamic);
        let out = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
        let want = reverse_each_tile(&x, tile);
        // ANCHOR_END: sizes
        println!(
            "tiles of {tile:>3} floats ({} bytes of shared memory per block): \
             {} wrong, matches the CPU: {}",
            cfg.shared_mem_bytes,
            count_mismatches(&out, &want),
            verdict(out == want)
        );
        // ANCHOR: sizes
    }
    // ANCHOR_END: sizes
}
