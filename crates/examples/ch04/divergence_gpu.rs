//! Warp divergence, measured: the same half-and-half split of the threads between two
//! paths, once splitting every warp and once splitting none.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_gpu};
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

mod ch04_divergence {
    course::kernels!("ch04-divergence.cu");
}

// The two paths of kernels/ch04-divergence.cu, step for step (mul_add is the fused fmaf).
fn path_a(mut v: f32, steps: usize) -> f32 {
    for _ in 0..steps {
        v = v.mul_add(0.999, 0.5);
    }
    v
}

fn path_b(mut v: f32, steps: usize) -> f32 {
    for _ in 0..steps {
        v = v.mul_add(v, -0.25) * 0.5;
    }
    v
}

fn main() {
    // A number of threads that is not a multiple of the block leaves the last block partly
    // past the end, where the kernels' `i < n` keeps it out.
    let (n, seed) = course::cli::parse(
        "Times two kernels that split their threads between two paths, by thread and by warp.",
        |args| {
            (
                args.usize("N", "the number of threads", 1 << 22, 1, 1 << 26),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-divergence.cu"), false);
    let k = ch04_divergence::Kernels::load(&module);

    let steps = 256usize;
    let input = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    println!("{n} threads, {steps} dependent multiply-adds each, seed {seed}");
    let input_dev = stream
        .clone_htod(&input)
        .or_exit("copy the input to the GPU");

    // ANCHOR: run
    let threads = 256u32;
    let config = LaunchConfig {
        grid_dim: ((n as u32).div_ceil(threads), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    let steps_arg = steps as i32;
    let mut times = Vec::new();
    // The two kernels take the same arguments, so they share one launcher type.
    for (kernel, warp_of) in [(&k.split_every_warp, 1usize), (&k.split_no_warp, 32)] {
        let name = kernel.name;
        // On the CPU: thread i is thread i % 256 of its block, and takes path a when its
        // thread number (or, for the second kernel, its warp number) is even.
        let want: Vec<f32> = (0..n)
            .into_par_iter()
            .map(|i| {
                if (i % threads as usize / warp_of) % 2 == 0 {
                    path_a(input[i], steps)
                } else {
                    path_b(input[i], steps)
                }
            })
            .collect();
        let mut out = alloc_poisoned::<f32>(&stream, n);
        // ANCHOR_END: run
        let t = time_gpu(&stream, 2, 10, || {
            // ANCHOR: run
            kernel
                .launch(&stream, config, &input_dev, &mut out, steps_arg)
                .or_exit_launching(kernel);
            // ANCHOR_END: run
        });
        // ANCHOR: run
        let got = stream
            .clone_dtoh(&out)
            .or_exit("copy the result back from the GPU");
        // ANCHOR_END: run
        println!(
            "{name:<17} {:>9}, every value equals the CPU's: {}",
            fmt_ms(t.median_ms),
            verdict(count_mismatches(&got, &want) == 0)
        );
        // ANCHOR: run
        times.push(t.median_ms);
    }
    println!(
        "splitting every warp costs {} the time of splitting none",
        fmt_speedup(times[0], times[1])
    );
    // ANCHOR_END: run
}
