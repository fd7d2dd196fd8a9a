//! Stream compaction on the CPU: keep the values above a threshold, in their order, with a
//! serial loop and with rayon, and check that both keep the same values.
use course::compare::verdict;
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_ms, fmt_speedup, time_cpu};
use rayon::prelude::*;

// ANCHOR: compact
fn compact_serial(values: &[f32], threshold: f32) -> Vec<f32> {
    let mut kept = Vec::new();
    for &v in values {
        if v > threshold {
            kept.push(v);
        }
    }
    kept
}

/// rayon filters pieces of the slice on different threads, then joins the pieces in their
/// original order: the result is the same as the serial one, element for element.
fn compact_rayon(values: &[f32], threshold: f32) -> Vec<f32> {
    values
        .par_iter()
        .filter(|&&v| v > threshold)
        .copied()
        .collect()
}
// ANCHOR_END: compact

/// The definition, checked: walking the input once, every value above the threshold must be
/// the next kept value, and no kept value may be left over at the end.
fn is_compaction_of(kept: &[f32], values: &[f32], threshold: f32) -> bool {
    let mut next = kept.iter();
    values
        .iter()
        .filter(|&&v| v > threshold)
        .all(|&v| next.next() == Some(&v))
        && next.next().is_none()
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Keeps the values above a threshold, in order, with a loop and with rayon.",
        |args| {
            (
                args.usize("N", "the number of values", 1 << 22, 1, 1 << 28),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    let values = Rng::new(seed).vec_f32(n, 0.0, 1.0);
    let threshold = 0.5;
    println!("seed {seed}");

    // ANCHOR: run
    let serial = compact_serial(&values, threshold);
    let parallel = compact_rayon(&values, threshold);
    println!(
        "{n} values in [0, 1), kept above {threshold}: {}",
        serial.len()
    );
    // ANCHOR_END: run
    println!(
        "the loop kept every value above {threshold}, in input order, and nothing else: {}",
        verdict(is_compaction_of(&serial, &values, threshold))
    );
    println!(
        "rayon kept the same values in the same order: {}",
        verdict(serial == parallel)
    );
    let t_serial = time_cpu(1, 5, || {
        // ANCHOR: run
        compact_serial(&values, threshold)
        // ANCHOR_END: run
    });
    let t_rayon = time_cpu(1, 5, || {
        // ANCHOR: run
        compact_rayon(&values, threshold)
        // ANCHOR_END: run
    });
    println!("serial loop:    {}", fmt_ms(t_serial.median_ms));
    println!("rayon filter:   {}", fmt_ms(t_rayon.median_ms));
    println!(
        "speedup:        {}",
        fmt_speedup(t_serial.median_ms, t_rayon.median_ms)
    );
}
