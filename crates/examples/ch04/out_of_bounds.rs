//! A kernel with an off-by-one test writes one element past the end of its output. Every CUDA
//! call returns Ok and every element checks out, so the program cannot see the bug; run it
//! under compute-sanitizer's memcheck to find it. Then a printf copy of the kernel reports it.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use cudarc::driver::LaunchConfig;

mod ch04_debugging {
    course::kernels!("ch04-debugging.cu");
}

/// Not a multiple of the block size, so the last block has threads past the end.
const N: usize = 1000;
const THREADS: u32 = 256;

fn main() {
    course::cli::no_args(
        "Runs a kernel that writes one element past the end of its output, then a printf copy.",
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-debugging.cu"), false);
    let k = ch04_debugging::Kernels::load(&module);

    // ANCHOR: run
    let blocks = (N as u32).div_ceil(THREADS);
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    println!("{N} squares on {blocks} blocks of {THREADS} threads");
    let mut out = alloc_poisoned::<i32>(&stream, N);
    let n = N as i32;
    // The launch only queues the kernel; a fault in it would surface at the wait.
    // SAFETY: not sound, on purpose: this is the bug the program shows. The kernel has no
    // contract, and its `i <= n` lets the thread whose index is n write out[n], past the end.
    let outcome = unsafe { k.squares_off_by_one.launch(&stream, config, &mut out, n) }
        .and_then(|_| Ok(stream.synchronize()?));
    // ANCHOR_END: run
    println!(
        "squares_off_by_one: the launch and the wait for it returned Ok: {}",
        verdict(outcome.is_ok())
    );
    // ANCHOR: run
    outcome.or_exit("run squares_off_by_one");
    let squares = stream.clone_dtoh(&out).or_exit("copy the squares back");
    let want: Vec<i32> = (0..n).map(|i| i * i).collect();
    let wrong = count_mismatches(&squares, &want);
    // ANCHOR_END: run
    println!(
        "squares that differ from the CPU's: {wrong} of {N}: {}",
        verdict(wrong == 0)
    );

    // ANCHOR: printf
    println!("squares_report, the same kernel with a printf in place of the bad write, prints:");
    k.squares_report
        .launch(&stream, config, &mut out)
        .or_exit_launching(&k.squares_report);
    // A kernel's printf output is collected on the GPU and printed when the host next waits.
    stream.synchronize().or_exit("wait for squares_report");
    // ANCHOR_END: printf
}
