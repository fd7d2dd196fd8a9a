//! Sorting on the CPU, before the GPU's radix sort: an LSD radix sort of u32 keys, eight bits
//! at a time, parallel with rayon, timed against rayon's `par_sort_unstable` on the same keys.
//! Both results are compared with each other in full; the radix sort's stability is checked on
//! key-value pairs against the standard library's stable sort.
use course::compare::{count_mismatches, verdict};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_cpu};
use rayon::prelude::*;

/// Keys per rayon task: each task counts, then moves, the keys of one chunk.
const CHUNK: usize = 1 << 16;

// ANCHOR: pass
/// One pass of the radix sort: moves `items` into `out` in the order of their digit (0 to 255),
/// keeping the order of items with the same digit.
fn radix_pass<T: Copy + Send + Sync>(
    items: &[T],
    out: &mut [T],
    digit: impl Fn(&T) -> usize + Sync,
) {
    // 1. Each chunk counts its digits.
    let counts: Vec<[usize; 256]> = items
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut count = [0; 256];
            for item in chunk {
                count[digit(item)] += 1;
            }
            count
        })
        .collect();
    // 2. The output is cut into one bucket per digit and chunk: digit 0's buckets first, chunk
    //    by chunk, then digit 1's, and so on. No two buckets overlap, so the chunks can fill
    //    their own at the same time.
    let mut buckets: Vec<Vec<&mut [T]>> = counts.iter().map(|_| Vec::new()).collect();
    let mut rest = out;
    for d in 0..256 {
        for (chunk, count) in counts.iter().enumerate() {
            let (bucket, after) = std::mem::take(&mut rest).split_at_mut(count[d]);
            buckets[chunk].push(bucket);
            rest = after;
        }
    }
    // 3. Each chunk moves its items into its buckets, in order.
    items
        .par_chunks(CHUNK)
        .zip(buckets)
        .for_each(|(chunk, mut buckets)| {
            let mut filled = [0; 256];
            for item in chunk {
                let d = digit(item);
                buckets[d][filled[d]] = *item;
                filled[d] += 1;
            }
        });
}

/// Sorts `items` by a u32 key in four passes, from the key's lowest digit to its highest. Each
/// pass keeps the order the one before it made among items with equal digits, so after the
/// last they are in key order, and items with equal keys are in their first order.
fn radix_sort_by_key<T: Copy + Send + Sync>(items: &mut [T], key: impl Fn(&T) -> u32 + Sync) {
    let mut spare = items.to_vec();
    for shift in [0, 8, 16, 24] {
        radix_pass(items, &mut spare, |item| {
            (key(item) >> shift) as usize & 0xff
        });
        items.copy_from_slice(&spare);
    }
}
// ANCHOR_END: pass

fn main() {
    // A small default keeps the book's own run of this listing (unoptimised) quick; the
    // recorded runs ask for 2^24.
    let (n, seed) = course::cli::parse(
        "Sorts N random u32 keys with a rayon LSD radix sort and with par_sort_unstable.",
        |args| {
            (
                args.usize("N", "the number of keys", 1 << 20, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    stable_on_pairs(seed);

    // ANCHOR: time
    let mut rng = Rng::new(seed);
    let keys: Vec<u32> = (0..n).map(|_| (rng.next_u64() >> 32) as u32).collect();
    println!("{n} random u32 keys, seed {seed}");
    let mut by_radix = keys.clone();
    let t_radix = time_cpu(1, 5, || {
        by_radix.copy_from_slice(&keys);
        radix_sort_by_key(&mut by_radix, |&key| key);
    });
    let mut by_rayon = keys.clone();
    let t_rayon = time_cpu(1, 5, || {
        by_rayon.copy_from_slice(&keys);
        by_rayon.par_sort_unstable();
    });
    let rate = |ms: f64| n as f64 / ms / 1e3; // million keys per second
    let (radix, rayon) = (t_radix.median_ms, t_rayon.median_ms);
    println!(
        "radix sort, rayon:  {:>9} {:>8.0} Mkeys/s",
        fmt_ms(radix),
        rate(radix)
    );
    println!(
        "par_sort_unstable:  {:>9} {:>8.0} Mkeys/s",
        fmt_ms(rayon),
        rate(rayon)
    );
    println!(
        "radix sort's time over par_sort_unstable's: {}",
        fmt_speedup(radix, rayon)
    );
    // ANCHOR_END: time
    let wrong = count_mismatches(&by_radix, &by_rayon);
    println!(
        "the two sorts differ in {wrong} of {n} places: {}",
        verdict(wrong == 0)
    );
}

// ANCHOR: stable
/// Stability: pairs (key, its place in the input), sorted on the key alone by the radix sort
/// and by the standard library's stable sort. Keys below 4096 repeat about 64 times each among
/// 2^18 + 3 pairs, so the order of equal keys is tested many times over.
fn stable_on_pairs(seed: u64) {
    let n = (1 << 18) + 3;
    let mut rng = Rng::new(seed);
    let pairs: Vec<(u32, u32)> = (0..n).map(|i| (rng.below(4096) as u32, i as u32)).collect();
    let mut want = pairs.clone();
    want.sort_by_key(|&(key, _)| key);
    let mut got = pairs;
    radix_sort_by_key(&mut got, |&(key, _)| key);
    let wrong = count_mismatches(&got, &want);
    // ANCHOR_END: stable
    println!(
        "{n} pairs, keys below 4096: the radix sort differs from a stable sort in {wrong} places: {}",
        verdict(wrong == 0)
    );
    // ANCHOR: stable
}
// ANCHOR_END: stable
