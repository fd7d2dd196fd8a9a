//! Coalescing, counted: how many 32-byte memory sectors one warp's load of 32 floats touches,
//! depending on which addresses its threads ask for.
use std::collections::BTreeSet;

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
    let mut rng = Rng::new(1);
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
    println!("(x[random]: 32 indices below 2^24 from a fixed seed)");
}
