//! Practice 3: a shared-memory histogram with more bins than threads: 1024 bins, then 16,384,
//! which needs more shared memory than a block gets unless its kernel asks for more.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::launch::LaunchError;
use course::random::Rng;
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaSlice, LaunchConfig};
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch05_histogram_bins {
    course::kernels!("ch05-histogram-bins.cu");
}

/// The CPU reference: per-thread histograms over chunks, added together.
fn histogram_cpu(data: &[u32], bins: usize) -> Vec<u32> {
    data.par_chunks(1 << 16)
        .map(|chunk| {
            let mut h = vec![0u32; bins];
            for &v in chunk {
                h[v as usize] += 1;
            }
            h
        })
        .reduce(
            || vec![0u32; bins],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Makes shared-memory histograms of 1024 and of 16384 bins on the GPU.",
        |args| {
            (
                args.usize("N", "the number of values", 1 << 22, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{n} random values, seed {seed}");
    let module = load(&ctx, &kernel_file!("ch05-histogram-bins.cu"), false);
    let hist_shared_bins = ch05_histogram_bins::Kernels::load(&module).hist_shared_bins;
    let device = |a| ctx.attribute(a).or_exit("read a device attribute") as usize;
    let sms = device(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    // ANCHOR: limits
    let default_limit = device(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    let opt_in_limit =
        device(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    println!(
        "shared memory per block: {} KiB unless the kernel asks for more, {} KiB at most (this machine)",
        default_limit / 1024,
        opt_in_limit / 1024
    );
    // ANCHOR_END: limits
    let mut rng = Rng::new(seed);

    for bins in [1024usize, 16384] {
        let data: Vec<u32> = (0..n).map(|_| rng.below(bins as u64) as u32).collect();
        let want = histogram_cpu(&data, bins);
        let d_data = stream.clone_htod(&data).or_exit("copy to the GPU");
        // A known answer: 0, 1, ..., bins - 1, 0, 1, ... put n / bins in every bin, and one
        // more in each of the first n % bins.
        let cycling: Vec<u32> = (0..n).map(|i| (i % bins) as u32).collect();
        let known: Vec<u32> = (0..bins)
            .map(|b| (n / bins + usize::from(b < n % bins)) as u32)
            .collect();
        let d_cycling = stream.clone_htod(&cycling).or_exit("copy to the GPU");
        // ANCHOR: launch
        let shared_bytes = bins * size_of::<u32>();
        println!(
            "{bins} bins: {} KiB of shared memory per block",
            shared_bytes / 1024
        );
        let cfg = LaunchConfig {
            grid_dim: ((4 * sms) as u32, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: shared_bytes as u32,
        };
        let mut d_out = stream
            .alloc_zeros::<u32>(bins)
            .or_exit("allocate GPU memory");
        let launch = |d_data: &CudaSlice<u32>, d_out: &mut CudaSlice<u32>| {
            // SAFETY: every value is below `bins` (both inputs are made so), and the shared
            // histogram (bins * 4 bytes) and d_out have a place for each of the bins.
            unsafe { hist_shared_bins.launch(&stream, cfg, d_data, n as i32, bins as i32, d_out) }
        };
        if let Err(refused) = launch(&d_data, &mut d_out) {
            match refused {
                LaunchError::Driver(refused) => {
                    let why = refused
                        .error_string()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    println!("  the launch was refused: {:?} ({why})", refused.0);
                }
                other => println!("  the launch was refused: {other}"),
            }
            hist_shared_bins
                .function
                .set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared_bytes as i32,
                )
                .or_exit("raise the kernel's shared-memory limit");
            println!("  raised the kernel's limit to {} KiB", shared_bytes / 1024);
            launch(&d_data, &mut d_out).or_exit_launching(&hist_shared_bins);
        }
        let got = stream.clone_dtoh(&d_out).or_exit("copy from the GPU");
        // ANCHOR_END: launch
        println!(
            "  bins that differ from the CPU: {}, matches the CPU: {}",
            count_mismatches(&got, &want),
            verdict(got == want)
        );
        let mut d_counted = stream
            .alloc_zeros::<u32>(bins)
            .or_exit("allocate GPU memory");
        launch(&d_cycling, &mut d_counted).or_exit_launching(&hist_shared_bins);
        let counted = stream.clone_dtoh(&d_counted).or_exit("copy from the GPU");
        println!(
            "  on 0, 1, ..., {}, 0, 1, ...: {} in each bin{}: {}",
            bins - 1,
            n / bins,
            match n % bins {
                0 => String::new(),
                r => format!(", one more in the first {r}"),
            },
            verdict(counted == known)
        );
    }
}
