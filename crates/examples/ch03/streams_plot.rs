//! Draws the timelines that `copy_overlap` printed on the GPU machine (its recorded output,
//! `ch03/copy_overlap.gpu.txt`): for each run with pinned memory, one row per chunk, with its
//! copy in, kernel and copy out as bars on a time axis shared by the runs. Prints the SVG.
use course::cli::fail;
use course::plot::{COLOURS, Drawing, nice_step, read_recording, recorded_gpu};

/// One run of the pipeline: its title and, per chunk, the stream and three (start, end) spans.
struct Run {
    title: String,
    chunks: Vec<(String, [(f64, f64); 3])>,
}

/// `1.27ms` as 1.27.
fn ms(word: &str) -> Option<f64> {
    word.strip_suffix("ms")?.parse().ok()
}

fn runs(text: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for line in text.lines() {
        if line.ends_with("through the pipeline") {
            let title = line.split(':').next().unwrap_or(line).to_string();
            runs.push(Run {
                title,
                chunks: Vec::new(),
            });
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let times: Vec<f64> = w.iter().skip(2).filter_map(|t| ms(t)).collect();
        if let (Some(run), 8, 6) = (runs.last_mut(), w.len(), times.len()) {
            let span = |k: usize| (times[2 * k], times[2 * k + 1]);
            run.chunks
                .push((w[1].to_string(), [span(0), span(1), span(2)]));
        }
    }
    runs
}

fn main() {
    let path = course::cli::parse(
        "Draws the copy-overlap timelines (SVG) from copy_overlap's output.",
        |args| {
            args.path(
                "PATH",
                "the recorded output of copy_overlap, e.g. ch03/copy_overlap.gpu.txt",
            )
        },
    );
    let text = read_recording(&path);
    let gpu = recorded_gpu(&text).unwrap_or("GPU");
    let pinned: Vec<Run> = runs(&text)
        .into_iter()
        .filter(|r| r.title.contains("pinned") && !r.chunks.is_empty())
        .collect();
    if pinned.is_empty() {
        fail(&format!(
            "{path} holds no timeline of a run with pinned memory; run copy_overlap on a GPU first"
        ));
    }
    let end = pinned
        .iter()
        .flat_map(|r| r.chunks.iter().map(|c| c.1[2].1))
        .fold(0.0, f64::max);
    let step = nice_step(end / 2.0);
    let axis_end = (end / step).ceil() * step;

    let (left, right, bar, gap) = (120.0, 820.0, 14.0, 3.0);
    let t = |ms: f64| left + ms / axis_end * (right - left);
    let panel = |r: &Run| 30.0 + r.chunks.len() as f64 * (bar + gap);
    let height = 50.0 + pinned.iter().map(panel).sum::<f64>() + 80.0;
    let mut d = Drawing::new(
        right + 30.0,
        height,
        &format!("Copies and kernels of copy_overlap on the {gpu}"),
    );
    let mut y = 50.0;
    for run in &pinned {
        d.text(left, y + 12.0, "start", &run.title);
        y += 22.0;
        let first = y;
        for (c, (stream, spans)) in run.chunks.iter().enumerate() {
            d.text(
                left - 8.0,
                y + 11.0,
                "end",
                &format!("chunk {c}, stream {stream}"),
            );
            for (k, (from, to)) in spans.iter().enumerate() {
                d.rect(t(*from), y, (t(*to) - t(*from)).max(1.0), bar, COLOURS[k]);
            }
            y += bar + gap;
        }
        d.dashed((left, first - 2.0), (left, y), "#999");
        y += 8.0;
    }
    // The time axis, under the last panel.
    d.line((left, y), (right, y), "#333");
    let mut tick = 0.0;
    while tick <= axis_end + 1e-9 {
        d.line((t(tick), y), (t(tick), y + 5.0), "#333");
        d.text(t(tick), y + 18.0, "middle", &format!("{tick}"));
        tick += step;
    }
    d.text(
        (left + right) / 2.0,
        y + 36.0,
        "middle",
        "ms from the first event",
    );
    let legend_y = y + 52.0;
    for (k, name) in ["copy in", "kernel", "copy out"].iter().enumerate() {
        let x = left + 130.0 * k as f64;
        d.rect(x, legend_y, 18.0, 12.0, COLOURS[k]);
        d.text(x + 24.0, legend_y + 10.0, "start", name);
    }
    println!("<!-- drawn by `streams_plot {path}` -->");
    print!("{}", d.to_svg());
}
