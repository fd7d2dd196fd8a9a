//! Draws chapter 4's diagrams, one per run, named by the first argument. Each draws its page's
//! own example. Prints the SVG.
use course::plot::{COLOURS, Drawing, IDLE, PALE};

/// The figures, by the name the command line takes.
const FIGURES: &[&str] = &["matmul-threads", "launch-contract", "grid-stride"];

fn main() {
    let name = course::cli::figure_name("Draws one of chapter 4's figures (SVG).", &FIGURES);
    let drawing = match name.as_str() {
        "matmul-threads" => matmul_threads(),
        "launch-contract" => launch_contract(),
        "grid-stride" => grid_stride(),
        _ => unreachable!("`choice` accepts only the names in FIGURES"),
    };
    println!("<!-- drawn by `figures_ch04 {name}` -->");
    print!("{}", drawing.to_svg());
}

/// The page's small product (matmul_candidates): C is M × P.
const M: usize = 32;
const P: usize = 24;
const MAT_CELL: f64 = 8.0;

/// One panel of `matmul-threads`: C's elements filled by `fill(row, column)` over `cols`
/// columns (more than P where threads fall outside C), white lines between the elements, and
/// C's outline.
fn c_panel(
    d: &mut Drawing,
    (x0, y0): (f64, f64),
    cols: usize,
    fill: &dyn Fn(usize, usize) -> &'static str,
) {
    // One box per run of equal fills along a row; the white lines then split it into elements.
    for r in 0..M {
        let mut start = 0;
        for c in 1..=cols {
            if c == cols || fill(r, c) != fill(r, start) {
                let (x, y) = (x0 + start as f64 * MAT_CELL, y0 + r as f64 * MAT_CELL);
                d.rect(
                    x,
                    y,
                    (c - start) as f64 * MAT_CELL,
                    MAT_CELL,
                    fill(r, start),
                );
                start = c;
            }
        }
    }
    let (w, h) = (cols as f64 * MAT_CELL, M as f64 * MAT_CELL);
    for c in 0..=cols {
        let x = x0 + c as f64 * MAT_CELL;
        d.line((x, y0), (x, y0 + h), "white");
    }
    for r in 0..=M {
        let y = y0 + r as f64 * MAT_CELL;
        d.line((x0, y), (x0 + w, y), "white");
    }
}

/// Which element(s) of C each thread computes, for candidate 4 (a row per thread) and for
/// candidate 2 on a 2-D grid of 16 × 16 blocks and on a 1-D grid of 256-thread blocks, with
/// one thread's share marked in each.
fn matmul_threads() -> Drawing {
    let top = 112.0;
    let bottom = top + M as f64 * MAT_CELL;
    let mut d = Drawing::new(
        880.0,
        bottom + 86.0,
        &format!("Which elements of C ({M} × {P}) each thread computes"),
    );
    let mark = COLOURS[1];
    let outline = |d: &mut Drawing, x0: f64, cols: usize| {
        d.rect(x0, top, cols as f64 * MAT_CELL, M as f64 * MAT_CELL, "none");
    };
    let headings = |d: &mut Drawing, centre: f64, lines: [&str; 2]| {
        d.text_sized(centre, 50.0, "middle", 13.0, lines[0]);
        d.text(centre, 68.0, "middle", lines[1]);
    };
    let captions = |d: &mut Drawing, x: f64, lines: [&str; 3]| {
        for (k, line) in lines.iter().enumerate() {
            d.text(x, bottom + 22.0 + 17.0 * k as f64, "start", line);
        }
    };

    // Candidate 4: thread i computes row i.
    let x1 = 24.0;
    let shown_row = 5;
    c_panel(&mut d, (x1, top), P, &|r, _| {
        if r == shown_row { mark } else { PALE[0] }
    });
    outline(&mut d, x1, P);
    let w1 = P as f64 * MAT_CELL;
    headings(
        &mut d,
        x1 + w1 / 2.0,
        ["candidate 4", &format!("{M} threads, one per row")],
    );
    captions(
        &mut d,
        x1,
        [
            &format!("thread {shown_row} computes"),
            &format!("row {shown_row}: {P} elements"),
            "",
        ],
    );

    // Candidate 2 on a 2-D grid of 16 × 16 blocks: thread (x, y) of block (bx, by) computes
    // C[16 by + y][16 bx + x]; the grid is rounded up to whole blocks.
    let side = 16;
    let (bx, by) = (P.div_ceil(side), M.div_ceil(side));
    let cols2 = bx * side;
    let x2 = 300.0;
    let (tx, ty, sbx, sby) = (3, 4, 1, 1);
    let (row2, col2) = (sby * side + ty, sbx * side + tx);
    c_panel(&mut d, (x2, top), cols2, &|r, c| {
        if (r, c) == (row2, col2) {
            mark
        } else if c >= P {
            IDLE
        } else {
            PALE[(r / side) * 2 + c / side]
        }
    });
    for b in 1..bx {
        let x = x2 + (b * side) as f64 * MAT_CELL;
        d.line((x, top), (x, bottom), "#333");
    }
    for b in 1..by {
        let y = top + (b * side) as f64 * MAT_CELL;
        d.line((x2, y), (x2 + cols2 as f64 * MAT_CELL, y), "#333");
    }
    outline(&mut d, x2, P);
    d.rect(
        x2 + P as f64 * MAT_CELL,
        top,
        (cols2 - P) as f64 * MAT_CELL,
        M as f64 * MAT_CELL,
        "none",
    );
    let w2 = cols2 as f64 * MAT_CELL;
    headings(
        &mut d,
        x2 + w2 / 2.0,
        [
            "candidate 2, 2-D grid",
            &format!("{bx} × {by} blocks of {side} × {side} threads"),
        ],
    );
    for b in 0..bx {
        let centre = x2 + ((b * side) as f64 + side as f64 / 2.0) * MAT_CELL;
        d.text(centre, top - 8.0, "middle", &format!("blockIdx.x = {b}"));
    }
    for b in 0..by {
        let centre = top + ((b * side) as f64 + side as f64 / 2.0) * MAT_CELL;
        d.text(x2 - 8.0, centre - 2.0, "end", "blockIdx.y");
        d.text(x2 - 8.0, centre + 14.0, "end", &format!("= {b}"));
    }
    let past = cols2 - P;
    captions(
        &mut d,
        x2,
        [
            &format!("thread ({tx}, {ty}) of block ({sbx}, {sby}) computes C[{row2}][{col2}]"),
            &format!("grey: {past} columns of threads past C, j >= {P}"),
            &format!("{} threads, {} of them in C", bx * by * side * side, M * P),
        ],
    );

    // Candidate 2 on a 1-D grid of 256-thread blocks: thread ij computes C[ij / P][ij % P].
    let block = 256;
    let blocks = (M * P).div_ceil(block);
    let x3 = 612.0;
    let ij = 300;
    c_panel(&mut d, (x3, top), P, &|r, c| {
        let i = r * P + c;
        if i == ij { mark } else { PALE[i / block] }
    });
    // The boundary between block b - 1 and block b, where element b * 256 starts.
    for b in 1..blocks {
        let (r, c) = ((b * block) / P, (b * block) % P);
        let (x, y) = (x3 + c as f64 * MAT_CELL, top + r as f64 * MAT_CELL);
        let right = x3 + P as f64 * MAT_CELL;
        d.line((x, y), (right, y), "#333");
        d.line((x, y), (x, y + MAT_CELL), "#333");
        d.line((x3, y + MAT_CELL), (x, y + MAT_CELL), "#333");
    }
    outline(&mut d, x3, P);
    let w3 = P as f64 * MAT_CELL;
    headings(
        &mut d,
        x3 + w3 / 2.0,
        [
            "candidate 2, 1-D grid",
            &format!("{blocks} blocks of {block} threads"),
        ],
    );
    for b in 0..blocks {
        let mid = ((b * block) as f64 + block as f64 / 2.0) / P as f64;
        d.text(
            x3 + w3 + 8.0,
            top + mid * MAT_CELL + 4.0,
            "start",
            &format!("block {b}"),
        );
    }
    captions(
        &mut d,
        x3,
        [
            &format!("thread {ij} (block {}, thread {})", ij / block, ij % block),
            &format!("computes C[{ij} / {P}][{ij} % {P}]"),
            &format!("= C[{}][{}]", ij / P, ij % P),
        ],
    );
    d
}

/// A horizontal bracket from `x0` to `x1` at height `y`, with ticks pointing down.
fn bracket(d: &mut Drawing, x0: f64, x1: f64, y: f64) {
    d.line((x0, y), (x1, y), "#333");
    d.line((x0, y), (x0, y + 6.0), "#333");
    d.line((x1, y), (x1, y + 6.0), "#333");
}

/// The recording whose launch `launch-contract` draws.
const ADDER_RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/ch04/adder_gpu.gpu.txt");

/// The adder's launch as adder_gpu's recording prints it (its default length, blocks of 256
/// threads) against its contract: the launch's `grid`, `block` and `threads`, the array's `n`,
/// and the threads past it, with the last warp drawn large.
fn launch_contract() -> Drawing {
    // `grid: 4 blocks of 256 threads = 1024 threads for 1000 elements`
    let text = course::plot::read_recording(ADDER_RECORDING);
    let numbers: Vec<usize> = text
        .lines()
        .find(|l| l.starts_with("grid: "))
        .unwrap_or_default()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let [grid, block, threads, n] = numbers[..] else {
        course::cli::fail(&format!(
            "{ADDER_RECORDING} has no line `grid: G blocks of B threads = T threads for N elements`"
        ))
    };
    if grid * block != threads || threads < n || threads - n > 32 {
        course::cli::fail(&format!(
            "{ADDER_RECORDING}'s launch is not one whole grid ending in the last warp past n"
        ));
    }
    let left = 110.0;
    let scale = 0.6;
    let x = |i: usize| left + i as f64 * scale;
    let mut d = Drawing::new(
        820.0,
        470.0,
        &format!("The adder's launch against its contract, n = {n}"),
    );

    d.text_sized(
        (x(0) + x(threads)) / 2.0,
        50.0,
        "middle",
        13.0,
        &format!(
            "grid = grid.x = {grid} blocks; threads = threads.x = {grid} × {block} = {threads}"
        ),
    );
    bracket(&mut d, x(0), x(threads), 58.0);
    d.text_sized(
        (x(0) + x(block)) / 2.0,
        80.0,
        "middle",
        13.0,
        &format!("block = block.x = {block}"),
    );
    bracket(&mut d, x(0), x(block), 86.0);

    // The threads, block by block; those at i >= n are idle.
    let (row, h) = (96.0, 28.0);
    d.text(left - 10.0, row + 18.0, "end", "threads (i)");
    for b in 0..grid {
        let (first, last) = (b * block, ((b + 1) * block).min(n));
        d.rect(x(first), row, (last - first) as f64 * scale, h, PALE[b % 4]);
        d.text(x(first) + 8.0, row + 18.0, "start", &format!("block {b}"));
    }
    d.rect(x(n), row, (threads - n) as f64 * scale, h, IDLE);

    // The array the threads index.
    let arr = 150.0;
    d.text(left - 10.0, arr + 18.0, "end", "xs, ys, zs");
    d.rect(x(0), arr, n as f64 * scale, h, "white");
    d.text(
        (x(0) + x(n)) / 2.0,
        arr + 18.0,
        "middle",
        &format!("n = len(xs) = len(ys) = len(zs) = {n} elements"),
    );
    d.dashed((x(n), row - 20.0), (x(n), arr + h + 6.0), COLOURS[1]);
    d.text(x(n) - 4.0, row - 8.0, "end", &format!("i = n = {n}"));
    d.text(x(0), arr + h + 20.0, "middle", "0");

    // The last warp, drawn large: its first threads have elements, the rest do not.
    let warp = 32;
    let first = threads - warp;
    let cell = 18.0;
    let zx = |i: usize| left + 40.0 + (i - first) as f64 * cell;
    let (zt, ze) = (262.0, 310.0);
    d.line((x(first), arr + h), (zx(first), zt - 18.0), "#999");
    d.line((x(threads), row + h), (zx(threads), zt - 18.0), "#999");
    d.text(
        zx(first) - 8.0,
        zt + 15.0,
        "end",
        &format!("threads {first} to {}", threads - 1),
    );
    for i in (first..threads).step_by(8) {
        d.text(zx(i) + cell / 2.0, zt - 5.0, "middle", &i.to_string());
    }
    for i in first..threads {
        let fill = if i < n { PALE[(grid - 1) % 4] } else { IDLE };
        d.rect(zx(i), zt, cell, 22.0, fill);
    }
    for i in first..n {
        d.arrow(
            (zx(i) + cell / 2.0, zt + 22.0),
            (zx(i) + cell / 2.0, ze),
            "#333",
        );
        d.rect(zx(i), ze, cell, 22.0, "white");
    }
    d.text(zx(first) - 8.0, ze + 15.0, "end", "elements");
    d.text(
        zx(n) + 6.0,
        ze + 15.0,
        "start",
        &format!(
            "{} threads with i >= n: no element, `if (i < n)` skips them",
            threads - n
        ),
    );

    // The clauses, with this launch's values.
    let clauses = [
        format!("n = len(xs) = len(ys) = len(zs): the launcher sets n = {n} and checks the others"),
        format!("threads.x >= n: {threads} >= {n}"),
        format!("threads.x <= 2147483648: {threads} <= 2147483648"),
        format!(
            "threads + len(xs) <= 2147483648, implicit, nobody writes it: {threads} + {n} = {} <= 2147483648",
            threads + n
        ),
    ];
    d.text_sized(
        40.0,
        370.0,
        "start",
        13.0,
        "The contract's clauses, for this launch:",
    );
    for (k, clause) in clauses.iter().enumerate() {
        d.text(52.0, 392.0 + 19.0 * k as f64, "start", clause);
    }
    d
}

/// `grid-stride`'s small grid: blocks of threads and the array they stride over.
const GS_BLOCKS: usize = 2;
const GS_THREADS: usize = 4;
const GS_N: usize = 20;
/// Light fills, one per thread of the small grid, in the order of [`COLOURS`].
const THREAD_FILLS: [&str; 8] = [
    "#aec7e8", "#ff9896", "#98df8a", "#ffbb78", "#c5b0d5", "#c49c94", "#f7b6d2", "#9edae5",
];

/// `adder_grid_stride` on 2 blocks of 4 threads and 20 elements: each element in the colour of
/// the thread that adds it, thread 1's steps of one grid marked, and the page's own grid from
/// `grid_stride`'s recording below.
fn grid_stride() -> Drawing {
    let text = include_str!("grid_stride.gpu.txt");
    let n: usize = text
        .split("n = ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| course::cli::fail("grid_stride's recording has no `n = N`"));
    let (blocks, threads): (usize, usize) = text
        .lines()
        .find(|line| line.starts_with("8 blocks per SM"))
        .map(|line| line.split_whitespace().skip(4).take(2).collect::<Vec<_>>())
        .and_then(|w| Some((w.first()?.parse().ok()?, w.get(1)?.parse().ok()?)))
        .unwrap_or_else(|| course::cli::fail("grid_stride's recording has no `8 blocks per SM`"));
    let stride = GS_BLOCKS * GS_THREADS;
    // What each thread of the small grid visits: i = its index, then one stride on, while i < n.
    let owner = |i: usize| i % stride;
    let past = GS_N.div_ceil(stride) * stride; // where the last pass's threads stop

    let (cell, left) = (28.0, 150.0);
    let at = |i: usize| left + i as f64 * cell;
    let mut d = Drawing::new(
        at(past) + 40.0,
        360.0,
        &format!(
            "A grid-stride loop: {GS_BLOCKS} blocks of {GS_THREADS} threads over {GS_N} elements"
        ),
    );
    // The grid, each thread over the element it takes first.
    for b in 0..GS_BLOCKS {
        let (x0, x1) = (at(b * GS_THREADS), at((b + 1) * GS_THREADS));
        d.text((x0 + x1) / 2.0, 52.0, "middle", &format!("block {b}"));
        bracket(&mut d, x0 + 2.0, x1 - 2.0, 58.0);
    }
    d.text(left - 10.0, 83.0, "end", "thread: grid_1d()");
    for (t, fill) in THREAD_FILLS.iter().enumerate().take(stride) {
        d.cell((at(t), 64.0, cell, 26.0), fill, 12.0, &t.to_string());
        d.arrow(
            (at(t) + cell / 2.0, 90.0),
            (at(t) + cell / 2.0, 138.0),
            "#555",
        );
    }
    d.text(
        at(stride) + 8.0,
        118.0,
        "start",
        "first pass: i = grid_1d()",
    );

    // The array, and the indices where the last pass's extra threads stop.
    let y = 140.0;
    d.text(left - 10.0, y + 19.0, "end", "zs[i], xs[i], ys[i]");
    for i in 0..past {
        let fill = if i < GS_N {
            THREAD_FILLS[owner(i)]
        } else {
            IDLE
        };
        d.cell((at(i), y, cell, 26.0), fill, 12.0, &i.to_string());
    }
    d.text(
        (at(GS_N) + at(past)) / 2.0,
        y - 8.0,
        "middle",
        &format!("i ≥ n = {GS_N}"),
    );

    // Thread 1's steps, one grid apart, under the array.
    let shown = 1;
    let mut i = shown;
    while i + stride < past {
        let (from, to) = (at(i) + cell / 2.0, at(i + stride) + cell / 2.0);
        let low = y + 52.0;
        d.line((from, y + 28.0), (from, low), COLOURS[shown]);
        d.line((from, low), (to, low), COLOURS[shown]);
        d.arrow((to, low), (to, y + 30.0), COLOURS[shown]);
        d.text(
            (from + to) / 2.0,
            low + 16.0,
            "middle",
            &format!("i += {stride}"),
        );
        i += stride;
    }
    d.text(
        left,
        y + 96.0,
        "start",
        &format!(
            "thread {shown} adds elements {shown}, {}, {}; its next i, {}, is past the end",
            shown + stride,
            shown + 2 * stride,
            shown + 3 * stride
        ),
    );
    d.text(
        left,
        y + 116.0,
        "start",
        &format!(
            "the step, gridsize_1d() = gridDim.x × blockDim.x = {GS_BLOCKS} × {GS_THREADS} = {stride}"
        ),
    );
    d.text(
        left,
        y + 136.0,
        "start",
        &format!(
            "in the last pass, threads {} to {} find i ≥ n and leave the loop at once",
            GS_N % stride,
            stride - 1
        ),
    );

    // The page's own grid, from the recording.
    let (fewest, most) = (n / threads, n.div_ceil(threads));
    d.text(
        left,
        y + 176.0,
        "start",
        &format!(
            "the page's 8 blocks per SM: {blocks} blocks of {} threads, a step of {threads},",
            threads / blocks
        ),
    );
    d.text(
        left,
        y + 196.0,
        "start",
        &format!("over n = {n}: each thread adds {fewest} or {most} elements"),
    );
    d
}
