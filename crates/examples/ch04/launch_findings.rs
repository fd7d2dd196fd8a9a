//! Launches that the course's safe launchers once accepted, and what each did to the GPU: run
//! with `raw`, a finding is launched through cudarc's unchecked builder, as the old launcher
//! would have launched it (the checks of `compute-sanitizer` then name what went wrong); without
//! it, the safe launcher refuses the launch in one sentence, or, where the fix is in the
//! launcher or the kernel, the same launch now gives the right answer.
//!
//! The raw launches break the GPU's context on purpose: each runs alone, one per process.

use std::sync::Arc;
use std::time::{Duration, Instant};

use course::compare::verdict;
use course::exit::EXIT_TOO_FEW_GPUS;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{load, load_with};
use course::kernel_file;
use course::launch::{LaunchError, Span};
use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};

mod ch05_histogram {
    course::kernels!("ch05-histogram.cu");
}
mod ch06_scan {
    course::kernels!("ch06-scan.cu");
}
mod ch08_scan {
    course::kernels!("ch08-scan.cu");
}
mod ch08_sgemm {
    course::kernels!("ch08-sgemm.cu");
}
mod ch08_sort {
    course::kernels!("ch08-sort.cu");
}

const FINDINGS: [&str; 10] = [
    "pairs-lengths",
    "scan-warps-grid",
    "sgemm-grid",
    "stride-zero",
    "sort-2-30",
    "unaligned",
    "2d-grid",
    "stale-status",
    "give-up",
    "barrier",
];

/// Needs two GPUs, so it runs only when named: a buffer of one GPU's context passed to a launch
/// on the other's stream.
const TWO_GPUS: &str = "other-context";

fn main() {
    let (finding, raw) = course::cli::parse(
        "Shows each launch the safe launchers once accepted: refused now, or right now; with `raw`, one of them launched unchecked.",
        |args| {
            (
                args.choice(
                    "FINDING",
                    "one finding (default: all of them but other-context, which needs two GPUs)",
                    &[&FINDINGS[..], &[TWO_GPUS]].concat(),
                ),
                args.word("raw", "launch it unchecked, as the old launcher did"),
            )
        },
    );
    if raw && (finding.is_none() || finding.as_deref() == Some(TWO_GPUS)) {
        course::cli::fail("`raw` launches one finding other than other-context: name it first");
    }
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let gpu = Gpu { ctx, stream };
    let chosen: Vec<&str> = match &finding {
        Some(f) => vec![f.as_str()],
        None => FINDINGS.to_vec(),
    };
    for f in chosen {
        match f {
            "pairs-lengths" => pairs_lengths(&gpu, raw),
            "scan-warps-grid" => scan_warps_grid(&gpu, raw),
            "sgemm-grid" => sgemm_grid(&gpu, raw),
            "stride-zero" => stride_zero(&gpu, raw),
            "sort-2-30" => sort_2_30(&gpu, raw),
            "unaligned" => unaligned(&gpu, raw),
            "2d-grid" => grid_2d(&gpu, raw),
            "stale-status" => stale_status(&gpu, raw),
            "give-up" => give_up(&gpu),
            "other-context" => other_context(&gpu),
            _ => barrier(&gpu),
        }
    }
}

struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl Gpu {
    fn zeros<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> CudaSlice<T> {
        self.stream.alloc_zeros(len).or_exit("allocate GPU memory")
    }

    fn copy<T: cudarc::driver::DeviceRepr>(&self, host: &[T]) -> CudaSlice<T> {
        self.stream.clone_htod(host).or_exit("copy to the GPU")
    }
}

fn one_d(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The safe launcher's answer: a refusal, in its own sentence.
fn refusal(result: Result<impl Sized, LaunchError>) {
    match result {
        Err(e) => println!("  the safe launcher refuses it: yes: {e}"),
        Ok(_) => println!("  the safe launcher refuses it: NO, it launched"),
    }
}

/// What an unchecked launch did, once the GPU has run it (or failed to).
fn outcome(gpu: &Gpu, launched: Result<(), DriverError>) {
    let done = launched.and_then(|()| gpu.stream.synchronize());
    match done {
        Ok(()) => println!("  raw launch: the GPU reported no error"),
        Err(e) => println!("  raw launch: the GPU reported {e}"),
    }
}

/// Keys of 1000 with values of 2000: the old launcher derived n twice, from the keys and then
/// from the values, and launched with n = 2000.
fn pairs_lengths(gpu: &Gpu, raw: bool) {
    println!("pairs-lengths: radix_pass_pairs with 1000 keys and 2000 values");
    let k = ch08_sort::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch08-sort.cu"), false));
    let keys = gpu.copy(&(0..1000u32).collect::<Vec<_>>());
    let mut keys_out = alloc_poisoned::<u32>(&gpu.stream, 1000);
    let values = gpu.copy(&(0..2000u32).collect::<Vec<_>>());
    let mut values_out = alloc_poisoned::<u32>(&gpu.stream, 2000);
    let mut counts = gpu.zeros::<u32>(1024);
    k.radix_histogram
        .launch(&gpu.stream, one_d(4, 256), &keys, &mut counts)
        .or_exit_launching(&k.radix_histogram);
    let counts = counts.slice(0..256);
    let (mut status, mut next_tile, mut stalled) = (
        gpu.zeros::<u32>(256),
        gpu.zeros::<u32>(1),
        gpu.zeros::<i32>(1),
    );
    if raw {
        let (n, shift) = (2000i32, 0i32);
        let mut b = gpu.stream.launch_builder(&k.radix_pass_pairs.function);
        b.arg(&keys)
            .arg(&mut keys_out)
            .arg(&values)
            .arg(&mut values_out);
        b.arg(&n)
            .arg(&shift)
            .arg(&counts)
            .arg(&mut status)
            .arg(&mut next_tile);
        b.arg(&mut stalled);
        // SAFETY: none; the launch breaks the kernel's contract on purpose.
        return outcome(gpu, unsafe { b.launch(one_d(1, 256)) }.map(|_| ()));
    }
    // SAFETY: `counts` are radix_histogram's counts of `keys` (were the launch accepted).
    refusal(unsafe {
        k.radix_pass_pairs.launch(
            &gpu.stream,
            one_d(1, 256),
            &keys,
            &mut keys_out,
            &values,
            &mut values_out,
            0,
            &counts,
            &mut status,
            &mut next_tile,
            &mut stalled,
        )
    });
}

/// A buffer allocated in GPU 1's context, passed to a launch on GPU 0's stream: the kernel would
/// read an address that means nothing on GPU 0. The launcher compares each buffer's context
/// with the stream's.
fn other_context(gpu: &Gpu) {
    let count = CudaContext::device_count().or_exit("count the GPUs");
    if count < 2 {
        println!("other-context needs two GPUs but this machine has {count}; skipping it.");
        std::process::exit(EXIT_TOO_FEW_GPUS);
    }
    println!("other-context: scan_warps on GPU 0's stream, its input allocated on GPU 1");
    let k = ch06_scan::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch06-scan.cu"), false));
    let second = CudaContext::new(1).or_exit("open the second GPU");
    let theirs = second
        .default_stream()
        .clone_htod(&[1u32, 2, 3])
        .or_exit("copy to the second GPU");
    let mut out = alloc_poisoned::<u32>(&gpu.stream, 3);
    refusal(
        k.scan_warps
            .launch(&gpu.stream, one_d(1, 32), &theirs, &mut out),
    );
    let ours = gpu.copy(&[1u32, 2, 3]);
    k.scan_warps
        .launch(&gpu.stream, one_d(1, 32), &ours, &mut out)
        .or_exit_launching(&k.scan_warps);
    let sums = gpu.stream.clone_dtoh(&out).or_exit("copy from the GPU");
    println!(
        "  the same launch with its input on GPU 0: scans 1, 2, 3 into {sums:?}, expected [1, 3, 6]: {}",
        verdict(sums == [1, 3, 6])
    );
}

/// One element, blocks of 1024 and 2^21 + 1 of them: the last block's `int i` passes 2^31.
fn scan_warps_grid(gpu: &Gpu, raw: bool) {
    println!("scan-warps-grid: scan_warps, n = 1, 2^21 + 1 blocks of 1024 threads");
    let k = ch06_scan::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch06-scan.cu"), false));
    let input = gpu.copy(&[1u32]);
    let mut out = alloc_poisoned::<u32>(&gpu.stream, 1);
    let config = one_d((1 << 21) + 1, 1024);
    if raw {
        let mut b = gpu.stream.launch_builder(&k.scan_warps.function);
        b.arg(&input).arg(&mut out).arg(&1i32);
        // SAFETY: none; the launch breaks the kernel's contract on purpose.
        return outcome(gpu, unsafe { b.launch(config) }.map(|_| ()));
    }
    refusal(k.scan_warps.launch(&gpu.stream, config, &input, &mut out));
}

/// An 8 x 8 product on 2^24 + 1 blocks along x: blockIdx.x * 128 passes 2^31.
fn sgemm_grid(gpu: &Gpu, raw: bool) {
    println!("sgemm-grid: sgemm_2d_blocking, m = n = k = 8, 2^24 + 1 blocks along x");
    let k = ch08_sgemm::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch08-sgemm.cu"), false));
    let a = gpu.copy(&[1.0f32; 64]);
    let b_in = gpu.copy(&[1.0f32; 64]);
    let mut c = alloc_poisoned::<f32>(&gpu.stream, 64);
    let config = one_d((1 << 24) + 1, 256);
    if raw {
        let mut b = gpu.stream.launch_builder(&k.sgemm_2d_blocking.function);
        b.arg(&a)
            .arg(&b_in)
            .arg(&mut c)
            .arg(&8i32)
            .arg(&8i32)
            .arg(&8i32);
        // SAFETY: none; the launch breaks the kernel's contract on purpose.
        return outcome(gpu, unsafe { b.launch(config) }.map(|_| ()));
    }
    refusal(
        k.sgemm_2d_blocking
            .launch(&gpu.stream, config, &a, &b_in, &mut c, 8, 8, 8),
    );
}

/// 2^24 blocks of 256 threads: the histogram's unsigned stride, 2^32 threads, is 0.
fn stride_zero(gpu: &Gpu, raw: bool) {
    println!("stride-zero: hist_shared, 1000 bytes, 2^24 blocks of 256 threads");
    let file = kernel_file!("ch05-histogram.cu");
    let k = ch05_histogram::Kernels::load(&load(&gpu.ctx, &file, false));
    let bytes = gpu.copy(&[7u8; 1000]);
    let mut bins = gpu.zeros::<u32>(256);
    let config = one_d(1 << 24, 256);
    if raw {
        let mut b = gpu.stream.launch_builder(&k.hist_shared.function);
        b.arg(&bytes).arg(&1000i32).arg(&mut bins);
        // SAFETY: none; the launch breaks the kernel's contract on purpose.
        unsafe { b.launch(config) }.or_exit("launch hist_shared");
        let done = gpu.stream.record_event(None).or_exit("record an event");
        let start = Instant::now();
        while !done.is_complete() {
            if start.elapsed() > Duration::from_secs(5) {
                println!("  raw launch: still running after 5 s (its loop never ends); stopped");
                std::process::exit(0); // the driver ends the kernel with the process
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        return println!("  raw launch: finished (the loop ended after all)");
    }
    refusal(k.hist_shared.launch(&gpu.stream, config, &bytes, &mut bins));
}

/// 2^30 + 2^22 keys, all with digit 0: from key 2^30 on, the count a tile publishes runs into
/// the status word's two state bits, and the tiles after it read a wrong prefix.
fn sort_2_30(gpu: &Gpu, raw: bool) {
    const N: usize = (1 << 30) + (1 << 22);
    println!("sort-2-30: one pass of radix_pass_pairs over 2^30 + 2^22 keys, all with digit 0");
    if !raw {
        let whole = |len: usize| Span::of_len(len);
        return refusal(ch08_sort::RadixPassPairs::contract(
            "radix_pass_pairs",
            &one_d(N.div_ceil(4096) as u32, 256),
            whole(N),
            whole(N),
            whole(N),
            whole(N),
            0,
            whole(256),
            whole(N.div_ceil(4096) * 256),
            whole(1),
            whole(1),
        ));
    }
    course::gpu::ensure_memory(&gpu.ctx, 4 * 4 * N + N / 4, "sort-2-30");
    let k = ch08_sort::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch08-sort.cu"), false));
    let keys_host: Vec<u32> = (0..N as u32).map(|i| i << 8).collect();
    let keys = gpu.copy(&keys_host);
    let values = gpu.copy(&(0..N as u32).collect::<Vec<_>>());
    drop(keys_host);
    let mut keys_out = alloc_poisoned::<u32>(&gpu.stream, N);
    let mut values_out = alloc_poisoned::<u32>(&gpu.stream, N);
    let mut counts = gpu.zeros::<u32>(1024);
    k.radix_histogram
        .launch(&gpu.stream, one_d(1024, 256), &keys, &mut counts)
        .or_exit_launching(&k.radix_histogram);
    let counts = counts.slice(0..256);
    let tiles = N / 4096;
    let (mut status, mut next_tile, mut stalled) = (
        gpu.zeros::<u32>(tiles * 256),
        gpu.zeros::<u32>(1),
        gpu.zeros::<i32>(1),
    );
    let (n, shift) = (N as i32, 0i32);
    let mut b = gpu.stream.launch_builder(&k.radix_pass_pairs.function);
    b.arg(&keys)
        .arg(&mut keys_out)
        .arg(&values)
        .arg(&mut values_out);
    b.arg(&n)
        .arg(&shift)
        .arg(&counts)
        .arg(&mut status)
        .arg(&mut next_tile);
    b.arg(&mut stalled);
    // SAFETY: none; n = 2^30 breaks the kernel's contract on purpose.
    let launched = unsafe { b.launch(one_d(tiles as u32, 256)) }.map(|_| ());
    if let Err(e) = launched.and_then(|()| gpu.stream.synchronize()) {
        return println!("  raw launch: the GPU reported {e}");
    }
    let got = gpu
        .stream
        .clone_dtoh(&values_out)
        .or_exit("copy the values back");
    let moved = got
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v != i as u32)
        .count();
    println!("  raw launch: values out of place after a stable pass: {moved} of {N} (0 is right)");
}

/// `&x.slice(1..)`: a view one element in, where the scan loads and stores 16 bytes at a time.
fn unaligned(gpu: &Gpu, raw: bool) {
    println!("unaligned: scan_lookback on a view that starts one u32 into its buffer");
    let k = ch08_scan::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch08-scan.cu"), false));
    let n: usize = 1 << 16;
    let input = gpu.copy(&vec![1u32; n + 1]);
    let mut out = alloc_poisoned::<u32>(&gpu.stream, n + 1);
    let (mut status, mut next_tile, mut stalled) = (
        gpu.zeros::<u64>(16),
        gpu.zeros::<u32>(1),
        gpu.zeros::<i32>(1),
    );
    let (view, mut view_out) = (input.slice(1..), out.slice_mut(1..));
    let config = one_d(n.div_ceil(5120) as u32, 128);
    if raw {
        let n = n as i32;
        let mut b = gpu.stream.launch_builder(&k.scan_lookback.function);
        b.arg(&view).arg(&mut view_out).arg(&n);
        b.arg(&mut status).arg(&mut next_tile).arg(&mut stalled);
        // SAFETY: none; the misaligned view breaks the kernel's contract on purpose.
        return outcome(gpu, unsafe { b.launch(config) }.map(|_| ()));
    }
    refusal(k.scan_lookback.launch(
        &gpu.stream,
        config,
        &view,
        &mut view_out,
        &mut status,
        &mut next_tile,
        &mut stalled,
    ));
}

/// Two rows of blocks: both rows take tile numbers from the counter, past the status words.
fn grid_2d(gpu: &Gpu, raw: bool) {
    println!("2d-grid: scan_lookback on a grid of 2 rows of blocks");
    let k = ch08_scan::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch08-scan.cu"), false));
    let n: usize = 1 << 20;
    let tiles = n.div_ceil(5120);
    let input = gpu.copy(&vec![1u32; n]);
    let mut out = alloc_poisoned::<u32>(&gpu.stream, n);
    let (mut status, mut next_tile, mut stalled) = (
        gpu.zeros::<u64>(tiles),
        gpu.zeros::<u32>(1),
        gpu.zeros::<i32>(1),
    );
    let config = LaunchConfig {
        grid_dim: (tiles as u32, 2, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    if raw {
        let n = n as i32;
        let mut b = gpu.stream.launch_builder(&k.scan_lookback.function);
        b.arg(&input).arg(&mut out).arg(&n);
        b.arg(&mut status).arg(&mut next_tile).arg(&mut stalled);
        // SAFETY: none; the second row of blocks breaks the kernel's contract on purpose.
        return outcome(gpu, unsafe { b.launch(config) }.map(|_| ()));
    }
    refusal(k.scan_lookback.launch(
        &gpu.stream,
        config,
        &input,
        &mut out,
        &mut status,
        &mut next_tile,
        &mut stalled,
    ));
}

/// Status words left from another launch (here made by hand: PREFIX with a value of 2^31) and
/// a tile counter that does not start at 0: the select's output places follow them.
fn stale_status(gpu: &Gpu, raw: bool) {
    println!("stale-status: select_lookback with status words and a tile counter already used");
    let k = ch08_scan::Kernels::load(&load(&gpu.ctx, &kernel_file!("ch08-scan.cu"), false));
    let n: usize = 1 << 20;
    let tiles = n.div_ceil(4096);
    let input_host: Vec<f32> = (0..n).map(|i| (i % 7) as f32 / 7.0).collect();
    let input = gpu.copy(&input_host);
    let mut out = alloc_poisoned::<f32>(&gpu.stream, n);
    let stale = (1u64 << 31 << 32) | 2; // PREFIX, 2^31 elements before this tile
    let mut status = gpu.copy(&vec![stale; tiles]);
    let mut next_tile = gpu.copy(&[tiles as u32 / 2]);
    let (mut stalled, mut count) = (gpu.zeros::<i32>(1), gpu.zeros::<u32>(1));
    let config = one_d(tiles as u32, 256);
    if raw {
        let (n, threshold) = (n as i32, 0.5f32);
        let mut b = gpu.stream.launch_builder(&k.select_lookback.function);
        b.arg(&input).arg(&mut out).arg(&n).arg(&threshold);
        b.arg(&mut status)
            .arg(&mut next_tile)
            .arg(&mut stalled)
            .arg(&mut count);
        // SAFETY: none; the stale scratch breaks what the kernel trusts on purpose.
        return outcome(gpu, unsafe { b.launch(config) }.map(|_| ()));
    }
    k.select_lookback
        .launch(
            &gpu.stream,
            config,
            &input,
            &mut out,
            0.5,
            &mut status,
            &mut next_tile,
            &mut stalled,
            &mut count,
        )
        .or_exit_launching(&k.select_lookback);
    let want: Vec<f32> = input_host.into_iter().filter(|&x| x < 0.5).collect();
    let kept = gpu.stream.clone_dtoh(&count).or_exit("copy the count back")[0] as usize;
    let got = gpu.stream.clone_dtoh(&out).or_exit("copy the result back");
    let right = kept == want.len() && got[..kept] == want[..];
    println!(
        "  the launcher clears them first: {kept} of {n} kept, equal to the CPU's: {}",
        verdict(right)
    );
}

/// A wait that gives up at once (`-DWAIT_LIMIT_NS=0`): the give-up path, taken on purpose.
fn give_up(gpu: &Gpu) {
    println!("give-up: scan_lookback compiled with -DWAIT_LIMIT_NS=0, n = 2^24");
    let file = kernel_file!("ch08-scan.cu");
    let module = load_with(&gpu.ctx, &file, false, &["-DWAIT_LIMIT_NS=0ull"]);
    let k = ch08_scan::Kernels::load(&module);
    let n: usize = 1 << 24;
    let tiles = n.div_ceil(5120);
    let input = gpu.copy(&vec![1u32; n]);
    let mut out = alloc_poisoned::<u32>(&gpu.stream, n);
    let (mut status, mut next_tile, mut stalled) = (
        gpu.zeros::<u64>(tiles),
        gpu.zeros::<u32>(1),
        gpu.zeros::<i32>(1),
    );
    k.scan_lookback
        .launch(
            &gpu.stream,
            one_d(tiles as u32, 128),
            &input,
            &mut out,
            &mut status,
            &mut next_tile,
            &mut stalled,
        )
        .or_exit_launching(&k.scan_lookback);
    let got = gpu.stream.clone_dtoh(&out).or_exit("copy the scan back");
    let gave_up = gpu.stream.clone_dtoh(&stalled).or_exit("read the flag")[0] != 0;
    let wrong = got
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v != i as u32 + 1)
        .count();
    println!("  a tile gave up and said so: {}", verdict(gave_up));
    println!("  elements wrong after the give-ups: {wrong} of {n} (varies)");
}

/// The sort's pass with waits that give up at once: every thread of a tile that gave up must
/// leave together (`compute-sanitizer --tool synccheck` checks this run).
fn barrier(gpu: &Gpu) {
    println!("barrier: radix_pass compiled with -DWAIT_LIMIT_NS=0, 2^22 keys");
    let file = kernel_file!("ch08-sort.cu");
    let module = load_with(&gpu.ctx, &file, false, &["-DWAIT_LIMIT_NS=0ull"]);
    let k = ch08_sort::Kernels::load(&module);
    let n: usize = 1 << 22;
    let tiles = n / 4096;
    let keys = gpu.copy(&(0..n as u32).rev().collect::<Vec<_>>());
    let mut keys_out = alloc_poisoned::<u32>(&gpu.stream, n);
    let mut counts = gpu.zeros::<u32>(1024);
    k.radix_histogram
        .launch(&gpu.stream, one_d(256, 256), &keys, &mut counts)
        .or_exit_launching(&k.radix_histogram);
    let counts = counts.slice(0..256);
    let (mut status, mut next_tile, mut stalled) = (
        gpu.zeros::<u32>(tiles * 256),
        gpu.zeros::<u32>(1),
        gpu.zeros::<i32>(1),
    );
    // SAFETY: `counts` are radix_histogram's counts of `keys`.
    unsafe {
        k.radix_pass.launch(
            &gpu.stream,
            one_d(tiles as u32, 256),
            &keys,
            &mut keys_out,
            0,
            &counts,
            &mut status,
            &mut next_tile,
            &mut stalled,
        )
    }
    .or_exit_launching(&k.radix_pass);
    gpu.stream.synchronize().or_exit("run the pass");
    let gave_up = gpu.stream.clone_dtoh(&stalled).or_exit("read the flag")[0] != 0;
    println!("  a tile gave up and said so: {}", verdict(gave_up));
}
