//! Draws the DFT timing figure from the output of `dft_broadcast` recorded on the GPU machine:
//! `dft_plot ch03/dft_broadcast.gpu.txt > ../../src/ch03-array-libraries/dft-times.svg`.
use course::plot::{Chart, Series, read_recording, recorded_gpu};
use course::timing::parse_duration_ms;

fn main() {
    let path = course::cli::parse(
        "Draws the DFT timing figure, as SVG on standard output, from a run of dft_broadcast.",
        |args| {
            args.path(
                "FILE",
                "the output of dft_broadcast, such as ch03/dft_broadcast.gpu.txt",
            )
        },
    );
    let text = read_recording(&path);
    let gpu_name = recorded_gpu(&text);
    let rows = table(&text);

    println!("<!-- drawn by `dft_plot {path}` -->");
    match gpu_name {
        Some(gpu) if !rows.is_empty() => {
            let cpu_name = text
                .lines()
                .find_map(|l| l.strip_prefix("CPU: "))
                .unwrap_or("the CPU");
            let chart = Chart {
                title: format!(
                    "DFT by broadcasting: {gpu} against {}",
                    cpu_name.split(',').next().unwrap_or(cpu_name)
                ),
                x_label: "N (signal length)".into(),
                y_label: "time per DFT (ms)".into(),
                log_x: true,
                log_y: true,
                series: vec![
                    Series {
                        label: "CPU (ndarray)".into(),
                        points: rows.iter().map(|r| (r.0, r.1)).collect(),
                    },
                    Series {
                        label: "GPU (2 kernels)".into(),
                        points: rows.iter().map(|r| (r.0, r.2)).collect(),
                    },
                ],
            };
            print!("{}", chart.to_svg());
        }
        _ => {
            // The GPU run has not been recorded in this file: say so in the figure itself.
            println!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 80" font-family="sans-serif" font-size="14">"#
            );
            println!(r##"<rect width="640" height="80" fill="white" stroke="#333"/>"##);
            println!(
                r#"<text x="320" y="45" text-anchor="middle">{path} holds no GPU measurements: run the GPU check.</text>"#
            );
            println!("</svg>");
        }
    }
}

/// (N, CPU ms, GPU ms) from rows such as `  100     1.23 ms     45.6 µs     27.0x`.
fn table(text: &str) -> Vec<(f64, f64, f64)> {
    text.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let n: f64 = words.first()?.parse::<usize>().ok()? as f64;
            let cpu = parse_duration_ms(words.get(1)?, words.get(2)?)?;
            let gpu = parse_duration_ms(words.get(3)?, words.get(4)?)?;
            Some((n, cpu, gpu))
        })
        .collect()
}
