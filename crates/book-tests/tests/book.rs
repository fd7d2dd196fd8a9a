//! The rendered book: it builds with the pinned mdBook (the same code as the `mdbook` binary
//! the README installs), every include resolves, every internal link leads somewhere, and every
//! block the book says must not compile is one that `compile_fail.rs` checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use mdbook_driver::MDBook;
use mdbook_driver::book::BookItem;
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
    Ok(book
        .iter()
        .filter_map(|item| match item {
            BookItem::Chapter(ch) => ch
                .path
                .as_ref()
                .map(|p| (p.display().to_string(), ch.content.clone())),
            _ => None,
        })
        .collect())
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

fn html_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            html_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "html") {
            found.push(path);
        }
    }
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
    let out = std::env::temp_dir().join(format!("gpu-course-book-{}", std::process::id()));
    let mut book = load()?;
    book.config.build.build_dir = out.clone();
    book.build()
        .map_err(|e| format!("mdBook could not build the book: {e:#}"))?;
    let html = out.join("html");
    let html = if html.is_dir() { html } else { out.clone() };
    let mut pages = Vec::new();
    html_files(&html, &mut pages);
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
    let _ = std::fs::remove_dir_all(&out);
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
        Trial::test("book::builds_without_dead_links", builds_without_dead_links),
        Trial::test(
            "book::compile_fail_blocks_are_checked",
            compile_fail_blocks_are_checked,
        ),
    ];
    libtest_mimic::run(&args, trials).exit();
}
