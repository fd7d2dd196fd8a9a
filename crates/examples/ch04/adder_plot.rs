//! Draws the CPU-against-GPU adder figure from the table that `adder_sweep` printed on the
//! GPU machine (its recorded output, `ch04/adder_sweep.gpu.txt`), so the figure shows measured
//! numbers and nothing else. Prints the SVG.
use course::cli::fail;
use course::plot::{Chart, Series, read_recording, recorded_gpu};
use course::timing::parse_duration_ms;

/// `812 ns`, `4.31 µs`, `12.0 ms` or `1.52 s` (two words) in microseconds.
fn micros(value: &str, unit: &str) -> Option<f64> {
    parse_duration_ms(value, unit).map(|ms| ms * 1e3)
}

fn main() {
    let path = course::cli::parse(
        "Draws the CPU-against-GPU adder figure (SVG) from adder_sweep's output.",
        |args| {
            args.path(
                "PATH",
                "the recorded output of adder_sweep, e.g. ch04/adder_sweep.gpu.txt",
            )
        },
    );
    let text = read_recording(&path);
    let gpu_name = recorded_gpu(&text).unwrap_or("GPU");

    // Rows of the table: `n  serial unit  rayon unit  GPU unit  ratio`.
    let (mut serial, mut rayon, mut gpu) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let Some(n) = w.first().and_then(|t| t.parse::<f64>().ok()) else {
            continue;
        };
        if w.len() != 8 {
            continue;
        }
        if let (Some(s), Some(r), Some(g)) =
            (micros(w[1], w[2]), micros(w[3], w[4]), micros(w[5], w[6]))
        {
            serial.push((n, s));
            rayon.push((n, r));
            gpu.push((n, g));
        }
    }
    if gpu.len() < 2 {
        fail(&format!(
            "{path} holds no table of adder timings; run adder_sweep on a GPU first"
        ));
    }

    let chart = Chart {
        title: "Adding two arrays of f64: CPU against GPU".into(),
        x_label: "array length n".into(),
        y_label: "time per addition of two arrays (µs)".into(),
        log_x: true,
        log_y: true,
        series: vec![
            Series {
                label: "CPU, serial".into(),
                points: serial,
            },
            Series {
                label: "CPU, rayon".into(),
                points: rayon,
            },
            Series {
                label: gpu_name.to_string(),
                points: gpu,
            },
        ],
    };
    println!("<!-- drawn by `adder_plot {path}` -->");
    print!("{}", chart.to_svg());
}
