//! A counter incremented once by each of about a million threads, first with a plain `+=`,
//! then with atomicAdd.
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use cudarc::driver::LaunchConfig;

const THREADS: usize = 256;

mod ch05_counter {
    course::kernels!("ch05-counter.cu");
}

fn main() {
    let blocks = course::cli::parse(
        "Adds 1 to one counter from every thread, with a plain += and with atomicAdd.",
        |args| {
            args.usize(
                "BLOCKS",
                "the number of blocks of 256 threads",
                4096,
                1,
                1 << 20,
            )
        },
    );
    let n = blocks * THREADS;
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));

    // ANCHOR: count
    let module = load(&ctx, &kernel_file!("ch05-counter.cu"), false);
    let k = ch05_counter::Kernels::load(&module);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let count_with = |kernel: &ch05_counter::CountPlain| -> u32 {
        let mut d_counter = stream.alloc_zeros::<u32>(1).or_exit("allocate GPU memory");
        kernel
            .launch(&stream, cfg, &mut d_counter)
            .or_exit_launching(kernel);
        stream.clone_dtoh(&d_counter).or_exit("copy from the GPU")[0]
    };
    let plain = count_with(&k.count_plain);
    let atomic = count_with(&k.count_atomic);
    println!("{n} threads add 1 to one counter that starts at 0");
    println!("plain +=:  counted {plain} (varies)");
    println!("atomicAdd: counted {atomic}");
    // ANCHOR_END: count
    println!(
        "plain += lost updates, counting fewer than {n}: {}",
        verdict(plain < n as u32)
    );
    println!(
        "atomicAdd counted every thread, exactly {n}: {}",
        verdict(atomic == n as u32)
    );
}
