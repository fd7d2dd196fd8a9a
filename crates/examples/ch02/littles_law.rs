//! Little's law: to keep a pipe full, what is in flight must equal the rate times the latency.
//! With no arguments, the workshop's illustrative example; with a bandwidth, a latency and an SM
//! count, how many bytes, threads and warps must wait on memory at once to reach that bandwidth.
use course::cli::fail;
use course::compare::verdict;

// ANCHOR: law
/// Little's law: the items in flight needed to complete `rate` items per unit of time when
/// each one takes `latency` units of time.
fn in_flight(rate: f64, latency: f64) -> f64 {
    rate * latency
}
// ANCHOR_END: law

fn main() {
    let given = course::cli::parse(
        "Little's law: the workshop's example, or what must be in flight to reach a bandwidth.",
        |args| {
            (
                args.optional_usize("GB_PER_S", "the bandwidth in GB/s", 1, 1_000_000),
                args.optional_usize("LATENCY_NS", "the latency in nanoseconds", 1, 1_000_000),
                args.optional_usize("SMS", "the number of SMs", 1, 100_000),
            )
        },
    );
    match given {
        (None, None, None) => workshop_example(),
        (Some(gb_per_s), Some(latency_ns), Some(sms)) => bandwidth(gb_per_s, latency_ns, sms),
        _ => fail(
            "give a bandwidth in GB/s, a latency in nanoseconds and a number of SMs, or nothing",
        ),
    }
}

fn workshop_example() {
    // ANCHOR: workshop
    // The workshop's illustrative numbers: 10 cores that each issue one instruction per cycle;
    // a thread issues a load (100 cycles) and then 10 dependent adds (4 cycles each).
    let (cores, load_latency, adds, add_latency) = (10.0, 100.0, 10.0, 4.0);
    println!(
        "the workshop's illustrative example: {cores} cores, loads of {load_latency} cycles, \
         {adds} adds of {add_latency} cycles"
    );
    let loads = in_flight(cores, load_latency);
    println!(
        "issuing only loads, {cores} per cycle, needs {loads} loads in flight: {loads} threads"
    );
    // Counting whole threads: with every core issuing every cycle, threads of 11 instructions
    // finish at 10/11 of a thread per cycle, and each one takes at least 140 cycles.
    let threads_per_cycle = cores / (1.0 + adds);
    let per_thread_cycles = load_latency + adds * add_latency;
    let threads = in_flight(threads_per_cycle, per_thread_cycles);
    println!(
        "issuing {cores} instructions per cycle from threads that each issue {} \
         over {per_thread_cycles} cycles needs {threads:.1} threads",
        1.0 + adds
    );
    // ANCHOR_END: workshop
}

fn bandwidth(gb_per_s: usize, latency_ns: usize, sms: usize) {
    // ANCHOR: bandwidth
    // 1 GB/s is 10^9 bytes per 10^9 ns: one byte per nanosecond.
    let bytes = in_flight(gb_per_s as f64, latency_ns as f64);
    let per_sm = bytes / sms as f64;
    println!(
        "bandwidth {gb_per_s} bytes per nanosecond, latency {latency_ns} nanoseconds, {sms} SMs"
    );
    println!("bytes in flight on the GPU: {bytes}");
    println!("bytes in flight on each SM: {per_sm}");
    println!(
        "{:<34}{:>16}{:>14}",
        "each thread waits on", "threads per SM", "warps per SM"
    );
    // ANCHOR_END: bandwidth
    let mut fewest_whole = true;
    // ANCHOR: bandwidth
    for (what, bytes_per_thread) in [
        ("one float", 4),
        ("one double", 8),
        ("one float4", 16),
        ("four float4s", 64),
    ] {
        let threads = (per_sm / bytes_per_thread as f64).ceil();
        let warps = (threads / 32.0).ceil();
        println!(
            "{:<34}{threads:>16}{warps:>14}",
            format!("{what} ({bytes_per_thread} bytes)")
        );
        // ANCHOR_END: bandwidth
        fewest_whole &=
            fewest(threads, bytes_per_thread as f64, per_sm) && fewest(warps, 32.0, threads);
        // ANCHOR: bandwidth
    }
    // ANCHOR_END: bandwidth
    println!(
        "each row holds the fewest whole threads, and warps, that carry those bytes: {}",
        verdict(fewest_whole)
    );
}

/// Whether `count` is the smallest whole number of groups of `each` that hold `need`.
fn fewest(count: f64, each: f64, need: f64) -> bool {
    count * each >= need && (count - 1.0) * each < need
}
