//! Draws the ladder's rungs on a roofline (SVG) from two recordings: the ladder's output (each
//! rung's rate and FLOP per byte requested from global memory) and the results table of the same
//! GPU run (the copy bandwidth and cuBLAS SGEMM ceilings). Prints the SVG.
use course::cli::fail;
use course::plot::{COLOURS, Drawing, read_recording, recorded_gpu};

/// A rung's line of the ladder's table: name, rate in FLOP/s, intensity in FLOP per byte.
fn rungs(ladder: &str) -> Vec<(String, f64, f64)> {
    let mut rungs = Vec::new();
    for line in ladder.lines() {
        let Some((name, rest)) = line.split_once("  ") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "TFLOP/s") else {
            continue;
        };
        let (Some(rate), Some(intensity)) = (words.get(at - 1), words.get(at + 2)) else {
            continue;
        };
        if let (Ok(rate), Ok(intensity)) = (rate.parse::<f64>(), intensity.parse::<f64>()) {
            rungs.push((name.trim().to_string(), rate * 1e12, intensity));
        }
    }
    rungs
}

/// The rate in a `ceilings` row of a results table whose unit is `unit`, per second.
fn ceiling(results: &str, unit: &str) -> Option<f64> {
    results
        .lines()
        .filter(|l| l.starts_with("| `ceilings`"))
        .find_map(|l| {
            let rate = l.split('|').nth(4)?.trim();
            let (value, u) = rate.split_once(' ')?;
            (u == unit).then(|| value.parse::<f64>().ok().map(|v| v * 1e9))?
        })
}

fn main() {
    let (ladder_path, results_path) = course::cli::parse(
        "Draws the ladder's rungs on a roofline (SVG) from its recording and the run's results table.",
        |args| {
            (
                args.path(
                    "LADDER",
                    "the ladder's recording, e.g. ch08/sgemm_ladder.gpu.txt",
                ),
                args.path(
                    "RESULTS",
                    "the results table, e.g. ../../results/h200-ch08.md",
                ),
            )
        },
    );
    let (ladder, results) = (read_recording(&ladder_path), read_recording(&results_path));
    let gpu = recorded_gpu(&ladder).unwrap_or("GPU");
    let rungs = rungs(&ladder);
    let (Some(bandwidth), Some(peak)) = (ceiling(&results, "GB/s"), ceiling(&results, "GFLOP/s"))
    else {
        fail(&format!(
            "{results_path} has no `ceilings` row of each kind"
        ))
    };
    if rungs.is_empty() {
        fail(&format!("{ladder_path} holds no rung"));
    }

    // Log-log axes: intensity 0.1 to 100 FLOP per byte, rate 1e11 to 1e14 FLOP/s.
    let (lo_x, hi_x, lo_y, hi_y) = (-1, 2, 11, 14);
    let (left, top, pw, ph) = (80.0, 50.0, 600.0, 360.0);
    let px = |v: f64| left + (v.log10() - lo_x as f64) / (hi_x - lo_x) as f64 * pw;
    let py = |v: f64| top + (1.0 - (v.log10() - lo_y as f64) / (hi_y - lo_y) as f64) * ph;
    let legend_top = top + ph + 60.0;
    let height = legend_top + 16.0 * rungs.len().div_ceil(2) as f64 + 10.0;
    let mut d = Drawing::new(
        left + pw + 20.0,
        height,
        &format!("The ladder on the roofline, {gpu}"),
    );
    for e in lo_x..=hi_x {
        let x = px(10f64.powi(e));
        d.line((x, top), (x, top + ph), "#ddd");
        d.text(x, top + ph + 16.0, "middle", &format!("1e{e}"));
    }
    for e in lo_y..=hi_y {
        let y = py(10f64.powi(e));
        d.line((left, y), (left + pw, y), "#ddd");
        d.text(left - 6.0, y + 4.0, "end", &format!("1e{e}"));
    }
    d.text(
        left + pw / 2.0,
        top + ph + 36.0,
        "middle",
        "operations per byte asked of global memory (from each rung's tile)",
    );
    d.text_sized(14.0, top - 12.0, "start", 12.0, "operations per second");

    // The roof: the copy bandwidth times the intensity, up to the SGEMM ceiling.
    let ridge = peak / bandwidth;
    let start = 10f64.powi(lo_x);
    d.dashed(
        (px(start), py(bandwidth * start)),
        (px(ridge), py(peak)),
        COLOURS[1],
    );
    d.dashed(
        (px(ridge), py(peak)),
        (px(10f64.powi(hi_x)), py(peak)),
        COLOURS[1],
    );
    d.text(
        px(ridge) - 8.0,
        py(peak) - 8.0,
        "end",
        &format!("cuBLAS SGEMM {:.1} TFLOP/s", peak / 1e12),
    );
    d.text(
        px(1.0) + 8.0,
        py(bandwidth) + 16.0,
        "start",
        &format!("copy {:.0} GB/s", bandwidth / 1e9),
    );

    // Rungs with the same intensity put their numbers side by side, with a line to each point.
    let mut used: Vec<(f64, f64)> = Vec::new();
    for (k, (_, rate, intensity)) in rungs.iter().enumerate() {
        let at = (px(*intensity), py(*rate));
        d.circle(at, 3.5, COLOURS[0]);
        let mut x = at.0 + 6.0;
        while used
            .iter()
            .any(|&(ux, uy)| (ux - x).abs() < 14.0 && (uy - at.1).abs() < 12.0)
        {
            x += 14.0;
        }
        if x > at.0 + 6.0 {
            d.line((at.0 + 4.0, at.1), (x - 1.0, at.1), "#999");
        }
        d.text_sized(x, at.1 + 4.0, "start", 11.0, &format!("{}", k + 1));
        used.push((x, at.1));
    }
    d.rect(left, top, pw, ph, "none");
    let per_column = rungs.len().div_ceil(2);
    for (k, (name, _, _)) in rungs.iter().enumerate() {
        let x = left + (k / per_column) as f64 * (pw / 2.0);
        let y = legend_top + 16.0 * (k % per_column) as f64;
        d.text_sized(x, y, "start", 11.0, &format!("{}  {name}", k + 1));
    }
    println!("<!-- drawn by `ladder_roofline {ladder_path} {results_path}` -->");
    print!("{}", d.to_svg());
}
