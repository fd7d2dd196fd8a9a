//! Draws chapter 6's figures, one per run, named by its first argument: `scan-levels`
//! (scan.md). Prints the SVG.
use course::plot::{COLOURS, Drawing, PALE};

const FIGURES: &[&str] = &["scan-levels"];

fn main() {
    let name = course::cli::figure_name("Draws one of chapter 6's figures (SVG).", &FIGURES);
    let drawing = match name.as_str() {
        "scan-levels" => scan_levels(),
        _ => unreachable!("`choice` accepts only the names in FIGURES"),
    };
    println!("<!-- drawn by `figures_ch06 {name}` -->");
    print!("{}", drawing.to_svg());
}

/// The scaled-down scan: blocks of 8 values in warps of 4, three blocks.
const WARP: usize = 4;
const BLOCK: usize = 8;
const BLOCKS: usize = 3;

/// Inclusive scan of `values` in pieces of `piece`, each piece on its own.
fn scan_pieces(values: &[u32], piece: usize) -> Vec<u32> {
    values
        .chunks(piece)
        .flat_map(|chunk| {
            chunk.iter().scan(0, |sum, &v| {
                *sum += v;
                Some(*sum)
            })
        })
        .collect()
}

/// The three kernels of the whole-array scan (kernels/ch06-scan.cu) on 24 values: scan_blocks
/// (each warp scans, then adds the totals of the warps before it, and the block's total goes
/// to block_totals), scan_totals, and add_block_offsets, with every intermediate value.
fn scan_levels() -> Drawing {
    let n = BLOCK * BLOCKS;
    // The first 24 decimal digits of pi: small numbers of no pattern.
    let x: Vec<u32> = "314159265358979323846264"
        .bytes()
        .map(|b| (b - b'0') as u32)
        .collect();
    let warps = scan_pieces(&x, WARP);
    let blocks = scan_pieces(&x, BLOCK);
    let totals: Vec<u32> = (0..BLOCKS).map(|b| blocks[b * BLOCK + BLOCK - 1]).collect();
    let scanned = scan_pieces(&totals, BLOCKS);
    let result: Vec<u32> = (0..n)
        .map(|i| blocks[i] + if i < BLOCK { 0 } else { scanned[i / BLOCK - 1] })
        .collect();
    assert_eq!(
        result,
        scan_pieces(&x, n),
        "the three levels must give the serial scan"
    );

    const LEFT: f64 = 140.0;
    const CELL: f64 = 28.0;
    const H: f64 = 24.0;
    let at =
        |i: usize| LEFT + i as f64 * CELL + (i / BLOCK) as f64 * 20.0 + (i / WARP) as f64 * 6.0;
    let right = at(n - 1) + CELL;
    let mut d = Drawing::new(
        right + 12.0,
        520.0,
        "A scan at three levels: in the block, over the block totals, and back",
    );
    let block_fill = |i: usize| PALE[(i / BLOCK) % 4];
    let row = |d: &mut Drawing,
               y: f64,
               label: &str,
               values: &[u32],
               fill: &dyn Fn(usize) -> &'static str| {
        d.text(LEFT - 12.0, y + 16.0, "end", label);
        for (i, v) in values.iter().enumerate() {
            d.cell((at(i), y, CELL, H), fill(i), 12.0, &v.to_string());
        }
    };
    let heading = |d: &mut Drawing, y: f64, text: &str| {
        d.text_sized(20.0, y, "start", 13.0, text);
    };
    let boundary = |d: &mut Drawing, y: f64, text: &str| {
        d.dashed((20.0, y), (right, y), COLOURS[1]);
        d.text(right, y + 16.0, "end", text);
    };
    let mid = |first: usize, last: usize| (at(first) + at(last) + CELL) / 2.0;

    for b in 0..BLOCKS {
        d.text(
            mid(b * BLOCK, b * BLOCK + BLOCK - 1),
            52.0,
            "middle",
            &format!("block {b}"),
        );
    }
    row(&mut d, 60.0, "x", &x, &block_fill);

    heading(
        &mut d,
        112.0,
        "kernel 1, scan_blocks: each block scans its values",
    );
    let last_of_warp = |i: usize| i % WARP == WARP - 1;
    row(&mut d, 122.0, "each warp scans", &warps, &|i| {
        if last_of_warp(i) { PALE[3] } else { "white" }
    });
    // Warp 1 of each block adds warp 0's total.
    for b in 0..BLOCKS {
        let first = b * BLOCK + WARP;
        d.text(
            mid(first, first + WARP - 1),
            164.0,
            "middle",
            &format!("+ {}", warps[first - 1]),
        );
    }
    row(&mut d, 172.0, "+ warps before", &blocks, &|i| {
        if i % BLOCK == BLOCK - 1 {
            PALE[3]
        } else {
            block_fill(i)
        }
    });
    // Each block's total, in block_totals[b].
    let tot_y = 236.0;
    d.text(LEFT - 12.0, tot_y + 16.0, "end", "block_totals");
    for b in 0..BLOCKS {
        let i = b * BLOCK + BLOCK - 1;
        d.arrow(
            (at(i) + CELL / 2.0, 172.0 + H),
            (at(i) + CELL / 2.0, tot_y),
            "#333",
        );
        d.cell(
            (at(i), tot_y, CELL, H),
            PALE[3],
            12.0,
            &totals[b].to_string(),
        );
    }
    boundary(
        &mut d,
        282.0,
        "the kernel ends: every block's total is written",
    );

    heading(
        &mut d,
        316.0,
        "kernel 2, scan_totals: one block scans the block totals",
    );
    let scan_y = 326.0;
    d.text(LEFT - 12.0, scan_y + 16.0, "end", "scanned totals");
    for b in 0..BLOCKS {
        let i = b * BLOCK + BLOCK - 1;
        d.cell(
            (at(i), scan_y, CELL, H),
            PALE[3],
            12.0,
            &scanned[b].to_string(),
        );
    }
    boundary(&mut d, 372.0, "the kernel ends");

    heading(
        &mut d,
        406.0,
        "kernel 3, add_block_offsets: offsets added back",
    );
    let res_y = 446.0;
    for b in 1..BLOCKS {
        let from = at(b * BLOCK - 1) + CELL;
        let to = at(b * BLOCK) + 10.0;
        d.arrow((from - 4.0, scan_y + H), (to, res_y), COLOURS[0]);
        d.text(
            mid(b * BLOCK, b * BLOCK + BLOCK - 1),
            res_y - 8.0,
            "middle",
            &format!("+ {}", scanned[b - 1]),
        );
    }
    row(&mut d, res_y, "result", &result, &block_fill);
    d.text(
        20.0,
        res_y + 56.0,
        "start",
        &format!(
            "Blocks of {BLOCK} values in warps of {WARP} here; 1024 and 32 in the kernels. The result is the serial scan: {} in the last place.",
            result[n - 1]
        ),
    );
    d
}
