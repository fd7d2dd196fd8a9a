//! A histogram of 2^16 and of 2^17 bins, more than one block's shared memory holds, over 2^26
//! random values (or N): global atomics; blocks that each hold one range of the bins and read
//! every value; and thread-block clusters whose blocks share their shared memory, at every
//! cluster size, with the size the occupancy query for clusters picks. Each is exact against
//! the CPU, timed with the clearing of the counts, beside a device-to-device copy.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{
    OrExit, alloc_poisoned, describe, ensure_memory, gpu_or_exit, problem_size, require_clusters,
};
use course::kernel::load;
use course::kernel_file;
use course::launch::{ClusterConfig, allow_non_portable_clusters, max_active_clusters};
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

mod ch06_cluster_histogram {
    course::kernels!("ch06-cluster-histogram.cu");
}
use ch06_cluster_histogram::Kernels;

const THREADS: u32 = 256;
const CLUSTER_SIZES: [u32; 4] = [2, 4, 8, 16];

/// The CPU's counts of the values below `bins`.
fn histogram_cpu(values: &[u32], bins: usize) -> Vec<u32> {
    values
        .par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = vec![0u32; bins];
            chunk
                .iter()
                .filter(|&&v| (v as usize) < bins)
                .for_each(|&v| h[v as usize] += 1);
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

/// One way to launch: which kernel, on what shape.
#[derive(Clone, Copy)]
enum Way {
    Global { blocks: u32 },
    Ranges { blocks: u32, ranges: u32 },
    Cluster { clusters: u32, size: u32 },
}

/// The shared memory a block needs to hold its share of `bins` counts, when `parts` blocks
/// share them.
fn share_bytes(bins: u32, parts: u32) -> u32 {
    4 * bins.div_ceil(parts)
}

/// `clusters` clusters of `size` blocks, each block holding `bins / size` counts.
fn cluster_shape(clusters: u32, size: u32, bins: u32) -> ClusterConfig {
    ClusterConfig {
        launch: LaunchConfig {
            grid_dim: (clusters * size, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: share_bytes(bins, size),
        },
        cluster_dim: (size, 1, 1),
    }
}

fn allow_shared(function: &CudaFunction, bytes: u32) {
    function
        .set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
        .or_exit("allow the kernel its shared memory");
}

// ANCHOR: launch
/// Clear the counts and launch `way` over `values`.
fn histogram(
    stream: &Arc<CudaStream>,
    k: &Kernels,
    way: Way,
    values: &CudaSlice<u32>,
    bins: u32,
    counts: &mut CudaSlice<u32>,
) {
    stream.memset_zeros(counts).or_exit("clear the counts");
    let shape = |grid: (u32, u32, u32), shared: u32| LaunchConfig {
        grid_dim: grid,
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: shared,
    };
    let launched = match way {
        Way::Global { blocks } => {
            let config = shape((blocks, 1, 1), 0);
            k.hist_global_bins
                .launch(stream, config, values, bins, counts)
        }
        Way::Ranges { blocks, ranges } => {
            let config = shape((blocks, ranges, 1), share_bytes(bins, ranges));
            k.hist_bin_ranges
                .launch(stream, config, values, bins, counts)
        }
        Way::Cluster { clusters, size } => {
            let config = cluster_shape(clusters, size, bins);
            k.hist_cluster.launch(stream, config, values, bins, counts)
        }
    };
    launched.or_exit("launch a histogram kernel");
}
// ANCHOR_END: launch

fn main() {
    let (n, seed) = course::cli::parse(
        "Counts 2^26 random values (or N) into 2^16 and 2^17 bins: global atomics, bin ranges per block, and thread-block clusters.",
        |args| {
            (
                args.usize("N", "the number of values", 1 << 26, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    let n = problem_size(n, n.min(1 << 16));
    let ctx = gpu_or_exit();
    println!("{}", describe(&ctx));
    require_clusters(&ctx);
    ensure_memory(&ctx, 8 * n + 4 * (1 << 17), "histogram_cluster");
    let stream = ctx.default_stream();
    let module = load(&ctx, &kernel_file!("ch06-cluster-histogram.cu"), false);
    let k = Kernels::load(&module);
    allow_non_portable_clusters(&k.hist_cluster.function).or_exit("allow clusters of 16");
    let attribute = |a| ctx.attribute(a).or_exit("read a property of the GPU") as u32;
    let sms = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    let most_shared =
        attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    println!(
        "{sms} SMs; a block may hold at most {} KiB of shared memory (this machine)",
        most_shared / 1024
    );

    let mut copy = alloc_poisoned::<u32>(&stream, n);
    for bins in [1u32 << 16, 1 << 17] {
        let values: Vec<u32> = {
            let mut rng = Rng::new(seed);
            (0..n).map(|_| rng.below(u64::from(bins)) as u32).collect()
        };
        let want = histogram_cpu(&values, bins as usize);
        let d_values = stream
            .clone_htod(&values)
            .or_exit("copy the values to the GPU");
        let t_copy = time_gpu(&stream, 3, 21, || {
            stream
                .memcpy_dtod(&d_values, &mut copy)
                .or_exit("copy on the GPU");
        });
        println!(
            "{n} values uniform in 0..{bins}, seed {seed}: {} KiB of counts; a copy of the values {} {}",
            bins / 256,
            fmt_ms(t_copy.median_ms),
            fmt_gb_per_s(8.0 * n as f64, t_copy.median_ms)
        );
        let run = |name: String, way: Way| -> f64 {
            let mut counts = alloc_poisoned::<u32>(&stream, bins as usize);
            histogram(&stream, &k, way, &d_values, bins, &mut counts);
            let exact = stream.clone_dtoh(&counts).or_exit("copy the counts back") == want;
            let t = time_gpu(&stream, 3, 21, || {
                histogram(&stream, &k, way, &d_values, bins, &mut counts)
            });
            report(&name, bins, n, &t, exact);
            t.median_ms
        };

        // ANCHOR: others
        let global_blocks = sms * blocks_per_sm(&k.hist_global_bins.function, 0);
        let mut best_other = run(
            "global atomics".into(),
            Way::Global {
                blocks: global_blocks,
            },
        );
        let fewest = share_bytes(bins, 1).div_ceil(most_shared);
        for ranges in [fewest, 2 * fewest, 4 * fewest] {
            let shared = share_bytes(bins, ranges);
            allow_shared(&k.hist_bin_ranges.function, shared);
            let per_sm = blocks_per_sm(&k.hist_bin_ranges.function, shared);
            let blocks = (sms * per_sm).div_ceil(ranges).max(1);
            let name = format!("{ranges} bin ranges, {} KiB each", shared / 1024);
            best_other = best_other.min(run(name, Way::Ranges { blocks, ranges }));
        }
        // ANCHOR_END: others

        // ANCHOR: cluster_size
        println!(
            "  clusters: size, shared memory per block, clusters at once, blocks at once (this machine)"
        );
        let mut fits = Vec::new(); // (size, clusters at once)
        for size in CLUSTER_SIZES {
            let shared = share_bytes(bins, size);
            if shared > most_shared {
                println!(
                    "    {size:>2}: {:>3} KiB, more than a block may hold",
                    shared / 1024
                );
                continue;
            }
            allow_shared(&k.hist_cluster.function, shared);
            let one = cluster_shape(1, size, bins);
            let clusters = max_active_clusters(&k.hist_cluster.function, &one, &stream)
                .or_exit("ask how many clusters fit");
            println!(
                "    {size:>2}: {:>3} KiB, {clusters:>3}, {:>4}",
                shared / 1024,
                clusters * size
            );
            fits.push((size, clusters));
        }
        // The smallest cluster that keeps two blocks on every SM: a smaller one sends fewer
        // adds to other SMs, but one block of 256 threads per SM hides too little latency.
        let chosen = fits
            .iter()
            .find(|&&(size, clusters)| size * clusters >= 2 * sms)
            .or(fits.last())
            .map(|&(size, _)| size)
            .unwrap_or_else(|| course::cli::fail("no cluster size fits this GPU's shared memory"));
        println!(
            "  chosen: clusters of {chosen}, the smallest with two blocks per SM (this machine)"
        );
        // ANCHOR_END: cluster_size
        let mut chosen_ms = f64::INFINITY;
        for (size, clusters) in fits {
            let shared = share_bytes(bins, size);
            allow_shared(&k.hist_cluster.function, shared);
            let name = format!("clusters of {size}, {} KiB each", shared / 1024);
            let ms = run(
                name,
                Way::Cluster {
                    clusters: clusters.max(1),
                    size,
                },
            );
            if size == chosen {
                chosen_ms = ms;
            }
        }
        println!(
            "  clusters of {chosen} against the fastest way without: {:.2}x the speed (this machine)",
            best_other / chosen_ms
        );
    }
    edges(&stream, &k);
}

/// How many blocks of `function` fit on one SM with `shared` bytes of dynamic shared memory.
fn blocks_per_sm(function: &CudaFunction, shared: u32) -> u32 {
    function
        .occupancy_max_active_blocks_per_multiprocessor(THREADS, shared as usize, None)
        .or_exit("ask the occupancy")
        .max(1)
}

fn report(name: &str, bins: u32, n: usize, t: &Timing, exact: bool) {
    record(
        &format!("histogram of {bins} bins, {name}, {n} values"),
        t,
        Work::Bytes(4.0 * n as f64),
    );
    println!(
        "  {name:<32} {:>9} {:>11}, exact: {}",
        fmt_ms(t.median_ms),
        fmt_gb_per_s(4.0 * n as f64, t.median_ms),
        verdict(exact)
    );
}

/// Values at or past the last bin are not counted, and short inputs are right.
fn edges(stream: &Arc<CudaStream>, k: &Kernels) {
    let bins = 1u32 << 16;
    let values = vec![bins, bins + 1, u32::MAX, 0, bins - 1, 5];
    let want = histogram_cpu(&values, bins as usize);
    let d_values = stream
        .clone_htod(&values)
        .or_exit("copy the values to the GPU");
    // Four ranges, and clusters of four blocks: a quarter of the bins in each block.
    allow_shared(&k.hist_bin_ranges.function, share_bytes(bins, 4));
    allow_shared(&k.hist_cluster.function, share_bytes(bins, 4));
    let mut right = true;
    for way in [
        Way::Global { blocks: 1 },
        Way::Ranges {
            blocks: 1,
            ranges: 4,
        },
        Way::Cluster {
            clusters: 1,
            size: 4,
        },
    ] {
        let mut counts = alloc_poisoned::<u32>(stream, bins as usize);
        histogram(stream, k, way, &d_values, bins, &mut counts);
        right &= stream.clone_dtoh(&counts).or_exit("copy the counts back") == want;
    }
    println!(
        "6 values, 3 of them at or past the last of {bins} bins, every way: counted exactly the 3 others: {}",
        verdict(right)
    );
}
