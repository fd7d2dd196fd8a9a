//! Challenge: chapter 5's float maximum with a compare-and-swap loop in every thread, against
//! a version that finds each warp's maximum with shuffles first, so that only lane 0 runs the
//! loop. Both count the atomicCAS calls they issue, on random and on ascending values.
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::fmt_times;
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch06_challenges {
    course::kernels!("ch06-challenges.cu");
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Challenge: a float maximum by compare-and-swap, with and without a warp reduction first.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of values",
                    problem_size(1 << 22, 1 << 20),
                    1,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-challenges.cu"), false);
    let k = ch06_challenges::Kernels::load(&module);
    let random = Rng::new(seed).vec_f32(n, -100.0, 100.0);
    let mut ascending = random.clone();
    ascending.par_sort_unstable_by(f32::total_cmp);
    let want = random
        .par_iter()
        .copied()
        .reduce(|| f32::NEG_INFINITY, f32::max);
    println!("{n} values in [-100, 100), seed {seed}");
    // The known answer: sorted ascending, the maximum is the last value.
    println!(
        "the CPU's maximum is the last of the sorted values: {}",
        verdict(ascending.last() == Some(&want))
    );

    // ANCHOR: compare
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    for (order, values) in [("random order", &random), ("ascending", &ascending)] {
        let d_values = stream.clone_htod(values).or_exit("copy to the GPU");
        let mut counts = Vec::new();
        for f in [&k.max_per_thread, &k.max_warp_first] {
            let kernel = f.name;
            let mut d_result = stream
                .clone_htod(&[f32::NEG_INFINITY])
                .or_exit("copy to the GPU");
            let mut d_attempts = stream.alloc_zeros::<u32>(1).or_exit("allocate GPU memory");
            f.launch(&stream, cfg, &d_values, &mut d_result, &mut d_attempts)
                .or_exit_launching(f);
            let got = stream.clone_dtoh(&d_result).or_exit("copy from the GPU")[0];
            let attempts = stream.clone_dtoh(&d_attempts).or_exit("copy from the GPU")[0];
            // ANCHOR_END: compare
            println!(
                "{order:<12} {kernel:<15} maximum equals the CPU's: {}",
                verdict(got == want)
            );
            // ANCHOR: compare
            println!("{order:<12} {kernel:<15} atomicCAS calls: {attempts} (varies)");
            counts.push(attempts);
        }
        println!(
            "{order:<12} warp-first needs {} fewer CAS calls (varies)",
            fmt_times(counts[0] as f64 / counts[1].max(1) as f64)
        );
        // ANCHOR_END: compare
        println!(
            "{order:<12} warp-first issues fewer atomicCAS calls: {}",
            verdict(counts[1] < counts[0])
        );
        // ANCHOR: compare
    }
    // ANCHOR_END: compare
}
