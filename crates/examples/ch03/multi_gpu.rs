//! Several GPUs: count them, give each a share of an array, square every share on its own GPU at
//! the same time, and gather the results. With an argument, use that many GPUs (and skip, with
//! the exit status of too few GPUs, when fewer are visible); without one, use every GPU there is.
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig};

use course::compare::{count_mismatches, verdict};
use course::exit::EXIT_TOO_FEW_GPUS;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::fmt_ms;

mod ch03_streams {
    course::kernels!("ch03-streams.cu");
}

/// One GPU's share of the work.
struct Share {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    square: ch03_streams::Square,
    range: std::ops::Range<usize>,
    input: CudaSlice<f32>,
    output: CudaSlice<f32>,
}

fn main() {
    let (wanted, seed) = course::cli::parse(
        "Squares one array spread over GPUS GPUs (without GPUS, every one visible).",
        |args| {
            let gpus = args.optional_usize("GPUS", "the number of GPUs to use", 1, 1024);
            (gpus, args.seed())
        },
    );
    let first = gpu_or_exit(); // a driver and at least one GPU, or a clear sentence and exit 77
    // ANCHOR: count
    let count = CudaContext::device_count().or_exit("count the GPUs") as usize;
    match std::env::var("CUDA_VISIBLE_DEVICES") {
        Ok(list) => {
            println!("CUDA_VISIBLE_DEVICES={list}: only those GPUs are visible, numbered from 0")
        }
        Err(_) => println!("CUDA_VISIBLE_DEVICES is not set: every GPU is visible"),
    }
    println!("GPUs visible: {count} (this machine)");
    // ANCHOR_END: count
    let using = wanted.unwrap_or(count);
    if using > count {
        println!("This run needs {using} GPUs but sees {count}; skipping it.");
        std::process::exit(EXIT_TOO_FEW_GPUS);
    }
    match wanted {
        Some(_) => println!("using {using} of them"),
        None => println!("using all {using} of them (this machine)"),
    }

    println!("seed {seed}");
    let n = problem_size(1 << 27, 1 << 20); // f32 values in all: 512 MB
    let data = Rng::new(seed).vec_f32(n, -2.0, 2.0);

    // ANCHOR: shares
    // Each GPU gets its own context, stream, copy of the kernel and slice of the data.
    let per_gpu = n.div_ceil(using);
    let mut shares: Vec<Share> = (0..using)
        .map(|i| {
            let ctx = if i == 0 {
                first.clone()
            } else {
                CudaContext::new(i).or_exit("open a GPU")
            };
            let stream = ctx.default_stream();
            let module = kernel::load(&ctx, &kernel_file!("ch03-streams.cu"), false);
            let square = ch03_streams::Kernels::load(&module).square;
            let range = i * per_gpu..((i + 1) * per_gpu).min(n);
            let input = stream
                .clone_htod(&data[range.clone()])
                .or_exit("copy to a GPU");
            let output = alloc_poisoned::<f32>(&stream, range.len());
            Share {
                ctx,
                stream,
                square,
                range,
                input,
                output,
            }
        })
        .collect();
    for s in &shares {
        println!("{}", describe(&s.ctx));
        let (a, b) = (s.range.start, s.range.end);
        println!(
            "GPU {} holds elements {a}..{b}: input on GPU {}, output on GPU {}",
            s.ctx.ordinal(),
            s.input.ordinal(),
            s.output.ordinal()
        );
    }
    // ANCHOR_END: shares

    // ANCHOR: compute
    // Launch on every GPU first (launches return at once), then wait for each: they run together.
    let mut square_everywhere = || {
        let start = Instant::now();
        for s in shares.iter_mut() {
            let cfg = LaunchConfig::for_num_elems(s.range.len() as u32);
            s.square
                .launch(&s.stream, cfg, &s.input, &mut s.output)
                .or_exit_launching(&s.square);
        }
        for s in shares.iter() {
            s.stream.synchronize().or_exit("wait for a GPU");
        }
        start.elapsed().as_secs_f64() * 1e3
    };
    square_everywhere(); // the first launch on each GPU also loads its code: leave it untimed
    let elapsed = square_everywhere();
    let mut result = vec![f32::NAN; n];
    for s in &shares {
        s.stream
            .memcpy_dtoh(&s.output, &mut result[s.range.clone()])
            .or_exit("copy from a GPU");
    }
    // ANCHOR_END: compute
    println!(
        "squared {n} values on {using} GPU(s) in {} (wall time, after the copies in)",
        fmt_ms(elapsed)
    );
    let want: Vec<f32> = data.iter().map(|x| x * x).collect();
    println!(
        "every square matches the CPU: {}",
        verdict(count_mismatches(&result, &want) == 0)
    );
}
