//! A whole-array float sum in one kernel, whose blocks wait for each other at
//! `cg::this_grid().sync()`: launched cooperatively with a grid sized by the occupancy
//! calculator, compared with the same two phases as two kernels, and then refused when asked
//! for one block more than the GPU can hold.
use std::sync::Arc;

use course::compare::{verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::launch::LaunchError;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::sys::{CUdevice_attribute as Attr, CUresult};
use cudarc::driver::{CudaSlice, CudaStream, DriverError, LaunchConfig};
use rayon::prelude::*;

const THREADS: u32 = 256;

mod ch06_cooperative {
    course::kernels!("ch06-cooperative.cu");
}

fn grid(blocks: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

// ANCHOR: cooperative
/// One cooperative launch of `sum_grid_sync` on `blocks` blocks. The driver checks, before
/// anything runs, that all the blocks can be resident at once.
fn launch_grid_sync(
    stream: &Arc<CudaStream>,
    kernel: &ch06_cooperative::SumGridSync,
    x: &CudaSlice<f32>,
    partials: &mut CudaSlice<f32>,
    total: &mut CudaSlice<f32>,
    blocks: u32,
) -> Result<(), LaunchError> {
    // The contract says `cooperative`: the launcher launches with cuLaunchCooperativeKernel.
    kernel.launch(stream, grid(blocks), x, partials, total)
}
// ANCHOR_END: cooperative

// ANCHOR: two_kernels
/// The same sum as two ordinary launches: per-block partial sums, then one block adds them.
fn launch_two_kernels(
    stream: &Arc<CudaStream>,
    k: &ch06_cooperative::Kernels,
    x: &CudaSlice<f32>,
    partials: &mut CudaSlice<f32>,
    total: &mut CudaSlice<f32>,
    blocks: u32,
) {
    k.block_partials
        .launch(stream, grid(blocks), x, partials)
        .or_exit_launching(&k.block_partials);
    k.sum_partials
        .launch(stream, grid(1), partials, total)
        .or_exit_launching(&k.sum_partials);
}
// ANCHOR_END: two_kernels

fn main() {
    let seed = course::cli::parse(
        "Sums an array in one kernel whose blocks meet at a grid-wide barrier.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    if ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
        .or_exit("ask about cooperative launches")
        == 0
    {
        eprintln!("This GPU does not support cooperative launches, which this program is about.");
        std::process::exit(1);
    }
    let module = load(&ctx, &kernel_file!("ch06-cooperative.cu"), false);
    let k = ch06_cooperative::Kernels::load(&module);
    let sum_grid_sync = &k.sum_grid_sync;

    let n = problem_size(1 << 26, 1 << 20);
    let x = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    let want: f64 = x.par_iter().map(|&v| v as f64).sum();
    let d_x = stream.clone_htod(&x).or_exit("copy x to the GPU");
    println!("{n} floats in [0, 1), seed {seed}");
    // rayon's order of addition depends on the threads: compare with a serial float64 sum.
    let serial: f64 = x.iter().map(|&v| v as f64).sum();
    let (line, _) = within_bound(
        &format!("rayon's float64 sum {want:.6}, relative difference from a serial sum"),
        (want - serial) / serial,
        1e-12,
    );
    println!("{line}");

    // ANCHOR: occupancy
    // Every block must be resident at once: ask the occupancy calculator how many fit.
    let per_sm = sum_grid_sync
        .function
        .occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None)
        .or_exit("ask for the occupancy of sum_grid_sync");
    let sms = ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("count the SMs") as u32;
    let resident = per_sm * sms;
    println!(
        "sum_grid_sync, {THREADS} threads per block: {per_sm} blocks per SM x {sms} SMs = \
         {resident} resident blocks (this machine)"
    );
    // Under compute-sanitizer, whose instrumented kernels may need more registers, one block per SM.
    let blocks = problem_size(resident as usize, sms as usize) as u32;
    // ANCHOR_END: occupancy

    // ANCHOR: runs
    let mut totals = Vec::new();
    for _ in 0..3 {
        let mut partials = alloc_poisoned::<f32>(&stream, blocks as usize);
        let mut total = alloc_poisoned::<f32>(&stream, 1);
        launch_grid_sync(
            &stream,
            sum_grid_sync,
            &d_x,
            &mut partials,
            &mut total,
            blocks,
        )
        .or_exit_launching(sum_grid_sync);
        totals.push(stream.clone_dtoh(&total).or_exit("copy the total back")[0]);
    }
    let mut partials = alloc_poisoned::<f32>(&stream, blocks as usize);
    let mut total = alloc_poisoned::<f32>(&stream, 1);
    launch_two_kernels(&stream, &k, &d_x, &mut partials, &mut total, blocks);
    let split = stream.clone_dtoh(&total).or_exit("copy the total back")[0];

    // The longest chain of float32 additions here is about 270 long (some 250 in a thread's
    // loop, then the shuffles and the loop over the partials); each rounds by at most 2^-24
    // relative, so the worst case is about 1.6e-5. The tolerance, 1e-4, is above it.
    let error = (totals[0] as f64 - want) / want;
    println!("one kernel with grid.sync(), one wave of blocks, 3 launches:");
    // ANCHOR_END: runs
    let (line, _) = within_bound(
        &format!(
            "  sum {:.1}, relative error against the float64 sum",
            totals[0]
        ),
        error,
        1e-4,
    );
    println!("{line}");
    println!(
        "  the 3 launches agree bit for bit: {}",
        verdict(totals.iter().all(|t| t.to_bits() == totals[0].to_bits()))
    );
    println!(
        "two kernels, same grid: the sum equals the one-kernel sum bit for bit: {}",
        verdict(split.to_bits() == totals[0].to_bits())
    );

    // The known answer: x[i] = i mod 16 over 2^20 values sums to 2^16 x 120 = 7864320. Every
    // partial sum is a whole number below 2^24, which float32 holds exactly, so the grid-wide
    // sum must be exact in whatever order the blocks add.
    let known: Vec<f32> = (0..1 << 20).map(|i| (i % 16) as f32).collect();
    let d_known = stream.clone_htod(&known).or_exit("copy to the GPU");
    launch_grid_sync(
        &stream,
        sum_grid_sync,
        &d_known,
        &mut partials,
        &mut total,
        blocks,
    )
    .or_exit_launching(sum_grid_sync);
    let exact = stream.clone_dtoh(&total).or_exit("copy the total back")[0];
    println!(
        "one kernel with grid.sync(), sum of i mod 16 over 2^20 values {exact:.1}, exactly 7864320: {}",
        verdict(exact == 7_864_320.0)
    );

    // ANCHOR: timing
    let bytes = 4.0 * n as f64;
    let one = time_gpu(&stream, 3, 20, || {
        launch_grid_sync(
            &stream,
            sum_grid_sync,
            &d_x,
            &mut partials,
            &mut total,
            blocks,
        )
        .or_exit_launching(sum_grid_sync)
    });
    let two = time_gpu(&stream, 3, 20, || {
        launch_two_kernels(&stream, &k, &d_x, &mut partials, &mut total, blocks)
    });
    // ANCHOR_END: timing
    record(
        &format!("sum_grid_sync, {n} f32, {blocks} blocks"),
        &one,
        Work::Bytes(bytes),
    );
    record(
        &format!("block_partials + sum_partials, {n} f32, {blocks} blocks"),
        &two,
        Work::Bytes(bytes),
    );
    // ANCHOR: timing
    println!(
        "one kernel with grid.sync(): {}, {}",
        fmt_ms(one.median_ms),
        fmt_gb_per_s(bytes, one.median_ms)
    );
    println!(
        "two kernels:                 {}, {}",
        fmt_ms(two.median_ms),
        fmt_gb_per_s(bytes, two.median_ms)
    );
    // ANCHOR_END: timing

    // ANCHOR: too_large
    // One block more than can be resident: the driver refuses before anything runs.
    let too_many = resident + 1;
    let mut partials = alloc_poisoned::<f32>(&stream, too_many as usize);
    match launch_grid_sync(
        &stream,
        sum_grid_sync,
        &d_x,
        &mut partials,
        &mut total,
        too_many,
    ) {
        Err(LaunchError::Driver(DriverError(
            CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
        ))) => {
            println!("{too_many} blocks, one more than fit at once (this machine)");
            println!(
                "  refused with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE before anything ran: yes"
            );
        }
        Err(other) => course::exit::fail(
            course::exit::EXIT_CUDA_FAILED,
            &format!(
                "could not launch sum_grid_sync with {too_many} blocks, for another reason: {other}."
            ),
        ),
        Ok(()) => {
            stream.synchronize().or_exit("finish the launch");
            println!("{too_many} blocks, one more than fit at once (this machine)");
            println!(
                "  refused with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE before anything ran: NO"
            );
        }
    }
    // ANCHOR_END: too_large
}
