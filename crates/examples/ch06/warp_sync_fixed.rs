//! The warp sum through shared memory with `__syncwarp()` alone, the kernel the GPU check runs
//! under compute-sanitizer's four tools: 20 launches on random integers, every warp's sum
//! against the CPU's, and once on ones. (`warp_sync` runs it beside the kernel without the
//! barrier, which racecheck reports.)
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

mod ch06_warp_sync {
    course::kernels!("ch06-warp-sync.cu");
}

const THREADS: usize = 256; // THREADS of the kernel file
const RUNS: usize = 20;

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums each warp's 32 integers through shared memory with __syncwarp, 20 times.",
        |args| {
            (
                args.usize("N", "the number of integers", 1 << 20, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-warp-sync.cu"), false);
    let kernel = ch06_warp_sync::Kernels::load(&module).warp_sum_synced;
    require_block_size(&kernel.function, kernel.name, THREADS);
    let mut rng = Rng::new(seed);
    let x: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
    let want: Vec<i32> = x.chunks(32).map(|piece| piece.iter().sum()).collect();
    let sums_of = |values: &[i32]| {
        let d_x = stream.clone_htod(values).or_exit("copy to the GPU");
        let mut sums = alloc_poisoned::<i32>(&stream, n.div_ceil(32));
        let config = LaunchConfig {
            grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        kernel
            .launch(&stream, config, &d_x, &mut sums)
            .or_exit_launching(&kernel);
        stream.clone_dtoh(&sums).or_exit("copy the sums back")
    };
    let wrong_runs = (0..RUNS).filter(|_| sums_of(&x) != want).count();
    let on_ones = sums_of(&vec![1; n])[0];
    println!(
        "{n} integers in -1000..=1000, seed {seed}: {} warps",
        want.len()
    );
    println!(
        "with __syncwarp: wrong in {wrong_runs} of {RUNS} launches; \
         the first warp's sum of {} ones: {on_ones}",
        n.min(32)
    );
    println!(
        "every sum right in every launch: {}",
        verdict(wrong_runs == 0 && on_ones == n.min(32) as i32)
    );
}
