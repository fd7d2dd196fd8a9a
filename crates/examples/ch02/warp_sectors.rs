//! Coalescing, counted: how many 32-byte memory sectors one warp's load of 32 floats touches,
//! depending on which addresses its threads ask for.
use std::collections::BTreeSet;

use course::compare::verdict;
use course::random::Rng;

const WARP: usize = 32;
const SECTOR: usize = 32; // bytes: the unit in which device memory is read

// ANCHOR: sectors
/// The sectors touched when lane k of a warp loads the 4-byte float at `index(k)`.
fn sectors_touched(index: impl Fn(usize) -> usize) -> usize {
    let sectors: BTreeSet<usize> = (0..WARP).map(|lane| index(lane) * 4 / SECTOR).collect();
    sectors.len()
}
// ANCHOR_END: sectors

fn main() {
    let seed = course::cli::parse(
        "Counts the 32-byte sectors one warp's load touches, for seven access patterns.",
        |args| args.seed(),
    );
    let mut rng = Rng::new(seed);
    let random: Vec<usize> = (0..WARP).map(|_| rng.below(1 << 24) as usize).collect();

    // ANCHOR: patterns
    let patterns: [(&str, &dyn Fn(usize) -> usize); 7] = [
        ("x[lane]", &|lane| lane),
        ("x[lane + 1]", &|lane| lane + 1),
        ("x[2 * lane]", &|lane| 2 * lane),
        ("x[4 * lane]", &|lane| 4 * lane),
        ("x[8 * lane]", &|lane| 8 * lane),
        ("x[32 * lane]", &|lane| 32 * lane),
        ("x[random]", &|lane| random[lane]),
    ];
    println!("one warp loads 32 floats (128 useful bytes)");
    println!(
        "{:<14}{:>9}{:>15}{:>20}",
        "access", "sectors", "bytes moved", "moved per useful"
    );
    for (name, index) in patterns {
        let sectors = sectors_touched(index);
        let moved = sectors * SECTOR;
        println!(
            "{name:<14}{sectors:>9}{moved:>15}{:>20}",
            format!("{:.2} times", moved as f64 / 128.0)
        );
    }
    // ANCHOR_END: patterns
    println!("(x[random]: 32 indices below 2^24, seed {seed})");
    // Known without a set: lanes `stride` floats apart span 32 x 4 x stride bytes from an
    // aligned start, so they touch 4 x stride sectors, but never more than one per lane.
    let strided = [1, 2, 4, 8, 32]
        .iter()
        .all(|&stride| sectors_touched(|lane| stride * lane) == (4 * stride).min(WARP));
    println!(
        "strides 1, 2, 4, 8 and 32 touch min(4 x stride, 32) sectors: {}",
        verdict(strided)
    );
}
