//! The single-pass scan with decoupled look-back, on 2^26 and 2^28 unsigned integers unless a
//! length is given: the CPU's scan first, then the kernel, exact against it, timed against a
//! device-to-device copy and against CUB's scan in the same run (when the reference program is
//! beside this one). Then the same kernel with its tiles numbered backwards from blockIdx.x,
//! whose waits cannot end: each gives up after a bounded number of polls, and says so.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::cub;
use course::gpu::{OrExit, alloc_poisoned, describe, ensure_memory, gpu_or_exit, problem_size};
use course::kernel::{load, load_with};
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_cpu, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod ch08_scan {
    course::kernels!("ch08-scan.cu");
}

/// Threads per block and elements per tile: SCAN_THREADS and SCAN_THREADS × SCAN_ITEMS of the
/// kernel file.
const THREADS: usize = 128;
const TILE: usize = THREADS * 40;

/// The status words, the tile counter and the stall flag one launch needs. The launcher clears
/// the status words and the counter before each launch (the contract's `zeroed`).
struct LookBack {
    status: CudaSlice<u64>,
    next_tile: CudaSlice<u32>,
    stalled: CudaSlice<i32>,
    config: LaunchConfig,
}

impl LookBack {
    fn new(stream: &Arc<CudaStream>, n: usize) -> LookBack {
        let tiles = n.div_ceil(TILE);
        LookBack {
            status: stream
                .alloc_zeros(tiles)
                .or_exit("allocate the tile status"),
            next_tile: stream.alloc_zeros(1).or_exit("allocate the tile counter"),
            stalled: stream.alloc_zeros(1).or_exit("allocate the stall flag"),
            config: LaunchConfig {
                grid_dim: (tiles as u32, 1, 1),
                block_dim: (THREADS as u32, 1, 1),
                shared_mem_bytes: 0,
            },
        }
    }

    fn stalled(&self, stream: &Arc<CudaStream>) -> bool {
        stream
            .clone_dtoh(&self.stalled)
            .or_exit("read the stall flag")[0]
            != 0
    }

    /// The bytes [`LookBack::new`] allocates for `n` elements.
    fn bytes(n: usize) -> usize {
        8 * n.div_ceil(TILE) + 4 + 4
    }
}

fn main() {
    let (length, seed) = course::cli::parse(
        "Scans 2^26 and 2^28 u32 (or N) in one pass with decoupled look-back, against the CPU, a copy and CUB.",
        |args| {
            (
                args.optional_usize("N", "the number of elements", 1, 1 << 29),
                args.seed(),
            )
        },
    );
    let lengths = match length {
        Some(n) => vec![problem_size(n, n.min((1 << 20) + 123))],
        None => vec![
            problem_size(1 << 26, (1 << 20) + 123),
            problem_size(1 << 28, 1 << 21),
        ],
    };
    let ctx = gpu_or_exit();
    // Each length's input, scan and copy at once; then the backwards run's input and scan.
    let largest = lengths.iter().copied().max().unwrap_or(0);
    let backwards = problem_size(1 << 24, 1 << 18);
    let bytes =
        (12 * largest + LookBack::bytes(largest)).max(8 * backwards + LookBack::bytes(backwards));
    let what = format!("scan_lookback on {} elements", label(largest));
    ensure_memory(&ctx, bytes, &what);
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let k = ch08_scan::Kernels::load(&load(&ctx, &kernel_file!("ch08-scan.cu"), false));

    for n in lengths {
        // ANCHOR: cpu
        let mut rng = Rng::new(seed);
        let input: Vec<u32> = (0..n).map(|_| (rng.next_u64() >> 40) as u32).collect();
        let mut want = vec![0u32; n];
        // ANCHOR_END: cpu
        let t_cpu = time_cpu(0, 1, || {
            // ANCHOR: cpu
            let mut sum = 0u32;
            for (w, &x) in want.iter_mut().zip(&input) {
                sum = sum.wrapping_add(x);
                *w = sum;
            }
            // ANCHOR_END: cpu
        });
        let label = label(n);
        println!(
            "{label}: u32 below 2^24, seed {seed}; the CPU scans them in {}",
            fmt_ms(t_cpu.median_ms)
        );

        // ANCHOR: gpu
        let input_dev = stream
            .clone_htod(&input)
            .or_exit("copy the input to the GPU");
        let mut out = alloc_poisoned::<u32>(&stream, n);
        let mut look = LookBack::new(&stream, n);
        let t = time_gpu(&stream, 3, 21, || {
            let config = look.config;
            k.scan_lookback
                .launch(
                    &stream,
                    config,
                    &input_dev,
                    &mut out,
                    &mut look.status,
                    &mut look.next_tile,
                    &mut look.stalled,
                )
                .or_exit_launching(&k.scan_lookback);
        });
        let got = stream.clone_dtoh(&out).or_exit("copy the scan back");
        // ANCHOR_END: gpu
        let mut copy = alloc_poisoned::<u32>(&stream, n);
        let t_copy = time_gpu(&stream, 3, 21, || {
            stream
                .memcpy_dtod(&input_dev, &mut copy)
                .or_exit("copy on the GPU");
        });
        let bytes = 8.0 * n as f64; // every element read once and written once
        record(&format!("look-back scan, {label}"), &t, Work::Bytes(bytes));
        record(
            &format!("device-to-device copy, {label}"),
            &t_copy,
            Work::Bytes(bytes),
        );
        let wrong = count_mismatches(&got, &want);
        println!(
            "  look-back scan {:>9} {:>11}, copy {:>9} {:>11}",
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms),
            fmt_ms(t_copy.median_ms),
            fmt_gb_per_s(bytes, t_copy.median_ms)
        );
        println!(
            "  equal to the CPU's scan: {} of {n} elements differ, no tile stalled: {}",
            wrong,
            verdict(wrong == 0 && !look.stalled(&stream))
        );
        // ANCHOR: cub
        match cub::time("scan", n, seed) {
            Some(c) => {
                let ours = cub::checksum(&got);
                println!(
                    "  CUB's scan: {}, ours at {:.3} of its speed (this machine)",
                    fmt_ms(c.median_ms),
                    c.median_ms / t.median_ms
                );
                // ANCHOR_END: cub
                println!(
                    "  CUB's result equal to ours (checksums): {}",
                    verdict(c.checksum == ours)
                );
                let t_cub = course::timing::Timing {
                    median_ms: c.median_ms,
                    cpu_ms: 0.0,
                    reps: 21,
                };
                record(
                    &format!("CUB inclusive scan, {label}"),
                    &t_cub,
                    Work::Bytes(bytes),
                );
                // ANCHOR: cub
            }
            None => {
                println!("  CUB's scan: {}", course::cub::NO_REFERENCE);
                println!(
                    "  CUB's result equal to ours (checksums): {}",
                    course::cub::NO_REFERENCE
                );
            }
        }
        // ANCHOR_END: cub
    }

    // ANCHOR: backwards
    // Tiles numbered backwards from blockIdx.x: the blocks that start first wait for tiles whose
    // blocks cannot start. More tiles than fit on the GPU at once make sure of it. A wait gives
    // up after a tenth of a second here instead of ten.
    let file = kernel_file!("ch08-scan.cu");
    let module = load_with(&ctx, &file, false, &["-DWAIT_LIMIT_NS=100000000ull"]);
    let k = ch08_scan::Kernels::load(&module);
    let n = problem_size(1 << 24, 1 << 18);
    let input_dev = stream
        .clone_htod(&vec![1u32; n])
        .or_exit("copy the input to the GPU");
    let mut out = alloc_poisoned::<u32>(&stream, n);
    let mut look = LookBack::new(&stream, n);
    let config = look.config;
    k.scan_lookback_backwards
        .launch(
            &stream,
            config,
            &input_dev,
            &mut out,
            &mut look.status,
            &mut look.next_tile,
            &mut look.stalled,
        )
        .or_exit_launching(&k.scan_lookback_backwards);
    let got = stream.clone_dtoh(&out).or_exit("copy the scan back");
    let wrong = got
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v != i as u32 + 1)
        .count();
    println!(
        "tiles numbered backwards, {}: a tile gave up waiting: {}",
        label(n),
        verdict(look.stalled(&stream))
    );
    println!("  elements wrong after the give-ups: {wrong} of {n} (varies)");
    // ANCHOR_END: backwards
}

/// `n=2^26` for a power of two, `n=1048699` otherwise.
fn label(n: usize) -> String {
    match n.is_power_of_two() {
        true => format!("n=2^{}", n.trailing_zeros()),
        false => format!("n={n}"),
    }
}
