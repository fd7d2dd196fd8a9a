//! Summing 2^26 integers into one global total: one atomic per element, per warp, per block,
//! and per block of a small grid-stride grid; and one atomic per element spread over many
//! counters. Every total must equal the CPU's exactly; each way is timed.
use std::sync::Arc;

use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

const THREADS: usize = 256;

mod ch06_contention {
    course::kernels!("ch06-contention.cu");
}

/// The kernel of a way. The kernels (a), (b) and (c) share one launcher type (the same
/// arguments and contract); (d) needs no thread per element, and (e) takes a counter mask.
#[derive(Clone, Copy)]
enum Kernel<'a> {
    OneTotal(&'a ch06_contention::SumAtomicEach),
    SmallGrid(&'a ch06_contention::SumAtomicBlockGridStride),
    Spread(&'a ch06_contention::SumAtomicSpread),
}

/// One way to add up the array: a kernel, its grid, how many global atomics it issues, and
/// how many separate counters they go to (the host adds the counters up at the end).
struct Way<'a> {
    name: String,
    kernel: Kernel<'a>,
    blocks: usize,
    global_atomics: usize,
    counters: usize,
}

/// Run `way` once on `d_x` into zeroed counters and return the total; then, if `timed`, time
/// it and return the median time too.
fn run(
    stream: &Arc<CudaStream>,
    way: &Way,
    d_x: &CudaSlice<u32>,
    n: usize,
    timed: bool,
) -> (u64, f64) {
    let cfg = LaunchConfig {
        grid_dim: (way.blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mask = way.counters as i32 - 1;
    let launch = |counters: &mut CudaSlice<u64>| match way.kernel {
        Kernel::OneTotal(k) => k.launch(stream, cfg, d_x, counters).or_exit_launching(k),
        Kernel::SmallGrid(k) => k.launch(stream, cfg, d_x, counters).or_exit_launching(k),
        Kernel::Spread(k) => k
            .launch(stream, cfg, d_x, counters, mask)
            .or_exit_launching(k),
    };
    // The counters must start at zero: an atomic adds to what is there.
    let mut d_counters = stream
        .alloc_zeros::<u64>(way.counters)
        .or_exit("allocate GPU memory");
    launch(&mut d_counters);
    let counters = stream.clone_dtoh(&d_counters).or_exit("copy from the GPU");
    let total = counters.iter().sum();
    if !timed {
        return (total, 0.0);
    }
    // The timed runs keep adding to the same counters: only the time matters there.
    let t = time_gpu(stream, 2, 10, || launch(&mut d_counters));
    record(
        &format!("contention, {}, n={n}", way.name),
        &t,
        Work::Bytes(4.0 * n as f64),
    );
    (total, t.median_ms)
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums integers into one total with one atomic per element, warp, block and fewer.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of integers",
                    problem_size(1 << 26, 1 << 20),
                    1,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));

    let mut rng = Rng::new(seed);
    let x: Vec<u32> = (0..n).map(|_| rng.below(1 << 16) as u32).collect();
    let want: u64 = x.par_iter().map(|&v| v as u64).sum();
    println!("{n} random integers below 2^16, seed {seed}");
    println!("their sum on the CPU: {want}");

    let module = load(&ctx, &kernel_file!("ch06-contention.cu"), false);
    let k = ch06_contention::Kernels::load(&module);
    let each = Kernel::OneTotal(&k.sum_atomic_each);
    let warp = Kernel::OneTotal(&k.sum_atomic_warp);
    let block = Kernel::OneTotal(&k.sum_atomic_block);
    let grid_stride = Kernel::SmallGrid(&k.sum_atomic_block_grid_stride);
    let spread = Kernel::Spread(&k.sum_atomic_spread);
    let d_x = stream.clone_htod(&x).or_exit("copy to the GPU");

    // ANCHOR: ways
    let attr = |a| ctx.attribute(a).or_exit("read a device attribute") as usize;
    let sms = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    let threads_per_sm =
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    let small_grid = sms * (threads_per_sm / THREADS); // just enough blocks to fill every SM once
    let blocks = n.div_ceil(THREADS); // one thread per element
    let warps = blocks * (THREADS / 32);
    let way = |name: &str, kernel, blocks, global_atomics, counters| Way {
        name: name.into(),
        kernel,
        blocks,
        global_atomics,
        counters,
    };
    let ways = [
        way("(a) one atomic per element", each, blocks, n, 1),
        way("(b) one atomic per warp", warp, blocks, warps, 1),
        way("(c) one atomic per block", block, blocks, blocks, 1),
        way(
            "(d) per block, small grid",
            grid_stride,
            small_grid,
            small_grid,
            1,
        ),
        way("(e) per element, 256 counters", spread, blocks, n, 256),
        way("(f) per element, 65536 counters", spread, blocks, n, 65536),
    ];
    // ANCHOR_END: ways

    println!(
        "{sms} SMs with up to {threads_per_sm} threads each, so the small grid is {small_grid} blocks of {THREADS} (this machine)"
    );
    println!(
        "{:<32} {:>8} {:>15} {:>10} {:>11} {:>8}  matches the CPU",
        "way", "blocks", "global atomics", "time", "input rate", "vs (a)"
    );
    let mut time_a = 0.0;
    let mut all_match = true;
    for w in &ways {
        let (total, ms) = run(&stream, w, &d_x, n, true);
        all_match &= total == want;
        if time_a == 0.0 {
            time_a = ms;
        }
        // Way (d)'s grid is sized to this GPU, so its row holds facts of this machine.
        let machine = if w.blocks == small_grid {
            " (this machine)"
        } else {
            ""
        };
        println!(
            "{:<32} {:>8} {:>15} {:>10} {:>11} {:>8}  {}{machine}",
            w.name,
            w.blocks,
            w.global_atomics,
            fmt_ms(ms),
            fmt_gb_per_s(4.0 * n as f64, ms),
            fmt_times(time_a / ms),
            verdict(total == want)
        );
    }
    println!(
        "every way's total equals the CPU's sum: {}",
        verdict(all_match)
    );

    // The known answer: on x[i] = i mod 2^16, each full run of 2^16 values adds up to
    // 2^16 (2^16 - 1) / 2, and the last, partial run of r values to r (r - 1) / 2.
    let ramp: Vec<u32> = (0..n).map(|i| (i % (1 << 16)) as u32).collect();
    let (runs, r) = ((n >> 16) as u64, (n % (1 << 16)) as u64);
    let known = runs * (65536 * 65535 / 2) + r * r.saturating_sub(1) / 2;
    let d_ramp = stream.clone_htod(&ramp).or_exit("copy to the GPU");
    let ramp_right = ways
        .iter()
        .all(|w| run(&stream, w, &d_ramp, n, false).0 == known);
    println!(
        "on x[i] = i mod 2^16, every way's total is the known sum {known}: {}",
        verdict(ramp_right)
    );
}
