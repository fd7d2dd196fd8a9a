//! What knowing the data is worth: a general histogram that assumes nothing (it finds the
//! number of bins from the largest value and counts with global atomics, like a library's
//! bincount) against the 256-bin shared-memory kernel, on the same random bytes; and the
//! general one on bytes whose histogram is known.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel::require_block_size;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_ms, fmt_speedup, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch05_bincount {
    course::kernels!("ch05-bincount.cu");
}
mod ch05_histogram {
    course::kernels!("ch05-histogram.cu");
}

fn histogram_cpu(data: &[u8]) -> Vec<u32> {
    data.par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = vec![0u32; 256];
            for &b in chunk {
                h[b as usize] += 1;
            }
            h
        })
        .reduce(
            || vec![0u32; 256],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

// ANCHOR: general
/// A general histogram of any bytes: as many bins as the largest value needs, counted with
/// one global atomic per value. It must wait for the largest value before it can allocate.
struct Bincount {
    kernels: ch05_bincount::Kernels,
    grid: LaunchConfig,
}

impl Bincount {
    fn largest_value(&self, stream: &Arc<CudaStream>, data: &CudaSlice<u8>) -> u32 {
        let mut d_largest = stream.alloc_zeros::<u32>(1).or_exit("allocate GPU memory");
        let largest = &self.kernels.bincount_largest_u8;
        largest
            .launch(stream, self.grid, data, &mut d_largest)
            .or_exit_launching(largest);
        stream.clone_dtoh(&d_largest).or_exit("copy from the GPU")[0] // waits for the GPU
    }

    fn count_into(
        &self,
        stream: &Arc<CudaStream>,
        data: &CudaSlice<u8>,
        bins: &mut CudaSlice<u32>,
    ) {
        let count = &self.kernels.bincount_count_u8;
        let n = data.len() as i32;
        // SAFETY: bins has an entry for every value in data: the callers give it the largest
        // value + 1 entries, or 256, and count's grid-stride loop stops at n = data.len().
        unsafe { count.launch(stream, self.grid, data, n, bins) }.or_exit_launching(count);
    }

    fn histogram(&self, stream: &Arc<CudaStream>, data: &CudaSlice<u8>) -> CudaSlice<u32> {
        let bins = self.largest_value(stream, data) as usize + 1;
        let mut d_bins = stream
            .alloc_zeros::<u32>(bins)
            .or_exit("allocate GPU memory");
        self.count_into(stream, data, &mut d_bins);
        d_bins
    }
}
// ANCHOR_END: general

fn main() {
    let (n, seed) = course::cli::parse(
        "Times a general GPU histogram of bytes against a 256-bin shared-memory one.",
        |args| {
            (
                args.usize("N", "the number of bytes", 1 << 24, 1, i32::MAX as usize),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{n} random bytes, seed {seed}");
    let data = Rng::new(seed).bytes(n);
    let want = histogram_cpu(&data);
    let d_data = stream.clone_htod(&data).or_exit("copy to the GPU");
    let sms = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as u32;
    let grid = LaunchConfig {
        grid_dim: (4 * sms, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };

    let general_module = load(&ctx, &kernel_file!("ch05-bincount.cu"), false);
    let bincount = Bincount {
        kernels: ch05_bincount::Kernels::load(&general_module),
        grid,
    };
    let custom_module = load(&ctx, &kernel_file!("ch05-histogram.cu"), false);
    let hist_shared_wide = ch05_histogram::Kernels::load(&custom_module).hist_shared_wide;
    let largest = &bincount.kernels.bincount_largest_u8.function;
    require_block_size(largest, "bincount_largest_u8", THREADS);
    require_block_size(&hist_shared_wide.function, "hist_shared_wide", THREADS);

    // ANCHOR: compare
    let general = stream
        .clone_dtoh(&bincount.histogram(&stream, &d_data))
        .or_exit("copy from the GPU");
    let mut d_custom = stream
        .alloc_zeros::<u32>(256)
        .or_exit("allocate GPU memory");
    let custom_launch = |bins: &mut CudaSlice<u32>| {
        hist_shared_wide
            .launch(&stream, grid, &d_data, bins)
            .or_exit_launching(&hist_shared_wide);
    };
    custom_launch(&mut d_custom);
    let custom = stream.clone_dtoh(&d_custom).or_exit("copy from the GPU");
    // ANCHOR_END: compare
    println!(
        "general: {} bins, matches the CPU: {}",
        general.len(),
        verdict(general == want)
    );
    println!(
        "custom: 256 bins, matches the CPU: {}",
        verdict(custom == want)
    );
    let whole = time_gpu(&stream, 2, 20, || {
        // ANCHOR: compare
        drop(bincount.histogram(&stream, &d_data))
        // ANCHOR_END: compare
    });
    let largest = time_gpu(&stream, 2, 20, || {
        // ANCHOR: compare
        bincount.largest_value(&stream, &d_data);
        // ANCHOR_END: compare
    });
    // ANCHOR: compare
    let mut d_bins = stream
        .alloc_zeros::<u32>(256)
        .or_exit("allocate GPU memory");
    // ANCHOR_END: compare
    let count = time_gpu(&stream, 2, 20, || {
        // ANCHOR: compare
        bincount.count_into(&stream, &d_data, &mut d_bins)
        // ANCHOR_END: compare
    });
    let mine = time_gpu(&stream, 2, 20, || {
        // ANCHOR: compare
        custom_launch(&mut d_custom)
        // ANCHOR_END: compare
    });
    println!(
        "general, the whole call:                      {}",
        fmt_ms(whole.median_ms)
    );
    println!(
        "  of which finding the largest value:         {}",
        fmt_ms(largest.median_ms)
    );
    println!(
        "  of which counting with global atomics:      {}",
        fmt_ms(count.median_ms)
    );
    println!(
        "custom 256-bin shared histogram:              {}",
        fmt_ms(mine.median_ms)
    );
    // ANCHOR: compare
    let worth = whole.median_ms / mine.median_ms;
    // ANCHOR_END: compare
    println!(
        "knowing the data is worth, in this run:       {}, more than 10x: {}",
        fmt_speedup(whole.median_ms, mine.median_ms),
        verdict(worth > 10.0)
    );
    record(
        &format!("general bincount, {n} bytes"),
        &whole,
        Work::Bytes(2.0 * n as f64),
    );
    record(
        &format!("custom shared histogram, {n} bytes"),
        &mine,
        Work::Bytes(n as f64),
    );

    // A known answer: the bytes 0, 1, ..., 199, 0, 1, ... need 200 bins (fewer when n < 200),
    // with n / 200 in each, and one more in each of the first n % 200.
    let cycling: Vec<u8> = (0..n).map(|i| (i % 200) as u8).collect();
    let known: Vec<u32> = (0..n.min(200))
        .map(|b| (n / 200 + usize::from(b < n % 200)) as u32)
        .collect();
    let d_cycling = stream.clone_htod(&cycling).or_exit("copy to the GPU");
    let counted = stream
        .clone_dtoh(&bincount.histogram(&stream, &d_cycling))
        .or_exit("copy from the GPU");
    println!(
        "general, on 0, 1, ..., 199, 0, 1, ...: {} bins, {} in each, one more in the first {}: {}",
        counted.len(),
        n / 200,
        n % 200,
        verdict(counted == known)
    );
}
