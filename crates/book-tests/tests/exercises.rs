//! Every exercise names the files a learner edits. A page of a chapter with a `Solution` block
//! (a challenge or a practice; the key-points pages' discussions are questions, not code) has a
//! `**Your turn:**` paragraph that names its starter files and the judge's command for one of
//! its chapter's exercises, `cargo run --bin judge -- chNN EXERCISE`; each file or folder it
//! names must exist, and so must the exercise. Chapter 10's exercises live in its own workspace,
//! `crates/ch10-rust-kernels`, judged by that workspace's judge (the same command, run there).
//! A chapter forked on its own is checked the same way: the test reads whichever chapter folders
//! there are.
//!
//! Every `**Your turn:**` paragraph also says first, in one sentence, what the learner writes:
//! the sentence (up to its first `. ` or `;` outside inline code) begins with one of [`VERBS`],
//! names a starter file, and is at most [`FIRST_SENTENCE_MAX`] characters long. Where the
//! starter is and how the judge checks it come after.

use std::path::{Path, PathBuf};

const TURN: &str = "**Your turn:**";

/// The verbs a `**Your turn:**` paragraph may begin with: each names something a learner does
/// to a starter. "the starter is ..." names a file but not what to do with it.
const VERBS: [&str; 9] = [
    "write", "complete", "rewrite", "replace", "change", "add", "make", "answer", "find",
];

/// The longest first sentence, in characters after `**Your turn:**`: about two lines of a
/// rendered page, enough for a verb, what it makes and two starter paths.
const FIRST_SENTENCE_MAX: usize = 200;

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

/// Where learners' files are: the examples crate, the kernels, and chapter 10's workspace.
const STARTER_PLACES: [&str; 3] = ["crates/examples/", "kernels/", "crates/ch10-rust-kernels/"];

/// Paths in inline code that point into the repository: `crates/examples/...`, `kernels/...`
/// or `crates/ch10-rust-kernels/...`.
fn named_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|code| STARTER_PLACES.iter().any(|place| code.starts_with(place)))
        .map(str::to_string)
        .collect()
}

/// The first sentence of a turn joined into one line, without `**Your turn:**`: up to its first
/// `. ` or `;` outside inline code (a path's dots are inside it), or the whole turn.
fn first_sentence(turn: &str) -> &str {
    let text = turn.strip_prefix(TURN).unwrap_or(turn).trim_start();
    let mut in_code = false;
    for (at, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            ';' if !in_code => return &text[..at],
            '.' if !in_code && text[at + 1..].starts_with(' ') => return &text[..at],
            _ => {}
        }
    }
    text
}

/// Why the first sentence of `turn` does not say what the learner writes; `None` if it does.
fn what_to_write(turn: &str) -> Option<String> {
    let sentence = first_sentence(turn);
    let starts_with_verb = VERBS.iter().any(|verb| {
        sentence
            .strip_prefix(verb)
            .is_some_and(|rest| rest.starts_with(' '))
    });
    if !starts_with_verb {
        Some(format!(
            "its first sentence, \"{sentence}\", does not begin with what the learner does \
             (one of {VERBS:?})"
        ))
    } else if named_paths(sentence).is_empty() {
        Some(format!(
            "its first sentence, \"{sentence}\", names no starter file to write in"
        ))
    } else if sentence.chars().count() > FIRST_SENTENCE_MAX {
        Some(format!(
            "its first sentence is {} characters long, more than {FIRST_SENTENCE_MAX}: \
             \"{sentence}\"",
            sentence.chars().count()
        ))
    } else {
        None
    }
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

/// The chapter folders of `src/` (`ch01-parallelism`...), each with its pages, in order.
fn chapters() -> Vec<(String, Vec<PathBuf>)> {
    let src = root().join("src");
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
    chapters
        .into_iter()
        .map(|chapter| {
            let folder = chapter.file_name().unwrap().to_string_lossy().into_owned();
            let mut files: Vec<PathBuf> = std::fs::read_dir(&chapter)
                .expect("a chapter folder is readable")
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect();
            files.sort();
            (folder, files)
        })
        .collect()
}

/// The exercises the judge knows in chapter `number`: each `name: "..."` of its exercises/mod.rs,
/// which for chapter 10 is chapter 10's own judge's, in its workspace.
fn exercise_names(number: &str) -> Vec<String> {
    let list = match number {
        "ch10" => root().join("crates/ch10-rust-kernels/cubecl/exercises/mod.rs"),
        _ => root().join(format!("crates/examples/{number}/exercises/mod.rs")),
    };
    let text = std::fs::read_to_string(list).unwrap_or_default();
    text.split("name: \"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(name, _)| name.to_string()))
        .collect()
}

/// The exercise each `judge` command in `turn` names (the word after the chapter), if any: the
/// one-exercise command is what a learner types, with `--remote` or without.
fn judged_exercises(turn: &str, judge: &str) -> Vec<Option<String>> {
    turn.split(judge)
        .skip(1)
        .map(|rest| {
            let word: String = rest
                .strip_prefix(' ')?
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!word.is_empty()).then_some(word)
        })
        .collect()
}

#[test]
fn every_exercise_names_its_starter_files_and_the_judge() {
    let mut problems = Vec::new();
    let mut pages = 0;
    for (folder, files) in chapters() {
        let number = &folder[..4];
        for file in files.iter().filter(|p| !p.ends_with("key-points.md")) {
            let page = std::fs::read_to_string(file).expect("a page is readable");
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
            let exercises = exercise_names(number);
            for named in turns.iter().flat_map(|t| judged_exercises(t, &judge)) {
                match named {
                    Some(ex) if exercises.contains(&ex) => {}
                    Some(ex) => problems.push(format!(
                        "{name}: `{judge} {ex}` names no exercise of {number}'s judge"
                    )),
                    None => problems.push(format!(
                        "{name}: `{judge}` names no exercise; give the one the paragraph is about"
                    )),
                }
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
fn every_turn_says_first_what_the_learner_writes() {
    let mut problems = Vec::new();
    let mut count = 0;
    for (folder, files) in chapters() {
        for file in files {
            let page = std::fs::read_to_string(&file).expect("a page is readable");
            let name = format!(
                "src/{folder}/{}",
                file.file_name().unwrap().to_string_lossy()
            );
            for turn in turns(&page) {
                count += 1;
                if let Some(why) = what_to_write(&turn) {
                    problems.push(format!("{name}: a `{TURN}` paragraph: {why}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{count} `{TURN}` paragraphs say first what the learner writes");
}

#[test]
fn a_turn_must_begin_with_what_the_learner_writes() {
    let good = "**Your turn:** write the kernel in `kernels/a.cu`; run `cargo run`.";
    assert_eq!(first_sentence(good), "write the kernel in `kernels/a.cu`");
    assert_eq!(what_to_write(good), None);
    // A path's dots do not end the sentence.
    let dotted = "**Your turn:** fix `kernels/a.cu`. Then run it.";
    assert_eq!(first_sentence(dotted), "fix `kernels/a.cu`");
    for bad in [
        "**Your turn:** the starter is `kernels/a.cu`; run `cargo run`.",
        "**Your turn:** writes happen in `kernels/a.cu`.",
        "**Your turn:** write the kernel. It is in `kernels/a.cu`.",
    ] {
        assert!(what_to_write(bad).is_some(), "{bad}");
    }
    let long = format!(
        "**Your turn:** write {} in `kernels/a.cu`.",
        "x ".repeat(100)
    );
    assert!(what_to_write(&long).unwrap().contains("characters long"));
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
    let ch10 = "**Your turn:** write `crates/ch10-rust-kernels/cubecl/exercises/x.rs`.";
    assert_eq!(
        named_paths(ch10),
        ["crates/ch10-rust-kernels/cubecl/exercises/x.rs"]
    );
}

#[test]
fn chapter_10s_exercises_are_read_from_its_own_judge() {
    // Chapter 10's judge lives in its workspace; a fork without that chapter has none.
    let list = root().join("crates/ch10-rust-kernels/cubecl/exercises/mod.rs");
    if list.exists() {
        assert!(exercise_names("ch10").contains(&"plane".to_string()));
    }
}
