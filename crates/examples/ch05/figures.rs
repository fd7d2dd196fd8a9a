//! Draws chapter 5's figures, one per run, named by its first argument:
//! `banks` (banks.md), `privatised-histogram` (histogram.md). Prints the SVG.
use course::plot::{COLOURS, Drawing, IDLE, PALE, read_recording};

const FIGURES: &[&str] = &["banks", "privatised-histogram"];

fn main() {
    let name = course::cli::figure_name("Draws one of chapter 5's figures (SVG).", &FIGURES);
    let drawing = match name.as_str() {
        "banks" => banks(),
        "privatised-histogram" => privatised_histogram(),
        _ => unreachable!("`choice` accepts only the names in FIGURES"),
    };
    println!("<!-- drawn by `figures_ch05 {name}` -->");
    print!("{}", drawing.to_svg());
}

/// The recording whose numbers `privatised-histogram` draws.
const HISTOGRAM_RECORDING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/ch05/histogram_three_ways.gpu.txt"
);

/// The whole numbers, in order, of the recording's first line that `is_it`, described by
/// `what` if there is none.
fn numbers_on(text: &str, what: &str, is_it: impl Fn(&str) -> bool) -> Vec<u64> {
    let line = text
        .lines()
        .find(|l| is_it(l))
        .unwrap_or_else(|| course::cli::fail(&format!("{HISTOGRAM_RECORDING} has no line {what}")));
    line.split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// `hist_shared` (kernels/ch05-histogram.cu) on the grid-stride grid of histogram_three_ways's
/// recorded run: each block counts the bytes it reads into its own bins in shared memory, then
/// each of its threads adds one bin to the global histogram.
fn privatised_histogram() -> Drawing {
    let text = read_recording(HISTOGRAM_RECORDING);
    let missing = || {
        course::cli::fail(&format!(
            "{HISTOGRAM_RECORDING} lacks a count it should have"
        ))
    };
    // `16777216 random bytes into 256 bins, seed 2026`
    let [bytes, bins, ..] = numbers_on(&text, "of bytes and bins", |l| {
        l.contains(" random bytes into ")
    })[..] else {
        missing()
    };
    // `shared, grid-stride     528     135168 ...`: the row's blocks and global atomics.
    let [blocks, merges, ..] = numbers_on(&text, "for the grid-stride way", |l| {
        l.starts_with("shared, grid-stride ")
    })[..] else {
        missing()
    };
    let [_, per_byte, ..] = numbers_on(&text, "for global atomics", |l| {
        l.starts_with("global atomics ")
    })[..] else {
        missing()
    };
    let last = blocks - 1;
    let step = blocks * bins;
    let shown_bin = 100u64;

    let mut d = Drawing::new(
        860.0,
        515.0,
        &format!("A histogram per block: {bins} bins in shared memory, merged once"),
    );

    // The bytes, as the grid-stride loop hands them out: a run of `bins` bytes per block (one
    // per thread), block after block, then again one grid further on.
    let (sx, sy, seg, gap) = (150.0, 64.0, 58.0, 34.0);
    d.text(sx - 10.0, sy + 17.0, "end", "bytes");
    let order = [Some(0), Some(1), None, Some(last)];
    let mut at = sx;
    let mut starts: Vec<(u64, f64)> = Vec::new();
    for _round in 0..2 {
        for b in order {
            match b {
                Some(b) => {
                    let fill = if b == last { PALE[2] } else { PALE[b as usize] };
                    d.cell((at, sy, seg, 24.0), fill, 12.0, &format!("block {b}"));
                    starts.push((b, at + seg / 2.0));
                    at += seg;
                }
                None => {
                    d.cell((at, sy, gap, 24.0), "white", 12.0, "…");
                    at += gap;
                }
            }
        }
    }
    d.cell((at, sy, gap, 24.0), "white", 12.0, "…");
    d.text(
        sx,
        sy - 10.0,
        "start",
        &format!(
            "{bytes} bytes; each step of the grid-stride loop covers {blocks} blocks × {bins} threads = {step} bytes"
        ),
    );

    // Each block's private bins in shared memory.
    let (by, bw, bh) = (160.0, 210.0, 96.0);
    let boxes = [
        (0u64, 30.0, PALE[0]),
        (1, 290.0, PALE[1]),
        (last, 620.0, PALE[2]),
    ];
    d.text(530.0, by + bh / 2.0 + 4.0, "middle", "…");
    let strip = |x: f64| (x + 34.0, bw - 68.0);
    let bin_x = |x: f64, bin: u64| {
        let (left, width) = strip(x);
        left + width * (bin as f64 + 0.5) / bins as f64
    };
    for (k, &(b, x, fill)) in boxes.iter().enumerate() {
        for &(_, from) in starts.iter().filter(|(s, _)| *s == b) {
            d.arrow((from, sy + 24.0), (x + bw / 2.0, by), COLOURS[k]);
        }
        d.rect(x, by, bw, bh, fill);
        d.text_sized(
            x + bw / 2.0,
            by + 20.0,
            "middle",
            13.0,
            &format!("block {b}: local[{bins}], shared"),
        );
        d.text(
            x + bw / 2.0,
            by + 38.0,
            "middle",
            "atomicAdd(&local[byte], 1)",
        );
        let (left, width) = strip(x);
        d.rect(left, by + 48.0, width, 20.0, "white");
        d.rect(bin_x(x, shown_bin) - 2.0, by + 48.0, 4.0, 20.0, COLOURS[1]);
        d.text(left - 5.0, by + 62.0, "end", "0");
        d.text(
            left + width + 5.0,
            by + 62.0,
            "start",
            &(bins - 1).to_string(),
        );
        d.text(
            bin_x(x, shown_bin),
            by + 86.0,
            "middle",
            &format!("local[{shown_bin}]"),
        );
    }

    // The barrier, then the merge: thread t adds local[t] to bins[t].
    let barrier = by + bh + 26.0;
    d.dashed((30.0, barrier), (830.0, barrier), COLOURS[1]);
    d.text(
        830.0,
        barrier + 16.0,
        "end",
        "__syncthreads(): every count is in",
    );
    let (gx, gy, gw) = (174.0, 360.0, 512.0);
    let global_bin = gx + gw * (shown_bin as f64 + 0.5) / bins as f64;
    for (k, &(_, x, _)) in boxes.iter().enumerate() {
        d.arrow((bin_x(x, shown_bin), by + bh), (global_bin, gy), COLOURS[k]);
    }
    d.text(
        560.0,
        gy - 30.0,
        "start",
        &format!("thread {shown_bin} of every block:"),
    );
    d.text(
        560.0,
        gy - 13.0,
        "start",
        &format!("atomicAdd(&bins[{shown_bin}], local[{shown_bin}])"),
    );
    d.text(gx - 10.0, gy + 15.0, "end", "bins (global)");
    d.rect(gx, gy, gw, 20.0, IDLE);
    d.rect(global_bin - 2.0, gy, 4.0, 20.0, COLOURS[1]);
    d.text(gx, gy + 36.0, "start", "bin 0");
    d.text(global_bin, gy + 36.0, "middle", &format!("bin {shown_bin}"));
    d.text(gx + gw, gy + 36.0, "end", &format!("bin {}", bins - 1));

    let lines = [
        format!(
            "Counting: one shared-memory atomic per byte, contended only by the block's own {bins} threads."
        ),
        format!(
            "Merging: {bins} global atomics per block, one per bin, every block's bin {shown_bin} by its thread {shown_bin}."
        ),
        format!(
            "{blocks} blocks × {bins} = {merges} global atomics, against {per_byte} with one per byte."
        ),
    ];
    for (k, line) in lines.iter().enumerate() {
        d.text(30.0, 448.0 + 22.0 * k as f64, "start", line);
    }
    d
}

/// Shared-memory banks (kernels/ch05-banks.cu): the first read of `row_sums_*` by warp 0, lane
/// i loading tile[i][0], in the unpadded 32x32 tile (every word in bank 0) and in the padded
/// 32x33 one (word 33i, bank i). Each line of cells is 32 consecutive words, one per bank.
fn banks() -> Drawing {
    const BANKS: u64 = 32;
    let (left, cw, ch) = (136.0, 22.0, 20.0);
    let mut d = Drawing::new(
        860.0,
        490.0,
        "Shared-memory banks: warp 0 loads tile[lane][0], one word per lane",
    );
    // One panel per tile width: the memory lines it shows (None: a gap), and where it starts.
    let panels: [(u64, &str, &[Option<u64>], f64); 2] = [
        (
            32,
            "float tile[32][32]: tile[i][0] is word 32i, in bank 0 for every lane",
            &[Some(0), Some(1), Some(2), Some(3), None, Some(31)],
            50.0,
        ),
        (
            33,
            "float tile[32][33]: tile[i][0] is word 33i, in bank i",
            &[Some(0), Some(1), Some(2), Some(3), None, Some(31), Some(32)],
            232.0,
        ),
    ];
    for (width, heading, lines, top) in panels {
        d.text_sized(left, top, "start", 13.0, heading);
        d.text(left - 8.0, top + 18.0, "end", "bank");
        for b in 0..BANKS {
            let x = left + cw * b as f64 + cw / 2.0;
            d.text_sized(x, top + 18.0, "middle", 10.0, &b.to_string());
        }
        let mut y = top + 24.0;
        for line in lines.iter() {
            let Some(line) = *line else {
                d.text(left + cw * BANKS as f64 / 2.0, y + 14.0, "middle", "…");
                y += ch;
                continue;
            };
            let first = line * BANKS;
            d.text(
                left - 8.0,
                y + 14.0,
                "end",
                &format!("words {first}–{}", first + BANKS - 1),
            );
            for b in 0..BANKS {
                let word = first + b;
                let (row, col) = (word / width, word % width);
                let x = left + cw * b as f64;
                if row >= 32 {
                    continue; // past the tile
                }
                if col == 32 {
                    d.rect(x, y, cw, ch, IDLE); // the padding word: never read
                } else if col == 0 {
                    d.cell((x, y, cw, ch), PALE[1], 10.0, &row.to_string());
                } else {
                    d.rect(x, y, cw, ch, PALE[if row % 2 == 0 { 0 } else { 2 }]);
                }
            }
            y += ch;
        }
    }
    let notes = [
        "Numbered cells: tile[i][0], read by lane i; blue and green: the tile's rows, alternating; grey: the padding word.",
        "Without padding the 32 words share bank 0: the bank serves them one after another, 32 accesses (a 32-way conflict).",
        "With a 33-word row each row starts one bank further on: 32 words in 32 banks, served in one access.",
    ];
    for (k, line) in notes.iter().enumerate() {
        d.text(24.0, 430.0 + 18.0 * k as f64, "start", line);
    }
    d
}
