//! Summing 2^26 floats (256 MiB, larger than any L2 cache) with two block reductions: chapter
//! 5's tree in shared memory and the two-level warp-shuffle sum, each on two grids, measured
//! against a device-to-device copy of the same bytes and checked against a float64 rayon sum.
use std::sync::Arc;

use course::compare::{verdict, within_bound};
use course::gpu::{OrExit, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::launch::{LaunchError, Launcher};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, record, time_cpu, time_gpu};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

const THREADS: u32 = 256;

mod ch06_block_reduce {
    course::kernels!("ch06-block-reduce.cu");
}

/// `sum_tree` and `sum_shuffle` take the same arguments, but their launchers are two types:
/// only the tree's contract asks for blocks of exactly THREADS threads.
trait SumKernel: Launcher {
    fn launch_on(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        x: &CudaSlice<f32>,
        total: &mut CudaSlice<f32>,
    ) -> Result<(), LaunchError>;
}

impl SumKernel for ch06_block_reduce::SumTree {
    fn launch_on(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        x: &CudaSlice<f32>,
        total: &mut CudaSlice<f32>,
    ) -> Result<(), LaunchError> {
        self.launch(stream, cfg, x, total)
    }
}

impl SumKernel for ch06_block_reduce::SumShuffle {
    fn launch_on(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        x: &CudaSlice<f32>,
        total: &mut CudaSlice<f32>,
    ) -> Result<(), LaunchError> {
        self.launch(stream, cfg, x, total)
    }
}

/// Time `kernel(x, n, total)` on `blocks` blocks, then run it once more from a zero total and
/// return that sum. The timed runs add into the total; only the last run is checked.
fn run_sum(
    stream: &Arc<CudaStream>,
    kernel: &dyn SumKernel,
    x: &CudaSlice<f32>,
    blocks: u32,
) -> (Timing, f32) {
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut total = stream.alloc_zeros::<f32>(1).or_exit("allocate the total");
    let launch = |total: &mut CudaSlice<f32>| {
        kernel
            .launch_on(stream, cfg, x, total)
            .or_exit_launching(kernel.function());
    };
    let t = time_gpu(stream, 3, 20, || launch(&mut total));
    stream.memset_zeros(&mut total).or_exit("zero the total");
    launch(&mut total);
    (
        t,
        stream.clone_dtoh(&total).or_exit("copy the total back")[0],
    )
}

/// `sum_tree` is written for blocks of exactly THREADS threads, its `__launch_bounds__`:
/// refuse to launch it with any other size.
fn check_tree_block_size(sum_tree: &CudaFunction) {
    let most = sum_tree
        .max_threads_per_block()
        .or_exit("ask for the kernel's block size");
    if most != THREADS as i32 {
        eprintln!(
            "sum_tree is compiled for blocks of {most} threads, not the {THREADS} it is launched with."
        );
        std::process::exit(1);
    }
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Sums floats with a shared-memory tree and with warp shuffles, against a copy's speed.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of floats",
                    problem_size(1 << 26, 1 << 20),
                    1024,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());

    // ANCHOR: cpu
    // Values in [0, 1): nothing cancels, so a float32 sum in any sensible order lands within
    // 1e-4 of the float64 one. rayon's sum is itself a reduction tree: each worker thread adds
    // up its pieces of the slice, and the partial sums are then added pairwise.
    let x = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    // ANCHOR_END: cpu
    let cpu = time_cpu(1, 5, || {
        // ANCHOR: cpu
        x.par_iter().map(|&v| v as f64).sum::<f64>()
        // ANCHOR_END: cpu
    });
    // ANCHOR: cpu
    let want: f64 = x.par_iter().map(|&v| v as f64).sum();
    let bytes = 4.0 * n as f64;
    println!("{n} floats in [0, 1) ({} MiB), seed {seed}", n * 4 >> 20);
    // rayon's order of addition depends on the threads: compare with a serial float64 sum.
    let serial: f64 = x.iter().map(|&v| v as f64).sum();
    // ANCHOR_END: cpu
    let (line, _) = within_bound(
        &format!("rayon's float64 sum {want:.6}, relative difference from a serial sum"),
        (want - serial) / serial,
        1e-12,
    );
    println!("{line}");
    println!(
        "  rayon: {}, {}",
        fmt_ms(cpu.median_ms),
        fmt_gb_per_s(bytes, cpu.median_ms)
    );

    // ANCHOR: ceiling
    // The ceiling: copying the same 4n bytes to another buffer reads them and writes them.
    let d_x = stream.clone_htod(&x).or_exit("copy x to the GPU");
    let mut d_copy = stream.alloc_zeros::<f32>(n).or_exit("allocate GPU memory");
    let copy = time_gpu(&stream, 3, 20, || {
        stream
            .memcpy_dtod(&d_x, &mut d_copy)
            .or_exit("copy on the GPU")
    });
    let copy_rate = 2.0 * bytes / copy.median_ms;
    // ANCHOR_END: ceiling
    record(
        &format!("device-to-device copy, {n} f32"),
        &copy,
        Work::Bytes(2.0 * bytes),
    );
    // ANCHOR: ceiling
    println!(
        "device-to-device copy of the same bytes: {}, {} (read + written)",
        fmt_ms(copy.median_ms),
        fmt_gb_per_s(2.0 * bytes, copy.median_ms)
    );
    drop(d_copy);
    // ANCHOR_END: ceiling

    // ANCHOR: sums
    let module = load(&ctx, &kernel_file!("ch06-block-reduce.cu"), false);
    let sms = ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as u32;
    // The known answer: x[i] = i mod 16 over 2^20 values sums to 2^16 x 120 = 7864320. Every
    // partial sum is a whole number below 2^24, which float32 holds exactly: in any order of
    // addition the sum must come out exact.
    let known: Vec<f32> = (0..1 << 20).map(|i| (i % 16) as f32).collect();
    let d_known = stream.clone_htod(&known).or_exit("copy to the GPU");
    let k = ch06_block_reduce::Kernels::load(&module);
    check_tree_block_size(&k.sum_tree.function);
    let kernels: [(&str, &dyn SumKernel); 2] =
        [("sum_tree", &k.sum_tree), ("sum_shuffle", &k.sum_shuffle)];
    for (name, kernel) in kernels {
        let per_sm = kernel
            .function()
            .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
            .or_exit("ask for the occupancy");
        // One element per thread, as in chapter 5; then one wave of blocks, as many as fit at once.
        let grids = [
            (n.div_ceil(THREADS as usize) as u32, "1 element per thread"),
            (per_sm * sms, "one wave"),
        ];
        for (blocks, how) in grids {
            let (t, got) = run_sum(&stream, kernel, &d_x, blocks);
            // ANCHOR_END: sums
            record(
                &format!("{name}, {n} f32, {blocks} blocks"),
                &t,
                Work::Bytes(bytes),
            );
            // ANCHOR: sums
            let error = (got as f64 - want) / want;
            let share = 100.0 * (bytes / t.median_ms) / copy_rate;
            // The one-wave grid's size is a fact of this GPU, and so is its line.
            let machine = if how == "one wave" {
                " (this machine)"
            } else {
                ""
            };
            println!("{name}, {blocks} blocks ({how}), so {blocks} atomic additions:{machine}");
            println!(
                "  {}, {}, {share:.0}% of the copy's rate",
                fmt_ms(t.median_ms),
                fmt_gb_per_s(bytes, t.median_ms)
            );
            // ANCHOR_END: sums
            let (line, _) = within_bound(
                &format!("  sum {got:.1}, relative error against the float64 sum"),
                error,
                1e-4,
            );
            println!("{line}");
            // ANCHOR: sums
            let (_, exact) = run_sum(&stream, kernel, &d_known, blocks);
            // ANCHOR_END: sums
            println!(
                "  sum of i mod 16 over 2^20 values {exact:.1}, exactly 7864320: {}",
                verdict(exact == 7_864_320.0)
            );
            // ANCHOR: sums
        }
    }
    // ANCHOR_END: sums
}
