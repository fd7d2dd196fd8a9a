//! Draws the bar chart of chapter 7's steps from the table that `imaging_gpu` printed on the
//! GPU machine (its recorded output, `ch07/imaging_gpu.gpu.txt`): one bar per step, its time as
//! recorded, and the special-function floor as a dashed line where the run printed one. Prints
//! the SVG.
use course::cli::fail;
use course::plot::{Drawing, nice_step, read_recording, recorded_gpu};

/// One row of the step table: its number, what changed, its time as printed and in ms.
struct Step {
    number: usize,
    what: String,
    shown: String,
    ms: f64,
}

/// `91.3 ms` or `1.09 s` (two words) in milliseconds.
fn milliseconds(value: &str, unit: &str) -> Option<f64> {
    let v: f64 = value.parse().ok()?;
    match unit {
        "µs" | "us" => Some(v / 1e3),
        "ms" => Some(v),
        "s" => Some(v * 1e3),
        _ => None,
    }
}

/// The rows of the table that starts with the header `step  what changed` and ends at the
/// first blank line, such as `   7  7: explicit fused multiply-adds   91.3 ms   5.73x ...`.
fn steps(text: &str) -> Vec<Step> {
    let rows = text
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("step  what changed"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty());
    let mut found = Vec::new();
    for row in rows {
        let words: Vec<&str> = row.split_whitespace().collect();
        let Some(number) = words.first().and_then(|w| w.parse::<usize>().ok()) else {
            continue;
        };
        // The time is the first number followed by a unit; what changed is the words before.
        let Some(at) = (1..words.len().saturating_sub(1))
            .find(|&i| milliseconds(words[i], words[i + 1]).is_some())
        else {
            continue;
        };
        let what = words[1..at].join(" ");
        // The table writes optimisation N as `N: ...`; the bar's number already says it.
        let what = match what.split_once(": ") {
            Some((n, rest)) if n == number.to_string() => rest.to_string(),
            _ => what,
        };
        found.push(Step {
            number,
            what,
            shown: format!("{} {}", words[at], words[at + 1]),
            ms: milliseconds(words[at], words[at + 1]).unwrap_or_default(),
        });
    }
    found
}

/// The time at the end of `special-function floor: ... = 61.4 ms (this machine)`, if the run
/// printed that line, as printed and in ms.
fn floor(text: &str, path: &str) -> Option<(String, f64)> {
    let line = text
        .lines()
        .find(|line| line.starts_with("special-function floor:"))?;
    let line = line
        .trim_end()
        .trim_end_matches("(this machine)")
        .trim_end();
    let time = line.rsplit("= ").next().unwrap_or_default();
    let (value, unit) = time.split_once(' ').unwrap_or((time, ""));
    match milliseconds(value, unit) {
        Some(ms) => Some((time.to_string(), ms)),
        None => fail(&format!(
            "{path}: the special-function floor line does not end in a time: `{line}`"
        )),
    }
}

const LEFT: f64 = 70.0;
const TOP: f64 = 50.0;
const PLOT_HEIGHT: f64 = 300.0;
const BAR: f64 = 34.0;
const GAP: f64 = 14.0;
const BAR_COLOUR: &str = "#1f77b4";
const FLOOR_COLOUR: &str = "#d62728";

/// The chart: bars on a linear time axis from 0, the floor as a dashed line across them, and
/// a key of what each step changed to the right.
fn chart(title: &str, steps: &[Step], floor: Option<&(String, f64)>, source: &str) -> String {
    let top_ms = steps
        .iter()
        .map(|s| s.ms)
        .chain(floor.map(|f| f.1))
        .fold(0.0, f64::max);
    let tick = nice_step(top_ms);
    let axis_ms = (top_ms / tick).ceil() * tick;
    let y = |ms: f64| TOP + PLOT_HEIGHT * (1.0 - ms / axis_ms);
    let plot_width = steps.len() as f64 * (BAR + GAP) + GAP;
    let key_x = LEFT + plot_width + 30.0;
    let mut d = Drawing::new(key_x + 330.0, TOP + PLOT_HEIGHT + 95.0, title);
    // The time axis: grid lines and their labels.
    let mut t = 0.0;
    while t <= axis_ms + tick / 2.0 {
        d.line((LEFT, y(t)), (LEFT + plot_width, y(t)), "#ddd");
        d.text(LEFT - 6.0, y(t) + 4.0, "end", &format!("{t}"));
        t += tick;
    }
    d.text(LEFT - 6.0, TOP - 14.0, "start", "time of one image (ms)");
    for (i, step) in steps.iter().enumerate() {
        let x = LEFT + GAP + i as f64 * (BAR + GAP);
        d.rect(
            x,
            y(step.ms),
            BAR,
            TOP + PLOT_HEIGHT - y(step.ms),
            BAR_COLOUR,
        );
        d.text_sized(x + BAR / 2.0, y(step.ms) - 4.0, "middle", 11.0, &step.shown);
        d.text(
            x + BAR / 2.0,
            TOP + PLOT_HEIGHT + 16.0,
            "middle",
            &step.number.to_string(),
        );
        let key = format!("{}  {}", step.number, step.what);
        d.text(key_x, TOP + 12.0 + 18.0 * i as f64, "start", &key);
    }
    d.text(
        LEFT + plot_width / 2.0,
        TOP + PLOT_HEIGHT + 34.0,
        "middle",
        "step",
    );
    let note = match floor {
        Some((shown, ms)) => {
            d.dashed((LEFT, y(*ms)), (LEFT + plot_width, y(*ms)), FLOOR_COLOUR);
            let label = format!("special-function floor, {shown}");
            d.text(LEFT + plot_width + 6.0, y(*ms) + 4.0, "start", &label);
            format!("Dashed line: the special-function floor, {shown}, as the run printed it.")
        }
        None => "The run printed no special-function floor, so none is drawn.".to_string(),
    };
    for (i, line) in [note, format!("Times as recorded in {source}.")]
        .iter()
        .enumerate()
    {
        d.text(
            LEFT,
            TOP + PLOT_HEIGHT + 62.0 + 18.0 * i as f64,
            "start",
            line,
        );
    }
    d.to_svg()
}

fn main() {
    let path = course::cli::parse(
        "Draws the bar chart of chapter 7's steps (SVG) from imaging_gpu's recorded output.",
        |args| {
            args.path(
                "PATH",
                "the recorded output of imaging_gpu, e.g. ch07/imaging_gpu.gpu.txt",
            )
        },
    );
    let text = read_recording(&path);
    let gpu = recorded_gpu(&text)
        .unwrap_or_else(|| fail(&format!("{path} has no `GPU: ` line naming the GPU")));
    let steps = steps(&text);
    if steps.is_empty() {
        fail(&format!(
            "{path} holds no step table (`step  what changed`); run imaging_gpu on a GPU first"
        ));
    }
    let size = text
        .lines()
        .find_map(|l| l.strip_prefix("image of "))
        .and_then(|l| l.split(" pixels").next());
    let visibilities = text
        .lines()
        .find_map(|l| l.split_once(" visibilities from "))
        .map(|(n, _)| n);
    let title = match (size, visibilities) {
        (Some(size), Some(n)) => {
            format!("Chapter 7's steps on the {gpu}: {size} pixels, {n} visibilities")
        }
        _ => format!("Chapter 7's steps on the {gpu}"),
    };
    let floor = floor(&text, &path);
    println!("<!-- drawn by `step_chart {path}` -->");
    print!("{}", chart(&title, &steps, floor.as_ref(), &path));
}
