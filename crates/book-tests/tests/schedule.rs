//! The workshop schedule (`src/workshop/schedule.md`) is computed from what each page holds.
//! `src/workshop/timings.txt` gives every page of `SUMMARY.md` one line: whether it is on the
//! workshop's core path or further reading, and the size class of each of its exercises (a
//! `Solution` block or a `Self-check questions` block, in page order). From the page itself the
//! test counts the words of prose an instructor teaches from and the programs whose output it
//! shows, which are run live; the constants below turn those into minutes. The core path must
//! fit two days of six hours. Each page shows its mark and minutes at its top.
//!
//! The test fails when a page has no timing line or one too many, when a timing line names no
//! page, when a page's exercise classes do not match its exercises, when the core path does not
//! fit, when `schedule.md` or a page's top is stale, or when a taught page of a chapter lacks
//! its instructor notes. `BLESS=1 cargo test -p book-tests --test schedule` rewrites the
//! schedule's tables and the pages' tops.

use std::path::{Path, PathBuf};

use mdbook_driver::MDBook;
use mdbook_driver::book::{BookItem, Chapter};

const TIMINGS: &str = "src/workshop/timings.txt";
const SCHEDULE: &str = "src/workshop/schedule.md";
const BEGIN: &str =
    "<!-- BEGIN computed from timings.txt: BLESS=1 cargo test -p book-tests --test schedule -->";
const END: &str = "<!-- END computed -->";
const NOTES: &str = "<details><summary>Instructor notes</summary>";
/// The block under a page's title that shows its mark and minutes.
const PAGE_BEGIN: &str = "<!-- BEGIN computed: the page's timing (the schedule test writes it) -->";

/// Words of a page's prose an instructor covers in a minute. A speaker says about 130 words a
/// minute; the instructor summarises a page rather than reading it out, and the learners have
/// the page in front of them.
const WORDS_PER_MINUTE: u32 = 180;
/// Minutes for each program a page runs live: start it, read its output with the room.
const MINUTES_PER_RUN: u32 = 2;
/// The exercise size classes, with their minutes: a question answered in a sentence or a
/// sketch; a small change to a given program; a kernel of its own with its host code; a
/// problem of several steps.
const CLASSES: [(&str, u32); 4] = [
    ("question", 5),
    ("small", 10),
    ("kernel", 20),
    ("project", 30),
];
/// Held while a test reads and rewrites a page: two tests write `schedule.md` (its top and its
/// tables), and run at the same time.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Two days of six hours of teaching and exercises.
const CORE_BUDGET: u32 = 2 * 6 * 60;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One line of `timings.txt`.
#[derive(Clone, Debug)]
struct Timing {
    page: String,
    core: bool,
    classes: Vec<String>,
}

/// A page as the book lists it, with its minutes.
struct Page {
    label: String,
    path: String,
    core: bool,
    words: u32,
    runs: u32,
    teach: u32,
    exercise: u32,
    has_notes: bool,
}

impl Page {
    fn minutes(&self) -> u32 {
        self.teach + self.exercise
    }
    fn mark(&self) -> &'static str {
        if self.core { "core" } else { "reading" }
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
    fn core(&self) -> impl Iterator<Item = &Page> {
        self.pages.iter().filter(|p| p.core)
    }
    fn teach(&self) -> u32 {
        self.core().map(|p| p.teach).sum()
    }
    fn exercise(&self) -> u32 {
        self.core().map(|p| p.exercise).sum()
    }
}

fn class_minutes(class: &str) -> Option<u32> {
    CLASSES
        .iter()
        .find(|(name, _)| *name == class)
        .map(|&(_, m)| m)
}

fn read_timings(text: &str) -> Result<Vec<Timing>, String> {
    let mut timings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| format!("{TIMINGS}:{}: `{line}`: {why}", n + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [page, mark, classes @ ..] = &words[..] else {
            return Err(bad("not `PAGE core|reading [CLASS ...]`"));
        };
        let core = match *mark {
            "core" => true,
            "reading" => false,
            _ => return Err(bad("the mark is `core` or `reading`")),
        };
        if let Some(c) = classes.iter().find(|c| class_minutes(c).is_none()) {
            let names: Vec<&str> = CLASSES.iter().map(|(n, _)| *n).collect();
            return Err(bad(&format!("`{c}` is not a class ({})", names.join(", "))));
        }
        timings.push(Timing {
            page: page.to_string(),
            core,
            classes: classes.iter().map(|c| c.to_string()).collect(),
        });
    }
    Ok(timings)
}

/// The page without its computed top, its instructor notes, code blocks and HTML comments.
fn taught_text(content: &str) -> String {
    let mut out = String::new();
    let (mut fence, mut skip_until) = (false, None::<&str>);
    for line in content.lines() {
        let t = line.trim();
        if let Some(end) = skip_until {
            if t.contains(end) {
                skip_until = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        if t.starts_with(PAGE_BEGIN) || t.starts_with(BEGIN) {
            skip_until = Some(END);
            continue;
        }
        if t.starts_with(NOTES) {
            skip_until = Some("</details>");
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Words of prose, counted as `prose-stats` counts them: headings, tables, includes, HTML and
/// block quotes (the questions, objectives and exercise statements) left out; inline code one
/// word; HTML comments (the recording markers) not read.
fn prose_words(text: &str) -> u32 {
    let mut words = 0;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.contains("{{#") || t.starts_with(['#', '|', '<', '>']) {
            continue;
        }
        let mut visible = String::new();
        let mut rest = t;
        while let Some(at) = rest.find("<!--") {
            visible.push_str(&rest[..at]);
            rest = rest[at..].split_once("-->").map_or("", |(_, after)| after);
        }
        visible.push_str(rest);
        for (i, part) in visible.split('`').enumerate() {
            let in_code = i % 2 == 1;
            words += if in_code {
                1
            } else {
                part.split_whitespace().count() as u32
            };
        }
    }
    words
}

/// Programs whose output the page shows: each output included from a `.txt` recording.
fn live_runs(text: &str) -> u32 {
    text.lines()
        .filter(|l| l.contains("{{#include") && l.trim_end().ends_with(".txt}}"))
        .count() as u32
}

/// Exercises on the page, in order: its `Solution` and `Self-check questions` blocks.
fn exercises(text: &str) -> usize {
    text.matches("<summary>Solution").count() + text.matches("<summary>Self-check").count()
}

fn label(chapter: &Chapter) -> String {
    match &chapter.number {
        Some(number) => format!("{number} {}", chapter.name),
        None => chapter.name.clone(),
    }
}

/// (label, path, content) of `chapter` and its sub-pages.
fn pages_of(chapter: &Chapter, found: &mut Vec<(String, String, String)>) {
    if let Some(path) = &chapter.path {
        let path = path.to_string_lossy().replace('\\', "/");
        found.push((label(chapter), path, chapter.content.clone()));
    }
    for item in &chapter.sub_items {
        if let BookItem::Chapter(sub) = item {
            pages_of(sub, found);
        }
    }
}

/// The page's minutes from its line of `timings.txt` and what it holds.
fn page(label: String, path: String, content: &str, t: &Timing) -> Result<Page, String> {
    let text = taught_text(content);
    let found = exercises(&text);
    if found != t.classes.len() {
        return Err(format!(
            "{path} has {found} exercises (Solution or Self-check blocks) but {} classes in {TIMINGS}",
            t.classes.len()
        ));
    }
    // Outputs sit in code blocks, which `taught_text` leaves out.
    let (words, runs) = (prose_words(&text), live_runs(content));
    Ok(Page {
        label,
        core: t.core,
        words,
        runs,
        teach: words.div_ceil(WORDS_PER_MINUTE) + runs * MINUTES_PER_RUN,
        exercise: t.classes.iter().filter_map(|c| class_minutes(c)).sum(),
        has_notes: content.contains(NOTES),
        path,
    })
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
        for (label, path, content) in found {
            let lines: Vec<&Timing> = timings.iter().filter(|t| t.page == path).collect();
            match lines[..] {
                [t] => match page(label, path.clone(), &content, t) {
                    Ok(p) => pages.push(p),
                    Err(why) => problems.push(why),
                },
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

/// The core path's pages in book order, with the minutes before each (one more entry than
/// pages: the last is the total), and where the plan cuts it: the day break at the page
/// boundary nearest half the minutes, and each day's midday break at the page boundary
/// nearest half that day's minutes.
fn cuts(units: &[Unit]) -> (Vec<&Page>, Vec<u32>, [usize; 5]) {
    let taught: Vec<&Page> = units
        .iter()
        .flat_map(|u| u.core())
        .filter(|p| p.minutes() > 0)
        .collect();
    let n = taught.len();
    let mut before = vec![0];
    for page in &taught {
        before.push(before.last().unwrap() + page.minutes());
    }
    let total = before[n];
    let day = nearest(1..n, &before, total / 2).unwrap_or(n / 2);
    let morning1 = nearest(1..day, &before, before[day] / 2).unwrap_or(0);
    let morning2 = nearest(day + 1..n, &before, (before[day] + total) / 2).unwrap_or(day);
    (taught, before, [0, morning1, day, morning2, n])
}

/// The two-day plan, as a table of half-days.
fn plan(units: &[Unit]) -> String {
    let (taught, _, cuts) = cuts(units);
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
        let teach: u32 = pages.iter().map(|p| p.teach).sum();
        let exercise: u32 = pages.iter().map(|p| p.exercise).sum();
        out += &format!(
            "| {name} | {} | {} | {teach} | {exercise} | {} |\n",
            first.label,
            last.label,
            hours(teach + exercise)
        );
    }
    out
}

/// A small number in words, as the schedule's prose writes it.
fn spelled(n: u32) -> String {
    let words = ["zero", "one", "two", "three", "four", "five"];
    words
        .get(n as usize)
        .map_or(n.to_string(), |w| w.to_string())
}

/// The constants the minutes come from, as a table.
fn constants() -> String {
    let mut out = String::from("| what | minutes |\n| --- | ---: |\n");
    out += &format!("| teaching, per {WORDS_PER_MINUTE} words of prose (rounded up) | 1 |\n");
    out += &format!("| teaching, per program run live | {MINUTES_PER_RUN} |\n");
    for (class, minutes) in CLASSES {
        out += &format!("| an exercise of class `{class}` | {minutes} |\n");
    }
    out += &format!("| the core path, at most | {CORE_BUDGET} |\n");
    out
}

/// The computed part of `schedule.md`, between the markers.
fn computed(units: &[Unit]) -> String {
    let mut out = String::from("\n## The constants\n\n");
    out += &constants();
    out += "\n## Per chapter, the core path\n\n";
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
    let reading: u32 = units
        .iter()
        .flat_map(|u| &u.pages)
        .filter(|p| !p.core)
        .map(Page::minutes)
        .sum();
    out += &format!(
        "\nThe pages marked further reading would take another {} at the same rates.\n",
        hours(reading)
    );
    out += "\n## Two days, or four half-days\n\n";
    out += "Each row is a half-day of the core path, breaks not included.\n\n";
    out += &plan(units);
    out += "\n## Per page\n";
    for unit in units.iter().filter(|u| u.is_chapter) {
        out += &format!(
            "\n### {}\n\n| page | path | words | live runs | teach | exercises |\n\
             | --- | --- | ---: | ---: | ---: | ---: |\n",
            unit.label
        );
        for page in &unit.pages {
            out += &format!(
                "| [{}](../{}) | {} | {} | {} | {} | {} |\n",
                page.label,
                page.path,
                page.mark(),
                page.words,
                page.runs,
                page.teach,
                page.exercise
            );
        }
        out += &format!(
            "| **core: {}** | | | | **{}** | **{}** |\n",
            hours(unit.teach() + unit.exercise()),
            unit.teach(),
            unit.exercise()
        );
    }
    out
}

/// What a page shows under its title: its mark and its minutes.
fn page_top(page: &Page) -> String {
    let mark = match page.core {
        true => "Core path of the two-day workshop",
        false => "Further reading, outside the two-day workshop's core path",
    };
    let runs = match page.runs {
        0 => String::new(),
        1 => " with 1 program run live".to_string(),
        n => format!(" with {n} programs run live"),
    };
    let exercises = match page.exercise {
        0 => String::new(),
        m => format!("; exercises {m} min"),
    };
    // A line of HTML rather than prose: a mark, like a table's cell, not a sentence to read.
    format!(
        "{PAGE_BEGIN}\n<p><em>{mark}: teaching {} min{runs}{exercises}.</em></p>\n{END}\n",
        page.teach
    )
}

/// The page's text with `top` in place of its computed top, or under its title if it has none.
fn with_top(content: &str, top: &str) -> Option<String> {
    if let Some(begin) = content.find(PAGE_BEGIN) {
        let end = begin + content[begin..].find(END)? + END.len();
        let end = end + content[end..].find('\n').map_or(0, |n| n + 1);
        return Some(format!("{}{top}{}", &content[..begin], &content[end..]));
    }
    let title = content.find("# ")?;
    let after = title + content[title..].find('\n')? + 1;
    Some(format!("{}\n{top}{}", &content[..after], &content[after..]))
}

#[test]
fn every_page_has_one_timing_line() {
    if let Err(problems) = units() {
        panic!("{problems}");
    }
}

/// Every page of the core path ends with notes for the instructor who teaches it.
#[test]
fn every_taught_page_of_a_chapter_has_instructor_notes() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let missing: Vec<&str> = units
        .iter()
        .filter(|u| u.is_chapter)
        .flat_map(|u| &u.pages)
        .filter(|p| p.core && !p.has_notes)
        .map(|p| p.path.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "these pages are taught but end without a `{NOTES}` block:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_core_path_fits_two_days() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let core: u32 = units.iter().map(|u| u.teach() + u.exercise()).sum();
    let (_, before, cuts) = cuts(&units);
    for (day, (start, end)) in [(cuts[0], cuts[2]), (cuts[2], cuts[4])]
        .into_iter()
        .enumerate()
    {
        let minutes = before[end] - before[start];
        assert!(
            minutes <= CORE_BUDGET / 2,
            "day {} of the core path takes {}, more than six hours: mark more pages as reading \
             in {TIMINGS}",
            day + 1,
            hours(minutes)
        );
    }
    assert!(
        core <= CORE_BUDGET,
        "the core path takes {} by the schedule's numbers, more than two days of six hours \
         ({}): mark more pages as reading in {TIMINGS}",
        hours(core),
        hours(CORE_BUDGET)
    );
}

#[test]
fn every_page_shows_its_mark_and_minutes() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let mut stale = Vec::new();
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    for page in units.iter().flat_map(|u| &u.pages) {
        let path = root().join("src").join(&page.path);
        let content =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", page.path));
        let top = page_top(page);
        if content.contains(&top) {
            continue;
        }
        let Some(fresh) = with_top(&content, &top) else {
            panic!(
                "src/{} has no `# ` title to put its timing under",
                page.path
            );
        };
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&path, fresh).unwrap_or_else(|e| panic!("{}: {e}", page.path));
        } else {
            stale.push(format!("src/{}", page.path));
        }
    }
    assert!(
        stale.is_empty(),
        "these pages do not show the timing the schedule computes for them (run \
         `BLESS=1 cargo test -p book-tests --test schedule` to write it):\n{}",
        stale.join("\n")
    );
}

#[test]
fn schedule_is_computed_from_the_timings() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let path = root().join(SCHEDULE);
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{SCHEDULE}: {e}"));
    // The schedule page has a computed top of its own: its tables' END is the one after BEGIN.
    let begin = page.find(BEGIN);
    let end = begin.and_then(|b| page[b..].find(END).map(|e| b + e));
    let (Some(begin), Some(end)) = (begin, end) else {
        panic!("{SCHEDULE} lacks the lines `{BEGIN}` and `{END}`");
    };
    // The prose above the tables quotes the constants; it must quote these.
    let prose = page[..begin]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let [q, sm, k, pr] = CLASSES.map(|(_, m)| m);
    for quoted in [
        format!("one minute per {WORDS_PER_MINUTE} words of prose"),
        format!("plus {} minutes per program", spelled(MINUTES_PER_RUN)),
        format!(
            "take {q} minutes for a question, {sm} for a small change to a given program, {k} for a kernel with its host code and {pr} for a problem of several steps"
        ),
    ] {
        assert!(
            prose.contains(&quoted),
            "{SCHEDULE} does not say `{quoted}`, as the constants of the schedule test give it"
        );
    }
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
