//! Draws chapter 1's figures, one per run, named by the argument: `lost-update` (two threads
//! running `racy_sum`'s read, add and write on one total). Prints the SVG.
use course::plot::{COLOURS, Drawing, PALE};

const FIGURES: [&str; 1] = ["lost-update"];

fn main() {
    let figure = course::cli::figure_name("Draws one of chapter 1's figures (SVG).", &FIGURES);
    let svg = lost_update();
    println!("<!-- drawn by `figures_ch01 {figure}` -->");
    print!("{svg}");
}

/// One step of a thread in `racy_sum`: the statement, and what it does to `seen`, `updated` and
/// the shared total.
#[derive(Clone, Copy)]
enum Step {
    Load,
    Add,
    Store,
}

/// Two threads each add a 1 to the total, starting from 0, with their steps interleaved the
/// way that loses an update: both load before either stores.
fn lost_update() -> String {
    // (thread, step) in the order they happen.
    let order = [
        (0, Step::Load),
        (1, Step::Load),
        (0, Step::Add),
        (1, Step::Add),
        (0, Step::Store),
        (1, Step::Store),
    ];
    let x = 1u64;
    let mut sum = 0u64;
    let (mut seen, mut updated) = ([0u64; 2], [0u64; 2]);
    let (w, h) = (820.0, 440.0);
    let mut d = Drawing::new(
        w,
        h,
        "Two threads add 1 to the total at once: one update is lost",
    );
    let cols = [40.0, 560.0]; // left edges of thread A's and thread B's columns
    let (col_w, sum_x, sum_w) = (220.0, 340.0, 140.0);
    d.text_sized(cols[0] + col_w / 2.0, 52.0, "middle", 13.0, "thread A");
    d.text_sized(sum_x + sum_w / 2.0, 52.0, "middle", 13.0, "sum (shared)");
    d.text_sized(cols[1] + col_w / 2.0, 52.0, "middle", 13.0, "thread B");
    let row_h = 44.0;
    let top = 64.0;
    d.text(20.0, 52.0, "start", "step");
    d.text(20.0, top + 20.0, "start", "before");
    d.cell((sum_x, top, sum_w, 30.0), PALE[0], 12.0, &format!("{sum}"));
    for (k, &(t, step)) in order.iter().enumerate() {
        let y = top + 40.0 + k as f64 * row_h;
        let text = match step {
            Step::Load => {
                seen[t] = sum;
                format!("seen = sum.load()  → {}", seen[t])
            }
            Step::Add => {
                updated[t] = seen[t] + x;
                format!("updated = seen + {x}  → {}", updated[t])
            }
            Step::Store => {
                sum = updated[t];
                format!("sum.store(updated): writes {}", updated[t])
            }
        };
        d.text(20.0, y + 20.0, "start", &format!("{}", k + 1));
        d.cell((cols[t], y, col_w, 30.0), PALE[3 - t], 12.0, &text);
        let lost = matches!(step, Step::Store) && t == 1;
        let fill = if lost { PALE[1] } else { PALE[0] };
        d.cell((sum_x, y, sum_w, 30.0), fill, 12.0, &format!("{sum}"));
        // Loads read the total, stores write it.
        let (near, far) = if t == 0 {
            (cols[0] + col_w, sum_x)
        } else {
            (cols[1], sum_x + sum_w)
        };
        match step {
            Step::Load => d.arrow((far, y + 15.0), (near, y + 15.0), COLOURS[0]),
            Step::Store => d.arrow((near, y + 15.0), (far, y + 15.0), COLOURS[1]),
            Step::Add => {}
        }
    }
    let y = top + 40.0 + order.len() as f64 * row_h;
    d.text(
        w / 2.0,
        y + 14.0,
        "middle",
        &format!(
            "two threads each added {x}, so the total should be {}; it is {sum}",
            2 * x
        ),
    );
    d.text(
        w / 2.0,
        y + 36.0,
        "middle",
        "B loaded before A stored, so B's store writes the same value again: A's update is lost",
    );
    d.to_svg()
}
