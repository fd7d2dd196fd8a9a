//! Asking for more threads per block than the GPU has: the launch is refused, and the
//! program says so in one sentence instead of panicking.
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::launch::LaunchError;
use cudarc::driver::LaunchConfig;
use cudarc::driver::sys::CUdevice_attribute as Attr;

mod ch04_grids {
    course::kernels!("ch04-grids.cu");
}

fn main() {
    course::cli::no_args(
        "Launches the grid-stride adder with 1024 and with 4096 threads per block.",
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-grids.cu"), false);
    let k = ch04_grids::Kernels::load(&module);
    let limit = ctx
        .attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        .or_exit("read the block limit");
    println!("this GPU allows at most {limit} threads per block (this machine)");

    let n = 1usize << 20;
    let xs = stream
        .clone_htod(&vec![1.0f64; n])
        .or_exit("copy xs to the GPU");
    let ys = stream
        .clone_htod(&vec![2.0f64; n])
        .or_exit("copy ys to the GPU");
    let mut zs = alloc_poisoned::<f64>(&stream, n);

    // ANCHOR: launch
    let mut refused = Vec::new();
    for threads in [1024u32, 4096] {
        let config = LaunchConfig {
            grid_dim: (64, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        match k
            .adder_grid_stride
            .launch(&stream, config, &xs, &ys, &mut zs)
        {
            Ok(()) => {
                stream.synchronize().or_exit("finish the kernel");
                println!("{threads} threads per block: launched and finished");
            }
            Err(LaunchError::Driver(e)) => {
                let name = e
                    .error_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let why = e
                    .error_string()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                println!(
                    "{threads} threads per block: the driver refused the launch with {name} ({why})."
                );
                refused.push(threads);
            }
            Err(broken) => println!("{threads} threads per block: {broken}."),
        }
    }
    // ANCHOR_END: launch
    println!(
        "only the 4096-thread launch was refused: {}",
        verdict(refused == [4096])
    );
    let zs = stream.clone_dtoh(&zs).or_exit("copy zs back from the GPU");
    println!(
        "the 1024-thread launch filled every element: {}",
        verdict(zs.iter().all(|&z| z == 3.0))
    );
}
