//! Draws chapter 2's figures, one per run, named by the argument: `sm` (one SM and its four
//! partitions), `latency` (one core hiding the latency of loads) and `sectors` (a warp's
//! loads on 32-byte sectors). The numbers come from the chapter's recorded outputs. Prints the
//! SVG.
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use course::cli::fail;
use course::plot::{COLOURS, Drawing, IDLE, PALE, recorded_gpu};

const FIGURES: [&str; 3] = ["sm", "latency", "sectors"];

fn main() {
    let figure = course::cli::figure_name("Draws one of chapter 2's figures (SVG).", &FIGURES);
    let svg = match figure.as_str() {
        "sm" => sm(),
        "latency" => latency(),
        _ => sectors(),
    };
    println!("<!-- drawn by `figures_ch02 {figure}` -->");
    print!("{svg}");
}

/// The number after `label` on the line of `text` that starts with it: `65536` from
/// `32-bit registers per SM:         65536 (this machine)`.
fn recorded(text: &str, label: &str) -> usize {
    text.lines()
        .find_map(|line| line.strip_prefix(label))
        .and_then(|rest| {
            rest.trim_start_matches([':', ' '])
                .split_whitespace()
                .next()
        })
        .and_then(|word| word.parse().ok())
        .unwrap_or_else(|| fail(&format!("the recording has no number after `{label}`")))
}

// --- sm --------------------------------------------------------------------------------------

/// Per partition of a compute capability 9.0 SM (H100, H200): the arithmetic lanes.
const FP32_LANES: usize = 32;
const INT32_LANES: usize = 16;
const FP64_LANES: usize = 16;
const PARTITIONS: usize = 4;
/// The combined shared memory and L1 of one such SM, in KiB.
const SHARED_L1_KIB: usize = 256;

/// One SM of the H200: four partitions (scheduler, registers, lanes, tensor core,
/// units for harder functions, load/store units) above the shared memory / L1 they share.
fn sm() -> String {
    let text = include_str!("device_query.gpu.txt");
    let gpu = recorded_gpu(text).unwrap_or("GPU");
    let registers = recorded(text, "32-bit registers per SM");
    let threads = recorded(text, "threads per SM, at most");
    let shared = recorded(text, "shared memory per SM");
    let sms = recorded(text, "streaming multiprocessors (SMs)");
    let warps = threads / 32;

    let (w, h) = (860.0, 536.0);
    let mut d = Drawing::new(w, h, &format!("One streaming multiprocessor of the {gpu}"));
    let (sx, sy, sw) = (20.0, 40.0, w - 40.0);
    d.rect(sx, sy, sw, 426.0, "white");
    let gap = 10.0;
    let bw = (sw - 40.0 - 3.0 * gap) / PARTITIONS as f64;
    for b in 0..PARTITIONS {
        let x = sx + 20.0 + b as f64 * (bw + gap);
        let y = sy + 14.0;
        d.rect(x, y, bw, 316.0, "#f7f7f7");
        d.text(x + bw / 2.0, y + 18.0, "middle", &format!("partition {b}"));
        d.cell(
            (x + 8.0, y + 28.0, bw - 16.0, 26.0),
            PALE[3],
            12.0,
            "warp scheduler",
        );
        d.text(
            x + bw / 2.0,
            y + 70.0,
            "middle",
            &format!("{} of the {warps} warps", warps / PARTITIONS),
        );
        d.cell(
            (x + 8.0, y + 80.0, bw - 16.0, 26.0),
            PALE[0],
            12.0,
            &format!("registers: {} × 32 bit", thousands(registers / PARTITIONS)),
        );
        // The lanes: one small square each, FP32 then INT32 then FP64.
        let lanes = [
            ("FP32", FP32_LANES, PALE[2]),
            ("INT32", INT32_LANES, PALE[2]),
            ("FP64", FP64_LANES, PALE[1]),
        ];
        let mut ly = y + 128.0;
        let side = (bw - 16.0) / 16.0;
        for (name, count, fill) in lanes {
            d.text(x + 8.0, ly - 4.0, "start", &format!("{count} {name} lanes"));
            for k in 0..count {
                let (cx, cy) = ((k % 16) as f64, (k / 16) as f64);
                d.rect(x + 8.0 + cx * side, ly + cy * side, side, side, fill);
            }
            ly += (count / 16) as f64 * side + 22.0;
        }
        let unit = |d: &mut Drawing, row: f64, text: &str, fill: &str| {
            d.cell((x + 8.0, row, bw - 16.0, 24.0), fill, 12.0, text);
        };
        unit(&mut d, ly - 6.0, "tensor core", PALE[3]);
        unit(&mut d, ly + 24.0, "sin, exp, rsqrt units", IDLE);
        unit(&mut d, ly + 54.0, "load/store units", IDLE);
    }
    d.cell(
        (sx + 20.0, sy + 346.0, sw - 40.0, 40.0),
        PALE[0],
        13.0,
        &format!("shared memory / L1: {SHARED_L1_KIB} KiB, up to {shared} KiB of it shared memory"),
    );
    d.text(
        w / 2.0,
        sy + 410.0,
        "middle",
        "one for the four partitions: the threads of a thread block share data through it",
    );
    d.text(
        w / 2.0,
        sy + 452.0,
        "middle",
        &format!(
            "{threads} threads ({warps} warps) resident at most; {FP32_LANES} FP32 lanes per partition: one warp's FP32 instruction per cycle"
        ),
    );
    d.text(
        w / 2.0,
        sy + 476.0,
        "middle",
        &format!("the {gpu} has {sms} SMs like this one, around one L2 cache"),
    );
    d.to_svg()
}

/// `16384` as `16,384`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// --- latency ---------------------------------------------------------------------------------

const ADDS: usize = 10;
const ADD_LATENCY: usize = 4;

/// What a thread did in one cycle.
#[derive(Clone, Copy, PartialEq)]
enum Issue {
    Load,
    Add,
}

/// `latency_hiding`'s simulation on one core, with every thread resident, keeping what was
/// issued when: `(cycle, thread, issue)`, and the cycle the last result arrived.
fn simulate_core(threads: usize, load_latency: usize) -> (Vec<(usize, usize, Issue)>, usize) {
    let mut issued = vec![0; threads];
    let mut ready: VecDeque<usize> = (0..threads).collect();
    let mut waiting = BinaryHeap::new();
    let (mut cycle, mut finished, mut log) = (0, 0, Vec::new());
    while finished < threads {
        while let Some(&Reverse((at, t))) = waiting.peek() {
            if at > cycle {
                break;
            }
            waiting.pop();
            if issued[t] < 1 + ADDS {
                ready.push_back(t);
            } else {
                finished += 1;
            }
        }
        if let Some(t) = ready.pop_front() {
            let (latency, kind) = if issued[t] == 0 {
                (load_latency, Issue::Load)
            } else {
                (ADD_LATENCY, Issue::Add)
            };
            issued[t] += 1;
            waiting.push(Reverse((cycle + latency, t)));
            log.push((cycle, t, kind));
        }
        cycle += 1;
    }
    (log, cycle - 1)
}

/// Latency hiding on one core of the page's simulation: one resident thread against all of
/// the core's share of the threads, over the first cycles of the run.
fn latency() -> String {
    let text = include_str!("latency_hiding.txt");
    let threads = text
        .lines()
        .find(|line| line.contains(" threads, each:"))
        .and_then(|line| line.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| fail("the recording has no `N threads, each:`"));
    let load_latency = text
        .split("1 load (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| fail("the recording has no `1 load (N cycles)`"));
    let cores = text
        .split(" cores at once")
        .next()
        .and_then(|head| head.split_whitespace().last())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| fail("the recording has no `on N cores at once`"));
    let recorded_cycles = text
        .split("cores at once: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| fail("the recording has no run time for all threads"));
    let per_core = threads / cores;
    let (one_log, one_cycles) = simulate_core(1, load_latency);
    let (log, cycles) = simulate_core(per_core, load_latency);
    if cycles != recorded_cycles {
        fail(&format!(
            "one core with {per_core} threads takes {cycles} cycles, the recording {recorded_cycles}"
        ));
    }

    let span = 2 * load_latency + load_latency * 2 / 5; // cycles drawn
    let (w, left, right) = (860.0, 130.0, 40.0);
    let scale = (w - left - right) / span as f64;
    let at = |c: usize| left + c as f64 * scale;
    let mut d = Drawing::new(
        w,
        440.0,
        &format!("One core, one load ({load_latency} cycles) and {ADDS} adds per thread"),
    );
    let row_h = 18.0;
    // One thread's row: waiting for memory, then its issues.
    let thread_row = |d: &mut Drawing, y: f64, t: usize, log: &[(usize, usize, Issue)]| {
        d.text(left - 8.0, y + 13.0, "end", &format!("thread {t}"));
        d.rect(left, y, at(span) - left, row_h, "white");
        for &(c, u, kind) in log.iter().filter(|e| e.1 == t && e.0 < span) {
            debug_assert_eq!(u, t);
            if kind == Issue::Load {
                let end = (c + load_latency).min(span);
                d.rect(at(c + 1), y, at(end) - at(c + 1), row_h, PALE[1]);
            }
            let colour = if kind == Issue::Load {
                COLOURS[0]
            } else {
                COLOURS[2]
            };
            d.line(
                (at(c) + scale / 2.0, y),
                (at(c) + scale / 2.0, y + row_h),
                colour,
            );
        }
    };
    // The core's row: runs of cycles issuing loads, issuing adds, or idle.
    let core_row = |d: &mut Drawing, y: f64, log: &[(usize, usize, Issue)]| {
        d.text(left - 8.0, y + 13.0, "end", "the core issues");
        let what = |c: usize| log.iter().find(|e| e.0 == c).map(|e| e.2);
        let mut c = 0;
        while c < span {
            let kind = what(c);
            let mut end = c + 1;
            while end < span && what(end) == kind {
                end += 1;
            }
            let fill = match kind {
                Some(Issue::Load) => COLOURS[0],
                Some(Issue::Add) => COLOURS[2],
                None => IDLE,
            };
            d.rect(at(c), y, at(end) - at(c), row_h, fill);
            c = end;
        }
    };

    // One resident thread.
    let busy_one = one_log.len();
    d.text(
        20.0,
        60.0,
        "start",
        &format!(
            "1 thread resident: the core issues {busy_one} instructions in {one_cycles} cycles"
        ),
    );
    thread_row(&mut d, 70.0, 0, &one_log);
    core_row(&mut d, 92.0, &one_log);

    // All of the core's threads resident.
    d.text(
        20.0,
        148.0,
        "start",
        &format!(
            "{per_core} threads resident ({threads} threads on {cores} cores): from cycle {load_latency} on, the core issues every cycle"
        ),
    );
    let shown = [0, 1, 2, 3];
    let mut y = 158.0;
    for &t in &shown {
        thread_row(&mut d, y, t, &log);
        y += row_h + 4.0;
    }
    d.text(left - 8.0, y + 13.0, "end", "⋮");
    d.text(
        left + 8.0,
        y + 13.0,
        "start",
        &format!(
            "threads 4 to {}: each issues its load one cycle after the one before",
            per_core - 2
        ),
    );
    y += row_h + 4.0;
    thread_row(&mut d, y, per_core - 1, &log);
    y += row_h + 4.0;
    core_row(&mut d, y, &log);
    y += row_h;

    // The cycle axis.
    let step = load_latency / 2;
    for c in (0..=span).step_by(step) {
        d.line((at(c), y + 2.0), (at(c), y + 8.0), "#333");
        d.text(at(c), y + 22.0, "middle", &c.to_string());
    }
    d.text(
        at(span),
        y + 40.0,
        "end",
        &format!("cycle (the run goes on to cycle {cycles})"),
    );

    // The legend.
    let ly = y + 66.0;
    let items = [
        (COLOURS[0], "issues its load"),
        (PALE[1], "waits for memory"),
        (COLOURS[2], "issues an add"),
        (IDLE, "core idle"),
    ];
    for (k, (fill, label)) in items.iter().enumerate() {
        let x = 40.0 + k as f64 * 200.0;
        d.rect(x, ly, 18.0, 14.0, fill);
        d.text(x + 24.0, ly + 12.0, "start", label);
    }
    d.text(
        20.0,
        ly + 42.0,
        "start",
        "a blank stretch: the thread's last add is not done yet (4 cycles), or it is ready and waits its turn",
    );
    d.to_svg()
}

// --- sectors ---------------------------------------------------------------------------------

const WARP: usize = 32;
const SECTOR: usize = 32;

/// The sectors lane k's 4-byte float at `index(k)` falls in, as `warp_sectors` counts them.
fn sectors_of(index: impl Fn(usize) -> usize) -> BTreeSet<usize> {
    (0..WARP).map(|lane| index(lane) * 4 / SECTOR).collect()
}

/// An access pattern: its name in `warp_sectors`' output, and lane k's index.
type Pattern = (&'static str, fn(usize) -> usize);

/// One warp's load of 32 floats, consecutive and eight apart, on the same row of sectors.
fn sectors() -> String {
    let text = include_str!("warp_sectors.txt");
    let patterns: [Pattern; 2] = [("x[lane]", |lane| lane), ("x[8 * lane]", |lane| 8 * lane)];
    let (w, left) = (860.0, 50.0);
    let total = WARP; // sectors drawn
    let sw = (w - 2.0 * left) / total as f64; // width of one sector
    let fw = sw * 4.0 / SECTOR as f64; // width of one float
    let mut d = Drawing::new(
        w,
        460.0,
        "One warp loads 32 floats: which 32-byte sectors move",
    );
    let mut y = 50.0;
    for (name, index) in patterns {
        let touched = sectors_of(index);
        let count = recorded(text, name);
        if count != touched.len() {
            fail(&format!(
                "{name} touches {} sectors here, {count} in the recording",
                touched.len()
            ));
        }
        d.text_sized(
            left,
            y + 12.0,
            "start",
            13.0,
            &format!(
                "{name}: {count} sectors, {} bytes moved for 128 used",
                count * SECTOR
            ),
        );
        let (lanes_y, mem_y) = (y + 24.0, y + 108.0);
        d.text(left - 6.0, lanes_y + 15.0, "end", "lane");
        for lane in 0..WARP {
            let x = left + lane as f64 * sw;
            d.cell((x, lanes_y, sw, 20.0), PALE[3], 12.0, &lane.to_string());
            let to = left + index(lane) as f64 * fw + fw / 2.0;
            d.arrow((x + sw / 2.0, lanes_y + 20.0), (to, mem_y - 1.0), "#555");
        }
        for s in 0..total {
            let x = left + s as f64 * sw;
            let fill = if touched.contains(&s) {
                PALE[1]
            } else {
                "white"
            };
            d.rect(x, mem_y, sw, 22.0, fill);
        }
        // The floats asked for, one box per run of neighbours within a sector.
        let floats: BTreeSet<usize> = (0..WARP).map(&index).collect();
        let per_sector = SECTOR / 4;
        for &f in &floats {
            if f % per_sector != 0 && floats.contains(&(f - 1)) {
                continue;
            }
            let mut end = f + 1;
            while end % per_sector != 0 && floats.contains(&end) {
                end += 1;
            }
            let x = left + f as f64 * fw;
            d.rect(x, mem_y, (end - f) as f64 * fw, 22.0, COLOURS[0]);
        }
        for s in (0..=total).step_by(4) {
            let x = left + s as f64 * sw;
            d.text(x, mem_y + 38.0, "middle", &format!("{}", s * SECTOR));
        }
        y += 180.0;
    }
    d.text(w - left, y - 8.0, "end", "byte address");
    let items = [
        (COLOURS[0], "a float a lane asked for"),
        (PALE[1], "rest of a sector that moves"),
        ("white", "a sector that stays put"),
    ];
    for (k, (fill, label)) in items.iter().enumerate() {
        let x = left + k as f64 * 260.0;
        d.rect(x, y + 8.0, 18.0, 14.0, fill);
        d.text(x + 24.0, y + 20.0, "start", label);
    }
    d.text(
        left,
        y + 48.0,
        "start",
        "each box of the lower rows is one 32-byte sector: 8 floats",
    );
    d.to_svg()
}
