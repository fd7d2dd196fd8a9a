//! Draws the tree reduction of `tree_sum` (kernels/ch05-block-sum.cu) on a block of 16
//! threads instead of 256: at each step the threads below `stride` add the slot `stride`
//! above their own, then the block waits at a barrier. Prints the SVG.
use course::plot::{Drawing, IDLE, PALE};

const THREADS: usize = 16;
const CELL: f64 = 38.0;
const LEFT: f64 = 150.0;
const ROW: f64 = 62.0;

fn main() {
    course::cli::no_args("Draws a tree reduction in shared memory (SVG).");
    // The same loop as the kernel, run here to get the values each step leaves behind.
    let mut s: Vec<u32> = (1..=THREADS as u32).collect();
    let mut steps = vec![(0, s.clone())];
    let mut stride = THREADS / 2;
    while stride > 0 {
        for t in 0..stride {
            s[t] += s[t + stride];
        }
        steps.push((stride, s.clone()));
        stride /= 2;
    }

    let top = 60.0;
    let height = top + ROW * steps.len() as f64 + 30.0;
    let mut d = Drawing::new(
        LEFT + CELL * THREADS as f64 + 20.0,
        height,
        &format!("Tree reduction in shared memory, {THREADS} threads"),
    );
    let x = |t: usize| LEFT + t as f64 * CELL;
    for t in (0..THREADS).step_by(3) {
        d.text(x(t) + CELL / 2.0, top - 8.0, "middle", &format!("s[{t}]"));
    }
    let mut live = THREADS;
    for (row, (stride, values)) in steps.iter().enumerate() {
        let y = top + row as f64 * ROW;
        let label = if *stride == 0 {
            "loaded".to_string()
        } else {
            format!("stride {stride}")
        };
        d.text(LEFT - 12.0, y + 17.0, "end", &label);
        for (t, v) in values.iter().enumerate() {
            let fill = if *stride > 0 && t < *stride {
                PALE[2]
            } else if t < live {
                PALE[0]
            } else {
                IDLE
            };
            d.rect(x(t), y, CELL, 26.0, fill);
            d.text(x(t) + CELL / 2.0, y + 17.0, "middle", &v.to_string());
        }
        if *stride > 0 {
            let above = y - ROW + 26.0;
            for t in 0..*stride {
                let cx = x(t) + CELL / 2.0;
                d.arrow((cx, above), (cx, y - 1.0), "#333");
                d.arrow(
                    (x(t + stride) + CELL / 2.0, above),
                    (cx + 4.0, y - 1.0),
                    "#1f77b4",
                );
            }
            live = *stride;
        }
        if row + 1 < steps.len() {
            let by = y + 26.0 + (ROW - 26.0) / 2.0;
            d.dashed((LEFT - 8.0, by), (x(THREADS) + 8.0, by), "#d62728");
            d.text(LEFT - 12.0, by + 4.0, "end", "__syncthreads()");
        }
    }
    d.text(
        LEFT,
        height - 12.0,
        "start",
        &format!(
            "green: slots written at that step; grey: no longer read. s[0] = {} = 1 + 2 + ... + {THREADS}",
            s[0]
        ),
    );
    println!("<!-- drawn by `tree_diagram` -->");
    print!("{}", d.to_svg());
}
