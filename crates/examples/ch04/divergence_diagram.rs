//! Draws which lanes of a warp run each path of a branch, for the two kernels of the
//! divergence page: split by thread (every warp diverges) and split by warp (none does).
//! Prints the SVG.
use course::plot::{Drawing, IDLE, PALE};

const LANES: usize = 32;
const CELL: f64 = 19.0;
const LEFT: f64 = 190.0;

/// One row of 32 lanes: `Some(path)` for a lane that runs `path`, `None` for a masked lane.
fn lanes(d: &mut Drawing, y: f64, label: &str, active: impl Fn(usize) -> Option<&'static str>) {
    d.text(LEFT - 10.0, y + 14.0, "end", label);
    for lane in 0..LANES {
        let x = LEFT + lane as f64 * CELL;
        match active(lane) {
            Some(path) => {
                let fill = if path == "a" { PALE[0] } else { PALE[1] };
                d.rect(x, y, CELL, 20.0, fill);
                d.text(x + CELL / 2.0, y + 14.0, "middle", path);
            }
            None => d.rect(x, y, CELL, 20.0, IDLE),
        }
    }
}

fn main() {
    course::cli::no_args("Draws the lanes of a diverged and of an undiverged warp (SVG).");
    let right = LEFT + LANES as f64 * CELL;
    let mut d = Drawing::new(
        right + 20.0,
        390.0,
        "Who runs which path: lanes of a warp over time",
    );
    for lane in [0, 31] {
        let x = LEFT + lane as f64 * CELL + CELL / 2.0;
        d.text(x, 52.0, "middle", &format!("lane {lane}"));
    }

    // split_every_warp branches on threadIdx.x % 2: both paths in every warp, one after the other.
    d.text(
        LEFT,
        80.0,
        "start",
        "split_every_warp: if (threadIdx.x % 2 == 0)",
    );
    let by_thread = |lane: usize| if lane % 2 == 0 { "a" } else { "b" };
    lanes(&mut d, 90.0, "every warp, first: path_a", |l| {
        Some(by_thread(l)).filter(|p| *p == "a")
    });
    lanes(&mut d, 115.0, "then: path_b", |l| {
        Some(by_thread(l)).filter(|p| *p == "b")
    });
    d.text(
        LEFT,
        155.0,
        "start",
        "the warp spends the time of both paths; half its lanes idle in each",
    );

    // split_no_warp branches on (threadIdx.x / 32) % 2: each warp runs one path with all lanes.
    d.text(
        LEFT,
        195.0,
        "start",
        "split_no_warp: if ((threadIdx.x / 32) % 2 == 0)",
    );
    for warp in 0..2 {
        let path = if warp % 2 == 0 { "a" } else { "b" };
        let name = if path == "a" { "path_a" } else { "path_b" };
        lanes(
            &mut d,
            205.0 + 25.0 * warp as f64,
            &format!("warp {warp}: {name}"),
            |_| Some(path),
        );
    }
    d.text(
        LEFT,
        270.0,
        "start",
        "each warp runs one path with all 32 lanes; no lane idles",
    );

    d.rect(LEFT, 300.0, CELL, 20.0, PALE[0]);
    d.text(LEFT + CELL + 6.0, 314.0, "start", "runs path_a");
    d.rect(LEFT + 130.0, 300.0, CELL, 20.0, PALE[1]);
    d.text(LEFT + 130.0 + CELL + 6.0, 314.0, "start", "runs path_b");
    d.rect(LEFT + 260.0, 300.0, CELL, 20.0, IDLE);
    d.text(
        LEFT + 260.0 + CELL + 6.0,
        314.0,
        "start",
        "masked off, waiting",
    );
    d.text(
        LEFT,
        350.0,
        "start",
        "Both kernels send half of all threads down each path; only the first makes a warp run both.",
    );
    println!("<!-- drawn by `divergence_diagram` -->");
    print!("{}", d.to_svg());
}
