//! Every chapter ends with self-check questions. Each chapter folder `src/chNN-*/` has a
//! key-points page, `key-points.md`, holding one collapsed block of questions with their
//! answers, in this form:
//!
//! ```text
//! <details><summary>Self-check questions</summary>
//!
//! 1. **A question?**
//!    Its answer, on the lines after the question, indented by three spaces.
//! 2. **...**
//!    ...
//!
//! </details>
//! ```
//!
//! The test fails, naming the chapter and what is missing, when a chapter has no such page or
//! no such block, when the block is not closed, when it holds fewer than three questions, or
//! when a question is not a numbered, bold line ending in `?` followed by a non-empty answer.
//! A chapter forked on its own (`scripts/fork-chapter`) is checked the same way: the test reads
//! whichever chapter folders there are.

use std::path::{Path, PathBuf};

const OPEN: &str = "<details><summary>Self-check questions</summary>";
const CLOSE: &str = "</details>";
const PAGE: &str = "key-points.md";
const AT_LEAST: usize = 3;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One numbered question of the block, with its answer.
#[derive(Debug)]
struct Question {
    number: usize,
    question: String,
    answer: String,
}

/// `12. rest` at the start of a line: the number and the rest.
fn numbered(line: &str) -> Option<(usize, &str)> {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let rest = line[digits..].strip_prefix(". ")?;
    Some((line[..digits].parse().ok()?, rest))
}

/// The questions of the page's self-check block, or what is wrong with the block.
fn questions(page: &str) -> Result<Vec<Question>, String> {
    let lines: Vec<&str> = page.lines().collect();
    let opens: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim() == OPEN)
        .collect();
    let start = match opens[..] {
        [] => {
            return Err(format!(
                "has no self-check block: add `{OPEN}` with at least {AT_LEAST} numbered \
                 questions and their answers, closed by `{CLOSE}`"
            ));
        }
        [one] => one + 1,
        _ => {
            return Err(format!("has {} self-check blocks: keep one", opens.len()));
        }
    };
    let Some(len) = lines[start..].iter().position(|l| l.trim() == CLOSE) else {
        return Err(format!("its self-check block is not closed by `{CLOSE}`"));
    };
    // Each item: its number, and its lines joined (the first without its `N. `).
    let mut items: Vec<(usize, Vec<&str>)> = Vec::new();
    for line in &lines[start..start + len] {
        if let Some((number, rest)) = numbered(line) {
            items.push((number, vec![rest.trim()]));
        } else if line.trim().is_empty() {
            continue;
        } else if line.starts_with(char::is_whitespace)
            && let Some((_, item)) = items.last_mut()
        {
            item.push(line.trim());
        } else {
            return Err(format!(
                "its self-check block has the line `{}`, which is neither a numbered question \
                 (`1. **...?**`) nor an answer line indented under one",
                line.trim()
            ));
        }
    }
    let mut found = Vec::new();
    for (at, (number, item)) in items.into_iter().enumerate() {
        if number != at + 1 {
            return Err(format!(
                "its self-check question {} is numbered {number}: number them 1, 2, 3, ...",
                at + 1
            ));
        }
        let text = item.join(" ");
        let Some(bold) = text.strip_prefix("**") else {
            return Err(format!(
                "its self-check question {number} does not start with a bold question \
                 (`{number}. **...?**`)"
            ));
        };
        let Some(end) = bold.find("**") else {
            return Err(format!(
                "its self-check question {number} opens `**` and does not close it"
            ));
        };
        let question = bold[..end].trim();
        if !question.ends_with('?') {
            return Err(format!(
                "its self-check question {number} (`{question}`) does not end with `?`"
            ));
        }
        // The line that closes the bold question must end there: the answer starts below it.
        let closing = item
            .iter()
            .enumerate()
            .map(|(i, line)| if i == 0 { &line[2..] } else { line })
            .find(|line| line.contains("**"));
        if closing.is_some_and(|line| !line.ends_with("**")) {
            return Err(format!(
                "its self-check question {number} (`{question}`) has its answer on the \
                 question's line: start the answer on the next line, indented by three spaces"
            ));
        }
        let answer = bold[end + 2..].trim();
        if !answer.chars().any(char::is_alphanumeric) {
            return Err(format!(
                "its self-check question {number} (`{question}`) has no answer: write it on \
                 the lines after the question, indented by three spaces"
            ));
        }
        found.push(Question {
            number,
            question: question.to_string(),
            answer: answer.to_string(),
        });
    }
    if found.len() < AT_LEAST {
        return Err(format!(
            "its self-check block holds {} question(s), fewer than {AT_LEAST}: add more, each \
             with its answer",
            found.len()
        ));
    }
    Ok(found)
}

/// The chapter folders of `src/`: `chNN-name`, in order.
fn chapters() -> Vec<PathBuf> {
    let src = root().join("src");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            let b = name.as_bytes();
            p.is_dir()
                && b.len() > 5
                && b.starts_with(b"ch")
                && b[2].is_ascii_digit()
                && b[3].is_ascii_digit()
                && b[4] == b'-'
        })
        .collect();
    found.sort();
    found
}

#[test]
fn every_chapter_ends_with_self_check_questions() {
    let chapters = chapters();
    assert!(
        !chapters.is_empty(),
        "src/ has no chapter folder (chNN-name): nothing to check"
    );
    let mut problems = Vec::new();
    let mut counts = Vec::new();
    for dir in &chapters {
        let chapter = dir.file_name().unwrap().to_string_lossy().into_owned();
        let page = format!("src/{chapter}/{PAGE}");
        let text = match std::fs::read_to_string(dir.join(PAGE)) {
            Ok(text) => text,
            Err(e) => {
                problems.push(format!(
                    "chapter {chapter}: {page} cannot be read ({e}): every chapter needs a \
                     key-points page with its self-check questions"
                ));
                continue;
            }
        };
        match questions(&text) {
            Ok(found) => counts.push(format!("{chapter} {}", found.len())),
            Err(what) => problems.push(format!("chapter {chapter}: {page} {what}")),
        }
    }
    assert!(
        problems.is_empty(),
        "self-check questions are missing or malformed:\n{}",
        problems.join("\n")
    );
    println!("self-check questions per chapter: {}", counts.join(", "));
}

// The check itself, on copies of the text: a check that cannot fail checks nothing.

const GOOD: &str = "# Key points

- A point.

<details><summary>Self-check questions</summary>

1. **What is the first question?**
   Its answer, which runs
   over two lines.
2. **What is the second question, with a wrapped
   bold line?**
   Its answer.
3. **And the third?**
   Yes.

</details>

<details><summary>Instructor notes</summary>

- A note.

</details>
";

fn fails_with(text: &str, expected: &str) {
    match questions(text) {
        Ok(found) => panic!("accepted {found:?}, but it should fail with `{expected}`"),
        Err(what) => assert!(
            what.contains(expected),
            "failed with `{what}`, not with `{expected}`"
        ),
    }
}

#[test]
fn the_form_is_read() {
    let found = questions(GOOD).expect("the form of the module's doc comment");
    let numbers: Vec<usize> = found.iter().map(|q| q.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    assert_eq!(found[0].question, "What is the first question?");
    assert_eq!(found[0].answer, "Its answer, which runs over two lines.");
    assert_eq!(
        found[1].question,
        "What is the second question, with a wrapped bold line?"
    );
    assert_eq!(found[2].answer, "Yes.");
}

#[test]
fn a_missing_or_broken_block_fails() {
    fails_with(
        &GOOD.replace(OPEN, "<details><summary>Solution</summary>"),
        "has no self-check block",
    );
    fails_with(
        &format!("{GOOD}\n{OPEN}\n\n1. **Q?**\n   A.\n\n{CLOSE}\n"),
        "2 self-check blocks",
    );
    let unclosed = GOOD.split("</details>").next().unwrap();
    fails_with(unclosed, "not closed");
}

#[test]
fn fewer_than_three_questions_fail() {
    let two = GOOD.replace("3. **And the third?**\n   Yes.\n", "");
    fails_with(&two, "holds 2 question(s), fewer than 3");
}

#[test]
fn a_question_without_its_answer_fails() {
    fails_with(
        &GOOD.replace("   Yes.\n", ""),
        "question 3 (`And the third?`) has no answer",
    );
    fails_with(&GOOD.replace("   Yes.\n", "   **\n"), "has no answer");
}

#[test]
fn a_malformed_question_fails() {
    fails_with(&GOOD.replace("3. **And", "4. **And"), "numbered 4");
    fails_with(
        &GOOD.replace("**And the third?**", "And the third?"),
        "bold question",
    );
    fails_with(
        &GOOD.replace("**And the third?**", "**And the third.**"),
        "end with `?`",
    );
    fails_with(
        &GOOD.replace("   Yes.", "Yes."),
        "neither a numbered question",
    );
    fails_with(
        &GOOD.replace("third?**\n   Yes.", "third?** Yes."),
        "question 3 (`And the third?`) has its answer on the question's line",
    );
}

/// The same breakages on a real page, changed in memory: the first chapter's key points.
#[test]
fn a_real_page_broken_in_memory_fails() {
    let dir = chapters().into_iter().next().expect("a chapter folder");
    let page = std::fs::read_to_string(dir.join(PAGE)).expect("its key-points page");
    let found = questions(&page).expect("the page as written passes");
    // Drop every answer line of the last question.
    let last = found.len();
    let mut in_last = false;
    let mut in_block = false;
    let without_answer: String = page
        .lines()
        .filter(|line| {
            if line.trim() == OPEN {
                in_block = true;
            } else if line.trim() == CLOSE {
                in_block = false;
                in_last = false;
            } else if in_block && let Some((n, _)) = numbered(line) {
                in_last = n == last;
                return true;
            }
            !(in_last && line.starts_with(' '))
        })
        .map(|line| format!("{line}\n"))
        .collect();
    fails_with(&without_answer, &format!("question {last} ("));
    fails_with(&without_answer, "has no answer");
    // Keep only the first two questions (of the block: a page may number other lists too).
    let open = page
        .lines()
        .position(|l| l.trim() == OPEN)
        .expect("the block's start");
    let third = page
        .lines()
        .skip(open)
        .position(|l| numbered(l).is_some_and(|(n, _)| n == 3))
        .expect("a third question")
        + open;
    let close = page
        .lines()
        .skip(third)
        .position(|l| l.trim() == CLOSE)
        .expect("the block's end")
        + third;
    let lines: Vec<&str> = page.lines().collect();
    let two = [&lines[..third], &lines[close..]].concat().join("\n");
    fails_with(&two, "fewer than 3");
    // Take the block away.
    fails_with(&page.replace(OPEN, ""), "has no self-check block");
}
