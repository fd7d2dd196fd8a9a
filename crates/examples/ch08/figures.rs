//! Draws chapter 8's figures, one per run, named by its first argument: `double-buffering`
//! (feeding.md). Prints the SVG.
use course::plot::{Drawing, IDLE, PALE};

const FIGURES: [&str; 1] = ["double-buffering"];

fn main() {
    let name = course::cli::parse("Draws one of chapter 8's figures (SVG).", |args| {
        args.choice("FIGURE", "the figure to draw", &FIGURES)
    });
    let Some(name) = name else {
        course::cli::fail(&format!(
            "name the figure to draw, one of {}",
            FIGURES.join(", ")
        ))
    };
    let drawing = match name.as_str() {
        _ => double_buffering(),
    };
    println!("<!-- drawn by `figures_ch08 {name}` -->");
    print!("{}", drawing.to_svg());
}

const RED: &str = "#d62728";

/// `sgemm_conflict_free` against `sgemm_double_buffered` (kernels/ch08-sgemm.cu), three passes
/// along k of a 128 × 128 block: which stage runs when, in three lanes, and where the barriers
/// are. The lengths are made up; only their order is the kernels'.
fn double_buffering() -> Drawing {
    const LEFT: f64 = 170.0;
    const UNIT: f64 = 19.0;
    const LOAD: f64 = 4.0; // global → registers: the long wait
    const STORE: f64 = 1.5; // registers → shared
    const FMA: f64 = 6.0; // eight split_8x8 steps: 512 multiply-adds per thread
    const STEPS: usize = 3;
    const LANE: f64 = 30.0;
    let lanes = [
        "global → registers",
        "registers → shared",
        "shared → multiply-adds",
    ];
    let fills = [PALE[0], PALE[3], PALE[2]];
    let x = |t: f64| LEFT + t * UNIT;
    let width = x(STEPS as f64 * (LOAD + STORE + FMA)) + 30.0;
    let mut d = Drawing::new(
        width,
        430.0,
        "Double buffering: the next tile loads during the arithmetic",
    );

    // One panel: its heading, its three lanes, and the bars and barriers given.
    let panel = |d: &mut Drawing,
                 top: f64,
                 heading: &str,
                 bars: &[(usize, f64, f64, String)],
                 barriers: &[f64]| {
        d.text(LEFT - 160.0, top, "start", heading);
        for (i, name) in lanes.iter().enumerate() {
            d.text(LEFT - 10.0, top + 27.0 + LANE * i as f64, "end", name);
        }
        for (lane, from, to, label) in bars {
            let y = top + 10.0 + LANE * *lane as f64;
            let fill = if label == "waits" { IDLE } else { fills[*lane] };
            d.cell((x(*from), y, (to - from) * UNIT, 24.0), fill, 12.0, label);
        }
        for &t in barriers {
            d.dashed((x(t), top + 4.0), (x(t), top + 14.0 + 3.0 * LANE), RED);
        }
    };

    // One copy: load, store, barrier, multiply-add, barrier, pass after pass.
    let mut bars = Vec::new();
    let mut barriers = Vec::new();
    for s in 0..STEPS {
        let t = s as f64 * (LOAD + STORE + FMA);
        let k0 = 8 * s;
        bars.push((0, t, t + LOAD, format!("k0 = {k0}")));
        bars.push((1, t + LOAD, t + LOAD + STORE, String::new()));
        bars.push((2, t, t + LOAD + STORE, "waits".to_string()));
        bars.push((
            2,
            t + LOAD + STORE,
            t + LOAD + STORE + FMA,
            format!("k0 = {k0}"),
        ));
        barriers.extend([t + LOAD + STORE, t + LOAD + STORE + FMA]);
    }
    panel(
        &mut d,
        56.0,
        "One copy of each tile (sgemm_conflict_free): two barriers per pass",
        &bars,
        &barriers,
    );

    // Two copies: tile 0 is loaded before the loop; then each pass stores the registers into
    // copy `buf`, passes one barrier, and multiplies from that copy while the loads of the next
    // tile are in flight.
    let mut bars = vec![
        (0, 0.0, LOAD, "k0 = 0".to_string()),
        (2, 0.0, LOAD + STORE, "waits".to_string()),
    ];
    let mut barriers = Vec::new();
    for s in 0..STEPS {
        let t = LOAD + s as f64 * (STORE + FMA);
        let k0 = 8 * s;
        bars.push((1, t, t + STORE, String::new()));
        bars.push((0, t + STORE, t + STORE + LOAD, format!("k0 = {}", k0 + 8)));
        bars.push((
            2,
            t + STORE,
            t + STORE + FMA,
            format!("k0 = {k0}, copy {}", s % 2),
        ));
        barriers.push(t + STORE);
    }
    panel(
        &mut d,
        196.0,
        "Two copies of each tile (sgemm_double_buffered): one barrier per pass",
        &bars,
        &barriers,
    );

    let end = LOAD + STEPS as f64 * (STORE + FMA);
    d.text(x(end) + 8.0, 196.0 + 27.0 + 2.0 * LANE, "start", "…");
    d.text(
        x(STEPS as f64 * (LOAD + STORE + FMA)) + 8.0,
        56.0 + 27.0 + 2.0 * LANE,
        "start",
        "…",
    );
    d.arrow((LEFT, 330.0), (x(end), 330.0), "#333");
    d.text(x(end) + 8.0, 334.0, "start", "time");
    d.dashed((LEFT - 160.0, 358.0), (LEFT - 130.0, 358.0), RED);
    d.text(
        LEFT - 122.0,
        362.0,
        "start",
        "__syncthreads(): every thread of the block waits here",
    );
    d.text(
        LEFT - 160.0,
        386.0,
        "start",
        "k0: where the pass's tiles start along k, 128 × 8 of A and 8 × 128 of B",
    );
    d.text(
        LEFT - 160.0,
        410.0,
        "start",
        "The bars show the order of the stages, not measured times.",
    );
    d
}
