//! Draws a roofline of the book's own kernels from the committed results table
//! (`results/h200.md`): each kernel's arithmetic intensity (operations per byte of device
//! memory) against the operations per second it reached, under the two ceilings measured in
//! the same run. A row counts either bytes or operations; the other count comes from the
//! program's definition, in [`intensity`]. Prints the SVG.
use course::cli::fail;
use course::plot::{COLOURS, Drawing, read_recording};

/// One row of the table: program, measurement, and its rate in units per second.
struct Row {
    program: String,
    label: String,
    rate: f64,
    flops: bool,
}

fn rows(text: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (program, label, rate) = (cells[1].trim_matches('`'), cells[2], cells[4]);
        let Some((value, unit)) = rate.split_once(' ') else {
            continue;
        };
        let Ok(value) = value.parse::<f64>() else {
            continue;
        };
        rows.push(Row {
            program: program.into(),
            label: label.into(),
            rate: value * 1e9,
            flops: unit == "GFLOP/s",
        });
    }
    rows
}

/// The number after `key` in a label such as `n=100000` (`1e8` and `1.2e7` allowed).
fn number_after(label: &str, key: &str) -> Option<f64> {
    let rest = &label[label.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Pixels and visibilities of an imaging label: `1024x1024 px, 262144 vis`.
fn pixels_and_visibilities(label: &str) -> Option<(f64, f64)> {
    let words: Vec<&str> = label.split([',', ' ']).filter(|w| !w.is_empty()).collect();
    let px = words.iter().position(|w| *w == "px")?;
    let (w, h) = words[px - 1].split_once('x')?;
    let vis: f64 = words[words.iter().position(|w| *w == "vis")? - 1]
        .parse()
        .ok()?;
    Some((w.parse::<f64>().ok()? * h.parse::<f64>().ok()?, vis))
}

// ANCHOR: intensity
/// Operations per byte of a row, or why the row is left out. Where the program counted bytes,
/// the operations per element come from its kernel (each +, -, * and / one; a maths function
/// such as cos or pow one, which undercounts it); where it counted operations, the bytes are
/// its inputs read once and its outputs written once, as the results page counts them.
fn intensity(row: &Row) -> Result<f64, &'static str> {
    let l = row.label.as_str();
    let element = |ops: f64, bytes: f64| Ok(ops / bytes);
    match row.program.as_str() {
        "ceilings" => Err("the ceilings themselves"),
        _ if l.starts_with("cuBLAS") || l.starts_with("cuFFT") || l.starts_with("cuRAND") => {
            Err("library calls: the program counts one side only")
        }
        _ if l.starts_with("outer product by SGEMM") => {
            Err("library calls: the program counts one side only")
        }
        _ if l.starts_with("device-to-device copy") => Err("copies: no arithmetic"),
        "histogram_general"
        | "histogram_three_ways"
        | "compact"
        | "contention"
        | "scan"
        | "tile_loop"
        | "tile_loop_one_barrier" => Err("integer work: the FP32 ceiling does not bound it"),
        // a[i] += b[i] on f32: one addition; a and b read, a written.
        "async_timing" => element(1.0, 12.0),
        // x - 1, 2 *, cos: three operations on f32; 6 or 2 array passes of 4 bytes.
        "fusion" if l.contains("unfused") => element(3.0, 24.0),
        "fusion" => element(3.0, 8.0),
        // out[i][j] = a[i] * b[j]: one multiply per 4 bytes written (inputs negligible).
        "outer_product" => {
            let n = 10_000.0;
            Ok(n * n / (4.0 * n * n + 8.0 * n))
        }
        // Per term: pow, divide, add on f64; 3 arrays of 8 bytes per term, plus one.
        "taylor_exp_gpu" => element(3.0 * 12.0, (3.0 * 12.0 + 1.0) * 8.0),
        // Two f64 arrays read, one written, one add or multiply per element.
        "adder_sweep" | "grid_stride" | "matrix_add" | "multiplier" => element(1.0, 24.0),
        // One f64 addition per element read.
        "reduce_sum" => element(1.0, 8.0),
        // One f32 addition per element read.
        "block_sum_two_pass" | "block_reduce" | "grid_sync" => element(1.0, 4.0),
        // 2mnp operations; a and b read, the m x n x p products written and read back, c written.
        "broadcast_matmul_gpu" => {
            let (m, n, p) = (100.0, 1000.0, 100.0);
            Ok(2.0 * m * n * p / (8.0 * (m * n + n * p + 2.0 * m * n * p + m * p)))
        }
        // 8 operations per term, n^2 terms; n float2 read and n written.
        "dft_gpu" => number_after(l, "n=")
            .map(|n| 8.0 * n * n / (16.0 * n))
            .ok_or("a label without n"),
        // 2n^3 operations; three n x n f32 matrices.
        "matmul_gpu" => number_after(l, "n=")
            .map(|n| 2.0 * n * n * n / (12.0 * n * n))
            .ok_or("a label without n"),
        // 13 operations per pixel-visibility pair, or what the label says the kernel executes
        // (steps 9 and 10); per pixel l, m, n read and a complex value written, per visibility
        // u, v, w and a complex value read: 5 numbers each.
        "imaging_gpu" | "challenge_coarsening" | "challenge_fma" | "challenge_rectangle" => {
            let (px, vis) = pixels_and_visibilities(l).ok_or("a label without its sizes")?;
            let size = if l.contains("(f64)") { 8.0 } else { 4.0 };
            let per_pair = number_after(l, "executing ").unwrap_or(13.0);
            Ok(per_pair * px * vis / (5.0 * size * (px + vis)))
        }
        _ => Err("no count of the other side in the program"),
    }
}
// ANCHOR_END: intensity

/// The kernel a row measures: its label up to the sizes, without `step N:` or `(candidate)`.
fn kernel_name(row: &Row) -> String {
    let l = row.label.split(", ").next().unwrap_or(&row.label);
    let l = l.split_once(": ").map_or(l, |(_, rest)| rest);
    let l = l.replace(" (candidate)", "").replace(" (f32)", "");
    let l = l.split(" n=").next().unwrap_or(&l).to_string();
    l.trim_end_matches(" 100x1000x100").to_string()
}

/// `1,2,3,5` as `1-3,5`.
fn ranges(numbers: &[usize]) -> String {
    let mut sorted = numbers.to_vec();
    sorted.sort();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => sorted[i].to_string(),
            1 => format!("{},{}", sorted[i], sorted[j]),
            _ => format!("{}-{}", sorted[i], sorted[j]),
        });
        i = j + 1;
    }
    parts.join(",")
}

fn main() {
    let path = course::cli::parse(
        "Draws the roofline of the book's kernels (SVG) from the results table.",
        |args| args.path("PATH", "the results table, e.g. ../../results/h200.md"),
    );
    let text = read_recording(&path);
    let gpu = text
        .split("**")
        .nth(1)
        .and_then(|g| g.split(" (").next())
        .unwrap_or("GPU");
    let rows = rows(&text);
    let ceiling = |flops: bool| {
        rows.iter()
            .find(|r| r.program == "ceilings" && r.flops == flops)
            .map(|r| r.rate)
            .unwrap_or_else(|| fail(&format!("{path} has no `ceilings` row of each kind")))
    };
    let (bandwidth, peak) = (ceiling(false), ceiling(true));

    // (kernel number, intensity, operations per second), numbered in the table's order.
    let mut names: Vec<String> = Vec::new();
    let mut points = Vec::new();
    for row in &rows {
        let Ok(i) = intensity(row) else { continue };
        let achieved = if row.flops { row.rate } else { row.rate * i };
        let name = kernel_name(row);
        let k = names.iter().position(|n| *n == name).unwrap_or_else(|| {
            names.push(name);
            names.len() - 1
        });
        points.push((k, i, achieved));
    }
    if points.is_empty() {
        fail(&format!("{path} holds no row whose intensity is known"));
    }

    // Log-log axes in whole decades around the points and the ridge.
    let ridge = peak / bandwidth;
    let lo_x = points
        .iter()
        .map(|p| p.1)
        .fold(ridge, f64::min)
        .log10()
        .floor() as i32;
    let hi_x = points
        .iter()
        .map(|p| p.1)
        .fold(ridge, f64::max)
        .log10()
        .ceil() as i32;
    let lo_y = points
        .iter()
        .map(|p| p.2)
        .fold(peak, f64::min)
        .log10()
        .floor() as i32;
    let hi_y = (peak.log10() + 0.3).ceil() as i32;
    let (left, top, pw, ph) = (80.0, 50.0, 780.0, 400.0);
    let px = |v: f64| left + (v.log10() - lo_x as f64) / (hi_x - lo_x) as f64 * pw;
    let py = |v: f64| top + (1.0 - (v.log10() - lo_y as f64) / (hi_y - lo_y) as f64) * ph;

    let columns = 3;
    let per_column = names.len().div_ceil(columns);
    let legend_top = top + ph + 60.0;
    let height = legend_top + 16.0 * per_column as f64 + 20.0;
    let mut d = Drawing::new(
        left + pw + 20.0,
        height,
        &format!("Roofline of the book's kernels on the {gpu}"),
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
        "arithmetic intensity (operations per byte of device memory)",
    );
    d.text_sized(14.0, top - 12.0, "start", 12.0, "operations per second");

    // The roof: bandwidth × intensity up to the ridge, then the SGEMM peak.
    let x0 = 10f64.powi(lo_x);
    let start = if bandwidth * x0 < 10f64.powi(lo_y) {
        10f64.powi(lo_y) / bandwidth
    } else {
        x0
    };
    let x1 = 10f64.powi(hi_x);
    d.dashed(
        (px(start), py(bandwidth * start)),
        (px(ridge), py(peak)),
        COLOURS[1],
    );
    d.dashed((px(ridge), py(peak)), (px(x1), py(peak)), COLOURS[1]);
    d.text(
        px(ridge) + 8.0,
        py(peak) - 6.0,
        "start",
        &format!("cuBLAS SGEMM {:.1} TFLOP/s", peak / 1e12),
    );
    // Beside the slope at one operation per byte, where no kernel sits.
    d.text(
        px(1.0) + 10.0,
        py(bandwidth) + 4.0,
        "start",
        &format!("copy {:.0} GB/s", bandwidth / 1e9),
    );

    // Points; the numbers of points closer than a few pixels share one label.
    let mut labels: Vec<((f64, f64), Vec<usize>)> = Vec::new();
    for &(k, i, a) in &points {
        let at = (px(i), py(a));
        d.circle(at, 3.5, COLOURS[0]);
        match labels
            .iter_mut()
            .find(|(p, _)| (p.0 - at.0).abs() < 7.0 && (p.1 - at.1).abs() < 7.0)
        {
            Some((_, ks)) if !ks.contains(&(k + 1)) => ks.push(k + 1),
            Some(_) => {}
            None => labels.push((at, vec![k + 1])),
        }
    }
    // Each label to the right of its point, moved down past labels already placed.
    let mut placed: Vec<(f64, f64, f64)> = Vec::new();
    for (at, ks) in &labels {
        let text = ranges(ks);
        let w = 6.5 * text.len() as f64;
        // Past the plot's right edge, the label goes to the left of its point instead.
        let x = if at.0 + 6.0 + w > left + pw {
            at.0 - 6.0 - w
        } else {
            at.0 + 6.0
        };
        let mut y = at.1 + 4.0;
        while placed
            .iter()
            .any(|&(px, py, pw)| x < px + pw && px < x + w && (y - py).abs() < 12.0)
        {
            y += 12.0;
        }
        if y > at.1 + 10.0 {
            d.line((at.0, at.1), (x, y - 4.0), "#999");
        }
        d.text_sized(x, y, "start", 11.0, &text);
        placed.push((x, y, w));
    }
    d.rect(left, top, pw, ph, "none");

    for (k, name) in names.iter().enumerate() {
        let (col, line) = (k / per_column, k % per_column);
        let x = left + col as f64 * (pw / columns as f64);
        let y = legend_top + 16.0 * line as f64;
        d.text_sized(x, y, "start", 11.0, &format!("{}  {name}", k + 1));
    }
    println!("<!-- drawn by `roofline {path}` -->");
    print!("{}", d.to_svg());
}
