//! The latency-hiding example of the workshop this course is ported from, simulated cycle by
//! cycle: threads that each load one value from memory and then add to it ten times, on a few
//! cores that switch to another thread whenever the current one waits.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use course::compare::verdict;

const ADDS: usize = 10;
const ADD_LATENCY: usize = 4;

// ANCHOR: simulate
/// Cycles until `threads` threads have all finished, on `cores` cores that each issue one
/// instruction per cycle, with at most `resident` threads on the cores at a time. A thread's
/// instructions depend on each other: the load (`load_latency` cycles), then `ADDS` adds.
/// Returns the cycles and how many core-cycles issued an instruction.
fn simulate(threads: usize, cores: usize, resident: usize, load_latency: usize) -> (usize, usize) {
    let instructions = 1 + ADDS;
    let mut issued = vec![0; threads]; // instructions each thread has issued
    let mut ready = VecDeque::new(); // threads whose next instruction can issue now
    let mut waiting = BinaryHeap::new(); // (cycle its result arrives, thread)
    let mut admitted = resident.min(threads);
    ready.extend(0..admitted);
    let (mut cycle, mut finished, mut busy) = (0, 0, 0);
    while finished < threads {
        while let Some(&Reverse((at, t))) = waiting.peek() {
            if at > cycle {
                break;
            }
            waiting.pop();
            if issued[t] < instructions {
                ready.push_back(t);
            } else {
                // Its last result is in: the thread is done and a new one takes its place.
                finished += 1;
                if admitted < threads {
                    ready.push_back(admitted);
                    admitted += 1;
                }
            }
        }
        // Each core issues one instruction from a thread that is ready; the others wait.
        for _ in 0..cores {
            let Some(t) = ready.pop_front() else { break };
            let latency = if issued[t] == 0 {
                load_latency
            } else {
                ADD_LATENCY
            };
            issued[t] += 1;
            waiting.push(Reverse((cycle + latency, t)));
            busy += 1;
        }
        cycle += 1;
    }
    // The loop ran one cycle past the one in which the last result arrived.
    (cycle - 1, busy)
}
// ANCHOR_END: simulate

fn main() {
    let (cores, load_latency, threads) = course::cli::parse(
        "Simulates, cycle by cycle, how many threads hide the latency of a load.",
        |args| {
            (
                args.usize("CORES", "the number of cores", 10, 1, 1000),
                args.usize("LATENCY", "the load latency in cycles", 100, 1, 10_000),
                args.usize("THREADS", "the number of threads", 1000, 1, 100_000),
            )
        },
    );

    // ANCHOR: report
    let per_thread = load_latency + ADDS * ADD_LATENCY;
    println!(
        "{threads} threads, each: 1 load ({load_latency} cycles), then {ADDS} dependent adds ({ADD_LATENCY} cycles each)"
    );
    println!(
        "one thread after another: {} cycles, {} of them waiting for memory ({:.1} per cent)",
        threads * per_thread,
        threads * load_latency,
        100.0 * load_latency as f64 / per_thread as f64
    );
    let (cycles, busy) = simulate(threads, cores, threads, load_latency);
    println!(
        "all {threads} threads on {cores} cores at once: {cycles} cycles (one after another takes {:.1} times as long)",
        (threads * per_thread) as f64 / cycles as f64
    );
    println!(
        "  core-cycles issuing loads: {threads}, issuing adds: {}, idle: {}",
        threads * ADDS,
        cycles * cores - busy
    );
    println!("fewer threads on the cores at a time:");
    println!("{:>10}{:>10}{:>16}", "resident", "cycles", "cores busy");
    let counts = [
        1, 10, 50, 100, 128, 200, 300, 500, 1000, 2000, 4000, 10_000, 100_000,
    ];
    let (mut alone, mut fewest) = (0, usize::MAX);
    for resident in counts.into_iter().filter(|&r| r < threads).chain([threads]) {
        let (cycles, busy) = simulate(threads, cores, resident, load_latency);
        let share = 100.0 * busy as f64 / (cycles * cores) as f64;
        println!(
            "{resident:>10}{cycles:>10}{:>16}",
            format!("{share:.1} per cent")
        );
        if resident == 1 {
            alone = cycles;
        }
        fewest = fewest.min(cycles);
    }
    // ANCHOR_END: report

    // Two answers known without simulating. One resident thread is one after another; and no
    // schedule beats both the issue limit (every instruction needs a core-cycle) and the
    // latency of a single thread's chain.
    println!(
        "1 resident thread takes {threads} x {per_thread} cycles, as one after another: {}",
        verdict(alone == threads * per_thread)
    );
    let floor = (threads * (1 + ADDS)).div_ceil(cores).max(per_thread);
    println!(
        "no run took fewer than max(11 x {threads} / {cores}, {per_thread}) = {floor} cycles: {}",
        verdict(fewest >= floor)
    );
}
