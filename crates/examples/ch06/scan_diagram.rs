//! Draws `warp_inclusive_scan` (kernels/ch06-scan.cu): at each of five steps, every lane at
//! or above `delta` adds the value `delta` lanes below it, for delta = 1, 2, 4, 8, 16; the
//! lanes below `delta` keep theirs. Each lane starts with its own lane number, so lane k ends
//! with k(k + 1)/2. Prints the SVG.
use course::plot::{Drawing, IDLE, PALE};

const LANES: usize = 32;
const CELL: f64 = 24.0;
const LEFT: f64 = 100.0;
const ROW: f64 = 58.0;

fn main() {
    course::cli::no_args("Draws the shuffle-up steps of a warp's inclusive scan (SVG).");
    let mut v: Vec<u32> = (0..LANES as u32).collect();
    let mut rows = vec![(0, v.clone())];
    let mut delta = 1;
    while delta < LANES {
        v = (0..LANES)
            .map(|k| {
                if k >= delta {
                    v[k] + v[k - delta]
                } else {
                    v[k]
                }
            })
            .collect();
        rows.push((delta, v.clone()));
        delta *= 2;
    }

    let top = 60.0;
    let height = top + ROW * (rows.len() - 1) as f64 + 24.0 + 50.0;
    let mut d = Drawing::new(
        LEFT + CELL * LANES as f64 + 20.0,
        height,
        "Inclusive scan in a warp: v += __shfl_up_sync(FULL_MASK, v, delta)",
    );
    let x = |lane: usize| LEFT + lane as f64 * CELL;
    for lane in (0..LANES).step_by(4) {
        d.text_sized(
            x(lane) + CELL / 2.0,
            top - 8.0,
            "middle",
            10.0,
            &format!("{lane}"),
        );
    }
    d.text(LEFT - 10.0, top - 8.0, "end", "lane");
    for (r, (delta, values)) in rows.iter().enumerate() {
        let y = top + r as f64 * ROW;
        let label = if *delta == 0 {
            "start".to_string()
        } else {
            format!("delta = {delta}")
        };
        d.text(LEFT - 10.0, y + 16.0, "end", &label);
        for (lane, value) in values.iter().enumerate() {
            let added = *delta > 0 && lane >= *delta;
            if added {
                let from = x(lane - delta) + CELL / 2.0;
                d.line((from, y - ROW + 24.0), (x(lane) + CELL / 2.0, y), "#1f77b4");
            }
            let fill = if *delta == 0 || added { PALE[0] } else { IDLE };
            d.cell((x(lane), y, CELL, 24.0), fill, 10.0, &value.to_string());
        }
    }
    d.text(
        LEFT,
        height - 26.0,
        "start",
        "a line brings the value from delta lanes below; grey lanes have nobody that far below and keep theirs",
    );
    d.text(
        LEFT,
        height - 8.0,
        "start",
        &format!(
            "after five steps lane k holds 0 + 1 + ... + k; lane 31 holds {}",
            v[LANES - 1]
        ),
    );
    println!("<!-- drawn by `scan_diagram` -->");
    print!("{}", d.to_svg());
}
