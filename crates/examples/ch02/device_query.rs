//! What the GPU in this machine is made of, asked of the CUDA driver through cudarc.
use course::compare::verdict;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel::{function, load};
use course::kernel_file;
use cudarc::driver::sys::CUdevice_attribute as Attr;

fn main() {
    course::cli::no_args("Asks the CUDA driver what this machine's GPU is made of.");
    // ANCHOR: query
    let ctx = gpu_or_exit();
    let get = |attribute: Attr| ctx.attribute(attribute).or_exit("read a device attribute") as i64;
    let kib = |bytes: i64| bytes / 1024;

    println!("{}", describe(&ctx));
    println!(
        "streaming multiprocessors (SMs): {} (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    );
    println!(
        "warp size:                       {} threads (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)
    );
    println!(
        "threads per block, at most:      {} (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    );
    println!(
        "threads per SM, at most:         {} (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
    );
    println!(
        "blocks per SM, at most:          {} (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)
    );
    println!(
        "32-bit registers per SM:         {} (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)
    );
    println!(
        "shared memory per block:         {} KiB ({} KiB if the kernel opts in) (this machine)",
        kib(get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)),
        kib(get(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        ))
    );
    println!(
        "shared memory per SM:            {} KiB (this machine)",
        kib(get(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        ))
    );
    println!(
        "L2 cache:                        {} MiB (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) >> 20
    );
    let memory = ctx.total_mem().or_exit("read the memory size");
    println!(
        "device memory:                   {:.1} GiB (this machine)",
        memory as f64 / (1u64 << 30) as f64
    );
    println!(
        "memory bus:                      {} bits (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)
    );
    println!(
        "SM clock, at most:               {} MHz (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000
    );
    println!(
        "memory clock, at most:           {} MHz (this machine)",
        get(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000
    );
    // ANCHOR_END: query

    // ANCHOR: peak
    // Two transfers per clock (double data rate) on every line of the bus.
    let bus_bytes = get(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) as f64 / 8.0;
    let memory_hz = get(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) as f64 * 1e3;
    println!(
        "memory bandwidth on paper:       {:.0} GB/s (this machine)",
        2.0 * memory_hz * bus_bytes / 1e9
    );
    // ANCHOR_END: peak

    // ANCHOR: occupancy
    let module = load(&ctx, &kernel_file!("occupancy.cu"), false);
    let add_one = function(&module, "add_one");
    let threads_per_block = 256;
    let blocks = add_one
        .occupancy_max_active_blocks_per_multiprocessor(threads_per_block, 0, None)
        .or_exit("ask for the occupancy of add_one");
    let resident = blocks * threads_per_block;
    let most = get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) as u32;
    println!(
        "add_one, {threads_per_block} threads per block: {blocks} blocks fit on one SM \
         ({resident} of its {most} thread slots) (this machine)"
    );
    // ANCHOR_END: occupancy
    // With few registers and no shared memory, only the SM's block and thread limits bind.
    let block_limit = get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR) as u32;
    println!(
        "that is the smaller of the SM's block limit and its thread limit / {threads_per_block}: {}",
        verdict(blocks == block_limit.min(most / threads_per_block))
    );
}
