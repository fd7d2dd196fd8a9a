//! The workshop schedule (`src/workshop/schedule.md`) is computed from what each page holds.
//! `src/workshop/timings.txt` gives every page of `SUMMARY.md` one line: its mark (`core`,
//! taught in the two days; `half-day`, taught in the optional third half-day; or `reading`,
//! further reading) and the size class of each of its exercises (a `Solution` block or a
//! `Self-check questions` block, in page order). From the page itself the test counts the words
//! of prose an instructor teaches from, the lines of code it shows open and the programs whose
//! output it shows open, which are run live; the constants below turn those into minutes. The
//! plan puts the core pages into two days and the half-day pages into a third half-day, each
//! with its setup, breaks and wrap-up, and each within its limits. Each page shows its mark and
//! minutes at its top.
//!
//! The test fails when a page has no timing line or one too many, when a timing line names no
//! page, when a page's exercise classes do not match its exercises, when a day or the half-day
//! does not fit, when `schedule.md` or a page's top is stale, when a taught page of a chapter
//! lacks its instructor notes, or when those notes give minutes the schedule does not give the
//! page. `BLESS=1 cargo test -p book-tests --test schedule` rewrites the schedule's tables and
//! the pages' tops. The core path's independence from further reading is `core_path.rs`'s.

use std::path::{Path, PathBuf};

use mdbook_driver::MDBook;
use mdbook_driver::book::{BookItem, Chapter};

#[path = "schedule/core_path.rs"]
mod core_path;
#[path = "schedule/shown.rs"]
mod shown;

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
/// Lines of code a page shows open (listings, kernels, commands, compiler errors) that an
/// instructor walks through in a minute.
const LINES_PER_MINUTE: u32 = 12;
/// The exercise size classes, with their minutes: a question answered in a sentence or a
/// sketch; a small change to a given program; a kernel of its own with its host code; a
/// problem of several steps.
const CLASSES: [(&str, u32); 4] = [
    ("question", 5),
    ("small", 10),
    ("kernel", 20),
    ("project", 30),
];

/// When each day starts, in minutes after midnight.
const DAY_START: u32 = 9 * 60;
/// Day 1 opens with the setup check on the screen, and the few whose setup fails are helped.
const SETUP: u32 = 30;
/// A break in the middle of each half-day.
const BREAK: u32 = 15;
const LUNCH: u32 = 30;
/// Each day, and the half-day, ends with a wrap-up: questions, what comes next.
const WRAP_UP: u32 = 15;
/// A day's teaching and exercises, at most.
const DAY_CORE: u32 = 5 * 60 + 15;
/// A day with its setup, breaks and wrap-up, at most.
const DAY_PLANNED: u32 = 6 * 60 + 30;

/// Held while a test reads and rewrites a page: two tests write `schedule.md` (its top and its
/// tables), and run at the same time.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where a page stands: taught in the two days, in the optional third half-day, or further
/// reading. A page may build only on pages of its own tier or an earlier one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Core,
    HalfDay,
    Reading,
}

impl Tier {
    const ALL: [Tier; 3] = [Tier::Core, Tier::HalfDay, Tier::Reading];
    /// Its mark in `timings.txt`.
    fn mark(self) -> &'static str {
        match self {
            Tier::Core => "core",
            Tier::HalfDay => "half-day",
            Tier::Reading => "reading",
        }
    }
    /// How a page of this tier is named in prose, and after a link to it.
    fn name(self) -> &'static str {
        match self {
            Tier::Core => "core",
            Tier::HalfDay => "third half-day",
            Tier::Reading => "further reading",
        }
    }
    fn taught(self) -> bool {
        self != Tier::Reading
    }
}

/// One line of `timings.txt`.
#[derive(Clone, Debug)]
struct Timing {
    page: String,
    tier: Tier,
    classes: Vec<String>,
}

/// A page as the book lists it, with its minutes.
struct Page {
    label: String,
    path: String,
    tier: Tier,
    words: u32,
    lines: u32,
    runs: u32,
    teach: u32,
    exercise: u32,
    /// The minutes of each of its exercises, in page order.
    classes: Vec<u32>,
    /// Its `Instructor notes` block, if it has one.
    notes: Option<String>,
    /// The page as written, includes not expanded.
    content: String,
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
    fn minutes(&self, tier: Tier) -> u32 {
        self.pages
            .iter()
            .filter(|p| p.tier == tier)
            .map(Page::minutes)
            .sum()
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
    let marks: Vec<&str> = Tier::ALL.iter().map(|t| t.mark()).collect();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| format!("{TIMINGS}:{}: `{line}`: {why}", n + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        let [page, mark, classes @ ..] = &words[..] else {
            return Err(bad("not `PAGE MARK [CLASS ...]`"));
        };
        let Some(tier) = Tier::ALL.into_iter().find(|t| t.mark() == *mark) else {
            return Err(bad(&format!("the mark is one of {}", marks.join(", "))));
        };
        if let Some(c) = classes.iter().find(|c| class_minutes(c).is_none()) {
            let names: Vec<&str> = CLASSES.iter().map(|(n, _)| *n).collect();
            return Err(bad(&format!("`{c}` is not a class ({})", names.join(", "))));
        }
        timings.push(Timing {
            page: page.to_string(),
            tier,
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

/// `line` without its HTML comments (`<!-- ... -->`, the recording markers among them).
fn without_comments(line: &str) -> String {
    let mut visible = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("<!--") {
        visible.push_str(&rest[..at]);
        rest = rest[at..].split_once("-->").map_or("", |(_, after)| after);
    }
    visible.push_str(rest);
    visible
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
        let visible = without_comments(t);
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

/// An output: a whole `.txt` recording included, the printed output of one program run.
fn is_output(inc: &shown::Include) -> bool {
    !inc.rustdoc && inc.spec.is_none() && inc.file.ends_with(".txt")
}

/// What the page shows open, outside collapsed blocks (`<details>`: solutions, self-check
/// questions, instructor notes), which show nothing until opened: the non-blank lines of its
/// code blocks, includes expanded, and the programs whose whole output it shows, each run
/// live. A Rust block's hidden lines are not shown; an output is a run, not lines.
fn shown_open(content: &str, dir: &Path) -> (u32, u32) {
    let (mut lines, mut runs) = (0, 0);
    let (mut fence, mut rust, mut depth) = (false, false, 0usize);
    for line in content.lines() {
        let t = line.trim();
        if !fence {
            depth = (depth + t.matches("<details").count())
                .saturating_sub(t.matches("</details>").count());
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            rust = fence && t.trim_start_matches(['`', '~']).starts_with("rust");
            continue;
        }
        if !fence || depth > 0 || t.is_empty() {
            continue;
        }
        match shown::include(t) {
            Some(inc) if is_output(&inc) => runs += 1,
            Some(inc) => lines += shown::visible(dir, &inc).len() as u32,
            None if rust && (t == "#" || t.starts_with("# ")) => {}
            None => lines += 1,
        }
    }
    (lines, runs)
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

/// The page's `Instructor notes` block, without its opening line.
fn notes_of(content: &str) -> Option<String> {
    let start = content.find(NOTES)? + NOTES.len();
    let len = content[start..]
        .find("</details>")
        .unwrap_or(content.len() - start);
    Some(content[start..start + len].to_string())
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
    // Listings and outputs sit in code blocks, which `taught_text` leaves out.
    let file = root().join("src").join(&path);
    let (lines, runs) = shown_open(content, file.parent().unwrap_or(&file));
    let words = prose_words(&text);
    let classes: Vec<u32> = t.classes.iter().filter_map(|c| class_minutes(c)).collect();
    Ok(Page {
        label,
        tier: t.tier,
        words,
        lines,
        runs,
        teach: words.div_ceil(WORDS_PER_MINUTE)
            + lines.div_ceil(LINES_PER_MINUTE)
            + runs * MINUTES_PER_RUN,
        exercise: classes.iter().sum(),
        classes,
        notes: notes_of(content),
        content: content.to_string(),
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

fn clock(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The index `j` in `candidates` whose `before[j]` (minutes before page `j`) is nearest `target`.
fn nearest(candidates: impl Iterator<Item = usize>, before: &[u32], target: u32) -> Option<usize> {
    candidates.min_by_key(|&j| before[j].abs_diff(target))
}

/// One row of a day's plan: a run of pages, or a pause (setup, a break, lunch, the wrap-up).
enum Slot<'a> {
    Pages(&'a [&'a Page]),
    Pause(&'static str, u32),
}

impl Slot<'_> {
    fn minutes(&self) -> u32 {
        match self {
            Slot::Pages(pages) => pages.iter().map(|p| p.minutes()).sum(),
            Slot::Pause(_, m) => *m,
        }
    }
}

/// A day (or the half-day) of the plan.
struct Day<'a> {
    name: &'static str,
    /// Its teaching and exercises at most, and its whole plan at most.
    core_cap: u32,
    planned_cap: u32,
    slots: Vec<Slot<'a>>,
}

impl Day<'_> {
    fn core(&self) -> u32 {
        let pages = self.slots.iter().filter(|s| matches!(s, Slot::Pages(_)));
        pages.map(Slot::minutes).sum()
    }
    fn planned(&self) -> u32 {
        self.slots.iter().map(Slot::minutes).sum()
    }
}

/// The core minutes a day can hold: the smaller of `DAY_CORE` and what its pauses leave of
/// `DAY_PLANNED`.
fn day_cap(first: bool) -> u32 {
    let pauses = 2 * BREAK + LUNCH + WRAP_UP + if first { SETUP } else { 0 };
    DAY_CORE.min(DAY_PLANNED - pauses)
}

/// The half-day's: half a day's teaching, and half a day's plan less its break and wrap-up.
fn half_day_cap() -> u32 {
    (DAY_CORE / 2).min(DAY_PLANNED / 2 - BREAK - WRAP_UP)
}

/// `pages` cut in two at the page boundary nearest half their minutes.
fn halves<'a>(pages: &'a [&'a Page]) -> (&'a [&'a Page], &'a [&'a Page]) {
    let mut before = vec![0];
    for page in pages {
        before.push(before.last().unwrap() + page.minutes());
    }
    let total = before[pages.len()];
    let cut = nearest(0..=pages.len(), &before, total / 2).unwrap_or(0);
    pages.split_at(cut)
}

/// The plan: day 1 takes the core pages in book order while they fit its cap, day 2 the rest,
/// and the half-day the half-day pages, which must come after every core page. Lunch falls at
/// the page boundary nearest the middle of a day's minutes, and a break at the one nearest the
/// middle of each half. Each day fits if the test `each_day_fits` says so.
fn plan<'a>(taught: &'a [&'a Page]) -> Result<Vec<Day<'a>>, String> {
    let split = taught
        .iter()
        .position(|p| p.tier != Tier::Core)
        .unwrap_or(taught.len());
    let (core, half) = taught.split_at(split);
    if let Some(p) = half.iter().find(|p| p.tier == Tier::Core) {
        return Err(format!(
            "{} is core but comes after a page of the third half-day: the half-day's pages \
             come after every core page",
            p.path
        ));
    }
    let mut fit = 0;
    let mut sum = 0;
    while fit < core.len() && sum + core[fit].minutes() <= day_cap(true) {
        sum += core[fit].minutes();
        fit += 1;
    }
    let day = |name, first: bool, pages: &'a [&'a Page]| {
        let (morning, afternoon) = halves(pages);
        let (m1, m2) = halves(morning);
        let (a1, a2) = halves(afternoon);
        let mut slots = Vec::new();
        if first {
            slots.push(Slot::Pause("Setup: the setup check on the screen", SETUP));
        }
        slots.extend([
            Slot::Pages(m1),
            Slot::Pause("Break", BREAK),
            Slot::Pages(m2),
            Slot::Pause("Lunch", LUNCH),
            Slot::Pages(a1),
            Slot::Pause("Break", BREAK),
            Slot::Pages(a2),
            Slot::Pause("Wrap-up", WRAP_UP),
        ]);
        Day {
            name,
            core_cap: day_cap(first),
            planned_cap: DAY_PLANNED,
            slots,
        }
    };
    let mut days = vec![
        day("Day 1", true, &core[..fit]),
        day("Day 2", false, &core[fit..]),
    ];
    if !half.is_empty() {
        let (h1, h2) = halves(half);
        days.push(Day {
            name: "Day 3 (optional half-day)",
            core_cap: half_day_cap(),
            planned_cap: DAY_PLANNED / 2,
            slots: vec![
                Slot::Pages(h1),
                Slot::Pause("Break", BREAK),
                Slot::Pages(h2),
                Slot::Pause("Wrap-up", WRAP_UP),
            ],
        });
    }
    Ok(days)
}

/// The taught pages with minutes, in book order.
fn taught(units: &[Unit]) -> Vec<&Page> {
    units
        .iter()
        .flat_map(|u| &u.pages)
        .filter(|p| p.tier.taught() && p.minutes() > 0)
        .collect()
}

/// The plan as one timetable per day.
fn timetable(days: &[Day]) -> String {
    let mut out = String::new();
    for day in days {
        out += &format!(
            "\n### {}\n\n| time | what | teach | exercises | minutes |\n\
             | --- | --- | ---: | ---: | ---: |\n",
            day.name
        );
        let mut at = DAY_START;
        for slot in &day.slots {
            match slot {
                Slot::Pages([]) => continue,
                Slot::Pages(pages) => {
                    let (first, last) = (&pages[0].label, &pages[pages.len() - 1].label);
                    let what = if pages.len() == 1 {
                        first.clone()
                    } else {
                        format!("{first} to {last}")
                    };
                    let teach: u32 = pages.iter().map(|p| p.teach).sum();
                    let exercise: u32 = pages.iter().map(|p| p.exercise).sum();
                    out += &format!(
                        "| {} | {what} | {teach} | {exercise} | {} |\n",
                        clock(at),
                        slot.minutes()
                    );
                }
                Slot::Pause(what, minutes) => {
                    out += &format!("| {} | *{what}* | | | {minutes} |\n", clock(at));
                }
            }
            at += slot.minutes();
        }
        out += &format!(
            "\n{} ends at {}: {} planned, of which {} teaching and exercises.\n",
            day.name,
            clock(at),
            hours(day.planned()),
            hours(day.core())
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
    out += &format!("| teaching, per {LINES_PER_MINUTE} lines of code shown (rounded up) | 1 |\n");
    out += &format!("| teaching, per program run live | {MINUTES_PER_RUN} |\n");
    for (class, minutes) in CLASSES {
        out += &format!("| an exercise of class `{class}` | {minutes} |\n");
    }
    out += &format!("| setup, at the start of day 1 | {SETUP} |\n");
    out += &format!("| a break, in each half-day | {BREAK} |\n");
    out += &format!("| lunch | {LUNCH} |\n");
    out += &format!("| the wrap-up, at the end of each day | {WRAP_UP} |\n");
    out += &format!("| a day's teaching and exercises, at most | {DAY_CORE} |\n");
    out += &format!("| a day with all of the above, at most | {DAY_PLANNED} |\n");
    out
}

/// The computed part of `schedule.md`, between the markers.
fn computed(units: &[Unit], days: &[Day]) -> String {
    let mut out = String::from("\n## The constants\n\n");
    out += &constants();
    out += "\n## Per chapter\n\n";
    out += "| chapter | two days | third half-day | further reading |\n\
            | --- | ---: | ---: | ---: |\n";
    let cell = |m: u32| if m == 0 { String::new() } else { hours(m) };
    for unit in units {
        let [core, half, reading] = Tier::ALL.map(|t| unit.minutes(t));
        out += &format!(
            "| {} | {} | {} | {} |\n",
            unit.label,
            cell(core),
            cell(half),
            cell(reading)
        );
    }
    let [core, half, reading] = Tier::ALL.map(|t| units.iter().map(|u| u.minutes(t)).sum());
    out += &format!(
        "| **all** | **{}** | **{}** | **{}** |\n",
        hours(core),
        hours(half),
        hours(reading)
    );
    out += "\n## The plan\n";
    out += &timetable(days);
    out += "\n## Per page\n";
    for unit in units.iter().filter(|u| u.is_chapter) {
        out += &format!(
            "\n### {}\n\n| page | mark | words | lines | live runs | teach | exercises |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
            unit.label
        );
        for page in &unit.pages {
            out += &format!(
                "| [{}](../{}) | {} | {} | {} | {} | {} | {} |\n",
                page.label,
                page.path,
                page.tier.mark(),
                page.words,
                page.lines,
                page.runs,
                page.teach,
                page.exercise
            );
        }
    }
    out
}

/// What a page shows under its title: its mark and its minutes.
fn page_top(page: &Page) -> String {
    let mark = match page.tier {
        Tier::Core => "Core path of the two-day workshop",
        Tier::HalfDay => "Optional third half-day of the workshop",
        Tier::Reading => "Further reading, outside the two-day workshop's core path",
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

/// Every taught page of a chapter ends with notes for the instructor who teaches it.
#[test]
fn every_taught_page_of_a_chapter_has_instructor_notes() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let missing: Vec<&str> = units
        .iter()
        .filter(|u| u.is_chapter)
        .flat_map(|u| &u.pages)
        .filter(|p| p.tier.taught() && p.notes.is_none())
        .map(|p| p.path.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "these pages are taught but end without a `{NOTES}` block:\n{}",
        missing.join("\n")
    );
}

#[test]
fn each_day_fits() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let taught = taught(&units);
    let days = plan(&taught).unwrap_or_else(|why| panic!("{why}"));
    for day in &days {
        assert!(
            day.core() <= day.core_cap,
            "{} takes {} of teaching and exercises, more than the {} it can hold: mark pages \
             of it as reading in {TIMINGS}, and say on schedule.md what moved and why",
            day.name,
            hours(day.core()),
            hours(day.core_cap)
        );
        assert!(
            day.planned() <= day.planned_cap,
            "{} is planned for {}, more than {}",
            day.name,
            hours(day.planned()),
            hours(day.planned_cap)
        );
    }
}

/// The minutes that the notes of `page` may give: its teaching, its exercises, both, or one
/// exercise's; on a chapter's first page, also the chapter's taught minutes.
fn minutes_for_notes(unit: &Unit, page: &Page) -> Vec<u32> {
    let mut allowed = vec![page.teach, page.exercise, page.minutes()];
    allowed.extend(&page.classes);
    if std::ptr::eq(page, &unit.pages[0]) {
        allowed.extend([Tier::Core, Tier::HalfDay].map(|t| unit.minutes(t)));
    }
    allowed
}

/// Every number of minutes in `notes`: `N minutes`, `N minute`, `N min`. An hour is refused,
/// so that every figure is one this test can compare.
fn minutes_in_notes(notes: &str) -> Result<Vec<u32>, String> {
    let words: Vec<&str> = notes.split_whitespace().collect();
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        if bare.starts_with("hour") {
            return Err(format!(
                "`{}`: give the time in minutes",
                words[i.saturating_sub(3)..(i + 1).min(words.len())].join(" ")
            ));
        }
        if matches!(bare, "minute" | "minutes" | "min") && i > 0 {
            let number = words[i - 1].trim_start_matches(['(', '~']);
            if let Ok(n) = number.parse::<u32>() {
                found.push(n);
            }
        }
    }
    Ok(found)
}

/// An instructor who reads a page's notes during the workshop keeps the schedule's minutes.
#[test]
fn instructor_notes_agree_with_the_schedule() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let mut wrong = Vec::new();
    for unit in &units {
        for page in &unit.pages {
            let Some(notes) = &page.notes else { continue };
            let allowed = minutes_for_notes(unit, page);
            match minutes_in_notes(notes) {
                Err(why) => wrong.push(format!("{}: {why}", page.path)),
                Ok(found) => {
                    for n in found.into_iter().filter(|n| !allowed.contains(n)) {
                        wrong.push(format!(
                            "{}: the notes say {n} minutes; the schedule gives the page \
                             {} of teaching and {} of exercises ({})",
                            page.path,
                            page.teach,
                            page.exercise,
                            page.classes
                                .iter()
                                .map(|m| m.to_string())
                                .collect::<Vec<_>>()
                                .join(" + ")
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "instructor notes that disagree with the schedule:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_core_path_stands_on_its_own() {
    let units = units().unwrap_or_else(|problems| panic!("{problems}"));
    let problems = core_path::problems(&units);
    assert!(
        problems.is_empty(),
        "the taught path leans on pages it does not teach ({}):\n{}",
        core_path::HOW,
        problems.join("\n")
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
    let taught = taught(&units);
    let days = plan(&taught).unwrap_or_else(|why| panic!("{why}"));
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
        format!("one minute per {LINES_PER_MINUTE} lines of code"),
        format!("plus {} minutes per program", spelled(MINUTES_PER_RUN)),
        format!(
            "take {q} minutes for a question, {sm} for a small change to a given program, {k} for a kernel with its host code and {pr} for a problem of several steps"
        ),
        format!("at most {} of teaching and exercises", hours(DAY_CORE)),
        format!("a day of at most {}", hours(DAY_PLANNED)),
    ] {
        assert!(
            prose.contains(&quoted),
            "{SCHEDULE} does not say `{quoted}`, as the constants of the schedule test give it"
        );
    }
    let start = begin + BEGIN.len();
    let current = &page[start..end];
    let fresh = format!("{}\n", computed(&units, &days));
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
