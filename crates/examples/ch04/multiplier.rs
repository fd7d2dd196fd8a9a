//! Solution to the multiplier challenge: the grid-stride adder turned into an element-wise
//! multiplier, tested against the CPU.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

mod ch04_multiplier {
    course::kernels!("ch04-multiplier.cu");
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Multiplies two random arrays element by element on the GPU and checks every product.",
        |args| {
            (
                args.usize("N", "the array length", 12_000_000, 1, 100_000_000),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    // ANCHOR: solution
    let module = load(&ctx, &kernel_file!("ch04-multiplier.cu"), false);
    let k = ch04_multiplier::Kernels::load(&module);

    // n, the array length, comes from the command line: 12,000,000 unless given.
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    println!("n = {n}, seed {seed}");
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let ys_dev = stream.clone_htod(&ys).or_exit("copy ys to the GPU");
    let mut zs_dev = alloc_poisoned::<f64>(&stream, n);

    // 1. The launch configuration: 256 threads per block, enough blocks for one element each.
    let threads = 256u32;
    let blocks = (n as u32).div_ceil(threads);
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    // 2. The launch.
    // ANCHOR_END: solution
    let t = time_gpu(&stream, 2, 10, || {
        // ANCHOR: solution
        k.multiplier
            .launch(&stream, config, &xs_dev, &ys_dev, &mut zs_dev)
            .or_exit_launching(&k.multiplier);
        // ANCHOR_END: solution
    });
    // ANCHOR: solution
    // 3. The test: IEEE multiplication is exact to the bit on both sides.
    let zs = stream
        .clone_dtoh(&zs_dev)
        .or_exit("copy zs back from the GPU");
    let want: Vec<f64> = xs.par_iter().zip(&ys).map(|(x, y)| x * y).collect();
    // ANCHOR_END: solution
    println!(
        "every product equals the CPU's: {}",
        verdict(count_mismatches(&zs, &want) == 0)
    );
    let bytes = 24.0 * n as f64;
    record("multiplier, n=1.2e7 f64", &t, Work::Bytes(bytes));
    println!(
        "{blocks} blocks of {threads} threads: {}, {}",
        fmt_ms(t.median_ms),
        fmt_gb_per_s(bytes, t.median_ms)
    );
}
