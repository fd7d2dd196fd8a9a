//! The taught path stands on its own: a core page builds only on core pages, and a page of
//! the third half-day only on core pages and its own. Each further-reading page of a chapter,
//! and each page of the third half-day, lists the terms and intrinsics it introduces in one
//! HTML comment, `<!-- introduces: atomicCAS, compare-and-swap -->`, which a reader does not
//! see. A taught page fails when its text, the code it includes (solutions and self-check
//! questions too) or the starter files its `**Your turn:**` names use a term that only pages of
//! a later tier list; when it links to such a page without saying so, as
//! `[Votes](votes.md) (further reading)`; and when it links to one at all from an exercise: a
//! block quote (the questions, objectives and challenge statements), a `**Your turn:**`
//! paragraph, or a collapsed solution or self-check block. A listed term must appear on its
//! own page. Pages outside the chapters (setup, results, glossary) are the book's reference:
//! they introduce nothing and may be linked from anywhere. The instructor notes are the
//! instructor's, and may point anywhere.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use super::{END, NOTES, PAGE_BEGIN, Page, Tier, Unit, root, shown};

const INTRODUCES: &str = "<!-- introduces:";

pub const HOW: &str = "see crates/book-tests/tests/schedule/core_path.rs and the schedule page";

/// A page of a chapter: `chNN-name/page.md`.
fn in_chapter(path: &str) -> bool {
    let folder = path.split('/').next().unwrap_or("");
    path.contains('/')
        && folder.starts_with("ch")
        && folder[2..].starts_with(|c: char| c.is_ascii_digit())
}

/// The terms a page lists, lowercase, if it lists any.
fn introduced(content: &str) -> Option<Vec<String>> {
    let line = content.lines().find(|l| l.trim().starts_with(INTRODUCES))?;
    let list = line.trim()[INTRODUCES.len()..].trim_end_matches("-->");
    Some(
        list.split(',')
            .map(|t| normal(t.trim()))
            .filter(|t| !t.is_empty())
            .collect(),
    )
}

/// Lowercase, every run of white space one space.
fn normal(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Where `term` occurs in `text` (both `normal`) as a whole word or words, or followed by a
/// plural `s`: a little of the text around it.
fn find_term(text: &str, term: &str) -> Option<String> {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    for (at, _) in text.match_indices(term) {
        let before = text[..at].chars().next_back();
        let rest = &text[at + term.len()..];
        let mut after = rest.chars();
        let next = after.next();
        let ends = !word(next) || (next == Some('s') && !word(after.next()));
        if !word(before) && ends {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(30)
                .map_or(0, |(i, _)| i);
            let to = rest
                .char_indices()
                .nth(30)
                .map_or(text.len(), |(i, _)| at + term.len() + i);
            return Some(text[from..to].to_string());
        }
    }
    None
}

/// The lines a reader sees of `content`, a page in folder `dir`: includes expanded, HTML
/// comments, the computed top and the instructor notes left out. Each line comes with whether
/// it belongs to an exercise: a collapsed solution or self-check block, a block quote, or a
/// `**Your turn:**` paragraph.
fn seen(content: &str, dir: &Path) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let (mut skip_until, mut depth, mut fence, mut turn) = (None::<&str>, 0usize, false, false);
    for line in content.lines() {
        let t = line.trim();
        if let Some(end) = skip_until {
            if t.contains(end) {
                skip_until = None;
            }
            continue;
        }
        if t.starts_with(PAGE_BEGIN) {
            skip_until = Some(END);
            continue;
        }
        if t.starts_with(NOTES) {
            skip_until = Some("</details>");
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        if !fence {
            depth +=
                t.matches("<summary>Solution").count() + t.matches("<summary>Self-check").count();
        }
        turn = (turn && !t.is_empty()) || t.contains("**Your turn:**");
        let collapsed = depth > 0 || turn || (!fence && t.starts_with('>'));
        if !fence && t.contains("</details>") {
            depth = depth.saturating_sub(t.matches("</details>").count());
        }
        if let Some(inc) = shown::include(t) {
            out.extend(
                shown::visible(dir, &inc)
                    .into_iter()
                    .map(|l| (l, collapsed)),
            );
            continue;
        }
        out.push((super::without_comments(line), collapsed));
    }
    out
}

/// The files that the page's `**Your turn:**` paragraphs name: each path in inline code under
/// `crates/examples/` or `kernels/`, a folder's files, or a `*` pattern's matches.
fn starters(content: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for paragraph in content
        .split("\n\n")
        .filter(|p| p.contains("**Your turn:**"))
    {
        let named = paragraph.split('`').skip(1).step_by(2);
        for path in named.filter(|c| c.starts_with("crates/examples/") || c.starts_with("kernels/"))
        {
            let full = root().join(path.trim_end_matches('/'));
            let name = full
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let (dir, pattern) = if full.is_dir() {
                (full.clone(), None)
            } else if let Some((before, after)) = name.split_once('*') {
                let dir = full.parent().map(Path::to_path_buf).unwrap_or_default();
                (dir, Some((before.to_string(), after.to_string())))
            } else {
                files.push(full);
                continue;
            };
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| {
                    let n = p.file_name().unwrap_or_default().to_string_lossy();
                    pattern.as_ref().is_none_or(|(b, a)| {
                        n.starts_with(b.as_str())
                            && n.ends_with(a.as_str())
                            && n.len() >= b.len() + a.len()
                    })
                })
                .collect();
            found.sort();
            files.extend(found);
        }
    }
    files
}

/// `target` of a link on the page at `page` (a path under `src/`), as a path under `src/`.
fn resolve(page: &str, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
        return None;
    }
    let file = target.split('#').next()?;
    if !file.ends_with(".md") {
        return None;
    }
    let mut parts: Vec<String> = Path::new(page)
        .parent()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for c in Path::new(file).components() {
        match c {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    Some(parts.join("/"))
}

/// Every way a taught page leans on a page of a later tier, and every list that is missing or
/// names a term its page does not use.
pub fn problems(units: &[Unit]) -> Vec<String> {
    let pages: Vec<&Page> = units
        .iter()
        .flat_map(|u| &u.pages)
        .filter(|p| in_chapter(&p.path))
        .collect();
    let tier_of: BTreeMap<&str, Tier> = pages.iter().map(|p| (p.path.as_str(), p.tier)).collect();
    let dir = |p: &Page| {
        let file = root().join("src").join(&p.path);
        file.parent().map(Path::to_path_buf).unwrap_or(file)
    };
    let mut problems = Vec::new();
    // Each term, with the earliest tier that lists it and the pages of that tier that do.
    let mut terms: BTreeMap<String, (Tier, Vec<&str>)> = BTreeMap::new();
    for page in &pages {
        let Some(list) = introduced(&page.content) else {
            if page.tier != Tier::Core {
                problems.push(format!(
                    "{} is {} but lists no terms: add `{INTRODUCES} ... -->` with the terms \
                     and intrinsics it introduces",
                    page.path,
                    page.tier.name()
                ));
            }
            continue;
        };
        let text = normal(
            &seen(&page.content, &dir(page))
                .into_iter()
                .map(|(l, _)| l)
                .collect::<Vec<_>>()
                .join("\n"),
        );
        for term in list {
            if find_term(&text, &term).is_none() {
                problems.push(format!(
                    "{} lists `{term}` among the terms it introduces, but never uses it",
                    page.path
                ));
            }
            let entry = terms.entry(term).or_insert((page.tier, Vec::new()));
            if page.tier < entry.0 {
                *entry = (page.tier, Vec::new());
            }
            if page.tier == entry.0 {
                entry.1.push(&page.path);
            }
        }
    }
    for page in pages.iter().filter(|p| p.tier.taught()) {
        let lines = seen(&page.content, &dir(page));
        // A link's text to a page the reader was told is further reading is not searched.
        let mut lines = lines;
        for (line, collapsed) in &mut lines {
            let text = line.clone();
            let (mut kept, mut pos) = (String::new(), 0);
            while let Some(rel) = text[pos..].find("](") {
                let mid = pos + rel;
                let Some(len) = text[mid + 2..].find(')') else {
                    break;
                };
                let (target, next) = (&text[mid + 2..mid + 2 + len], mid + 3 + len);
                let open = text[pos..mid].rfind('[').map_or(mid, |o| pos + o);
                let later = resolve(&page.path, target)
                    .and_then(|path| tier_of.get(path.as_str()).map(|&t| (path, t)))
                    .filter(|&(_, tier)| tier > page.tier);
                let Some((path, tier)) = later else {
                    kept.push_str(&text[pos..next]);
                    pos = next;
                    continue;
                };
                let label = format!(" ({})", tier.name());
                let why = if *collapsed {
                    "from an exercise (a solution, the self-check, a block quote or Your turn)"
                } else if !text[next..].starts_with(&label) {
                    "without saying so"
                } else {
                    kept.push_str(&text[pos..open]);
                    pos = next;
                    continue;
                };
                problems.push(format!(
                    "{} ({}) links to {path} ({}) {why}{}",
                    page.path,
                    page.tier.name(),
                    tier.name(),
                    if why == "without saying so" {
                        format!(": write `[...]({target}){label}`")
                    } else {
                        String::new()
                    }
                ));
                kept.push_str(&text[pos..next]);
                pos = next;
            }
            kept.push_str(&text[pos..]);
            *line = kept;
        }
        let mut texts = vec![(
            page.path.clone(),
            normal(
                &lines
                    .into_iter()
                    .map(|(l, _)| l)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        )];
        for file in starters(&page.content) {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let name = file
                    .strip_prefix(root())
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                texts.push((format!("{}'s starter {name}", page.path), normal(&text)));
            }
        }
        for (term, (tier, homes)) in &terms {
            if *tier <= page.tier {
                continue;
            }
            for (what, text) in &texts {
                if let Some(around) = find_term(text, term) {
                    problems.push(format!(
                        "{what} ({}) uses `{term}` (\"{around}\"), which only {} introduces ({})",
                        page.tier.name(),
                        homes.join(" and "),
                        tier.name()
                    ));
                }
            }
        }
    }
    problems
}
