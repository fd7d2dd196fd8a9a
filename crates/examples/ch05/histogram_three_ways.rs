//! A 256-bin histogram of random bytes, three ways: a global atomic per byte; a histogram per
//! block in shared memory with one byte per thread; and the same kernel on a small grid that
//! walks the data with a grid-stride loop. Each is timed and checked exactly against the CPU,
//! and on bytes whose histogram is known.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, describe, ensure_memory, gpu_or_exit};
use course::kernel::load;
use course::kernel::require_block_size;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_speedup, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

const BINS: usize = 256;
const THREADS: usize = BINS; // the shared kernels give each thread one bin to clear and merge

mod ch05_histogram {
    course::kernels!("ch05-histogram.cu");
}
use ch05_histogram::{HistGlobal, HistShared};

/// The CPU reference: a histogram per rayon task, added together.
fn histogram_cpu(data: &[u8]) -> Vec<u32> {
    data.par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = vec![0u32; BINS];
            for &b in chunk {
                h[b as usize] += 1;
            }
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

/// The kernels launch alike, but their contracts differ: `hist_global` needs a thread per
/// byte, the shared ones blocks of `BINS` threads.
enum Kernel<'a> {
    Global(&'a HistGlobal),
    Shared(&'a HistShared),
}

/// One way to make the histogram: a kernel and the number of blocks it is launched with.
struct Way<'a> {
    name: &'a str,
    kernel: Kernel<'a>,
    blocks: usize,
    global_atomics: usize,
}

/// One launch of `way` over `d_data`, adding to `bins`.
fn launch(stream: &Arc<CudaStream>, way: &Way, d_data: &CudaSlice<u8>, bins: &mut CudaSlice<u32>) {
    let cfg = LaunchConfig {
        grid_dim: (way.blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    match way.kernel {
        Kernel::Global(k) => k.launch(stream, cfg, d_data, bins).or_exit_launching(k),
        Kernel::Shared(k) => k.launch(stream, cfg, d_data, bins).or_exit_launching(k),
    }
}

/// The histogram `way` makes of `d_data`, into zeroed bins.
fn histogram_gpu(stream: &Arc<CudaStream>, way: &Way, d_data: &CudaSlice<u8>) -> Vec<u32> {
    let mut d_bins = stream
        .alloc_zeros::<u32>(BINS)
        .or_exit("allocate GPU memory");
    launch(stream, way, d_data, &mut d_bins);
    stream.clone_dtoh(&d_bins).or_exit("copy from the GPU")
}

/// The median time of `way` over `d_data`, in ms. The timed runs keep adding to the same
/// bins: only the time matters here.
fn time(stream: &Arc<CudaStream>, way: &Way, d_data: &CudaSlice<u8>) -> f64 {
    let mut d_bins = stream
        .alloc_zeros::<u32>(BINS)
        .or_exit("allocate GPU memory");
    let t = time_gpu(stream, 2, 20, || launch(stream, way, d_data, &mut d_bins));
    let n = d_data.len();
    record(
        &format!("histogram, {}, {n} bytes", way.name),
        &t,
        Work::Bytes(n as f64),
    );
    t.median_ms
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Makes a 256-bin histogram of random bytes on the GPU four ways, and times each.",
        |args| {
            (
                args.usize("N", "the number of bytes", 1 << 24, 1, i32::MAX as usize),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    // The random bytes and the cycling ones, and one histogram at a time.
    ensure_memory(
        &ctx,
        2 * n + 4 * BINS,
        &format!("histogram_three_ways on {n} bytes"),
    );
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let data = Rng::new(seed).bytes(n);
    let want = histogram_cpu(&data);
    let d_data = stream.clone_htod(&data).or_exit("copy to the GPU");
    let module = load(&ctx, &kernel_file!("ch05-histogram.cu"), false);
    let k = ch05_histogram::Kernels::load(&module);
    require_block_size(&k.hist_shared.function, "hist_shared", THREADS);
    require_block_size(&k.hist_shared_wide.function, "hist_shared_wide", THREADS);

    // A known answer: the bytes 0, 1, ..., 255, 0, 1, ... put n / 256 in every bin, and one
    // more in each of the first n % 256.
    let cycling: Vec<u8> = (0..n).map(|i| i as u8).collect();
    let known: Vec<u32> = (0..BINS)
        .map(|b| (n / BINS + usize::from(b < n % BINS)) as u32)
        .collect();
    let d_cycling = stream.clone_htod(&cycling).or_exit("copy to the GPU");

    // ANCHOR: ways
    let sms = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as usize;
    let small_grid = 4 * sms; // a few blocks per SM, each looping over the data
    let one_per_byte = n.div_ceil(THREADS);
    let ways = [
        Way {
            name: "global atomics",
            kernel: Kernel::Global(&k.hist_global),
            blocks: one_per_byte,
            global_atomics: n,
        },
        Way {
            name: "shared, one byte per thread",
            kernel: Kernel::Shared(&k.hist_shared),
            blocks: one_per_byte,
            global_atomics: one_per_byte * BINS,
        },
        Way {
            name: "shared, grid-stride",
            kernel: Kernel::Shared(&k.hist_shared),
            blocks: small_grid,
            global_atomics: small_grid * BINS,
        },
        Way {
            name: "shared, grid-stride, 16 B loads",
            kernel: Kernel::Shared(&k.hist_shared_wide),
            blocks: small_grid,
            global_atomics: small_grid * BINS,
        },
    ];
    // ANCHOR_END: ways

    println!("{n} random bytes into {BINS} bins, seed {seed}");
    println!("{sms} SMs, so the small grid is {small_grid} blocks (this machine)");
    println!(
        "{:<32} {:>8} {:>15} {:>10} {:>11}",
        "way", "blocks", "global atomics", "time", "input rate"
    );
    let mut times = Vec::new();
    let mut checks = Vec::new();
    for way in &ways {
        let right = histogram_gpu(&stream, way, &d_data) == want
            && histogram_gpu(&stream, way, &d_cycling) == known;
        let ms = time(&stream, way, &d_data);
        let depends_on_sms = if way.blocks == small_grid {
            " (this machine)"
        } else {
            ""
        };
        println!(
            "{:<32} {:>8} {:>15} {:>10} {:>11}{depends_on_sms}",
            way.name,
            way.blocks,
            way.global_atomics,
            fmt_ms(ms),
            fmt_gb_per_s(n as f64, ms),
        );
        times.push(ms);
        checks.push((way.name, right));
    }
    let each = match n % BINS {
        0 => format!("{} in each bin", n / BINS),
        r => format!("{} in each bin, one more in the first {r}", n / BINS),
    };
    println!("against the CPU's histogram, and on the bytes 0, 1, ..., 255, 0, 1, ... ({each}):");
    for (name, right) in checks {
        println!("  {name:<32} right on both: {}", verdict(right));
    }
    println!(
        "shared, one byte per thread vs global atomics: {} faster",
        fmt_speedup(times[0], times[1])
    );
    println!(
        "shared, grid-stride vs global atomics:         {} faster, more than 10x: {}",
        fmt_speedup(times[0], times[2]),
        verdict(times[0] / times[2] > 10.0)
    );
    println!(
        "grid-stride with 16 B loads vs global atomics: {} faster",
        fmt_speedup(times[0], times[3])
    );
}
