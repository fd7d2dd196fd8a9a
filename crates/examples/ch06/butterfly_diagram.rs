//! Draws the butterfly of `warp_sum_xor` (kernels/ch06-shuffles.cu): at each of five steps,
//! lane i adds the value of lane i XOR m, for m = 16, 8, 4, 2, 1, and after the last step every
//! lane holds the sum of all 32. Each lane starts with its own lane number. Prints the SVG.
use course::plot::{Drawing, PALE};

const LANES: usize = 32;
const CELL: f64 = 24.0;
const LEFT: f64 = 100.0;
const ROW: f64 = 58.0;

fn main() {
    course::cli::no_args("Draws the xor-shuffle butterfly of a warp sum (SVG).");
    // The kernel's loop, run here for the values each step leaves.
    let mut v: Vec<u32> = (0..LANES as u32).collect();
    let mut rows = vec![(0, v.clone())];
    let mut mask = LANES / 2;
    while mask > 0 {
        v = (0..LANES).map(|i| v[i] + v[i ^ mask]).collect();
        rows.push((mask, v.clone()));
        mask /= 2;
    }

    let top = 60.0;
    let height = top + ROW * (rows.len() - 1) as f64 + 24.0 + 50.0;
    let mut d = Drawing::new(
        LEFT + CELL * LANES as f64 + 20.0,
        height,
        "The butterfly: v += __shfl_xor_sync(FULL_MASK, v, m)",
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
    for (r, (mask, values)) in rows.iter().enumerate() {
        let y = top + r as f64 * ROW;
        let label = if *mask == 0 {
            "start".to_string()
        } else {
            format!("m = {mask}")
        };
        d.text(LEFT - 10.0, y + 16.0, "end", &label);
        if *mask > 0 {
            for lane in 0..LANES {
                let from = x(lane ^ mask) + CELL / 2.0;
                d.line((from, y - ROW + 24.0), (x(lane) + CELL / 2.0, y), "#1f77b4");
            }
        }
        let fill = if r + 1 == rows.len() {
            PALE[2]
        } else {
            PALE[0]
        };
        for (lane, value) in values.iter().enumerate() {
            d.cell((x(lane), y, CELL, 24.0), fill, 10.0, &value.to_string());
        }
    }
    d.text(
        LEFT,
        height - 26.0,
        "start",
        "each line brings lane i XOR m's value to lane i, which adds it to its own; no barrier, no shared memory",
    );
    d.text(
        LEFT,
        height - 8.0,
        "start",
        &format!(
            "after five steps every lane holds {} = 0 + 1 + ... + 31",
            v[0]
        ),
    );
    println!("<!-- drawn by `butterfly_diagram` -->");
    print!("{}", d.to_svg());
}
