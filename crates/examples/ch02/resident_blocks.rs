//! The thread-count challenge: how many of a grid's blocks an imaginary GPU holds at once, and
//! how the last, partly filled wave of blocks leaves part of it idle.
use course::cli::fail;
use course::compare::verdict;

fn main() {
    let (blocks, block, sms, blocks_per_sm, threads_per_sm) = course::cli::parse(
        "How many blocks of a grid an imaginary GPU holds at once, and in how many waves.",
        |args| {
            (
                args.usize("BLOCKS", "the number of blocks", 2000, 1, 1 << 31),
                args.usize("BLOCK", "the number of threads per block", 256, 1, 1024),
                args.usize("SMS", "the number of SMs", 80, 1, 1 << 16),
                args.usize(
                    "BLOCKS_PER_SM",
                    "the most blocks an SM holds",
                    16,
                    1,
                    1 << 10,
                ),
                args.optional_usize("THREADS_PER_SM", "the most threads an SM holds", 1, 1 << 16),
            )
        },
    );

    // ANCHOR: residency
    let threads = blocks * block;
    // An SM holds as many blocks as its block limit allows, unless its thread limit
    // (when one is given) runs out first.
    let per_sm = match threads_per_sm {
        Some(limit) => blocks_per_sm.min(limit / block),
        None => blocks_per_sm,
    };
    if per_sm == 0 {
        fail(&format!(
            "a block of {block} threads does not fit on an SM that holds {} threads",
            threads_per_sm.unwrap_or(0)
        ));
    }
    let resident = per_sm * sms;
    // If every block takes the same time, the grid runs in waves of `resident` blocks.
    let waves = blocks.div_ceil(resident);
    let last_wave = blocks - (waves - 1) * resident;
    let slots = waves * resident;
    // ANCHOR_END: residency

    match threads_per_sm {
        Some(limit) => println!(
            "a GPU of {sms} SMs, each holding at most {blocks_per_sm} blocks and {limit} threads"
        ),
        None => println!("a GPU of {sms} SMs, each holding at most {blocks_per_sm} blocks"),
    }
    println!("grid: {blocks} blocks of {block} threads, {threads} threads in all");
    println!("blocks resident on one SM:  {per_sm}");
    println!("blocks resident on the GPU: {resident}");
    println!("waves of blocks:            {waves} (the last one has {last_wave} blocks)");
    println!(
        "empty block slots in the last wave: {} of {resident}",
        resident - last_wave
    );
    println!(
        "block slots used over the run:      {blocks} of {slots} ({:.1} per cent)",
        100.0 * blocks as f64 / slots as f64
    );
    if blocks < sms {
        println!("SMs with no block at all:   {}", sms - blocks);
    } else {
        let (each, extra) = (blocks / sms, blocks % sms);
        if extra == 0 {
            println!("spread evenly, every SM runs {each} blocks");
        } else {
            println!(
                "spread evenly, {extra} SMs run {} blocks and {} run {each}",
                each + 1,
                sms - extra
            );
        }
    }
    // The number of waves is the fewest that hold the grid: one fewer would not.
    let fewest = (waves - 1) * resident < blocks && blocks <= waves * resident;
    println!(
        "{waves} waves of {resident} block slots hold all {blocks} blocks, {} would not: {}",
        waves - 1,
        verdict(fewest)
    );
}
