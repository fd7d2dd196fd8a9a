//! Asking for more threads per block than the GPU has: the launch is refused, and the
//! program says so in one sentence instead of panicking.
use course::compare::verdict;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{LaunchConfig, PushKernelArg};

fn main() {
    course::cli::no_args(
        "Launches the grid-stride adder with 1024 and with 4096 threads per block.",
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-grids.cu"), false);
    let grid_stride = function(&module, "adder_grid_stride");
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
    let n_arg = n as i32;

    // ANCHOR: launch
    let mut refused = Vec::new();
    for threads in [1024u32, 4096] {
        let config = LaunchConfig {
            grid_dim: (64, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&grid_stride);
        launch.arg(&xs).arg(&ys).arg(&mut zs).arg(&n_arg);
        match unsafe { launch.launch(config) } {
            Ok(_) => {
                stream.synchronize().or_exit("finish the kernel");
                println!("{threads} threads per block: launched and finished");
            }
            Err(e) => {
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
        }
    }
    println!(
        "only the 4096-thread launch was refused: {}",
        verdict(refused == [4096])
    );
    // ANCHOR_END: launch
    let zs = stream.clone_dtoh(&zs).or_exit("copy zs back from the GPU");
    println!(
        "the 1024-thread launch filled every element: {}",
        verdict(zs.iter().all(|&z| z == 3.0))
    );
}
