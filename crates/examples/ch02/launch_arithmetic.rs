//! How a launch covers an array: blocks, threads, warps, and the ones left with nothing to do.
use course::cli::fail;
use course::compare::verdict;

const WARP: usize = 32;
/// The most threads one block may have (every NVIDIA GPU of compute capability 2.0 or later).
const MAX_BLOCK: usize = 1024;
/// The most blocks a grid may have along x.
const MAX_GRID_X: usize = (1 << 31) - 1;

fn main() {
    let (elements, block) = course::cli::parse(
        "Counts the blocks, warps and idle lanes of a launch of one thread per element.",
        |args| {
            (
                args.usize("ELEMENTS", "the number of elements", 1_000_000, 1, 1 << 40),
                args.usize(
                    "BLOCK",
                    "the number of threads per block",
                    256,
                    1,
                    MAX_BLOCK,
                ),
            )
        },
    );

    // ANCHOR: blocks
    // One thread per element: enough blocks to cover every element, rounding up.
    let blocks = elements.div_ceil(block);
    if blocks > MAX_GRID_X {
        fail(&format!(
            "{elements} elements in blocks of {block} need {blocks} blocks, more than the \
             {MAX_GRID_X} a grid may have along x"
        ));
    }
    let threads = blocks * block;
    let idle_threads = threads - elements;
    // ANCHOR_END: blocks

    // ANCHOR: warps
    // The hardware runs each block as whole warps: a block of 100 threads takes 4 warps,
    // and the last of them has 4 threads and 28 empty lanes.
    let warps_per_block = block.div_ceil(WARP);
    let warps = blocks * warps_per_block;
    let lanes = warps * WARP;
    let empty_lanes = lanes - threads;
    // Only the last block has threads past the end; its warps that hold none of the
    // array's elements do no work at all.
    let working_in_last_block = block - idle_threads;
    let idle_warps = warps_per_block - working_in_last_block.div_ceil(WARP);
    // ANCHOR_END: warps

    println!("elements:                   {elements}");
    println!("threads per block:          {block} ({warps_per_block} warps of {WARP} lanes)");
    println!("blocks:                     {blocks}");
    println!("threads launched:           {threads}");
    println!("threads past the end:       {idle_threads}");
    println!("warps launched:             {warps}");
    println!("warps with no element:      {idle_warps}");
    println!("lanes launched:             {lanes}");
    println!("lanes with no thread:       {empty_lanes}");
    println!("lanes doing work:           {elements} of {lanes}");

    // The same counts for the last block, lane by lane: thread t of it has index
    // (blocks - 1) * block + t, and its warp is t / 32.
    let first = (blocks - 1) * block;
    let past_end = (0..block).filter(|t| first + t >= elements).count();
    let warps_idle = (0..warps_per_block)
        .filter(|w| (w * WARP..((w + 1) * WARP).min(block)).all(|t| first + t >= elements))
        .count();
    println!(
        "the last block, lane by lane: {past_end} threads past the end, {warps_idle} idle warps: {}",
        verdict(past_end == idle_threads && warps_idle == idle_warps)
    );
}
