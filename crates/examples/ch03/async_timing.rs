//! Three ways to time `a += b` on the GPU. A launch returns before the GPU has done the work, so
//! a host timer around the launch alone measures almost nothing.
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, describe, gpu_or_exit, problem_size};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_speedup, median, record, time_gpu};

mod ch03_elementwise {
    course::kernels!("ch03-elementwise.cu");
}

fn main() {
    let seed = course::cli::parse(
        "Times a += b on the GPU: unsynchronised, synchronised, and with CUDA events.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = kernel::load(&ctx, &kernel_file!("ch03-elementwise.cu"), false);
    let k = ch03_elementwise::Kernels::load(&module);

    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let n = problem_size(100_000_000, 1 << 20);
    let a_start = rng.vec_f32(n, -1.0, 1.0);
    let b_host = rng.vec_f32(n, -1.0, 1.0);
    let mut a = stream.clone_htod(&a_start).or_exit("copy to the GPU");
    let b = stream.clone_htod(&b_host).or_exit("copy to the GPU");
    let mut launches = 0usize;
    let mut add_b_to_a = || {
        launch_add(&stream, &k.add_in_place, &mut a, &b);
        launches += 1;
    };
    add_b_to_a(); // the first launch loads the module's code onto the GPU: keep it out of the timings
    stream.synchronize().or_exit("wait for the GPU");

    // ANCHOR: wrong
    // Wrong: the launch only queues the kernel, and the timer stops before the GPU starts.
    let mut times = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        add_b_to_a();
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    stream.synchronize().or_exit("wait for the GPU");
    let unsynchronised = median(&times);
    println!(
        "host timer, no synchronisation:   {:>9} (median of 10)",
        fmt_ms(unsynchronised)
    );
    // ANCHOR_END: wrong

    // ANCHOR: synchronised
    // Right, if coarse: wait for the GPU before stopping the timer.
    let mut times = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        add_b_to_a();
        stream.synchronize().or_exit("wait for the GPU");
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "host timer, with synchronisation: {:>9} (median of 10)",
        fmt_ms(median(&times))
    );
    // ANCHOR_END: synchronised

    // ANCHOR: events
    let result = benchmark("a += b", &stream, 10, &mut add_b_to_a);
    // ANCHOR_END: events
    let bytes = 3.0 * (n * size_of::<f32>()) as f64; // read a and b, write a
    println!(
        "a += b moves {:.1} GB: {}",
        bytes / 1e9,
        fmt_gb_per_s(bytes, median(&result.gpu_ms))
    );
    println!(
        "the GPU works {} longer than the CPU takes to ask",
        fmt_speedup(median(&result.gpu_ms), median(&result.cpu_ms))
    );
    println!(
        "the unsynchronised host timer saw less than a tenth of the GPU's time: {}",
        verdict(unsynchronised < 0.1 * median(&result.gpu_ms))
    );

    // The support library's `time_gpu` does the same and keeps the medians; the book uses it.
    let t = time_gpu(&stream, 1, 10, &mut add_b_to_a);
    record("a += b, n=1e8", &t, Work::Bytes(bytes));
    println!(
        "time_gpu: GPU {} median, CPU {} median",
        fmt_ms(t.median_ms),
        fmt_ms(t.cpu_ms)
    );

    // Every launch added b once more. The CPU repeats the same f32 additions in the same order.
    let got = stream.clone_dtoh(&a).or_exit("copy from the GPU");
    let want: Vec<f32> = a_start
        .par_iter()
        .zip(&b_host)
        .map(|(&a, &b)| (0..launches).fold(a, |acc, _| acc + b))
        .collect();
    println!(
        "after {launches} launches, a matches the CPU exactly: {}",
        verdict(count_mismatches(&got, &want) == 0)
    );
}

fn launch_add(
    stream: &Arc<CudaStream>,
    add: &ch03_elementwise::AddInPlace,
    a: &mut CudaSlice<f32>,
    b: &CudaSlice<f32>,
) {
    let cfg = LaunchConfig::for_num_elems(a.len() as u32);
    add.launch(stream, cfg, a, b).or_exit_launching(add);
}

// ANCHOR: benchmark
/// CPU and GPU times of each repetition, in milliseconds.
struct Benchmark {
    cpu_ms: Vec<f64>,
    gpu_ms: Vec<f64>,
}

/// Like `cupyx.profiler.benchmark`: one warm-up, then `reps` runs of `work`. For each run, the
/// CPU time is how long `work` took to return; the GPU time is read from two CUDA events that
/// the stream passes before and after the work it was given.
fn benchmark(name: &str, stream: &CudaStream, reps: usize, mut work: impl FnMut()) -> Benchmark {
    work();
    stream.synchronize().or_exit("wait for the GPU");
    let timed = Some(CUevent_flags::CU_EVENT_DEFAULT); // `None` would make events that cannot time
    let (mut cpu_ms, mut gpu_ms) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let start = stream.record_event(timed).or_exit("record an event");
        let issued = Instant::now();
        work();
        cpu_ms.push(issued.elapsed().as_secs_f64() * 1e3);
        let end = stream.record_event(timed).or_exit("record an event");
        // elapsed_ms waits for `end`, that is, for the GPU to finish the work.
        gpu_ms.push(start.elapsed_ms(&end).or_exit("read the events") as f64);
    }
    println!("{name}: CPU {}, GPU {}", spread(&cpu_ms), spread(&gpu_ms));
    Benchmark { cpu_ms, gpu_ms }
}

/// `1.71 ms +/- 12.0 µs (min 1.69 ms, max 1.74 ms)`
fn spread(ms: &[f64]) -> String {
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    let sd = (ms.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / ms.len() as f64).sqrt();
    let (lo, hi) = ms
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    format!(
        "{} +/- {} (min {}, max {})",
        fmt_ms(mean),
        fmt_ms(sd),
        fmt_ms(lo),
        fmt_ms(hi)
    )
}
// ANCHOR_END: benchmark
