//! The onesweep radix sort of chapter 8 on 2^28 random u32 keys (or N): rayon's
//! `par_sort_unstable` first, then the GPU's sort, equal to it key for key, timed against a
//! device-to-device copy and against CUB's radix sort in the same run (when the reference
//! program is beside this one). Then key-value pairs with many equal keys, whose values must
//! come out in their input order within each key, as the standard library's stable sort leaves
//! them.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::cub;
use course::gpu::{OrExit, alloc_poisoned, describe, ensure_memory, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_gb_per_s, fmt_ms, record, time_cpu, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use rayon::prelude::*;

mod ch08_sort {
    course::kernels!("ch08-sort.cu");
}
use ch08_sort::Kernels;

/// Keys per tile: THREADS × ITEMS of the kernel file.
const TILE: usize = 256 * 16;
/// Digits per pass (8 bits), and passes per 32-bit key.
const DIGITS: usize = 256;
const PASSES: usize = 4;

// ANCHOR: buffers
/// What one sort of `n` keys needs on the GPU besides its input and output: a second buffer
/// for the passes to move keys between, the digit counts, and for each pass its tiles' status
/// words and its tile counter.
struct Scratch {
    spare_keys: CudaSlice<u32>,
    spare_values: Option<CudaSlice<u32>>,
    counts: CudaSlice<u32>,
    status: CudaSlice<u32>,
    next_tile: CudaSlice<u32>,
    stalled: CudaSlice<i32>,
    tiles: usize,
}

impl Scratch {
    fn new(stream: &Arc<CudaStream>, n: usize, pairs: bool) -> Scratch {
        let tiles = n.div_ceil(TILE);
        let zeros = |len: usize, what: &str| stream.alloc_zeros::<u32>(len).or_exit(what);
        Scratch {
            spare_keys: zeros(n, "allocate the spare keys"),
            spare_values: pairs.then(|| zeros(n, "allocate the spare values")),
            counts: zeros(PASSES * DIGITS, "allocate the digit counts"),
            status: zeros(PASSES * tiles * DIGITS, "allocate the tile status"),
            next_tile: zeros(PASSES, "allocate the tile counters"),
            stalled: stream.alloc_zeros(1).or_exit("allocate the stall flag"),
            tiles,
        }
    }

    fn stalled(&self, stream: &Arc<CudaStream>) -> bool {
        stream
            .clone_dtoh(&self.stalled)
            .or_exit("read the stall flag")[0]
            != 0
    }
}
// ANCHOR_END: buffers

impl Scratch {
    /// The bytes [`Scratch::new`] allocates for `n` keys.
    fn bytes(n: usize, pairs: bool) -> usize {
        let tiles = n.div_ceil(TILE);
        let words = n * (1 + usize::from(pairs)) + PASSES * DIGITS + PASSES * tiles * DIGITS;
        4 * (words + PASSES + 1)
    }
}

// ANCHOR: sort
/// Sorts `keys` into `out` (and moves `values` with them into `values_out`, when given): the
/// counts of every digit in one pass over the keys, then one pass per digit, from the lowest.
/// The passes move the keys from `keys` to the spare buffer, to `out`, to the spare and to
/// `out` again, so that the input is left as it was.
fn sort(
    k: &Kernels,
    stream: &Arc<CudaStream>,
    s: &mut Scratch,
    keys: &CudaSlice<u32>,
    out: &mut CudaSlice<u32>,
    mut values: Option<(&CudaSlice<u32>, &mut CudaSlice<u32>)>,
) {
    stream
        .memset_zeros(&mut s.counts)
        .or_exit("clear the counts");
    let histogram = LaunchConfig {
        grid_dim: (1024, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    k.radix_histogram
        .launch(stream, histogram, keys, &mut s.counts)
        .or_exit_launching(&k.radix_histogram);
    let config = LaunchConfig {
        grid_dim: (s.tiles as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let per_pass = s.tiles * DIGITS;
    for pass in 0..PASSES {
        let (keys_in, mut keys_out) = match pass {
            0 => (keys.slice(..), s.spare_keys.slice_mut(..)),
            1 | 3 => (s.spare_keys.slice(..), out.slice_mut(..)),
            _ => (out.slice(..), s.spare_keys.slice_mut(..)),
        };
        let counts = s.counts.slice(pass * DIGITS..(pass + 1) * DIGITS);
        let mut status = s.status.slice_mut(pass * per_pass..(pass + 1) * per_pass);
        let mut next_tile = s.next_tile.slice_mut(pass..pass + 1);
        let shift = 8 * pass as i32;
        // The launcher clears the pass's status words and tile counter; the counts it cannot
        // check. SAFETY: `counts` holds radix_histogram's counts of `keys`, and every pass sorts
        // a permutation of those keys, so each tile's places lie inside `keys_out`.
        let launched = match (&mut values, &mut s.spare_values) {
            (Some((values, values_out)), Some(spare)) => {
                let (values_in, mut values_to) = match pass {
                    0 => (values.slice(..), spare.slice_mut(..)),
                    1 | 3 => (spare.slice(..), values_out.slice_mut(..)),
                    _ => (values_out.slice(..), spare.slice_mut(..)),
                };
                unsafe {
                    k.radix_pass_pairs.launch(
                        stream,
                        config,
                        &keys_in,
                        &mut keys_out,
                        &values_in,
                        &mut values_to,
                        shift,
                        &counts,
                        &mut status,
                        &mut next_tile,
                        &mut s.stalled,
                    )
                }
            }
            _ => unsafe {
                k.radix_pass.launch(
                    stream,
                    config,
                    &keys_in,
                    &mut keys_out,
                    shift,
                    &counts,
                    &mut status,
                    &mut next_tile,
                    &mut s.stalled,
                )
            },
        };
        launched.or_exit_launching(&k.radix_pass);
    }
}
// ANCHOR_END: sort

fn main() {
    let (length, seed) = course::cli::parse(
        "Sorts 2^28 (or N) random u32 keys with a onesweep radix sort, against rayon, a copy and CUB; then key-value pairs, for stability.",
        |args| {
            (
                args.usize("N", "the number of keys", 1 << 28, 1, (1 << 30) - 1),
                args.seed(),
            )
        },
    );
    let n = problem_size(length, length.min((1 << 20) + 123));
    let ctx = gpu_or_exit();
    // The keys, the sorted keys, the copy and the scratch at once; then the pairs' buffers
    // (stable_on_pairs, at most 2^24 pairs).
    let pairs = n.min(1 << 24);
    let bytes =
        (3 * 4 * n + Scratch::bytes(n, false)).max(4 * 4 * pairs + Scratch::bytes(pairs, true));
    ensure_memory(&ctx, bytes, &format!("radix_sort on {} keys", label(n)));
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let k = Kernels::load(&load(&ctx, &kernel_file!("ch08-sort.cu"), false));

    // ANCHOR: cpu
    let mut rng = Rng::new(seed);
    let keys: Vec<u32> = (0..n).map(|_| (rng.next_u64() >> 32) as u32).collect();
    let mut want = keys.clone();
    let t_cpu = time_cpu(0, 1, || want.par_sort_unstable());
    // ANCHOR_END: cpu
    let label = label(n);
    println!(
        "{label}: random u32 keys, seed {seed}; rayon's par_sort_unstable takes {} ({} threads)",
        fmt_ms(t_cpu.median_ms),
        rayon::current_num_threads()
    );

    // ANCHOR: gpu
    let keys_dev = stream.clone_htod(&keys).or_exit("copy the keys to the GPU");
    let mut out = alloc_poisoned::<u32>(&stream, n);
    let mut scratch = Scratch::new(&stream, n, false);
    // ANCHOR_END: gpu
    let t = time_gpu(&stream, 3, 21, || {
        // ANCHOR: gpu
        sort(&k, &stream, &mut scratch, &keys_dev, &mut out, None)
        // ANCHOR_END: gpu
    });
    // ANCHOR: gpu
    let got = stream.clone_dtoh(&out).or_exit("copy the sorted keys back");
    // ANCHOR_END: gpu
    let mut copy = alloc_poisoned::<u32>(&stream, n);
    let t_copy = time_gpu(&stream, 3, 21, || {
        stream
            .memcpy_dtod(&keys_dev, &mut copy)
            .or_exit("copy on the GPU");
    });
    // The histogram reads every key once; each of the four passes reads it and writes it.
    let bytes = 4.0 * n as f64 * (1.0 + 2.0 * PASSES as f64);
    let copy_bytes = 8.0 * n as f64;
    record(
        &format!("onesweep radix sort, {label}"),
        &t,
        Work::Bytes(bytes),
    );
    record(
        &format!("device-to-device copy, {label}"),
        &t_copy,
        Work::Bytes(copy_bytes),
    );
    let rate = |ms: f64| n as f64 / ms / 1e6;
    println!(
        "  radix sort {:>9} {:>6.2} Gkeys/s, {} moved; copy {:>9} {}",
        fmt_ms(t.median_ms),
        rate(t.median_ms),
        fmt_gb_per_s(bytes, t.median_ms),
        fmt_ms(t_copy.median_ms),
        fmt_gb_per_s(copy_bytes, t_copy.median_ms)
    );
    let wrong = count_mismatches(&got, &want);
    println!(
        "  equal to rayon's sort: {wrong} of {n} keys differ, no tile stalled: {}",
        verdict(wrong == 0 && !scratch.stalled(&stream))
    );
    // ANCHOR: cub
    match cub::time("sort", n, seed) {
        Some(c) => {
            println!(
                "  CUB's sort: {} {:.2} Gkeys/s, ours at {:.3} of its speed (this machine)",
                fmt_ms(c.median_ms),
                rate(c.median_ms),
                c.median_ms / t.median_ms
            );
            println!(
                "  CUB's result equal to ours (checksums): {}",
                verdict(c.checksum == cub::checksum(&got))
            );
            let t_cub = Timing {
                median_ms: c.median_ms,
                cpu_ms: 0.0,
                reps: 21,
            };
            record(
                &format!("CUB radix sort, {label}"),
                &t_cub,
                Work::Bytes(bytes),
            );
        }
        None => {
            println!("  CUB's sort: {}", cub::NO_REFERENCE);
            println!(
                "  CUB's result equal to ours (checksums): {}",
                cub::NO_REFERENCE
            );
        }
    }
    // ANCHOR_END: cub
    drop((out, copy, scratch));
    stable_on_pairs(&k, &stream, seed, n.min(1 << 24));
}

// ANCHOR: stable
/// Stability: pairs (key, its place in the input) sorted on the key by the GPU and by rayon's
/// stable `par_sort_by_key`. The keys keep only four bits of each byte: 2^16 different keys,
/// each repeated many times, with every one of the four digits in play.
fn stable_on_pairs(k: &Kernels, stream: &Arc<CudaStream>, seed: u64, n: usize) {
    let mut rng = Rng::new(seed + 1);
    let keys: Vec<u32> = (0..n)
        .map(|_| (rng.next_u64() >> 32) as u32 & 0xf0f0_f0f0)
        .collect();
    let places: Vec<u32> = (0..n as u32).collect();
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(places.iter().copied()).collect();
    want.par_sort_by_key(|&(key, _)| key);

    let keys_dev = stream.clone_htod(&keys).or_exit("copy the keys to the GPU");
    let places_dev = stream
        .clone_htod(&places)
        .or_exit("copy the values to the GPU");
    let mut keys_out = alloc_poisoned::<u32>(stream, n);
    let mut values_out = alloc_poisoned::<u32>(stream, n);
    let mut scratch = Scratch::new(stream, n, true);
    sort(
        k,
        stream,
        &mut scratch,
        &keys_dev,
        &mut keys_out,
        Some((&places_dev, &mut values_out)),
    );
    let got_keys = stream.clone_dtoh(&keys_out).or_exit("copy the keys back");
    let got_values = stream
        .clone_dtoh(&values_out)
        .or_exit("copy the values back");
    let got: Vec<(u32, u32)> = got_keys.into_iter().zip(got_values).collect();
    let wrong = count_mismatches(&got, &want);
    // ANCHOR_END: stable
    println!(
        "pairs, {}: 2^16 different keys; {wrong} of {n} pairs differ from a stable sort's: {}",
        label(n),
        verdict(wrong == 0 && !scratch.stalled(stream))
    );
    // ANCHOR: stable
}
// ANCHOR_END: stable

/// `n=2^28` for a power of two, `n=1000003` otherwise.
fn label(n: usize) -> String {
    match n.is_power_of_two() {
        true => format!("n=2^{}", n.trailing_zeros()),
        false => format!("n={n}"),
    }
}
