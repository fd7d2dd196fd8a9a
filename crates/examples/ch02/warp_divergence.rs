//! A warp runs its 32 threads in lockstep: when they disagree at a branch, it runs both sides,
//! each with the lanes that took it switched on. Counted here for a block of 1024 threads.
use course::compare::verdict;
use course::random::Rng;

const WARP: usize = 32;

// ANCHOR: warp
/// Issue slots one warp spends on `if cond { 10 instructions } else { 10 instructions }`,
/// given which of its lanes see `cond` true (bit k of `mask` is lane k).
fn branch_cost(mask: u32) -> u32 {
    let side = 10;
    let then_runs = mask != 0; // some lane goes into the `if` side
    let else_runs = mask != u32::MAX; // some lane goes into the `else` side
    side * then_runs as u32 + side * else_runs as u32
}

/// The mask of lanes of warp `w` for which `cond(thread index)` is true.
fn lanes_where(w: usize, cond: &dyn Fn(usize) -> bool) -> u32 {
    (0..WARP)
        .filter(|&lane| cond(w * WARP + lane))
        .fold(0, |mask, lane| mask | 1 << lane)
}
// ANCHOR_END: warp

fn main() {
    let seed = course::cli::parse(
        "Counts the warps that split, and the issue slots they cost, at four branches.",
        |args| args.seed(),
    );
    let threads = 1024;
    let warps = threads / WARP;
    let data: Vec<f32> = Rng::new(seed).vec_f32(threads, 0.0, 1.0);

    // ANCHOR: conditions
    let conditions: [(&str, &dyn Fn(usize) -> bool); 4] = [
        ("i < 1000", &|i| i < 1000),
        ("i % 2 == 0", &|i| i % 2 == 0),
        ("(i / 32) % 2 == 0", &|i| (i / WARP) % 2 == 0),
        ("data[i] < 0.5", &|i| data[i] < 0.5),
    ];
    println!(
        "a block of {threads} threads ({warps} warps); each side of the branch is 10 instructions"
    );
    println!(
        "{:<20}{:>16}{:>14}",
        "condition", "warps that split", "issue slots"
    );
    let mut splits = Vec::new();
    for (name, cond) in conditions {
        let masks: Vec<u32> = (0..warps).map(|w| lanes_where(w, cond)).collect();
        let split = masks.iter().filter(|&&m| m != 0 && m != u32::MAX).count();
        let slots: u32 = masks.iter().map(|&m| branch_cost(m)).sum();
        println!("{name:<20}{:>16}{slots:>14}", format!("{split} of {warps}"));
        // ANCHOR_END: conditions
        splits.push((split, slots));
        // ANCHOR: conditions
    }
    // ANCHOR_END: conditions
    println!(
        "(with no warp split the branch costs {} slots; with every warp split, {})",
        warps * 10,
        warps * 20
    );
    println!(
        "warp 0 under i % 2 == 0: `if` side with lanes {:#010x}, `else` side with lanes {:#010x}",
        lanes_where(0, &|i| i % 2 == 0),
        !lanes_where(0, &|i| i % 2 == 0)
    );
    println!("the data are random numbers in [0, 1), seed {seed}");
    // Known without counting lanes: only warp 31 (threads 992 to 1023) straddles 1000; every
    // warp holds even and odd threads; warps of 32 never straddle a multiple of 32.
    let known = [(1, 330), (32, 640), (0, 320)];
    println!(
        "the first three rows are 1, 32 and 0 split warps, costing 330, 640 and 320 slots: {}",
        verdict(splits[..3] == known)
    );
}
