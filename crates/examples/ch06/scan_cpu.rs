//! The inclusive prefix sum (scan) on the CPU: a serial loop against a two-pass parallel scan
//! with rayon. The values are u32 and every addition wraps around modulo 2^32, as on the GPU;
//! wrapping addition is associative, so both orders of adding give exactly the same numbers.
use course::compare::{count_mismatches, verdict};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_cpu};
use rayon::prelude::*;

// ANCHOR: serial
fn scan_serial(values: &[u32]) -> Vec<u32> {
    let mut sum = 0u32;
    values
        .iter()
        .map(|&v| {
            sum = sum.wrapping_add(v);
            sum
        })
        .collect()
}
// ANCHOR_END: serial

// ANCHOR: two_pass
/// 1. Scan each chunk on its own (in parallel). 2. Scan the chunks' totals (serially: there
/// are few). 3. Add to every element the total of all the chunks before its own (in parallel).
fn scan_rayon(values: &[u32]) -> Vec<u32> {
    let chunk = values
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(1);
    let mut out = vec![0u32; values.len()];
    let totals: Vec<u32> = out
        .par_chunks_mut(chunk)
        .zip(values.par_chunks(chunk))
        .map(|(piece, input)| {
            let mut sum = 0u32;
            for (x, &v) in piece.iter_mut().zip(input) {
                sum = sum.wrapping_add(v);
                *x = sum;
            }
            sum
        })
        .collect();
    let mut before = Vec::with_capacity(totals.len());
    let mut running = 0u32;
    for t in &totals {
        before.push(running);
        running = running.wrapping_add(*t);
    }
    out.par_chunks_mut(chunk)
        .zip(&before)
        .for_each(|(piece, &offset)| {
            for x in piece {
                *x = x.wrapping_add(offset);
            }
        });
    out
}
// ANCHOR_END: two_pass

/// The known answer: the inclusive scan of 0, 1, 2, ... holds i(i + 1)/2 at index i, here
/// modulo 2^32 as the u32 sums wrap.
fn is_scan_of_ramp(scan: &[u32]) -> bool {
    scan.iter()
        .enumerate()
        .all(|(i, &s)| s == (i as u64 * (i as u64 + 1) / 2) as u32)
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Prefix sums of u32 values with a serial loop and a two-pass rayon scan.",
        |args| {
            (
                args.usize("N", "the number of values", 1 << 22, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let mut rng = Rng::new(seed);
    let values: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    println!("seed {seed}");

    // ANCHOR: run
    let serial = scan_serial(&values);
    let parallel = scan_rayon(&values);
    let wrong = count_mismatches(&parallel, &serial);
    println!("{n} random u32 values, sums wrapping modulo 2^32");
    // ANCHOR_END: run
    println!(
        "two-pass scan equals the serial scan exactly ({wrong} of {n} differ): {}",
        verdict(wrong == 0)
    );
    // ANCHOR: run
    let ramp: Vec<u32> = (0..n as u32).collect();
    // ANCHOR_END: run
    println!(
        "on 0, 1, 2, ... both scans give i(i + 1)/2 modulo 2^32 at every i: {}",
        verdict(is_scan_of_ramp(&scan_serial(&ramp)) && is_scan_of_ramp(&scan_rayon(&ramp)))
    );
    let t_serial = time_cpu(1, 5, || {
        // ANCHOR: run
        scan_serial(&values)
        // ANCHOR_END: run
    });
    let t_rayon = time_cpu(1, 5, || {
        // ANCHOR: run
        scan_rayon(&values)
        // ANCHOR_END: run
    });
    println!("serial scan:    {}", fmt_ms(t_serial.median_ms));
    println!("two-pass rayon: {}", fmt_ms(t_rayon.median_ms));
    println!(
        "speedup:        {}",
        fmt_speedup(t_serial.median_ms, t_rayon.median_ms)
    );
}
