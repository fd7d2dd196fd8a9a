//! Draws `reverse_tiles` (kernels/ch05-tiles.cu) with tiles of 8 floats instead of 256: each
//! block copies its tile of `x` into shared memory, waits at the barrier, then writes the tile
//! reversed into `out`. The input counts 0, 1, 2, ... as in the page's second run. Prints the SVG.
use course::plot::{Drawing, IDLE, PALE};

const TILE: usize = 8;
const TILES: usize = 3;
const CELL: f64 = 24.0;
const GAP: f64 = 14.0;
const LEFT: f64 = 150.0;
/// The block whose shared memory is drawn.
const SHOWN: usize = 1;

fn main() {
    course::cli::no_args("Draws tiles of an array staged in shared memory (SVG).");
    let n = TILE * TILES;
    let x: Vec<usize> = (0..n).collect();
    let out: Vec<usize> = (0..n)
        .map(|i| x[(i / TILE) * TILE + TILE - 1 - i % TILE])
        .collect();

    let at = |i: usize| LEFT + i as f64 * CELL + (i / TILE) as f64 * GAP;
    let width = at(n - 1) + CELL + 20.0;
    let mut d = Drawing::new(width, 360.0, "Reversing tiles through shared memory");
    let row = |d: &mut Drawing,
               y: f64,
               label: &str,
               values: &[usize],
               first: usize,
               fill: &dyn Fn(usize) -> &'static str| {
        d.text(LEFT - 12.0, y + 16.0, "end", label);
        for (k, v) in values.iter().enumerate() {
            let i = first + k;
            d.rect(at(i), y, CELL, 24.0, fill(i));
            d.text(at(i) + CELL / 2.0, y + 16.0, "middle", &v.to_string());
        }
    };
    let in_shown = |i: usize| if i / TILE == SHOWN { PALE[0] } else { IDLE };
    for b in 0..TILES {
        let mid = (at(b * TILE) + at(b * TILE + TILE - 1) + CELL) / 2.0;
        d.text(mid, 52.0, "middle", &format!("block {b}"));
    }
    row(&mut d, 60.0, "x (global)", &x, 0, &in_shown);

    // Block SHOWN's tile, drawn under its own part of the array.
    let first = SHOWN * TILE;
    let tile = &x[first..first + TILE];
    row(&mut d, 150.0, "tile (shared)", tile, first, &|_| PALE[3]);
    for t in 0..TILE {
        let cx = at(first + t) + CELL / 2.0;
        d.arrow((cx, 86.0), (cx, 148.0), "#333");
    }
    d.text(at(first + TILE) + 6.0, 122.0, "start", "tile[t] = x[i]");
    d.dashed((LEFT - 8.0, 195.0), (width - 10.0, 195.0), "#d62728");
    d.text(LEFT - 12.0, 199.0, "end", "__syncthreads()");
    row(&mut d, 240.0, "out (global)", &out, 0, &in_shown);
    for t in 0..TILE {
        let from = at(first + TILE - 1 - t) + CELL / 2.0;
        let to = at(first + t) + CELL / 2.0;
        d.arrow((from, 176.0), (to, 238.0), "#1f77b4");
    }
    d.text(
        at(first + TILE) + 6.0,
        222.0,
        "start",
        "out[i] = tile[TILE - 1 - t]",
    );
    d.text(
        LEFT,
        300.0,
        "start",
        &format!(
            "tiles of {TILE} here (256 in the kernel); every block does the same with its own tile"
        ),
    );
    d.text(
        LEFT,
        322.0,
        "start",
        "thread t reads a slot another thread wrote: the barrier makes it wait for every write",
    );
    println!("<!-- drawn by `tiles_diagram` -->");
    print!("{}", d.to_svg());
}
