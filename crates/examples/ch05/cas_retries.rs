//! Practice 2: how often does the compare-and-swap loop of the float maximum lose to another
//! thread and try again? Random values against the same values sorted in ascending order.
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::fmt_times;
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch05_atomic_max {
    course::kernels!("ch05-atomic-max.cu");
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Counts the retries of the float maximum's compare-and-swap loop, random vs ascending.",
        |args| {
            (
                args.usize("N", "the number of values", 1 << 20, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{n} values in [0, 1), seed {seed}");
    let module = load(&ctx, &kernel_file!("ch05-atomic-max.cu"), false);
    let k = ch05_atomic_max::Kernels::load(&module);
    let random = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    let mut ascending = random.clone();
    ascending.par_sort_unstable_by(f32::total_cmp);
    let want = random
        .par_iter()
        .copied()
        .reduce(|| f32::NEG_INFINITY, f32::max);

    // ANCHOR: retries
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut retries = Vec::new();
    for (label, values) in [("random order", &random), ("ascending", &ascending)] {
        let d_values = stream.clone_htod(values).or_exit("copy to the GPU");
        let mut d_result = stream
            .clone_htod(&[f32::NEG_INFINITY])
            .or_exit("copy to the GPU");
        let mut d_retries = stream.alloc_zeros::<u32>(1).or_exit("allocate GPU memory");
        k.max_float_cas_counted
            .launch(&stream, cfg, &d_values, &mut d_result, &mut d_retries)
            .or_exit_launching(&k.max_float_cas_counted);
        let got = stream.clone_dtoh(&d_result).or_exit("copy from the GPU")[0];
        let count = stream.clone_dtoh(&d_retries).or_exit("copy from the GPU")[0];
        // ANCHOR_END: retries
        println!(
            "{label:<12}: maximum {got}, right: {}",
            verdict(got == want)
        );
        // ANCHOR: retries
        println!("{label:<12}: retries {count} (varies)");
        retries.push(count);
    }
    let ratio = retries[1] as f64 / retries[0].max(1) as f64;
    println!(
        "ascending input made {} as many retries as random order (varies)",
        fmt_times(ratio)
    );
    // ANCHOR_END: retries
}
