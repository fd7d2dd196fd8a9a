//! Draws a one-dimensional launch over an array: the blocks of the grid, the threads of each
//! block, and the element each thread's global index picks. Prints the SVG.
use course::plot::{Drawing, IDLE, PALE};

fn main() {
    let (n, block) = course::cli::parse(
        "Draws a grid of blocks of threads over an array (SVG).",
        |args| {
            (
                args.usize("N", "the array length", 10, 1, 16),
                args.usize("BLOCK", "threads per block", 4, 1, 8),
            )
        },
    );
    let blocks = n.div_ceil(block);
    let threads = blocks * block;
    let cell = 34.0;
    let gap = 10.0;
    let left = 110.0;
    let x_of = |i: usize| left + i as f64 * cell + (i / block) as f64 * gap;
    let width = (x_of(threads - 1) + cell + 30.0).max(760.0);

    let mut d = Drawing::new(
        width,
        300.0,
        &format!("{blocks} blocks of {block} threads over {n} elements"),
    );
    d.text(left - 10.0, 62.0, "end", "blockIdx.x");
    d.text(left - 10.0, 102.0, "end", "threadIdx.x");
    d.text(left - 10.0, 162.0, "end", "i");
    d.text(left - 10.0, 207.0, "end", "array");
    for b in 0..blocks {
        let x = x_of(b * block) - 4.0;
        d.rect(x, 45.0, block as f64 * cell + 8.0, 80.0, "white");
        d.text(
            x + (block as f64 * cell + 8.0) / 2.0,
            62.0,
            "middle",
            &b.to_string(),
        );
    }
    for i in 0..threads {
        let (x, inside) = (x_of(i), i < n);
        let fill = if inside { PALE[0] } else { IDLE };
        d.rect(x + 2.0, 85.0, cell - 4.0, 28.0, fill);
        d.text(x + cell / 2.0, 103.0, "middle", &(i % block).to_string());
        if inside {
            d.text(x + cell / 2.0, 162.0, "middle", &i.to_string());
            d.arrow((x + cell / 2.0, 115.0), (x + cell / 2.0, 148.0), "#333");
            d.arrow((x + cell / 2.0, 167.0), (x + cell / 2.0, 189.0), "#333");
            d.rect(x, 191.0, cell, 26.0, PALE[3]);
            d.text(x + cell / 2.0, 208.0, "middle", &format!("x[{i}]"));
        }
    }
    // One thread worked through, the last block's first.
    let (b, t) = (blocks - 1, 0);
    d.text(
        left,
        250.0,
        "start",
        &format!(
            "i = blockIdx.x * blockDim.x + threadIdx.x: block {b}, thread {t} takes i = {b} × {block} + {t} = {}",
            b * block + t
        ),
    );
    if threads > n {
        d.text(
            left,
            272.0,
            "start",
            &format!(
                "grey: {} threads whose i is past the end; if (i < n) stops them",
                threads - n
            ),
        );
    }
    println!("<!-- drawn by `grid_diagram {n} {block}` -->");
    print!("{}", d.to_svg());
}
