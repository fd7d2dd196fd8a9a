//! Arrays on the host and arrays on the device: making them, copying them across and back, and
//! what a copy costs next to the GPU's own memory.
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::random::Rng;
use course::timing::{fmt_gb_per_s, fmt_ms, fmt_speedup, time_gpu};

fn main() {
    let seed = course::cli::parse(
        "Copies arrays between the host and the GPU, and times the copies.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));

    // ANCHOR: create
    // Host arrays: ordinary vectors (an ndarray array wraps one), in the CPU's memory.
    let from_list: Vec<i64> = vec![1, 2, 3, 4, 5];
    let from_range: Vec<i64> = (1..1000).step_by(2).collect();
    let from_squares: Vec<i64> = (1..100).map(|x| x * x).collect();

    // Device arrays: each `clone_htod` allocates GPU memory and copies the host data into it.
    let list_gpu: CudaSlice<i64> = stream.clone_htod(&from_list).or_exit("copy to the GPU");
    let range_gpu: CudaSlice<i64> = stream.clone_htod(&from_range).or_exit("copy to the GPU");
    let squares_gpu: CudaSlice<i64> = stream.clone_htod(&from_squares).or_exit("copy to the GPU");

    // Back to the host: another copy, into a new Vec.
    let squares_back: Vec<i64> = stream.clone_dtoh(&squares_gpu).or_exit("copy from the GPU");
    // ANCHOR_END: create

    for (name, gpu) in [
        ("list", &list_gpu),
        ("range", &range_gpu),
        ("squares", &squares_gpu),
    ] {
        println!(
            "{name:>8}: {:>3} elements, {:>4} bytes on GPU {}",
            gpu.len(),
            gpu.num_bytes(),
            gpu.ordinal()
        );
    }
    let same = count_mismatches(&squares_back, &from_squares) == 0;
    println!("the squares came back unchanged: {}", verdict(same));
    // The sum of the first n squares is n(n + 1)(2n + 1)/6: an answer that needs no GPU.
    let sum: i64 = squares_back.iter().sum();
    println!(
        "their sum, read on the host: {sum}, 99 * 100 * 199 / 6: {}",
        verdict(sum == 99 * 100 * 199 / 6)
    );

    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    for n in [1_000_000usize, 50_000_000] {
        copy_costs(&ctx, &stream, &rng.vec_f64(n, -1.0, 1.0));
    }
}

// ANCHOR: costs
/// Time copies of `host` to the GPU and back, from ordinary (pageable) memory and from pinned
/// memory, and a copy of the same bytes within the GPU's memory for scale.
fn copy_costs(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, host: &[f64]) {
    let n = host.len();
    let bytes = (n * size_of::<f64>()) as f64;
    println!("{n} f64 values ({:.0} MB):", bytes / 1e6);

    let mut gpu = stream.alloc_zeros::<f64>(n).or_exit("allocate GPU memory");
    let mut back = vec![0.0f64; n];
    let to_gpu = time_gpu(stream, 1, 10, || {
        stream
            .memcpy_htod(host, &mut gpu)
            .or_exit("copy to the GPU")
    });
    let to_host = time_gpu(stream, 1, 10, || {
        stream
            .memcpy_dtoh(&gpu, &mut back)
            .or_exit("copy from the GPU")
    });
    report("pageable, host to GPU", bytes, to_gpu.median_ms);
    report("pageable, GPU to host", bytes, to_host.median_ms);

    // Page-locked ("pinned") host memory: the GPU's copy engines can read and write it directly.
    // SAFETY: the memory starts unset; it is filled just below, before anything reads it.
    let mut pinned =
        unsafe { ctx.alloc_pinned_with_flags::<f64>(n, 0) }.or_exit("allocate pinned memory");
    pinned
        .as_mut_slice()
        .or_exit("reach pinned memory")
        .copy_from_slice(host);
    let to_gpu = time_gpu(stream, 1, 10, || {
        stream
            .memcpy_htod(&pinned, &mut gpu)
            .or_exit("copy to the GPU")
    });
    let to_host = time_gpu(stream, 1, 10, || {
        stream
            .memcpy_dtoh(&gpu, &mut pinned)
            .or_exit("copy from the GPU")
    });
    report("pinned, host to GPU", bytes, to_gpu.median_ms);
    report("pinned, GPU to host", bytes, to_host.median_ms);

    // The same bytes copied from one GPU buffer to another: read once and written once.
    let mut other = stream.alloc_zeros::<f64>(n).or_exit("allocate GPU memory");
    let on_gpu = time_gpu(stream, 1, 10, || {
        stream
            .memcpy_dtod(&gpu, &mut other)
            .or_exit("copy on the GPU")
    });
    report(
        "GPU to GPU (counting read + write)",
        2.0 * bytes,
        on_gpu.median_ms,
    );
    println!(
        "  a pinned copy to the GPU takes {} as long as a copy within it",
        fmt_speedup(to_gpu.median_ms, on_gpu.median_ms)
    );

    let round_trip = stream.clone_dtoh(&other).or_exit("copy from the GPU");
    // ANCHOR_END: costs
    println!(
        "  every value survived the round trips: {}",
        verdict(count_mismatches(&round_trip, host) == 0)
    );
    // ANCHOR: costs
}
// ANCHOR_END: costs

fn report(what: &str, bytes: f64, ms: f64) {
    println!(
        "  {what:<36} {:>9}  {:>10}",
        fmt_ms(ms),
        fmt_gb_per_s(bytes, ms)
    );
}
