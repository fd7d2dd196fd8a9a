//! Task parallelism (different jobs at the same time) beside data parallelism (one job on
//! every element at the same time), both with rayon, both checked against a serial run.
use course::compare::verdict;
use course::machine::describe_cpu;
use rayon::prelude::*;

fn main() {
    course::cli::no_args(
        "Runs two different jobs at once, then one job over every element, with rayon.",
    );
    println!("{}", describe_cpu());
    let n: u64 = 1_000_000;
    let xs: Vec<u64> = (1..=n).collect();

    // ANCHOR: task
    // Two different jobs, which rayon may run at the same time on two threads.
    let (total, largest) = rayon::join(
        || xs.iter().sum::<u64>(),
        || xs.iter().copied().max().unwrap_or(0),
    );
    // ANCHOR_END: task
    let serial = (
        xs.iter().sum::<u64>(),
        xs.iter().copied().max().unwrap_or(0),
    );
    println!("task parallelism: total {total}, largest {largest}");
    println!(
        "  same as one thread doing both jobs: {}",
        verdict((total, largest) == serial)
    );
    println!(
        "  equal to n(n + 1)/2 and n for n = {n}: {}",
        verdict((total, largest) == (n * (n + 1) / 2, n))
    );

    // ANCHOR: data
    // One job, squaring and adding, spread over every element.
    let sum_of_squares: u64 = xs.par_iter().map(|x| x * x).sum();
    // ANCHOR_END: data
    let serial: u64 = xs.iter().map(|x| x * x).sum();
    println!("data parallelism: sum of squares {sum_of_squares}");
    println!(
        "  same as the serial loop: {}",
        verdict(sum_of_squares == serial)
    );
    println!(
        "  equal to n(n + 1)(2n + 1)/6: {}",
        verdict(sum_of_squares == n * (n + 1) * (2 * n + 1) / 6)
    );
}
