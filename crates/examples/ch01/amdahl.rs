//! Amdahl's law: the speedup of a program whose fraction `p` runs in parallel on `n` workers.
//!
//! `amdahl [MAX_WORKERS]` prints a table of speedups; `amdahl svg` prints the book's figure
//! (its XML comment names that command, and XML comments may not hold `--`).
use course::compare::verdict;
use course::plot::{Chart, Series};

// ANCHOR: law
/// Speedup on `n` workers when a fraction `p` of the run time parallelises perfectly.
fn amdahl_speedup(p: f64, n: f64) -> f64 {
    1.0 / ((1.0 - p) + p / n)
}
// ANCHOR_END: law

fn main() {
    let (svg, max_workers) = course::cli::parse(
        "Prints the speedups Amdahl's law predicts, or draws them as the book's figure.",
        |args| {
            let svg = args.word("svg", "print the figure as SVG instead of the table");
            (
                svg,
                args.usize("MAX_WORKERS", "the largest worker count", 1024, 2, 1 << 20),
            )
        },
    );
    if svg {
        print!("{}", figure());
        return;
    }
    // ANCHOR: table
    let fractions = [0.5, 0.75, 0.8, 0.9, 0.95, 0.99];
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
    // With endless workers the parallel part takes no time: only the serial part is left.
    print!("{:>8}", "limit");
    for p in fractions {
        print!("{:>9.2}", 1.0 / (1.0 - p));
    }
    println!();
    // ANCHOR_END: table
    // Two things the law says for any p: one worker gives no speedup, and no number of
    // workers beats the limit.
    let holds = fractions.iter().all(|&p| {
        amdahl_speedup(p, 1.0) == 1.0
            && (0..=20).all(|k| amdahl_speedup(p, (1u64 << k) as f64) <= 1.0 / (1.0 - p))
    });
    println!(
        "1 worker gives a speedup of 1, and 1 to 2^20 workers stay within the limit: {}",
        verdict(holds)
    );
}

// ANCHOR: figure
/// Speedup against the number of workers, from 1 to 65,536, one curve per parallel fraction.
fn figure() -> String {
    let workers: Vec<f64> = (0..=64).map(|k| 2f64.powf(k as f64 / 4.0)).collect();
    let series = [0.5, 0.75, 0.9, 0.95]
        .into_iter()
        .map(|p| Series {
            label: format!("p = {p}"),
            points: workers.iter().map(|&n| (n, amdahl_speedup(p, n))).collect(),
        })
        .collect();
    let chart = Chart {
        title: "Amdahl's law".into(),
        x_label: "workers".into(),
        y_label: "speedup".into(),
        log_x: true,
        log_y: false,
        series,
    };
    format!("<!-- drawn by `amdahl svg` -->\n{}", chart.to_svg())
}
// ANCHOR_END: figure
