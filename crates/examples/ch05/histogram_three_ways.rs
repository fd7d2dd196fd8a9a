//! A 256-bin histogram of random bytes, three ways: a global atomic per byte; a histogram per
//! block in shared memory with one byte per thread; and the same kernel on a small grid that
//! walks the data with a grid-stride loop. Each is timed and checked exactly against the CPU.
use std::sync::Arc;

use course::cli::arg_usize;
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use course::random::{Rng, fresh_seed};
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

const BINS: usize = 256;
const THREADS: usize = BINS; // the shared kernels give each thread one bin to clear and merge

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

/// One way to make the histogram: a kernel and the number of blocks it is launched with.
struct Way<'a> {
    name: &'a str,
    kernel: &'a CudaFunction,
    blocks: usize,
    global_atomics: usize,
}

/// Run `way` once into zeroed bins (for the check), then time it; returns (bins, ms).
fn run(stream: &Arc<CudaStream>, way: &Way, d_data: &CudaSlice<u8>, n: usize) -> (Vec<u32>, f64) {
    let cfg = LaunchConfig {
        grid_dim: (way.blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let launch = |bins: &mut CudaSlice<u32>| {
        unsafe {
            stream
                .launch_builder(way.kernel)
                .arg(d_data)
                .arg(&(n as i32))
                .arg(bins)
                .launch(cfg)
        }
        .or_exit("launch a histogram kernel");
    };
    let mut d_bins = stream
        .alloc_zeros::<u32>(BINS)
        .or_exit("allocate GPU memory");
    launch(&mut d_bins);
    let bins = stream.clone_dtoh(&d_bins).or_exit("copy from the GPU");
    // The timed runs keep adding to the same bins: only the time matters there.
    let t = time_gpu(stream, 2, 20, || launch(&mut d_bins));
    record(
        &format!("histogram, {}, {n} bytes", way.name),
        &t,
        Work::Bytes(n as f64),
    );
    (bins, t.median_ms)
}

fn main() {
    let n = arg_usize(1, "the number of bytes", 1 << 24, 1, i32::MAX as usize);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let seed = fresh_seed();
    let data = Rng::new(seed).bytes(n);
    let want = histogram_cpu(&data);
    let d_data = stream.clone_htod(&data).or_exit("copy to the GPU");
    let module = load(&ctx, &kernel_file!("ch05-histogram.cu"), false);
    let (hist_global, hist_shared, hist_shared_wide) = (
        function(&module, "hist_global"),
        function(&module, "hist_shared"),
        function(&module, "hist_shared_wide"),
    );

    // ANCHOR: ways
    let sms = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as usize;
    let small_grid = 4 * sms; // a few blocks per SM, each looping over the data
    let one_per_byte = n.div_ceil(THREADS);
    let ways = [
        Way {
            name: "global atomics",
            kernel: &hist_global,
            blocks: one_per_byte,
            global_atomics: n,
        },
        Way {
            name: "shared, one byte per thread",
            kernel: &hist_shared,
            blocks: one_per_byte,
            global_atomics: one_per_byte * BINS,
        },
        Way {
            name: "shared, grid-stride",
            kernel: &hist_shared,
            blocks: small_grid,
            global_atomics: small_grid * BINS,
        },
        Way {
            name: "shared, grid-stride, 16 B loads",
            kernel: &hist_shared_wide,
            blocks: small_grid,
            global_atomics: small_grid * BINS,
        },
    ];
    // ANCHOR_END: ways

    println!(
        "{n} random bytes into {BINS} bins; {sms} SMs, so the small grid is {small_grid} blocks"
    );
    println!(
        "{:<32} {:>8} {:>15} {:>10} {:>11}  matches the CPU",
        "way", "blocks", "global atomics", "time", "input rate"
    );
    let mut times = Vec::new();
    for way in &ways {
        let (bins, ms) = run(&stream, way, &d_data, n);
        let rate = fmt_gb_per_s(n as f64, ms);
        println!(
            "{:<32} {:>8} {:>15} {:>10} {:>11}  {}",
            way.name,
            way.blocks,
            way.global_atomics,
            fmt_ms(ms),
            rate,
            verdict(bins == want)
        );
        times.push(ms);
    }
    println!(
        "shared, one byte per thread vs global atomics: {} faster",
        fmt_times(times[0] / times[1])
    );
    println!(
        "shared, grid-stride vs global atomics:         {} faster",
        fmt_times(times[0] / times[2])
    );
    println!(
        "grid-stride with 16 B loads vs global atomics: {} faster",
        fmt_times(times[0] / times[3])
    );
    println!("seed {seed} (varies)");
}
