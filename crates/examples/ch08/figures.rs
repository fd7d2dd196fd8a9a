//! Draws chapter 8's figures, one per run, named by its first argument: `double-buffering`
//! (feeding.md), `look-back` (scan.md), `sort-passes` (sort.md), `gemm-tiles`
//! (register-blocking.md). Prints the SVG.
use course::plot::{COLOURS, Drawing, IDLE, PALE};

const FIGURES: [&str; 4] = ["double-buffering", "look-back", "sort-passes", "gemm-tiles"];

fn main() {
    let name = course::cli::figure_name("Draws one of chapter 8's figures (SVG).", &FIGURES);
    let drawing = match name.as_str() {
        "gemm-tiles" => gemm_tiles(),
        "look-back" => look_back(),
        "sort-passes" => sort_passes(),
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

/// The look-back of `scan_lookback` (kernels/ch08-scan.cu) for tile 40 of a scan of all ones:
/// tiles of 5120 elements (128 threads, 40 each), so every aggregate is 5120. Warp 0 of tile 40
/// reads the status words of tiles 8 to 39, one per lane; the nearest PREFIX and the
/// aggregates after it make the tile's exclusive prefix. The sum is computed here, as the
/// protocol does it, from the states drawn.
fn look_back() -> Drawing {
    const TILE: u32 = 128 * 40;
    const ME: usize = 40;
    const LEFT: f64 = 90.0;
    const CELL: f64 = 21.0;
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Empty,
        Aggregate,
        Prefix,
    }
    let first = ME - 32;
    // What each tile has published when tile 40 looks: the far tiles have their prefixes, tile
    // 30's block has not yet finished its own look-back, the last few have only aggregates,
    // and tile 39 has published nothing yet.
    let state = |tile: usize| match tile {
        30 | 35..=38 => State::Aggregate,
        39 => State::Empty,
        _ if tile < ME => State::Prefix,
        _ => State::Aggregate, // tile 40 published its aggregate before looking back
    };
    let value = |tile: usize| match state(tile) {
        State::Prefix => TILE * (tile as u32 + 1),
        _ => TILE,
    };
    let letter = |s: State| match s {
        State::Empty => "–",
        State::Aggregate => "A",
        State::Prefix => "P",
    };
    let fill = |s: State| match s {
        State::Empty => "white",
        State::Aggregate => PALE[0],
        State::Prefix => PALE[2],
    };
    // The ballot, once lane 31 has waited for tile 39 (which then publishes its aggregate).
    let seen = |lane: usize| match state(first + lane) {
        State::Empty => State::Aggregate,
        s => s,
    };
    let nearest = (0..32)
        .rev()
        .find(|&l| seen(l) == State::Prefix)
        .unwrap_or(0);
    let terms: Vec<(State, u32)> = (nearest..32).map(|l| (seen(l), value(first + l))).collect();
    let prefix = terms.iter().fold(0u32, |s, t| s.wrapping_add(t.1));
    assert_eq!(
        prefix,
        TILE * ME as u32,
        "the look-back must give the tile's exclusive prefix"
    );

    let x = |lane: usize| LEFT + lane as f64 * CELL;
    let mut d = Drawing::new(
        880.0,
        472.0,
        "The look-back of tile 40: 32 status words, one per lane",
    );
    d.text(10.0, 61.0, "start", "A status word:");
    d.cell(
        (190.0, 44.0, 260.0, 26.0),
        "white",
        12.0,
        "value: bits 63 to 32",
    );
    d.cell((450.0, 44.0, 120.0, 26.0), IDLE, 12.0, "bits 31 to 2: 0");
    d.cell(
        (570.0, 44.0, 140.0, 26.0),
        "white",
        12.0,
        "state: bits 1 to 0",
    );
    for (at, s, what) in [
        (190.0, State::Empty, "EMPTY: nothing published"),
        (390.0, State::Aggregate, "AGGREGATE: the tile's own sum"),
        (620.0, State::Prefix, "PREFIX: the sum to the tile's end"),
    ] {
        d.cell((at, 82.0, 20.0, 20.0), fill(s), 12.0, letter(s));
        d.text(at + 26.0, 96.0, "start", what);
    }

    // The window, its tiles, their states and lanes, and the ballot.
    let (top, right) = (x(0), x(32));
    d.text(
        (top + right) / 2.0,
        128.0,
        "middle",
        &format!(
            "tile {ME}'s window: tiles {first} to {}, one per lane of its warp 0",
            ME - 1
        ),
    );
    d.line((top, 134.0), (right, 134.0), "#333");
    d.line((top, 134.0), (top, 140.0), "#333");
    d.line((right, 134.0), (right, 140.0), "#333");
    for (y, label) in [
        (156.0, "tile"),
        (178.0, "state"),
        (206.0, "lane"),
        (232.0, "P? (ballot)"),
    ] {
        d.text(LEFT - 8.0, y, "end", label);
    }
    for lane in 0..32 {
        let tile = first + lane;
        let cx = x(lane) + CELL / 2.0;
        d.text(cx, 156.0, "middle", &tile.to_string());
        d.cell(
            (x(lane), 162.0, CELL, 24.0),
            fill(state(tile)),
            12.0,
            letter(state(tile)),
        );
        d.text(cx, 206.0, "middle", &lane.to_string());
        let bit = u8::from(seen(lane) == State::Prefix);
        d.text(cx, 232.0, "middle", &bit.to_string());
    }
    let mine = right + 18.0;
    d.text(mine + 20.0, 156.0, "middle", &ME.to_string());
    d.cell(
        (mine, 162.0, 40.0, 24.0),
        fill(state(ME)),
        12.0,
        letter(state(ME)),
    );

    // Below the ballot: which lanes count, and the sum they make.
    let brace = |d: &mut Drawing, from: f64, to: f64| {
        d.line((from + 2.0, 242.0), (from + 2.0, 248.0), "#333");
        d.line((from + 2.0, 248.0), (to - 2.0, 248.0), "#333");
        d.line((to - 2.0, 242.0), (to - 2.0, 248.0), "#333");
    };
    brace(&mut d, x(0), x(nearest));
    d.text(
        (x(0) + x(nearest)) / 2.0,
        264.0,
        "middle",
        &format!("not added: tile {}'s PREFIX covers them", first + nearest),
    );
    brace(&mut d, x(nearest), x(32));
    d.text(x(32) + 8.0, 252.0, "start", "added");
    let sum_y = 300.0;
    let mut at = 360.0;
    for (i, (s, v)) in terms.iter().enumerate() {
        if i > 0 {
            d.text(at + 8.0, sum_y + 17.0, "middle", "+");
            at += 16.0;
        }
        let w = if *s == State::Prefix { 64.0 } else { 48.0 };
        let lane = nearest + i;
        d.line((x(lane) + CELL / 2.0, 250.0), (at + w / 2.0, sum_y), "#333");
        d.cell((at, sum_y, w, 24.0), fill(*s), 12.0, &v.to_string());
        at += w;
    }
    d.text(at + 8.0, sum_y + 17.0, "middle", "=");
    d.cell(
        (at + 16.0, sum_y, 64.0, 24.0),
        "white",
        12.0,
        &prefix.to_string(),
    );
    let notes = [
        format!(
            "Input: all ones. A tile holds {TILE} elements (128 threads, 40 each), so every aggregate is {TILE}."
        ),
        format!(
            "{prefix} = {ME} × {TILE}, the sum of everything before tile {ME}. Tile {ME}, which published A {TILE}"
        ),
        format!("before looking back, now publishes P {}.", prefix + TILE),
        format!(
            "Lane 31 read tile {}'s word as EMPTY: it reads again until the tile publishes A {TILE}.",
            ME - 1
        ),
        format!(
            "With no P in the window, the warp would add all 32 values and read tiles −{} to {} next;",
            32 - first,
            first - 1
        ),
        "a tile below 0 counts as a PREFIX of 0.".to_string(),
    ];
    for (i, note) in notes.iter().enumerate() {
        d.text(10.0, 356.0 + 20.0 * i as f64, "start", note);
    }
    d
}

/// The radix sort of sort.md: four passes over the 8-bit digits of a u32 key, and the status
/// words of pass 1 (kernels/ch08-sort.cu) for a sort of 4 tiles of 4096 keys, the first keys
/// that `radix_sort` draws from its default seed. The counts are those keys' own; the states
/// are one moment of the pass, drawn by hand; every value follows from the counts as
/// `digit_look_back` computes it.
fn sort_passes() -> Drawing {
    const TILE: usize = 256 * 16;
    const TILES: usize = 4;
    const SHOWN: [usize; 5] = [0, 1, 2, 3, 255];
    let mut rng = course::random::Rng::new(course::cli::DEFAULT_SEED);
    let keys: Vec<u32> = (0..TILE * TILES)
        .map(|_| (rng.next_u64() >> 32) as u32)
        .collect();
    let mut count = [[0u32; 256]; TILES];
    for (i, key) in keys.iter().enumerate() {
        count[i / TILE][(key & 255) as usize] += 1;
    }
    // Keys with a smaller digit, over all keys: what the histogram gives pass 1.
    let smaller: Vec<u32> = (0..256)
        .map(|d| {
            (0..d)
                .map(|e| (0..TILES).map(|t| count[t][e]).sum::<u32>())
                .sum()
        })
        .collect();
    let prefix = |tile: usize, d: usize| smaller[d] + (0..=tile).map(|t| count[t][d]).sum::<u32>();
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Empty,
        Aggregate,
        Prefix,
    }
    // One moment of the pass: tile 0 is done, tile 1 and 2 partly, tile 3 has published its
    // counts and is looking back.
    let state = |tile: usize, d: usize| match (tile, d) {
        (0, _) | (1, 0 | 1 | 3 | 255) | (2, 0) | (3, 0) => State::Prefix,
        (2, 3) => State::Empty,
        _ => State::Aggregate,
    };
    let word = |tile: usize, d: usize| match state(tile, d) {
        State::Empty => "–".to_string(),
        State::Aggregate => format!("A {}", count[tile][d]),
        State::Prefix => format!("P {}", prefix(tile, d)),
    };
    let fill = |s: State| match s {
        State::Empty => "white",
        State::Aggregate => PALE[0],
        State::Prefix => PALE[2],
    };
    // Thread 2 of tile 3, as digit_look_back walks: back one tile at a time until a PREFIX.
    const WALKER: (usize, usize) = (3, 2);
    let mut walked = Vec::new();
    let mut before = 0u32;
    for t in (0..WALKER.0).rev() {
        let s = state(t, WALKER.1);
        assert!(s != State::Empty, "the walk drawn must not wait");
        before += if s == State::Prefix {
            prefix(t, WALKER.1)
        } else {
            count[t][WALKER.1]
        };
        walked.push(t);
        if s == State::Prefix {
            break;
        }
    }
    assert_eq!(
        before,
        prefix(WALKER.0 - 1, WALKER.1),
        "the walk must reach where the tile's first key of the digit goes"
    );

    let mut d = Drawing::new(
        860.0,
        580.0,
        "Radix sort: four passes of 8 bits, and the status words of one pass",
    );
    // The passes: the buffers the keys move through, and the byte of a key each pass reads.
    let key = keys[0];
    d.text(
        30.0,
        54.0,
        "start",
        "radix_histogram first reads every key once and counts all four digits: 4 × 256 counts.",
    );
    d.text(
        30.0,
        76.0,
        "start",
        &format!("Then one pass per digit, least significant first. The first key, 0x{key:08X}:"),
    );
    let (box_w, gap) = (96.0, 84.0);
    let at = |i: usize| 30.0 + i as f64 * (box_w + gap);
    for (i, name) in ["keys", "spare", "output", "spare", "output"]
        .iter()
        .enumerate()
    {
        d.cell((at(i), 92.0, box_w, 40.0), IDLE, 12.0, name);
    }
    for pass in 0..4 {
        let (from, to) = (at(pass) + box_w, at(pass + 1));
        d.text(
            (from + to) / 2.0,
            104.0,
            "middle",
            &format!("pass {}", pass + 1),
        );
        d.arrow((from + 4.0, 112.0), (to - 4.0, 112.0), "#333");
        for byte in 0..4 {
            let shift = 24 - 8 * byte;
            let fill = if shift == 8 * pass { PALE[3] } else { "white" };
            let x = from + 4.0 + byte as f64 * 19.0;
            d.cell(
                (x, 122.0, 19.0, 20.0),
                fill,
                12.0,
                &format!("{:02X}", (key >> shift) & 255),
            );
        }
        d.text(
            (from + to) / 2.0,
            160.0,
            "middle",
            &format!("shift {}", 8 * pass),
        );
    }

    // Pass 1's status words: tiles down, digits across.
    d.text(
        10.0,
        196.0,
        "start",
        &format!(
            "Pass 1 on {} keys: {TILES} tiles of {TILE} (256 threads × 16). Thread d of a tile looks back for digit d.",
            TILE * TILES
        ),
    );
    let (left, col, cw) = (200.0, 88.0, 82.0);
    let cx = |c: usize| left + c as f64 * col;
    let row_y = |r: usize| 262.0 + r as f64 * 40.0;
    for (c, digit) in SHOWN.iter().enumerate() {
        let c = if *digit == 255 { c + 1 } else { c };
        d.text(cx(c) + cw / 2.0, 224.0, "middle", &format!("digit {digit}"));
        d.cell(
            (cx(c), 230.0, cw, 24.0),
            "white",
            12.0,
            &smaller[*digit].to_string(),
        );
        for t in 0..TILES {
            let s = state(t, *digit);
            d.cell((cx(c), row_y(t), cw, 26.0), fill(s), 12.0, &word(t, *digit));
        }
    }
    d.text(cx(4) + cw / 2.0, 224.0, "middle", "…");
    d.text(left - 10.0, 247.0, "end", "keys with a smaller digit");
    for t in 0..TILES {
        d.text(left - 10.0, row_y(t) + 18.0, "end", &format!("tile {t}"));
        d.text(cx(4) + cw / 2.0, row_y(t) + 18.0, "middle", "…");
    }
    // The walk of thread 2 of tile 3, drawn up its column's left edge.
    let wx = cx(WALKER.1) + 10.0;
    for &t in &walked {
        d.arrow((wx, row_y(t + 1)), (wx, row_y(t) + 26.0), COLOURS[1]);
    }
    let (t0, t1, t2) = (walked[2], walked[1], walked[0]);
    let notes = [
        format!(
            "Thread {} of tile {} walks back: A {} (tile {t2}) + A {} (tile {t1}) + P {} (tile {t0}) = {before},",
            WALKER.1,
            WALKER.0,
            count[t2][WALKER.1],
            count[t1][WALKER.1],
            prefix(t0, WALKER.1)
        ),
        format!(
            "the place of the tile's first key with digit {}; it then publishes P {}, where digit {}'s keys start.",
            WALKER.1,
            before + count[WALKER.0][WALKER.1],
            WALKER.1 + 1
        ),
        "Thread 3 of tile 3 waits: tile 2 has published nothing for digit 3 yet.".to_string(),
        "Each column is a scan of its own; every PREFIX is a place in the output.".to_string(),
    ];
    for (at, s, what) in [
        (10.0, State::Empty, "nothing yet"),
        (130.0, State::Aggregate, "AGGREGATE: the tile's count"),
        (
            360.0,
            State::Prefix,
            "PREFIX: the count to the tile's end, from the output's start",
        ),
    ] {
        d.rect(at, 428.0, 20.0, 20.0, fill(s));
        d.text(
            at + 10.0,
            442.0,
            "middle",
            if s == State::Empty { "–" } else { &what[..1] },
        );
        d.text(at + 26.0, 442.0, "start", what);
    }
    d.text(
        10.0,
        470.0,
        "start",
        "A status word is 32 bits: the state in the top 2, the count in the low 30.",
    );
    for (i, note) in notes.iter().enumerate() {
        d.text(10.0, 494.0 + 22.0 * i as f64, "start", note);
    }
    d
}

/// `sgemm_2d_blocking` (kernels/ch08-sgemm.cu): one block's 128 × 128 tile of C, the 128 × 8
/// strip of A and the 8 × 128 strip of B it holds in shared memory for one step of its loop over
/// k, and one thread's 8 × 8 square of C with the rows of A and columns of B that square needs.
/// Two units per element.
fn gemm_tiles() -> Drawing {
    const TILE: usize = 128; // the block's tile of C, and the strips' long side
    const STRIP: usize = 8; // the strips' short side: one step along k
    const SQUARE: usize = 8; // one thread's square
    const THREADS: usize = 256;
    const U: f64 = 2.0;
    let per_row = TILE / SQUARE; // 16 squares across the tile
    assert_eq!(per_row * per_row, THREADS, "one square per thread");
    // Thread t's square starts at row (t / 16) * 8 and column (t % 16) * 8 of the tile.
    let t = 37;
    let (row8, col8) = ((t / per_row) * SQUARE, (t % per_row) * SQUARE);
    let side = TILE as f64 * U;
    let (cx, cy) = (330.0, 262.0);
    let k_shown = 130.0 * U; // how much of k each band draws
    let k0 = 48.0 * U; // where this step's strip sits along k
    let (ax, by) = (cx - 30.0 - k_shown, cy - 30.0 - k_shown * 0.62);
    let b_len = cy - 30.0 - by;
    let strip = STRIP as f64 * U;
    let sq = SQUARE as f64 * U;
    let mut d = Drawing::new(
        870.0,
        625.0,
        &format!(
            "One block of sgemm_2d_blocking: a {TILE} × {TILE} tile of C, {THREADS} threads, {SQUARE} × {SQUARE} each"
        ),
    );

    // A: the block's 128 rows, along k; B: its 128 columns, down k. This step's strips.
    d.rect(ax, cy, k_shown, side, IDLE);
    d.rect(cx, by, side, b_len, IDLE);
    d.rect(ax + k0, cy, strip, side, PALE[0]);
    d.rect(cx, by + k0, side, strip, PALE[3]);
    d.arrow(
        (ax + k0 + strip + 6.0, cy + side + 34.0),
        (ax + k0 + strip + 46.0, cy + side + 34.0),
        "#333",
    );
    d.text(ax + k0 + strip + 52.0, cy + side + 38.0, "start", "next k0");
    d.arrow(
        (cx + side + 14.0, by + k0 + strip + 6.0),
        (cx + side + 14.0, by + k0 + strip + 46.0),
        "#333",
    );
    d.text(cx + side + 22.0, by + k0 + strip + 30.0, "start", "next k0");
    d.text(
        ax,
        cy + side + 16.0,
        "start",
        &format!("A: the block's {TILE} rows, along k"),
    );
    d.text(
        cx + side + 8.0,
        by + 14.0,
        "start",
        &format!("B: the block's {TILE} columns, down k"),
    );

    // C: the block's tile, in 16 × 16 squares, one per thread.
    d.rect(cx, cy, side, side, PALE[2]);
    for s in 1..per_row {
        let o = s as f64 * sq;
        d.line((cx + o, cy), (cx + o, cy + side), "white");
        d.line((cx, cy + o), (cx + side, cy + o), "white");
    }
    d.rect(cx, cy, side, side, "none");

    // Thread t: its square of C, and the 8 rows of A's strip and 8 columns of B's it needs.
    let (sx, sy) = (cx + col8 as f64 * U, cy + row8 as f64 * U);
    d.rect(sx, sy, sq, sq, COLOURS[1]);
    d.rect(ax + k0, sy, strip, sq, COLOURS[1]);
    d.rect(sx, by + k0, sq, strip, COLOURS[1]);
    d.dashed(
        (ax + k0 + strip, sy + sq / 2.0),
        (cx, sy + sq / 2.0),
        COLOURS[1],
    );
    d.dashed(
        (sx + sq / 2.0, by + k0 + strip),
        (sx + sq / 2.0, cy),
        COLOURS[1],
    );

    // Labels, outside the tiles.
    let note = |d: &mut Drawing, x: f64, y: f64, lines: &[String]| {
        for (k, line) in lines.iter().enumerate() {
            d.text(x, y + 17.0 * k as f64, "start", line);
        }
    };
    note(
        &mut d,
        ax,
        by + 20.0,
        &[
            format!("as[{TILE}][{STRIP}] in shared memory:"),
            format!(
                "A's {TILE} × {STRIP} strip, columns k0 to k0 + {}",
                STRIP - 1
            ),
            "one step along k".to_string(),
        ],
    );
    d.arrow(
        (ax + 40.0, by + 66.0),
        (ax + k0 + strip / 2.0, cy - 4.0),
        "#333",
    );
    note(
        &mut d,
        cx + side + 34.0,
        by + k0 - 8.0,
        &[
            format!("bs[{STRIP}][{TILE}] in shared memory:"),
            format!("B's {STRIP} × {TILE} strip, rows k0 to k0 + {}", STRIP - 1),
        ],
    );
    note(
        &mut d,
        cx + side + 34.0,
        cy + 20.0,
        &[
            format!("thread {t}: the {SQUARE} × {SQUARE} square at"),
            format!("row {row8}, column {col8} of the tile,"),
            format!("its {} sums in acc[{SQUARE}][{SQUARE}],", SQUARE * SQUARE),
            "in registers".to_string(),
        ],
    );
    d.arrow(
        (cx + side + 30.0, cy + 26.0),
        (sx + sq + 3.0, sy + sq / 2.0),
        "#333",
    );
    note(
        &mut d,
        cx + side + 34.0,
        cy + 120.0,
        &[
            format!("C: the block's {TILE} × {TILE} tile,"),
            format!("{per_row} × {per_row} squares, one per thread"),
        ],
    );
    note(
        &mut d,
        ax,
        cy + side + 66.0,
        &[
            format!(
                "Red: thread {t}'s square, and the {SQUARE} rows of A's strip and {SQUARE} columns of B's strip that it needs."
            ),
            format!(
                "Per step along k: {} values read from shared memory for {} multiply-adds.",
                2 * SQUARE,
                SQUARE * SQUARE
            ),
        ],
    );
    d
}
