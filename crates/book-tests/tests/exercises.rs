//! Every exercise names the files a learner edits. A page of a chapter with a `Solution` block
//! (a challenge or a practice; the key-points pages' discussions are questions, not code) has a
//! `**Your turn:**` paragraph that names its starter files and the judge's command for its
//! chapter, `cargo run --bin judge -- chNN`; each file or folder it names must exist. A chapter
//! forked on its own is checked the same way: the test reads whichever chapter folders there are.

use std::path::{Path, PathBuf};

const TURN: &str = "**Your turn:**";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The text of each `**Your turn:**` paragraph of `page`, joined into one line each.
fn turns(page: &str) -> Vec<String> {
    let mut found = Vec::new();
    for paragraph in page.split("\n\n") {
        if let Some(at) = paragraph.find(TURN) {
            found.push(
                paragraph[at..]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
    }
    found
}

/// Paths in inline code that point into the repository: `crates/examples/...` or `kernels/...`.
fn named_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|code| code.starts_with("crates/examples/") || code.starts_with("kernels/"))
        .map(str::to_string)
        .collect()
}

/// Whether `path` exists; a `*` in its last part matches any file of that folder.
fn exists(path: &str) -> bool {
    let full = root().join(path.trim_end_matches('/'));
    let name = full
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let Some((before, after)) = name.split_once('*') else {
        return full.exists();
    };
    let dir = full.parent().unwrap_or(Path::new("."));
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(before) && n.ends_with(after) && n.len() >= before.len() + after.len()
        })
    })
}

#[test]
fn every_exercise_names_its_starter_files_and_the_judge() {
    let src = root().join("src");
    let mut problems = Vec::new();
    let mut pages = 0;
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&src)
        .expect("src/ is readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("ch"))
        })
        .collect();
    chapters.sort();
    for chapter in chapters {
        let folder = chapter.file_name().unwrap().to_string_lossy().into_owned();
        let number = &folder[..4];
        let mut files: Vec<PathBuf> = std::fs::read_dir(&chapter)
            .expect("a chapter folder is readable")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .filter(|p| !p.ends_with("key-points.md"))
            .collect();
        files.sort();
        for file in files {
            let page = std::fs::read_to_string(&file).expect("a page is readable");
            if !page.contains("<summary>Solution") {
                continue;
            }
            pages += 1;
            let name = format!(
                "src/{folder}/{}",
                file.file_name().unwrap().to_string_lossy()
            );
            let turns = turns(&page);
            if turns.is_empty() {
                problems.push(format!("{name} has an exercise but no `{TURN}` paragraph"));
                continue;
            }
            let judge = format!("cargo run --bin judge -- {number}");
            if !turns.iter().any(|t| t.contains(&judge)) {
                problems.push(format!("{name}: no `{TURN}` paragraph gives `{judge}`"));
            }
            let paths: Vec<String> = turns.iter().flat_map(|t| named_paths(t)).collect();
            if paths.is_empty() {
                problems.push(format!(
                    "{name}: its `{TURN}` paragraphs name no starter file"
                ));
            }
            for path in paths.iter().filter(|p| !exists(p)) {
                problems.push(format!("{name} names `{path}`, which does not exist"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{pages} pages with exercises name their starters and the judge");
}

#[test]
fn a_missing_starter_is_named() {
    assert!(exists("kernels/"));
    assert!(!exists("kernels/no-such-file.cu"));
    assert!(!exists("kernels/no-such-prefix-*.cu"));
    let text = "**Your turn:** edit `kernels/a.cu` and `crates/examples/ch01/x.rs`; run `cargo`.";
    assert_eq!(
        named_paths(text),
        ["kernels/a.cu", "crates/examples/ch01/x.rs"]
    );
}
