//! The rendered book: it builds with the pinned mdBook (the same code as the `mdbook` binary
//! the README installs), every include resolves, every internal link leads somewhere, and every
//! block the book says must not compile is one that `compile_fail.rs` checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use book_tests::{include, shown_lines};
use libtest_mimic::{Arguments, Failed, Trial};
use mdbook_driver::MDBook;
use mdbook_driver::book::{Book, BookItem};
use mdbook_driver::builtin_renderers::MarkdownRenderer;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load() -> Result<MDBook, Failed> {
    MDBook::load(root()).map_err(|e| format!("mdBook could not load the book: {e:#}").into())
}

/// Every chapter after mdBook's preprocessors: (path, markdown).
fn expanded() -> Result<Vec<(String, String)>, Failed> {
    let (book, _) = load()?
        .preprocess_book(&MarkdownRenderer::new())
        .map_err(|e| format!("mdBook could not expand the book: {e:#}"))?;
    Ok(chapters(&book))
}

/// Every chapter as written, before any include is expanded: (path, markdown).
fn written() -> Result<Vec<(String, String)>, Failed> {
    Ok(chapters(&load()?.book))
}

fn chapters(book: &Book) -> Vec<(String, String)> {
    book.iter()
        .filter_map(|item| match item {
            BookItem::Chapter(ch) => ch
                .path
                .as_ref()
                .map(|p| (p.display().to_string(), ch.content.clone())),
            _ => None,
        })
        .collect()
}

fn includes_resolve() -> Result<(), Failed> {
    // mdBook logs a failed include and leaves its text in the page, so look for leftovers.
    let mut missing = Vec::new();
    for (path, text) in expanded()? {
        for line in text.lines().filter(|l| l.contains("{{#")) {
            missing.push(format!("{path}: {}", line.trim()));
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("unresolved includes:\n{}", missing.join("\n")).into())
    }
}

fn includes_show_something() -> Result<(), Failed> {
    // mdBook renders an anchor the file lacks as an empty block, without a word.
    let src = root().join("src");
    let mut empty = Vec::new();
    for (path, text) in written()? {
        let base = src.join(&path);
        let base = base.parent().unwrap();
        for line in text.lines() {
            let line = line.trim();
            let Some(inc) = include(line) else {
                continue;
            };
            let (file, spec, rustdoc) = (inc.file, inc.spec, inc.rustdoc);
            // A file that is not there is includes_resolve's to report.
            let Ok(contents) = std::fs::read_to_string(base.join(file)) else {
                continue;
            };
            // In a rust block, rustdoc hides a line that is `#` or starts with `# `.
            let visible = |l: &&str| {
                let l = l.trim();
                !l.is_empty() && !(rustdoc && (l == "#" || l.starts_with("# ")))
            };
            match shown_lines(&contents, spec, rustdoc) {
                None => empty.push(format!(
                    "{path}: {line} names anchor `{}`, which {file} does not have",
                    spec.unwrap_or("")
                )),
                Some(shown) if !shown.iter().any(visible) => {
                    empty.push(format!("{path}: {line} shows nothing of {file}"))
                }
                Some(_) => {}
            }
        }
    }
    if empty.is_empty() {
        Ok(())
    } else {
        Err(format!("includes that show nothing:\n{}", empty.join("\n")).into())
    }
}

/// The support library's helpers that time, record or judge a run (`crates/examples/src/timing.rs`,
/// `compare.rs`, `floor.rs`, and cudarc's event calls). They are plumbing: a listing keeps them
/// outside the anchors its page shows, so that the page shows its idea. A name with a `.` is a
/// method; any other must not follow a `.` or a letter.
const PLUMBING: &[(&str, &str)] = &[
    ("time_gpu(", "timing"),
    ("time_cpu(", "timing"),
    ("median(", "timing"),
    (".record_event(", "timing"),
    (".elapsed_ms(", "timing"),
    (".record(", "timing"),
    ("record(", "recording"),
    ("verdict(", "verdict"),
    ("within_bound(", "verdict"),
    ("floor_verdict(", "verdict"),
];

/// Listings whose page is about a measurement: they may call the timing helpers (never
/// `record` or a verdict). `file:anchor`, the file under `crates/examples/`.
const MEASURING: &[&str] = &[
    "ch01/overhead.rs:start",                // the cost of starting a thread
    "ch01/overhead.rs:sweep",                // where rayon starts to pay
    "ch02/ceilings.rs:copy",                 // measuring the bandwidth ceiling
    "ch02/ceilings.rs:sgemm",                // measuring the arithmetic ceiling
    "ch03/async_timing.rs:wrong",            // how not to time GPU work
    "ch03/async_timing.rs:synchronised",     // how to time it with a host timer
    "ch03/async_timing.rs:benchmark",        // how to time it with events
    "ch03/benchmark_with_copy.rs:with_copy", // what a copy adds to the time
    "ch03/host_device_arrays.rs:costs",      // what copies cost
    "ch03/three_streams.rs:alone",           // one stream's time
    "ch03/three_streams.rs:together",        // three streams' time, with events
    "ch03/copy_overlap.rs:pipeline",         // overlap shown by events
    "ch03/copy_overlap.rs:timeline",         // the events' timeline
    "ch04/adder_caches.rs:sweep",            // CPU speed against size
    "ch04/adder_sweep.rs:sweep",             // CPU against GPU, by size
    "ch04/exercises/which_faster_solution.rs:solution", // the exercise asks which is faster
    "ch04/dft_rayon.rs:time",                // the section is the speed-up
    "ch06/block_reduce.rs:ceiling",          // the copy that sets the ceiling
    "ch06/grid_sync.rs:timing",              // one kernel against two, timed
    "ch07/imaging_tuning.rs:sweep",          // a tuning sweep
    "ch07/mirrors_tuning.rs:sweep",          // a tuning sweep
    "ch07/challenge_coarsening.rs:sweep",    // the challenge is a timed sweep
    "ch08/sgemm_cpu.rs:time",                // the section is the CPU's speed
    "ch08/sort_cpu.rs:time",                 // the section is the CPU's speed
    "ch08/sgemm_sweep.rs:sweep",             // a tuning sweep
    "ch08/sgemm_sweep.rs:again",             // the tuned kernel timed again
    "ch08/sgemm_ladder.rs:ladder",           // the section times each rung
    "ch09/bf16_ladder.rs:ladder",            // the section times each rung against cuBLAS
];

/// The plumbing calls in a line of Rust, comments left out: (call, kind).
fn plumbing_calls(line: &str) -> Vec<(&'static str, &'static str)> {
    let code = line.split("//").next().unwrap_or("");
    PLUMBING
        .iter()
        .filter(|(call, _)| {
            code.match_indices(call).any(|(i, _)| {
                call.starts_with('.')
                    || !code[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            })
        })
        .copied()
        .collect()
}

fn listings_show_no_plumbing() -> Result<(), Failed> {
    let src = root().join("src");
    let examples = root().join("crates/examples");
    let (mut found, mut used) = (Vec::new(), Vec::new());
    for (path, text) in written()? {
        let base = src.join(&path);
        let base = base.parent().unwrap();
        for line in text.lines() {
            let line = line.trim();
            let Some(inc) = include(line) else {
                continue;
            };
            let (file, spec, rustdoc) = (inc.file, inc.spec, inc.rustdoc);
            if !file.ends_with(".rs") {
                continue;
            }
            let Ok(contents) = std::fs::read_to_string(base.join(file)) else {
                continue;
            };
            let full = std::fs::canonicalize(base.join(file)).unwrap_or(base.join(file));
            let examples = std::fs::canonicalize(&examples).unwrap_or(examples.clone());
            let name = format!(
                "{}:{}",
                full.strip_prefix(&examples).unwrap_or(&full).display(),
                spec.unwrap_or("")
            );
            let measuring = MEASURING.contains(&name.as_str());
            for shown in shown_lines(&contents, spec, rustdoc).unwrap_or_default() {
                for (_, kind) in plumbing_calls(shown) {
                    if measuring && kind == "timing" {
                        used.push(name.clone());
                    } else {
                        found.push(format!("{path}: {name} shows {kind}: {}", shown.trim()));
                    }
                }
            }
        }
    }
    for name in MEASURING {
        // A fork of one chapter has only that chapter's programs: an entry for a program that is
        // not here is not stale.
        let program = name.split(':').next().unwrap_or(name);
        if !examples.join(program).exists() {
            continue;
        }
        if !used.iter().any(|u| u == name) {
            found.push(format!(
                "MEASURING names {name}, which no page shows calling a timing helper"
            ));
        }
    }
    found.dedup();
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "listings that show plumbing (move it outside the anchor, or split the anchor):\n{}",
            found.join("\n")
        )
        .into())
    }
}

fn compile_fail_blocks_are_checked() -> Result<(), Failed> {
    let dir = root().join("crates/examples/compile-fail");
    let checked: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    for (path, text) in expanded()? {
        let mut rest = text.as_str();
        while let Some(start) = rest.find("```rust,compile_fail\n") {
            let body = &rest[start + "```rust,compile_fail\n".len()..];
            let end = body
                .find("\n```")
                .ok_or_else(|| format!("{path}: unclosed code block"))?;
            let code: String = body[..end]
                .lines()
                .map(|l| l.strip_prefix("# ").unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n");
            if !checked.iter().any(|c| c.trim_end() == code.trim_end()) {
                return Err(format!("{path}: a compile_fail block is not a file of crates/examples/compile-fail/, so nothing checks its error").into());
            }
            rest = &body[end..];
        }
    }
    Ok(())
}

/// A `rust,ch10` block shows code of chapter 10's own workspace (crates/ch10-rust-kernels), which
/// skeptic cannot build here (build.rs leaves it out): its text must be found in a Rust file of
/// that workspace, whose `cargo test` (scripts/ch10-check) builds it.
fn ch10_blocks_are_built_by_their_workspace() -> Result<(), Failed> {
    fn rust_files(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("target") {
                rust_files(&path, found);
            } else if path.extension().is_some_and(|x| x == "rs") {
                found.extend(std::fs::read_to_string(&path).ok());
            }
        }
    }
    let mut built = Vec::new();
    rust_files(&root().join("crates/ch10-rust-kernels"), &mut built);
    let fence = "```rust,ch10\n";
    for (path, text) in expanded()? {
        let mut rest = text.as_str();
        while let Some(start) = rest.find(fence) {
            let body = &rest[start + fence.len()..];
            let end = body
                .find("\n```")
                .ok_or_else(|| format!("{path}: unclosed code block"))?;
            let code = body[..end].trim_end();
            if code.is_empty() || !built.iter().any(|file| file.contains(code)) {
                return Err(format!("{path}: a rust,ch10 block is not text of a Rust file of crates/ch10-rust-kernels/, so nothing builds it").into());
            }
            rest = &body[end..];
        }
    }
    Ok(())
}

fn attribute_values<'a>(html: &'a str, attribute: &str) -> Vec<&'a str> {
    let key = format!("{attribute}=\"");
    html.match_indices(&key)
        .filter_map(|(i, _)| {
            let rest = &html[i + key.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

fn builds_without_dead_links() -> Result<(), Failed> {
    // `COURSE_BOOK_OUT=DIR` keeps the built book there, for the browser check.
    let kept = std::env::var_os("COURSE_BOOK_OUT").map(PathBuf::from);
    let out = kept.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("gpu-course-book-{}", std::process::id()))
    });
    let mut book = load()?;
    book.config.build.build_dir = out.clone();
    book.build()
        .map_err(|e| format!("mdBook could not build the book: {e:#}"))?;
    let html = out.join("html");
    let html = if html.is_dir() { html } else { out.clone() };
    let pages = protocol::files_under(&html, "html");
    let mut ids: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap_or_default();
        ids.insert(
            page.clone(),
            attribute_values(&text, "id")
                .into_iter()
                .map(String::from)
                .collect(),
        );
    }
    let mut dead = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap_or_default();
        for link in attribute_values(&text, "href")
            .into_iter()
            .chain(attribute_values(&text, "src"))
        {
            if link.contains("://")
                || link.starts_with("mailto:")
                || link.starts_with("javascript:")
                || link.is_empty()
            {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            let target = std::fs::canonicalize(&target).unwrap_or(target);
            if !target.exists() {
                dead.push(format!(
                    "{}: {link}",
                    page.strip_prefix(&html).unwrap_or(page).display()
                ));
            } else if !anchor.is_empty() && target.extension().is_some_and(|e| e == "html") {
                let known = ids
                    .iter()
                    .find(|(p, _)| std::fs::canonicalize(p).ok().as_ref() == Some(&target));
                if known.is_some_and(|(_, list)| !list.iter().any(|id| id == anchor)) {
                    dead.push(format!(
                        "{}: {link} (no such anchor)",
                        page.strip_prefix(&html).unwrap_or(page).display()
                    ));
                }
            }
        }
    }
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&out);
    }
    dead.sort();
    dead.dedup();
    if dead.is_empty() {
        Ok(())
    } else {
        Err(format!("dead links:\n{}", dead.join("\n")).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::test("book::includes_resolve", includes_resolve),
        Trial::test("book::includes_show_something", includes_show_something),
        Trial::test("book::builds_without_dead_links", builds_without_dead_links),
        Trial::test(
            "book::compile_fail_blocks_are_checked",
            compile_fail_blocks_are_checked,
        ),
        Trial::test(
            "book::ch10_blocks_are_built_by_their_workspace",
            ch10_blocks_are_built_by_their_workspace,
        ),
        Trial::test("book::listings_show_no_plumbing", listings_show_no_plumbing),
    ];
    libtest_mimic::run(&args, trials).exit();
}
