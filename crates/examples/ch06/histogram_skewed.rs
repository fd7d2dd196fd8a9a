//! The 256-bin histogram of bytes on data that crowds into a few bins: uniform bytes, bytes from
//! a normal distribution (mean 128, standard deviation 20) and bytes that are all equal, at 2^26
//! and 2^28 bytes unless a size is given. Four kernels that differ in where a byte is counted,
//! each exact against the CPU, timed against a device-to-device copy and CUB's `HistogramEven`
//! in the same run; then the edges every kernel must get right.
use std::sync::Arc;

use course::compare::verdict;
use course::cub;
use course::gpu::{OrExit, alloc_poisoned, describe, ensure_memory, gpu_or_exit, problem_size};
use course::kernel::{load, require_block_size};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaSlice, CudaStream, CudaView, LaunchConfig};
use rayon::prelude::*;

mod ch06_skewed_histogram {
    course::kernels!("ch06-skewed-histogram.cu");
}
use ch06_skewed_histogram::HistBlock;

const BINS: usize = 256;
const THREADS: usize = 256; // THREADS of the kernel file

/// How the bytes are drawn.
#[derive(Clone, Copy)]
enum Spread {
    Uniform,
    Normal,
    AllEqual,
}

const SPREADS: [(Spread, &str); 3] = [
    (Spread::Uniform, "uniform"),
    (Spread::Normal, "normal(128, 20)"),
    (Spread::AllEqual, "all equal"),
];

// ANCHOR: normal_bytes
/// `n` bytes of `spread` from `seed`. A normal byte is 128 + 20z rounded and kept in 0..=255,
/// z from two draws of the course's generator; the chunks are drawn in parallel, each starting
/// where the one serial stream of draws would be, so the bytes are the same on any core count.
fn draw(spread: Spread, n: usize, seed: u64) -> Vec<u8> {
    const CHUNK: usize = 1 << 20;
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15; // SplitMix64's step: the state after k draws
    match spread {
        Spread::Uniform => Rng::new(seed).bytes(n),
        Spread::AllEqual => vec![128; n],
        Spread::Normal => {
            let mut bytes = vec![0u8; n];
            bytes
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, chunk)| {
                    let draws_before = (2 * c * CHUNK) as u64;
                    let mut rng = Rng::new(seed.wrapping_add(draws_before.wrapping_mul(GAMMA)));
                    for b in chunk {
                        *b = (128.0 + 20.0 * rng.normal()).round().clamp(0.0, 255.0) as u8;
                    }
                });
            bytes
        }
    }
}
// ANCHOR_END: normal_bytes

/// The CPU's counts: a histogram per rayon task, added together.
fn histogram_cpu(bytes: &[u8]) -> Vec<u32> {
    bytes
        .par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = vec![0u32; BINS];
            chunk.iter().for_each(|&b| h[b as usize] += 1);
            h
        })
        .reduce(
            || vec![0u32; BINS],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// One of the kernels, and the grid that fills the GPU with it.
struct Way<'a> {
    name: &'static str,
    kernel: &'a HistBlock,
    blocks: usize,
}

// ANCHOR: histogram_gpu
/// What a caller of a histogram does each time: clear the counts, then launch.
fn histogram(
    stream: &Arc<CudaStream>,
    way: &Way,
    bytes: &CudaView<u8>,
    counts: &mut CudaSlice<u32>,
) {
    stream.memset_zeros(counts).or_exit("clear the counts");
    let config = LaunchConfig {
        grid_dim: (way.blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    way.kernel
        .launch(stream, config, bytes, counts)
        .or_exit_launching(way.kernel);
}
// ANCHOR_END: histogram_gpu

/// The counts `way` makes of `bytes`, in a buffer poisoned first.
fn counts_of(stream: &Arc<CudaStream>, way: &Way, bytes: &CudaView<u8>) -> Vec<u32> {
    let mut counts = alloc_poisoned::<u32>(stream, BINS);
    histogram(stream, way, bytes, &mut counts);
    stream.clone_dtoh(&counts).or_exit("copy the counts back")
}

fn main() {
    let (size, seed) = course::cli::parse(
        "Makes 256-bin histograms of uniform, normal and all-equal bytes (2^26 and 2^28, or N) four ways, against the CPU, a copy and CUB.",
        |args| {
            (
                args.optional_usize("N", "the number of bytes", 1, 1 << 30),
                args.seed(),
            )
        },
    );
    let sizes = match size {
        Some(n) => vec![n],
        None => vec![
            problem_size(1 << 26, 1 << 20),
            problem_size(1 << 28, 1 << 21),
        ],
    };
    let ctx = gpu_or_exit();
    let largest = *sizes.iter().max().unwrap_or(&1);
    ensure_memory(&ctx, 2 * largest + 4 * BINS, "histogram_skewed");
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-skewed-histogram.cu"), false);
    let k = ch06_skewed_histogram::Kernels::load(&module);
    let sms = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as usize;
    let ways = [
        filling("one per block", &k.hist_block, sms),
        filling("one per warp", &k.hist_warp, sms),
        filling("one per lane", &k.hist_lane, sms),
        filling("warp-aggregated", &k.hist_match, sms),
    ];
    println!("blocks of {THREADS} threads, as many as fit on the {sms} SMs (this machine):");
    let grids: Vec<String> = ways
        .iter()
        .map(|w| format!("{} {}", w.name, w.blocks))
        .collect();
    println!("  {} (this machine)", grids.join(", "));
    println!(
        "seed {seed}; counts cleared inside every time; CUB's scratch space allocated outside"
    );

    for &n in &sizes {
        measure(&stream, &ways, n, seed);
    }
    edges(&stream, &ways, seed);
}

/// `kernel` on as many blocks as fit on the GPU's `sms` at once.
fn filling<'a>(name: &'static str, kernel: &'a HistBlock, sms: usize) -> Way<'a> {
    require_block_size(&kernel.function, kernel.name, THREADS);
    let per_sm = kernel
        .function
        .occupancy_max_active_blocks_per_multiprocessor(THREADS as u32, 0, None)
        .or_exit("ask the occupancy") as usize;
    Way {
        name,
        kernel,
        blocks: sms * per_sm.max(1),
    }
}

/// Every way on every spread of `n` bytes: exact against the CPU, timed against a copy and CUB.
fn measure(stream: &Arc<CudaStream>, ways: &[Way], n: usize, seed: u64) {
    let mut d_bytes = stream.alloc_zeros::<u8>(n).or_exit("allocate the bytes");
    let mut copy = alloc_poisoned::<u8>(stream, n);
    let t_copy = time_gpu(stream, 3, 21, || {
        stream
            .memcpy_dtod(&d_bytes, &mut copy)
            .or_exit("copy on the GPU");
    });
    record(
        &format!("device-to-device copy, {n} bytes"),
        &t_copy,
        Work::Bytes(2.0 * n as f64),
    );
    println!(
        "n = {n}: a device-to-device copy of the bytes takes {}, {} moved",
        fmt_ms(t_copy.median_ms),
        fmt_gb_per_s(2.0 * n as f64, t_copy.median_ms)
    );
    let mut counts = stream
        .alloc_zeros::<u32>(BINS)
        .or_exit("allocate the counts");
    let mut best_vs_cub = Vec::new();
    for (spread, spread_name) in SPREADS {
        let bytes = draw(spread, n, seed);
        let want = histogram_cpu(&bytes);
        stream
            .memcpy_htod(&bytes, &mut d_bytes)
            .or_exit("copy the bytes to the GPU");
        let view = d_bytes.as_view();
        println!("  {spread_name}:");
        let mut best = f64::INFINITY;
        for way in ways {
            let exact = counts_of(stream, way, &view) == want;
            let t = time_gpu(stream, 3, 21, || histogram(stream, way, &view, &mut counts));
            record(
                &format!("histogram, {}, {spread_name}, {n} bytes", way.name),
                &t,
                Work::Bytes(n as f64),
            );
            best = best.min(t.median_ms);
            println!(
                "    {:<16} {:>9} {:>11}, {:>3.0}% of the copy's rate, exact: {}",
                way.name,
                fmt_ms(t.median_ms),
                fmt_gb_per_s(n as f64, t.median_ms),
                100.0 * t_copy.median_ms / (2.0 * t.median_ms),
                verdict(exact)
            );
        }
        match cub::time_histogram(&bytes) {
            Some(c) => {
                let t_cub = course::timing::Timing {
                    median_ms: c.median_ms,
                    cpu_ms: 0.0,
                    reps: 21,
                };
                record(
                    &format!("CUB HistogramEven, {spread_name}, {n} bytes"),
                    &t_cub,
                    Work::Bytes(n as f64),
                );
                println!(
                    "    {:<16} {:>9} {:>11}, the same counts: {}",
                    "CUB",
                    fmt_ms(c.median_ms),
                    fmt_gb_per_s(n as f64, c.median_ms),
                    verdict(c.checksum == cub::checksum(&want))
                );
                best_vs_cub.push((spread_name, c.median_ms / best));
            }
            None => println!("    {:<16} {}", "CUB", cub::NO_REFERENCE),
        }
    }
    for (spread_name, ratio) in best_vs_cub {
        println!("  {spread_name}: our fastest at {ratio:.2} of CUB's speed (this machine)");
    }
}

/// The sizes and addresses a histogram must get right, on every way.
fn edges(stream: &Arc<CudaStream>, ways: &[Way], seed: u64) {
    let odd = 1_000_003; // not a multiple of 16
    let many_equal = (1 << 20) + 7; // one bin past what a 16-bit counter holds, in one block
    let random = Rng::new(seed).bytes(odd + 16);
    let d_random = stream
        .clone_htod(&random)
        .or_exit("copy the bytes to the GPU");
    let cycling: Vec<u8> = (0..odd).map(|i| i as u8).collect();
    let d_cycling = stream
        .clone_htod(&cycling)
        .or_exit("copy the bytes to the GPU");
    let equal = vec![7u8; many_equal];
    let d_equal = stream
        .clone_htod(&equal)
        .or_exit("copy the bytes to the GPU");
    println!("edges, each against the CPU's counts:");
    let mut right = [true; 4];
    let line = |what: &str, check: &dyn Fn(&Way) -> bool| {
        let all = ways.iter().all(check);
        println!("  {what}: {}", verdict(all));
        all
    };
    let slice_right = |way: &Way, start: usize, len: usize| {
        let view = d_random.slice(start..start + len);
        counts_of(stream, way, &view) == histogram_cpu(&random[start..start + len])
    };
    right[0] = line(
        "n = 0, 1, 15, 16, 17 and 1000003 (not a multiple of 16)",
        &|w| {
            [0, 1, 15, 16, 17, odd]
                .iter()
                .all(|&len| slice_right(w, 0, len))
        },
    );
    right[1] = line(
        "the bytes starting 1 to 15 bytes past a 16-byte boundary",
        &|w| (1..16).all(|start| slice_right(w, start, odd)),
    );
    // The known answer: 0, 1, ..., 255, 0, 1, ... puts odd / 256 in every bin and one more in
    // each of the first odd % 256.
    let known: Vec<u32> = (0..BINS)
        .map(|b| (odd / BINS + usize::from(b < odd % BINS)) as u32)
        .collect();
    right[2] = line(
        &format!("the bytes 0, 1, ..., 255, 0, 1, ... ({odd} of them)"),
        &|w| counts_of(stream, w, &d_cycling.as_view()) == known,
    );
    right[3] = line(
        &format!("{many_equal} equal bytes in one block (past a 16-bit counter)"),
        &|w| {
            let one_block = Way {
                name: w.name,
                kernel: w.kernel,
                blocks: 1,
            };
            let got = counts_of(stream, &one_block, &d_equal.as_view());
            got[7] == many_equal as u32 && got.iter().sum::<u32>() == many_equal as u32
        },
    );
    println!("every edge right: {}", verdict(right.iter().all(|&r| r)));
}
