//! Amdahl's law: the speedup of a program whose fraction `p` runs in parallel on `n` workers.
use course::cli::arg_usize;

// ANCHOR: law
/// Speedup on `n` workers when a fraction `p` of the run time parallelises perfectly.
fn amdahl_speedup(p: f64, n: f64) -> f64 {
    1.0 / ((1.0 - p) + p / n)
}
// ANCHOR_END: law

fn main() {
    let max_workers = arg_usize(1, "the largest worker count", 1024, 2, 1 << 20);
    // ANCHOR: table
    let fractions = [0.5, 0.75, 0.9, 0.95, 0.99];
    print!("{:>8}", "workers");
    for p in fractions {
        print!("{:>9}", format!("p={p}"));
    }
    println!();
    let mut n = 1;
    while n <= max_workers {
        print!("{n:>8}");
        for p in fractions {
            print!("{:>9.2}", amdahl_speedup(p, n as f64));
        }
        println!();
        n *= 4;
    }
    // ANCHOR_END: table
}
