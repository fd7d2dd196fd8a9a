//! Numbers in the prose are quoted from recordings. Every number with a unit that a page of
//! `src/` states in its own words must either be tied to a line of a recording by a marker, or
//! stand on the allowlist `crates/book-tests/prose-constants.txt` with its reason. A recording
//! made again with another number fails this test until the page says what the recording says.
//!
//! **What is read.** Every `src/**/*.md` page, except: fenced code blocks, lines with an include
//! (`{{#...}}`), HTML comments, the tables between `<!-- BEGIN computed` and
//! `<!-- END computed -->` (the schedule test writes and checks them), link targets (`](...)`),
//! reference definitions (`[name]: url`), URLs and HTML tags. Inline code is read: a line
//! quoted from an output is a number the reader sees. A paragraph's lines are read as one text,
//! so a number at the end of a line and its unit at the start of the next are one quantity.
//!
//! **What counts as a number with a unit.** A number (digits, thousands with commas, a fraction,
//! an exponent), then:
//! - a time: `ns`, `µs` (or `μs`, `us`), `ms`, `s`, `min`, `h`;
//! - a rate: `B/s`, `KB/s`, `MB/s`, `GB/s`, `TB/s`, `KiB/s`, `MiB/s`, `GiB/s`, `FLOP/s`,
//!   `GFLOP/s`, `TFLOP/s`, `PFLOP/s`, `GFLOPS`, `TFLOPS`;
//! - a size: `B`, `KB`, `kB`, `MB`, `GB`, `TB`, `KiB`, `MiB`, `GiB`, `TiB`;
//! - a clock or a power: `Hz`, `kHz`, `MHz`, `GHz`, `W`, `kW`; a count of `cycles`;
//! - a share: `%` or `per cent`;
//! - a ratio: `x` or `×` written against the number (`2.6x`, `18×`; `48 x 48`, with spaces, is
//!   a shape), or `times` after it (`2.57 times`); and, spelled out, `two` to `twenty`, the tens,
//!   `hundred` or `thousand` followed by `times` and a comparison (`faster`, `slower`, `more`,
//!   `less`, `fewer`, `larger`, `smaller`, `bigger`, `longer`, `shorter`, `higher`, `lower`,
//!   `as`, `the`), `twice as`/`twice the` and `half as`.
//!
//! The units of one letter (`s`, `h`, `B`, `W`), `min`, `per cent`, `cycles` and `times` count
//! only after a space (`1980s` is a decade); the others may follow the number directly or after
//! a space. A unit must end its word: `5 minutes` and `4 bytes`, written out, are the course's
//! own durations and type sizes, and are not read. In a range (`0.127 to 0.171 ms`, `56–75
//! times`, `between 4071 and 4190 GB/s`) the first number takes the unit of the second. A
//! number "as written" is the number, a space if there is one, and the unit, as in the page:
//! `28.8 ms`, `18.4x`, `six times`.
//!
//! **A marker** is an HTML comment, invisible in the rendered book, placed after the numbers it
//! stands for: `<!-- recorded: FILE "TEXT" -->`. FILE is a recording: a path under
//! `crates/examples/`, written from there (`ch07/imaging_gpu.gpu.txt`: an output, a profile's
//! `.log`), or a path under `results/` or chapter 10's workspace `crates/ch10-rust-kernels/`,
//! written from the repository's root (`results/h200.md`); never a program's source. TEXT must occur on exactly one line of FILE, the line the marker
//! names: a quotation rather than a line number, because a quotation survives lines being added
//! above it in a new recording, and fails, rather than silently naming another line, when its
//! line goes or is repeated. Where a recording repeats a label in several sections,
//! `<!-- recorded: FILE "AFTER" "TEXT" -->` names the first line holding TEXT after the one line
//! that holds AFTER.
//!
//! Markers with no number between them form a group (several markers on lines of their own
//! after a paragraph, say). A group covers the numbers after the previous group of its
//! paragraph (a run of lines without a blank one: a list or a table is one) and before itself.
//! Each of them must be on a line that one of the group's markers names: the same number
//! (commas aside, compared by value: `76%` is on a line that prints `76.00 %`, `77.6%` is not
//! on one that prints `77.59 %`) with the same unit after it, where `x`, `×` and `times` are one
//! unit; or, in a table that gives the unit a column of its own (Nsight Compute's `Duration  ms
//! 520.51`), the bare number on a line that also holds the unit as a word; or, for a ratio, a
//! bare number in a table of speedups (`      64     1.97     3.82`). A covered number that is
//! on no named line may still stand on the allowlist. Every marker must tie at least one
//! number. A marker may end a line (it may run past the 100th column) or stand on a line of its
//! own after the last line of its paragraph; a line that begins with `<!--` inside a paragraph
//! would end the paragraph in the rendered book, and is refused.
//!
//! **The allowlist** has one line per page and number as written: `PAGE | NUMBER | KIND: why`,
//! PAGE relative to `src/`, KIND one of `hardware` (a specification of the hardware: sizes,
//! clocks, peak rates), `external` (a fact of software outside the course: a driver's default,
//! the size of a package it downloads), `seeds` (a figure of the workshop the course is ported
//! from, on its authors' hardware), `definition` (true by definition or by arithmetic on the
//! course's own constants: `1 KiB`, the bytes of 10⁸ floats), `choice` (a choice of the course:
//! a problem size, a target time), `example` (an illustration made up to show a formula or an
//! idea), `elsewhere` (a number another test checks; the reason names it) and `derived`
//! (computed by the text from recorded numbers: `derived: needs a printed line` until a program
//! prints it, or worked out in the text beside the figures it uses). An entry covers every
//! occurrence of its number on its page that no marker ties; an entry that covers none is stale
//! and fails the test.
//!
//! The test prints how many numbers were tied and how many stood on the allowlist, by kind.
//!
//! **In a forked chapter** (`scripts/fork-chapter`, which leaves out `mutations/`, the other
//! chapters and their recordings, and `results/` unless a figure needs it), a marker naming a
//! recording that the fork lacks is passed over, and the numbers it covers are counted as not
//! checked; allowlist entries for pages the fork lacks are passed over too. Everything else
//! holds as in the whole course.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const ALLOWLIST: &str = "crates/book-tests/prose-constants.txt";
#[rustfmt::skip]
const KINDS: [&str; 8] =
    ["hardware", "external", "seeds", "definition", "choice", "example", "elsewhere", "derived"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Units, longest first so that `GB/s` is taken before `GB`. The flag: the unit may follow the
/// number with no space between (`28.8ms`, `18.4x`); the others count only after a space.
#[rustfmt::skip]
const UNITS: [(&str, bool); 44] = [
    ("GFLOP/s", true), ("TFLOP/s", true), ("PFLOP/s", true), ("FLOP/s", true),
    ("GFLOPS", true), ("TFLOPS", true),
    ("GiB/s", true), ("MiB/s", true), ("KiB/s", true),
    ("TB/s", true), ("GB/s", true), ("MB/s", true), ("KB/s", true), ("B/s", true),
    ("per cent", false), ("cycles", false), ("times", false),
    ("KiB", true), ("MiB", true), ("GiB", true), ("TiB", true),
    ("kHz", true), ("MHz", true), ("GHz", true), ("min", false),
    ("TB", true), ("GB", true), ("MB", true), ("KB", true), ("kB", true),
    ("ns", true), ("µs", true), ("μs", true), ("us", true), ("ms", true),
    ("Hz", true), ("kW", true), ("%", true), ("x", true), ("×", true),
    ("s", false), ("h", false), ("B", false), ("W", false),
];

/// Numbers spelled out, read before `times` and a comparison (`twice` and `half` stand alone).
#[rustfmt::skip]
const SPELLED: [&str; 30] = [
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand",
    "twice", "half",
];

const COMPARISONS: [&str; 14] = [
    "faster", "slower", "more", "less", "fewer", "larger", "smaller", "bigger", "longer",
    "shorter", "higher", "lower", "as", "the",
];

/// The one spelling of a unit that the comparison uses: ratios are `x`, microseconds `µs`.
fn canonical(unit: &str) -> &str {
    match unit {
        "x" | "×" | "times" => "x",
        "µs" | "μs" | "us" => "µs",
        "GFLOPS" => "GFLOP/s",
        "TFLOPS" => "TFLOP/s",
        "kB" => "KB",
        "per cent" => "%",
        other => other,
    }
}

/// A number found in a text, with its unit if it has one.
#[derive(Clone, Debug)]
struct Num {
    /// The digits without thousands separators (`262144`), or the word (`six`).
    value: String,
    /// The unit in its canonical spelling.
    unit: Option<String>,
    /// As written: number, space and unit (`28.8 ms`), whitespace made single spaces.
    written: String,
    /// Char positions in the text scanned.
    start: usize,
    end: usize,
}

fn is_space(c: char) -> bool {
    c == ' ' || c == '\u{a0}' || c == '\u{202f}' || c == '\u{2009}'
}

fn starts_with_at(cs: &[char], at: usize, s: &str) -> bool {
    let n = s.chars().count();
    at + n <= cs.len() && cs[at..at + n].iter().copied().eq(s.chars())
}

/// The unit that follows a number ending at `at`, as written, and where it ends.
fn unit_after(cs: &[char], at: usize) -> Option<(String, usize)> {
    // one space, or more where a marker or a line break stood between the number and its unit
    let mut from = at;
    while from < cs.len() && is_space(cs[from]) {
        from += 1;
    }
    let spaced = from > at;
    if from >= cs.len() {
        return None;
    }
    for (unit, glued) in UNITS {
        if !spaced && !glued {
            continue;
        }
        if spaced && (unit == "x" || unit == "×") {
            continue; // `48 x 48` is a shape
        }
        if !starts_with_at(cs, from, unit) {
            continue;
        }
        let end = from + unit.chars().count();
        if end < cs.len() && (cs[end].is_alphanumeric() || cs[end] == '_') {
            continue;
        }
        return Some((unit.to_string(), end));
    }
    None
}

/// Text as written, each run of spaces made one space.
fn as_written(cs: &[char]) -> String {
    let mut out = String::new();
    for &c in cs {
        if is_space(c) {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Every number in `text`: with a unit (measured, sized, a ratio) or without.
fn numbers(text: &str) -> Vec<Num> {
    let cs: Vec<char> = text.chars().collect();
    let n = cs.len();
    let mut found: Vec<Num> = Vec::new();
    let mut i = 0;
    while i < n {
        let c = cs[i];
        let prev = if i > 0 { Some(cs[i - 1]) } else { None };
        let word_start = prev.is_none_or(|p| !(p.is_alphanumeric() || p == '_'));
        if c.is_ascii_digit() && word_start && prev != Some('.') {
            let start = i;
            let mut j = i;
            while j < n && cs[j].is_ascii_digit() {
                j += 1;
            }
            // thousands: `262,144`
            while j + 3 < n
                && cs[j] == ','
                && cs[j + 1..j + 4].iter().all(|d| d.is_ascii_digit())
                && (j + 4 == n || !cs[j + 4].is_ascii_digit())
            {
                j += 4;
            }
            if j + 1 < n && cs[j] == '.' && cs[j + 1].is_ascii_digit() {
                j += 1;
                while j < n && cs[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j + 1 < n && (cs[j] == 'e' || cs[j] == 'E') {
                let k = if cs[j + 1] == '-' || cs[j + 1] == '+' {
                    j + 2
                } else {
                    j + 1
                };
                if k < n && cs[k].is_ascii_digit() {
                    j = k;
                    while j < n && cs[j].is_ascii_digit() {
                        j += 1;
                    }
                }
            }
            let value: String = cs[start..j].iter().filter(|&&d| d != ',').collect();
            let (unit, end) = match unit_after(&cs, j) {
                Some((u, e)) => (Some(u), e),
                None => (None, j),
            };
            // a number glued to more letters or digits is part of a name (`sm_90a`, `0x1f`)
            let glued_name = unit.is_none() && j < n && (cs[j].is_alphanumeric() || cs[j] == '_');
            if !glued_name {
                let written = as_written(&cs[start..end]);
                found.push(Num {
                    value,
                    unit: unit.map(|u| canonical(&u).to_string()),
                    written,
                    start,
                    end,
                });
            }
            i = end.max(start + 1);
            continue;
        }
        if c.is_alphabetic() && word_start {
            let mut j = i;
            while j < n && cs[j].is_alphabetic() {
                j += 1;
            }
            let word: String = cs[i..j].iter().collect::<String>().to_lowercase();
            if SPELLED.contains(&word.as_str()) {
                let rest: String = cs[j..].iter().take(40).collect();
                let mut words = rest
                    .split(|c: char| !c.is_alphabetic())
                    .filter(|w| !w.is_empty());
                let next = words.next().map(str::to_lowercase);
                let after = words.next().map(str::to_lowercase);
                let follows_space = j < n && is_space(cs[j]);
                let ratio = follows_space
                    && match word.as_str() {
                        "twice" => matches!(next.as_deref(), Some("as" | "the")),
                        "half" => next.as_deref() == Some("as"),
                        _ => {
                            next.as_deref() == Some("times")
                                && after.as_deref().is_some_and(|a| COMPARISONS.contains(&a))
                        }
                    };
                if ratio {
                    let mut end = j;
                    if word != "twice" && word != "half" {
                        while end < n && is_space(cs[end]) {
                            end += 1;
                        }
                        end += "times".len();
                    }
                    let written = as_written(&cs[i..end]);
                    found.push(Num {
                        value: word,
                        unit: Some("x".into()),
                        written,
                        start: i,
                        end,
                    });
                }
            }
            i = j;
            continue;
        }
        i += 1;
    }
    // A range: the first number takes the unit of the second (`0.127 to 0.171 ms`).
    for k in (0..found.len().saturating_sub(1)).rev() {
        if found[k].unit.is_some() || found[k + 1].unit.is_none() {
            continue;
        }
        let between: String = cs[found[k].end..found[k + 1].start].iter().collect();
        let before: String = cs[..found[k].start].iter().collect();
        let pair = between == " and " && before.ends_with("between ");
        // a range runs upwards and does not start at a value given to a name (`N = 131,072 to`)
        let upwards = match (
            found[k].value.parse::<f64>(),
            found[k + 1].value.parse::<f64>(),
        ) {
            (Ok(a), Ok(b)) => a <= b,
            _ => false,
        };
        let named = before.trim_end().ends_with('=');
        if upwards && !named && (pair || matches!(between.as_str(), " to " | "–" | " – ")) {
            let unit = found[k + 1].unit.clone().unwrap();
            let written_unit = {
                let second = &found[k + 1];
                let digits = second
                    .written
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','));
                match digits {
                    Some(p) => second.written[p..].to_string(),
                    None => String::new(),
                }
            };
            found[k].unit = Some(unit);
            found[k].written = format!("{}{}", found[k].written, written_unit);
        }
    }
    found
}

/// The numbers of `text` that have a unit.
fn quantities(text: &str) -> Vec<Num> {
    numbers(text)
        .into_iter()
        .filter(|n| n.unit.is_some())
        .collect()
}

/// Whether two numbers are the same: `76` and `76.00` are, `77.6` and `77.59` are not.
fn same_value(a: &str, b: &str) -> bool {
    a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
}

/// Whether a line of a recording says `q`.
fn on_line(q: &Num, line: &str) -> bool {
    let all = numbers(line);
    if all
        .iter()
        .any(|l| same_value(&l.value, &q.value) && l.unit == q.unit)
    {
        return true;
    }
    // A table that gives the unit a column of its own: `Duration  ms  520.51`.
    let unit = q.unit.as_deref().unwrap_or("");
    let written_unit = q
        .written
        .trim_start_matches(|c: char| !c.is_alphabetic() && c != '%');
    let words = line.split(|c: char| c.is_whitespace() || ",;:()[]".contains(c));
    let has_word = words.filter(|w| !w.is_empty()).any(|w| {
        w.eq_ignore_ascii_case(unit)
            || w.eq_ignore_ascii_case(written_unit)
            || (unit == "cycles" && w == "cycle")
    });
    let bare = all.iter().any(|l| same_value(&l.value, &q.value));
    // A ratio in a table of speedups, printed bare: `      64     1.97     3.82`.
    bare && (unit == "x" || has_word)
}

/// One line of the allowlist.
struct Allowed {
    line: usize,
    page: String,
    number: String,
    kind: String,
    used: usize,
}

/// A marker: `<!-- recorded: FILE "TEXT" -->`.
#[derive(Clone, Debug)]
struct Marker {
    file: String,
    /// Text on one line of the file, before the line named: `"50000000 f64" "pinned"`.
    after: Option<String>,
    text: String,
}

#[derive(Debug)]
enum Event {
    Num(usize, Num),
    Marker(usize, Marker),
}

struct Checker {
    root: PathBuf,
    /// A chapter forked by `scripts/fork-chapter`, without the rest of the course.
    fork: bool,
    /// Numbers a fork cannot check: their recording is not in it.
    unchecked: usize,
    recordings: HashMap<String, Result<Vec<String>, String>>,
    allowed: Vec<Allowed>,
    problems: Vec<String>,
    tied: usize,
    markers: usize,
    allowlisted: BTreeMap<String, usize>,
}

impl Checker {
    fn recording(&mut self, file: &str) -> Result<Vec<String>, String> {
        if !self.recordings.contains_key(file) {
            let path = self.root.join(file);
            let read = std::fs::read_to_string(&path)
                .map(|t| t.lines().map(str::to_string).collect())
                .map_err(|e| e.to_string());
            self.recordings.insert(file.to_string(), read);
        }
        self.recordings[file].clone()
    }

    /// Whether the allowlist holds `written` for `page`; counts the use.
    fn allow(&mut self, page: &str, written: &str) -> bool {
        match self
            .allowed
            .iter_mut()
            .find(|a| a.page == page && a.number == written)
        {
            Some(a) => {
                a.used += 1;
                *self.allowlisted.entry(a.kind.clone()).or_default() += 1;
                true
            }
            None => false,
        }
    }

    fn untied(&mut self, page: &str, line: usize, q: &Num) {
        if !self.allow(page, &q.written) {
            self.problems.push(format!(
                "src/{page}:{line}: `{}` is quoted from no recording: put \
                 `<!-- recorded: FILE \"TEXT\" -->` after it, naming the line of a recording that \
                 prints it, or list it in {ALLOWLIST} with its reason.",
                q.written
            ));
        }
    }

    /// The line of its recording that a marker names, or why it names none.
    fn named_line(&mut self, page: &str, mline: usize, marker: &Marker) -> Option<String> {
        let here = format!("src/{page}:{mline}: the marker naming {}", marker.file);
        if marker.file.ends_with(".rs") || marker.file.contains("..") {
            self.problems.push(format!(
                "{here} does not name a recording: name an output under crates/examples/ or \
                 results/ that prints the numbers."
            ));
            return None;
        }
        if self.fork && !self.root.join(&marker.file).exists() {
            return None; // passed over: another chapter's recording, or results/
        }
        let lines = match self.recording(&marker.file) {
            Ok(lines) => lines,
            Err(e) => {
                self.problems.push(format!(
                    "{here}: the file cannot be read ({e}): name a recording that exists."
                ));
                return None;
            }
        };
        // With a text to look after: the first line holding TEXT after the one line holding it.
        let searched = marker.after.clone().unwrap_or_else(|| marker.text.clone());
        let hits: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].contains(&searched))
            .collect();
        if searched.is_empty() || hits.len() != 1 {
            let what = if hits.is_empty() {
                "no line".to_string()
            } else {
                format!("{} lines", hits.len())
            };
            self.problems.push(format!(
                "{here}: {what} of it contain \"{searched}\": quote text that is on exactly one \
                 line of the recording."
            ));
            return None;
        }
        if marker.after.is_none() {
            return Some(lines[hits[0]].clone());
        }
        match lines[hits[0] + 1..]
            .iter()
            .find(|l| l.contains(&marker.text))
        {
            Some(line) => Some(line.clone()),
            None => {
                self.problems.push(format!(
                    "{here}: no line after the one with \"{searched}\" contains \"{}\": quote \
                     text that the recording prints there.",
                    marker.text
                ));
                None
            }
        }
    }

    /// A group of markers (no number between them) and the numbers it covers.
    fn group(&mut self, page: &str, markers: Vec<(usize, Marker)>, covered: Vec<(usize, Num)>) {
        self.markers += markers.len();
        let first = markers[0].0;
        if covered.is_empty() {
            for (mline, m) in &markers {
                self.problems.push(format!(
                    "src/{page}:{mline}: the marker naming {} covers no number (markers tie the \
                     numbers after the previous markers of their paragraph): move it after the \
                     numbers it stands for, or remove it.",
                    m.file
                ));
            }
            return;
        }
        // (marker's line on the page, file, the named line, numbers tied); None: reported
        let mut named: Vec<(usize, String, Option<String>, usize)> = Vec::new();
        let mut absent = false;
        for (mline, m) in &markers {
            absent |= self.fork && !self.root.join(&m.file).exists();
            let line = self.named_line(page, *mline, m);
            named.push((*mline, m.file.clone(), line, 0));
        }
        let all_named = named.iter().all(|n| n.2.is_some());
        for (line, q) in covered {
            // Of the lines that hold it, the one with the fewest numbers tied so far: every
            // marker of a group must tie one.
            let holder = named
                .iter_mut()
                .filter(|n| n.2.as_deref().is_some_and(|l| on_line(&q, l)))
                .min_by_key(|n| n.3);
            if let Some(n) = holder {
                n.3 += 1;
                self.tied += 1;
            } else if !self.allow(page, &q.written) {
                if absent {
                    self.unchecked += 1;
                } else if all_named {
                    let lines: Vec<String> = named
                        .iter()
                        .map(|(_, f, l, _)| format!("{f}: `{}`", l.as_deref().unwrap_or("").trim()))
                        .collect();
                    self.problems.push(format!(
                        "src/{page}:{line}: `{}` is not on the recorded line its marker names \
                         ({}; marker on line {first}): make the text say what the recording says.",
                        q.written,
                        lines.join("; ")
                    ));
                    // reported: not "ties no number" as well
                    if let Some(n) = named.first_mut() {
                        n.3 += 1;
                    }
                }
            }
        }
        for (mline, file, line, count) in named {
            if line.is_some() && count == 0 {
                self.problems.push(format!(
                    "src/{page}:{mline}: the marker naming {file} ties none of the numbers it \
                     covers (the numbers after the previous markers of its paragraph): move it \
                     after the numbers it stands for, or remove it."
                ));
            }
        }
    }

    /// The numbers of one paragraph and its markers, in order.
    fn paragraph(&mut self, page: &str, events: Vec<Event>) {
        let mut pending: Vec<(usize, Num)> = Vec::new();
        let mut markers: Vec<(usize, Marker)> = Vec::new();
        for event in events {
            match event {
                Event::Num(line, q) => {
                    if !markers.is_empty() {
                        let covered = std::mem::take(&mut pending);
                        self.group(page, std::mem::take(&mut markers), covered);
                    }
                    pending.push((line, q));
                }
                Event::Marker(mline, marker) => markers.push((mline, marker)),
            }
        }
        if !markers.is_empty() {
            let covered = std::mem::take(&mut pending);
            self.group(page, markers, covered);
        }
        for (line, q) in pending {
            self.untied(page, line, &q);
        }
    }

    fn page(&mut self, page: &str, text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        let mut para = Para::default();
        let mut fence: Option<String> = None;
        let mut in_comment = false;
        let mut in_computed = false;
        let blank = |l: &str| l.trim().is_empty();
        for (idx, &raw) in lines.iter().enumerate() {
            let line_no = idx + 1;
            let trimmed = raw.trim_start();
            if let Some(f) = &fence {
                if trimmed.starts_with(f.as_str())
                    && trimmed
                        .trim_end()
                        .chars()
                        .all(|c| c == f.chars().next().unwrap())
                {
                    fence = None;
                }
                continue;
            }
            if in_computed {
                if raw.contains("<!-- END computed") {
                    in_computed = false;
                }
                continue;
            }
            if !in_comment && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
                let c = trimmed.chars().next().unwrap();
                fence = Some(trimmed.chars().take_while(|&x| x == c).collect());
                self.flush(page, std::mem::take(&mut para));
                continue;
            }
            if !in_comment && raw.contains("<!-- BEGIN computed") {
                in_computed = true;
                self.flush(page, std::mem::take(&mut para));
                continue;
            }
            if blank(raw) || raw.contains("{{#") {
                self.flush(page, std::mem::take(&mut para));
                continue;
            }
            if !in_comment && is_reference_definition(trimmed) {
                continue;
            }
            // The line's visible text, and its markers at the chars they stand before.
            let (visible, comments) = split_comments(raw, &mut in_comment);
            let mut line_events: Vec<(usize, Marker)> = Vec::new();
            for (at, comment) in comments {
                match comment {
                    Comment::Marker(m) => line_events.push((at, m)),
                    Comment::Malformed(body) => self.problems.push(format!(
                        "src/{page}:{line_no}: the marker `<!-- {body} -->` is not \
                         `<!-- recorded: FILE \"TEXT\" -->`: write it in that form."
                    )),
                    Comment::Unclosed => self.problems.push(format!(
                        "src/{page}:{line_no}: a marker runs over more than one line: keep \
                         `<!-- recorded: ... -->` on one line."
                    )),
                }
            }
            if !line_events.is_empty() && blank(&visible) {
                // A marker on a line of its own: only after the last line of a paragraph.
                let next = lines.get(idx + 1).copied().unwrap_or("");
                let next_only_comment = next.trim_start().starts_with("<!--");
                if !blank(next) && !next_only_comment {
                    self.problems.push(format!(
                        "src/{page}:{line_no}: a marker on a line of its own inside a paragraph \
                         ends the paragraph in the rendered book: put it at the end of the line \
                         before."
                    ));
                }
            }
            // The paragraph's text joins its lines with spaces: a number may end one line and
            // its unit begin the next.
            let clean = hide_targets(&visible);
            let base = para.chars;
            para.starts.push((base, line_no));
            for (at, m) in line_events {
                para.markers.push((base + at, line_no, m));
            }
            para.text.push_str(&clean);
            para.text.push(' ');
            para.chars += clean.chars().count() + 1;
        }
        self.flush(page, para);
    }

    /// The numbers and markers of a paragraph, in order.
    fn flush(&mut self, page: &str, para: Para) {
        let line_of = |at: usize| {
            para.starts
                .iter()
                .rev()
                .find(|(s, _)| *s <= at)
                .map_or(0, |&(_, line)| line)
        };
        let mut events = Vec::new();
        let mut marks = para.markers.into_iter().peekable();
        for q in quantities(&para.text) {
            while let Some((_, line, m)) = marks.next_if(|(at, _, _)| *at <= q.start) {
                events.push(Event::Marker(line, m));
            }
            events.push(Event::Num(line_of(q.start), q));
        }
        for (_, line, m) in marks {
            events.push(Event::Marker(line, m));
        }
        self.paragraph(page, events);
    }
}

/// A paragraph being read: its visible text, its lines joined by spaces, the char at which
/// each line starts, and its markers with the char they stand before.
#[derive(Default)]
struct Para {
    text: String,
    chars: usize,
    starts: Vec<(usize, usize)>,
    markers: Vec<(usize, usize, Marker)>,
}

/// A marker found in a line's comments, or what is wrong with one.
enum Comment {
    Marker(Marker),
    Malformed(String),
    Unclosed,
}

/// A line without its HTML comments, and the markers among them with the char of the visible
/// text that each stands before. `in_comment`: whether a comment is open at the line's start,
/// and, on return, at its end.
fn split_comments(raw: &str, in_comment: &mut bool) -> (String, Vec<(usize, Comment)>) {
    let mut rest = raw;
    let mut visible = String::new();
    let mut found = Vec::new();
    loop {
        if *in_comment {
            let Some(p) = rest.find("-->") else { break };
            rest = &rest[p + 3..];
            *in_comment = false;
            continue;
        }
        let Some(p) = rest.find("<!--") else {
            visible.push_str(rest);
            break;
        };
        visible.push_str(&rest[..p]);
        let at = visible.chars().count();
        let inside = &rest[p + 4..];
        let Some(q) = inside.find("-->") else {
            if inside.trim_start().starts_with("recorded:") {
                found.push((at, Comment::Unclosed));
            }
            *in_comment = true;
            break;
        };
        let body = inside[..q].trim();
        if body.starts_with("recorded") {
            match body.strip_prefix("recorded:").and_then(parse_marker) {
                Some(m) => found.push((at, Comment::Marker(m))),
                None => found.push((at, Comment::Malformed(body.to_string()))),
            }
        }
        rest = &inside[q + 3..];
    }
    (visible, found)
}

/// `[name]: url`, a link's target defined on a line of its own.
fn is_reference_definition(line: &str) -> bool {
    line.starts_with('[') && line.find("]:").is_some_and(|p| !line[..p].contains(']'))
}

/// `FILE "TEXT"` or `FILE "AFTER" "TEXT"`, after `recorded:`.
fn parse_marker(spec: &str) -> Option<Marker> {
    let spec = spec.trim();
    let open = spec.find('"')?;
    let file = spec[..open].trim();
    // FILE, then quoted texts with spaces between
    let parts: Vec<&str> = spec[open..].split('"').collect();
    let quoted: Vec<&str> = parts.iter().skip(1).step_by(2).copied().collect();
    let between_ok = parts.iter().step_by(2).all(|p| p.trim().is_empty());
    if file.is_empty()
        || file.contains(char::is_whitespace)
        || !between_ok
        || parts.len().is_multiple_of(2)
        || !(1..=2).contains(&quoted.len())
    {
        return None;
    }
    let (after, text) = match quoted[..] {
        [text] => (None, text),
        [after, text] => (Some(after.to_string()), text),
        _ => return None,
    };
    let file = if file.starts_with("results/") || file.starts_with("crates/ch10-rust-kernels/") {
        file.to_string()
    } else {
        format!("crates/examples/{file}")
    };
    Some(Marker {
        file,
        after,
        text: text.to_string(),
    })
}

/// The text with what a reader does not read as prose blanked out, keeping every other char in
/// its place (so that markers keep their positions): link targets `](...)`, autolinks and URLs,
/// HTML tags. A tag becomes a char that is neither a space nor part of a word, so that the
/// exponent of `10<sup>11</sup> times` is not read as `11 times`.
fn hide_targets(text: &str) -> String {
    let mut cs: Vec<char> = text.chars().collect();
    let n = cs.len();
    let blank = |cs: &mut Vec<char>, from: usize, to: usize| {
        for c in cs.iter_mut().take(to).skip(from) {
            *c = ' ';
        }
    };
    let mut i = 0;
    while i < n {
        // `](target)`, with parentheses nested inside the target
        if cs[i] == ']' && i + 1 < n && cs[i + 1] == '(' {
            let mut depth = 0;
            let mut j = i + 1;
            while j < n {
                match cs[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            blank(&mut cs, i + 1, (j + 1).min(n));
            i = j + 1;
            continue;
        }
        // an HTML tag or an autolink: `<a href=...>`, `</span>`, `<https://...>`
        let tag =
            cs[i] == '<' && i + 1 < n && (cs[i + 1].is_ascii_alphabetic() || cs[i + 1] == '/');
        if tag && let Some(len) = cs[i..].iter().position(|&c| c == '>') {
            for c in cs.iter_mut().skip(i).take(len + 1) {
                *c = '\u{1}';
            }
            i += len + 1;
            continue;
        }
        if starts_with_at(&cs, i, "http://") || starts_with_at(&cs, i, "https://") {
            let mut j = i;
            while j < n && !cs[j].is_whitespace() && cs[j] != ')' && cs[j] != '>' {
                j += 1;
            }
            blank(&mut cs, i, j);
            i = j;
            continue;
        }
        i += 1;
    }
    cs.into_iter().collect()
}

fn read_allowlist(root: &Path, fork: bool, problems: &mut Vec<String>) -> Vec<Allowed> {
    let text = match std::fs::read_to_string(root.join(ALLOWLIST)) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("{ALLOWLIST} cannot be read ({e}): restore it."));
            return Vec::new();
        }
    };
    let mut allowed: Vec<Allowed> = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        let n = idx + 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.splitn(3, " | ").map(str::trim).collect();
        let form = "`PAGE | NUMBER | KIND: why`";
        if parts.len() != 3 {
            problems.push(format!(
                "{ALLOWLIST}:{n}: the line is not {form}: write it so."
            ));
            continue;
        }
        let (page, number, reason) = (parts[0], parts[1], parts[2]);
        let kind = reason
            .split_once(':')
            .map(|(k, why)| (k.trim(), why.trim()));
        let Some((kind, why)) = kind.filter(|(k, why)| KINDS.contains(k) && !why.is_empty()) else {
            problems.push(format!(
                "{ALLOWLIST}:{n}: the reason `{reason}` does not start with one of {} and a \
                 colon, or says nothing after it: give the kind and the reason.",
                KINDS.join(", ")
            ));
            continue;
        };
        let _ = why;
        if fork && !root.join("src").join(page).is_file() {
            continue; // another chapter's page
        }
        if !root.join("src").join(page).is_file() {
            problems.push(format!(
                "{ALLOWLIST}:{n}: there is no page src/{page}: name a page relative to src/."
            ));
            continue;
        }
        // ` as` after it: a spelled ratio counts only before a comparison (`twice as`)
        let qs = quantities(&format!("{number} as"));
        if qs.len() != 1 || qs[0].written != number {
            problems.push(format!(
                "{ALLOWLIST}:{n}: `{number}` is not one number with a unit as this test reads \
                 them: write it as the page does."
            ));
            continue;
        }
        if allowed.iter().any(|a| a.page == page && a.number == number) {
            problems.push(format!(
                "{ALLOWLIST}:{n}: `{number}` on {page} is listed twice: remove one line."
            ));
            continue;
        }
        allowed.push(Allowed {
            line: n,
            page: page.to_string(),
            number: number.to_string(),
            kind: kind.to_string(),
            used: 0,
        });
    }
    allowed
}

fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pages(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The scanner on the forms the pages use: a test that read no numbers would pass on anything.
fn scanner_reads_the_forms() -> Vec<String> {
    let written = |text: &str| -> Vec<String> {
        quantities(&hide_targets(text))
            .into_iter()
            .map(|q| q.written)
            .collect()
    };
    let cases: [(&str, &[&str]); 12] = [
        ("took 28.8 ms, 18.4x the first", &["28.8 ms", "18.4x"]),
        ("an image of 48 x 48 pixels, in the 1980s", &[]),
        ("made more than six times faster", &["six times"]),
        (
            "twice as fast, 2.57 times the floor",
            &["twice", "2.57 times"],
        ),
        (
            "took 0.127 to 0.171 ms, 56–75 times",
            &["0.127 ms", "0.171 ms", "56 times", "75 times"],
        ),
        ("N = 131,072 to 6.20 ms", &["6.20 ms"]),
        ("runs 1.3·10<sup>11</sup> times", &[]),
        ("262,144 visibilities on sm_90, 0x1f", &[]),
        (
            "a 256 MiB array at 4196 GB/s, 50.9 TFLOP/s",
            &["256 MiB", "4196 GB/s", "50.9 TFLOP/s"],
        ),
        (
            "busy 71.4 per cent, 49.77% and 42 %",
            &["71.4 per cent", "49.77%", "42 %"],
        ),
        (
            "4 min 38 s, 1.94 GHz, 10.53 cycles",
            &["4 min", "38 s", "1.94 GHz", "10.53 cycles"],
        ),
        ("[a link](../x-10ms.md) and <https://example.org/5ms>", &[]),
    ];
    let mut problems = Vec::new();
    for (text, want) in cases {
        let got = written(text);
        if got != want {
            problems.push(format!(
                "the scanner read {got:?} in `{text}`, not {want:?}: fix numbers() before \
                 trusting the rest of this test."
            ));
        }
    }
    let one = |text: &str| quantities(text).remove(0);
    for (number, line, on) in [
        (
            "28.8 ms",
            "  10  10: tables of the column   28.8 ms     18.4x",
            true,
        ),
        (
            "28.8 ms",
            "  10  10: tables of the column  128.8 ms     18.4x",
            false,
        ),
        (
            "8.77 times",
            "      64     1.97     3.82     4.71     8.77    15.42",
            true,
        ),
        (
            "520.51 ms",
            "    Duration                         ms         520.51",
            true,
        ),
        (
            "76%",
            "    Issue Slots Busy               %        76.00",
            true,
        ),
        (
            "77.6%",
            "    L2 Cache Throughput               %          77.59",
            false,
        ),
    ] {
        if on_line(&one(number), line) != on {
            problems.push(format!(
                "on_line says `{number}` is {}on `{line}`: fix on_line before trusting the rest \
                 of this test.",
                if on { "not " } else { "" }
            ));
        }
    }
    problems
}

fn main() -> ExitCode {
    let root = root();
    let mut problems = scanner_reads_the_forms();
    // A chapter forked by scripts/fork-chapter: no mutations/, no other chapters, and results/
    // only where a figure's program reads it.
    let fork = !(root.join("mutations").is_dir() && root.join("results").is_dir());
    let allowed = read_allowlist(&root, fork, &mut problems);
    let mut checker = Checker {
        root: root.clone(),
        fork,
        unchecked: 0,
        recordings: HashMap::new(),
        allowed,
        problems,
        tied: 0,
        markers: 0,
        allowlisted: BTreeMap::new(),
    };
    let src = root.join("src");
    let mut files = Vec::new();
    pages(&src, &mut files);
    for path in &files {
        let page = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{page}: {e}"));
        checker.page(&page, &text);
    }
    for a in &checker.allowed {
        if a.used == 0 {
            checker.problems.push(format!(
                "{ALLOWLIST}:{}: `{}` is listed for {} but the page no longer states it outside a \
                 marker's line: remove the entry.",
                a.line, a.number, a.page
            ));
        }
    }
    let listed: usize = checker.allowlisted.values().sum();
    let by_kind: Vec<String> = KINDS
        .iter()
        .filter_map(|k| checker.allowlisted.get(*k).map(|n| format!("{k} {n}")))
        .collect();
    // In libtest's words, so that the logs' readers (scripts/check-forks) count it.
    println!("\nrunning 1 test");
    for p in &checker.problems {
        println!("{p}");
    }
    let ok = checker.problems.is_empty();
    println!(
        "test prose_numbers ... {}",
        if ok { "ok" } else { "FAILED" }
    );
    println!(
        "prose numbers in {} pages: {} tied to recordings by {} markers, {} on the allowlist \
         ({} entries; {})",
        files.len(),
        checker.tied,
        checker.markers,
        listed,
        checker.allowed.len(),
        by_kind.join(", ")
    );
    if fork {
        println!(
            "a chapter forked from the course: numbers tied to recordings it does not carry \
             (results/, other chapters), not checked here: {}",
            checker.unchecked
        );
    }
    if !ok {
        println!(
            "{} with the numbers in the prose (the rules: \
             crates/book-tests/tests/prose_numbers.rs)",
            match checker.problems.len() {
                1 => "1 problem".to_string(),
                n => format!("{n} problems"),
            }
        );
    }
    let (passed, failed) = if ok { (1, 0) } else { (0, 1) };
    println!(
        "\ntest result: {}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered \
         out\n",
        if ok { "ok" } else { "FAILED" }
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
