//! The workshop schedule (`src/workshop/schedule.md`) is computed from one data file,
//! `src/workshop/timings.txt`, which gives every page of the book its teaching and exercise
//! minutes. This test fails when a page of `SUMMARY.md` has no timing line, when a timing line
//! names no page, when the tables in `schedule.md` are not what the timings give, or when a
//! taught page of a chapter lacks its instructor notes.
//! `BLESS=1 cargo test -p book-tests --test schedule` rewrites the tables.

use std::path::{Path, PathBuf};

use mdbook_driver::MDBook;
use mdbook_driver::book::{BookItem, Chapter};

const TIMINGS: &str = "src/workshop/timings.txt";
const SCHEDULE: &str = "src/workshop/schedule.md";
const BEGIN: &str =
    "<!-- BEGIN computed from timings.txt: BLESS=1 cargo test -p book-tests --test schedule -->";
const END: &str = "<!-- END computed -->";
const NOTES: &str = "<details><summary>Instructor notes</summary>";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One line of `timings.txt`.
#[derive(Clone, Debug)]
struct Timing {
    page: String,
    teach: u32,
    exercise: u32,
}

/// A page as the book lists it, with its minutes.
struct Page {
    label: String,
    path: String,
    teach: u32,
    exercise: u32,
    has_notes: bool,
}

impl Page {
    fn minutes(&self) -> u32 {
        self.teach + self.exercise
    }
}

/// A top-level entry of `SUMMARY.md` (a chapter, or a page outside the chapters) and the
/// pages under it, itself first.
struct Unit {
    label: String,
    is_chapter: bool,
    pages: Vec<Page>,
}

impl Unit {
    fn teach(&self) -> u32 {
        self.pages.iter().map(|p| p.teach).sum()
    }
    fn exercise(&self) -> u32 {
        self.pages.iter().map(|p| p.exercise).sum()
    }
}

fn read_timings(text: &str) -> Result<Vec<Timing>, String> {
    let mut timings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || format!("{TIMINGS}:{}: `{line}` is not `PAGE TEACH EXERCISE`", n + 1);
        let [page, teach, exercise] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            return Err(bad());
        };
        timings.push(Timing {
            page: page.to_string(),
            teach: teach.parse().map_err(|_| bad())?,
            exercise: exercise.parse().map_err(|_| bad())?,
        });
    }
    Ok(timings)
}

fn label(chapter: &Chapter) -> String {
    match &chapter.number {
        Some(number) => format!("{number} {}", chapter.name),
        None => chapter.name.clone(),
    }
}

/// (label, path, whether the page has instructor notes) of `chapter` and its sub-pages.
fn pages_of(chapter: &Chapter, found: &mut Vec<(String, String, bool)>) {
    if let Some(path) = &chapter.path {
        let path = path.to_string_lossy().replace('\\', "/");
        found.push((label(chapter), path, chapter.content.contains(NOTES)));
    }
    for item in &chapter.sub_items {
        if let BookItem::Chapter(sub) = item {
            pages_of(sub, found);
        }
    }
}

/// The book's top-level entries, each with its pages' timings; every page must have exactly
/// one timing line and every timing line a page.
fn units() -> Result<Vec<Unit>, String> {
    let book =
        MDBook::load(root()).map_err(|e| format!("mdBook could not load the book: {e:#}"))?;
    let text = std::fs::read_to_string(root().join(TIMINGS))
        .map_err(|e| format!("cannot read {TIMINGS}: {e}"))?;
    let timings = read_timings(&text)?;
    let mut problems = Vec::new();
    let mut listed = Vec::new();
    let mut units = Vec::new();
    for item in &book.book.items {
        let BookItem::Chapter(chapter) = item else {
            continue;
        };
        let mut found = Vec::new();
        pages_of(chapter, &mut found);
        let mut pages = Vec::new();
        for (label, path, has_notes) in found {
            let lines: Vec<&Timing> = timings.iter().filter(|t| t.page == path).collect();
            match lines[..] {
                [t] => pages.push(Page {
                    label,
                    path: path.clone(),
                    teach: t.teach,
                    exercise: t.exercise,
                    has_notes,
                }),
                [] => problems.push(format!("{path} (in SUMMARY.md) has no line in {TIMINGS}")),
                _ => problems.push(format!("{path} has {} lines in {TIMINGS}", lines.len())),
            }
            listed.push(path);
        }
        units.push(Unit {
            label: label(chapter),
            is_chapter: chapter.number.is_some() && !chapter.sub_items.is_empty(),
            pages,
        });
    }
    for t in &timings {
        if !listed.contains(&t.page) {
            problems.push(format!(
                "{TIMINGS} times {}, which SUMMARY.md does not list",
                t.page
            ));
        }
    }
    if problems.is_empty() {
        Ok(units)
    } else {
        Err(problems.join("\n"))
    }
}

fn hours(minutes: u32) -> String {
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m:02} min"),
    }
}

/// The index `j` in `candidates` whose `before[j]` (minutes before page `j`) is nearest `target`.
fn nearest(candidates: impl Iterator<Item = usize>, before: &[u32], target: u32) -> Option<usize> {
    candidates.min_by_key(|&j| before[j].abs_diff(target))
}

/// The two-day plan: the day break falls at the chapter boundary nearest half the minutes, and
/// each day's midday break at the page boundary nearest half that day's minutes.
fn plan(units: &[Unit]) -> String {
    // The taught pages in book order, and whether each starts a chapter.
    let mut taught: Vec<(&Page, bool)> = Vec::new();
    for unit in units {
        let mut first = true;
        for page in unit.pages.iter().filter(|p| p.minutes() > 0) {
            taught.push((page, first));
            first = false;
        }
    }
    let n = taught.len();
    let mut before = vec![0];
    for (page, _) in &taught {
        before.push(before.last().unwrap() + page.minutes());
    }
    let total = before[n];
    let day = nearest((1..n).filter(|&j| taught[j].1), &before, total / 2).unwrap_or(n / 2);
    let morning1 = nearest(1..day, &before, before[day] / 2).unwrap_or(0);
    let morning2 = nearest(day + 1..n, &before, (before[day] + total) / 2).unwrap_or(day);
    let cuts = [0, morning1, day, morning2, n];
    let names = [
        "Day 1 morning",
        "Day 1 afternoon",
        "Day 2 morning",
        "Day 2 afternoon",
    ];
    let mut out = String::from(
        "| session | from | to | teach | exercises | total |\n| --- | --- | --- | ---: | ---: | ---: |\n",
    );
    for (i, name) in names.iter().enumerate() {
        let pages = &taught[cuts[i]..cuts[i + 1]];
        let (Some(first), Some(last)) = (pages.first(), pages.last()) else {
            continue;
        };
        let teach: u32 = pages.iter().map(|(p, _)| p.teach).sum();
        let exercise: u32 = pages.iter().map(|(p, _)| p.exercise).sum();
        out += &format!(
            "| {name} | {} | {} | {teach} | {exercise} | {} |\n",
            first.0.label,
            last.0.label,
            hours(teach + exercise)
        );
    }
    out
}

/// The computed part of `schedule.md`, between the markers.
fn computed(units: &[Unit]) -> String {
    let mut out = String::from("\n## Per chapter\n\n");
    out += "| chapter | teach | exercises | total |\n| --- | ---: | ---: | ---: |\n";
    let timed = || units.iter().filter(|u| u.teach() + u.exercise() > 0);
    for unit in timed() {
        out += &format!(
            "| {} | {} | {} | {} |\n",
            unit.label,
            unit.teach(),
            unit.exercise(),
            hours(unit.teach() + unit.exercise())
        );
    }
    let teach: u32 = units.iter().map(Unit::teach).sum();
    let exercise: u32 = units.iter().map(Unit::exercise).sum();
    out += &format!(
        "| **all** | **{teach}** | **{exercise}** | **{}** |\n",
        hours(teach + exercise)
    );
    out += "\n## Two days, or four half-days\n\n";
    out += "Each row is a half-day of teaching, breaks not included.\n\n";
    out += &plan(units);
    out += "\n## Per page\n";
    for unit in timed().filter(|u| u.is_chapter) {
        out += &format!(
            "\n### {}\n\n| page | teach | exercises |\n| --- | ---: | ---: |\n",
            unit.label
        );
        for page in &unit.pages {
            out += &format!(
                "| [{}](../{}) | {} | {} |\n",
                page.label, page.path, page.teach, page.exercise
            );
        }
        out += &format!(
            "| **chapter: {}** | **{}** | **{}** |\n",
            hours(unit.teach() + unit.exercise()),
            unit.teach(),
            unit.exercise()
        );
    }
    out
}

#[test]
fn every_page_has_one_timing_line() {
    if let Err(problems) = units() {
        panic!("{problems}");
    }
}

#[test]
fn every_taught_page_of_a_chapter_has_instructor_notes() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let missing: Vec<&str> = units
        .iter()
        .filter(|u| u.is_chapter)
        .flat_map(|u| &u.pages)
        .filter(|p| p.minutes() > 0 && !p.has_notes)
        .map(|p| p.path.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "these pages are taught but end without a `{NOTES}` block:\n{}",
        missing.join("\n")
    );
}

#[test]
fn schedule_is_computed_from_the_timings() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let path = root().join(SCHEDULE);
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{SCHEDULE}: {e}"));
    let (Some(begin), Some(end)) = (page.find(BEGIN), page.find(END)) else {
        panic!("{SCHEDULE} lacks the lines `{BEGIN}` and `{END}`");
    };
    let start = begin + BEGIN.len();
    let current = &page[start..end];
    let fresh = format!("{}\n", computed(&units));
    if current == fresh {
        return;
    }
    if std::env::var_os("BLESS").is_some() {
        let rewritten = format!("{}{fresh}{}", &page[..start], &page[end..]);
        std::fs::write(&path, rewritten).unwrap_or_else(|e| panic!("{SCHEDULE}: {e}"));
        return;
    }
    panic!(
        "{SCHEDULE} is stale: its tables are not what {TIMINGS} gives. \
         Run `BLESS=1 cargo test -p book-tests --test schedule` to rewrite them."
    );
}

/// `4 min 38 s` or `46 s` from a `time` line such as `real\t4m38.011s`, rounded to the second.
fn spoken_time(log: &str) -> Option<String> {
    let value = log.lines().rev().find_map(|l| l.strip_prefix("real\t"))?;
    let (minutes, seconds) = value.strip_suffix('s')?.split_once('m')?;
    let total = minutes.parse::<f64>().ok()? * 60.0 + seconds.parse::<f64>().ok()?;
    let total = total.round() as u64;
    Some(match total / 60 {
        0 => format!("{total} s"),
        m => format!("{m} min {} s", total % 60),
    })
}

/// The setup page and the README quote the first and the second `cargo test` of a fresh clone
/// that `.ci/run` recorded in `results/newcomer/`.
#[test]
fn setup_times_are_the_recorded_ones() {
    let read = |path: &str| {
        std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let first = spoken_time(&read("results/newcomer/stage1.log")).expect("a `real` time");
    let again = spoken_time(&read("results/newcomer/stage1-again.log")).expect("a `real` time");
    for page in ["README.md", "src/workshop/setup.md"] {
        let text = read(page).split_whitespace().collect::<Vec<_>>().join(" ");
        for (quoted, what) in [
            (format!("took {first}"), "first run"),
            (format!("nothing changed {again}"), "second run"),
        ] {
            assert!(
                text.contains(&quoted),
                "{page} does not quote the recorded {what} of cargo test (`{quoted}`, results/newcomer/)"
            );
        }
    }
}
