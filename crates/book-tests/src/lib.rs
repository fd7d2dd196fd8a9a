//! What a page of the book shows of the files it includes, as mdBook's links preprocessor picks
//! it: shared by the book's tests (includes that show nothing, listings that show plumbing) and
//! the schedule's (lines of listings, the core path's terms). The tests themselves live in
//! `tests/`; this crate exists so that the book's code blocks, its programs' outputs, its kernels
//! and the rendered book are tested together by `cargo test` at the root of the repository.

/// An include on a line of a page: `{{#include ARG}}` or `{{#rustdoc_include ARG}}`.
pub struct Include<'a> {
    /// The file, relative to the page's folder.
    pub file: &'a str,
    pub spec: Option<&'a str>,
    pub rustdoc: bool,
}

pub fn include(line: &str) -> Option<Include<'_>> {
    let line = line.trim();
    let (rustdoc, rest) = if let Some(rest) = line.strip_prefix("{{#include ") {
        (false, rest)
    } else if let Some(rest) = line.strip_prefix("{{#rustdoc_include ") {
        (true, rest)
    } else {
        return None;
    };
    let arg = rest.split("}}").next()?.split_whitespace().next()?;
    let (file, spec) = match arg.split_once(':') {
        Some((file, spec)) => (file, Some(spec)),
        None => (arg, None),
    };
    Some(Include {
        file,
        spec,
        rustdoc,
    })
}

/// The name after `marker` (`ANCHOR:` or `ANCHOR_END:`) on a line, as mdBook reads it.
fn anchor_name<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let rest = line[line.find(marker)? + marker.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then_some(&rest[..end])
}

/// Which lines of `file` an include shows, as mdBook's links preprocessor picks them from
/// `file`, `file:anchor`, `file:N`, `file:N:M`, `file:N:` or `file::M` (lines count from 1).
/// `None`: the anchor is not in the file.
pub fn shown_lines<'a>(file: &'a str, spec: Option<&str>, rustdoc: bool) -> Option<Vec<&'a str>> {
    let lines: Vec<&str> = file.lines().collect();
    let mut parts = spec.unwrap_or("").splitn(3, ':');
    let first = parts.next().unwrap_or("");
    let last = parts.next();
    if first.is_empty() || first.parse::<usize>().is_ok() {
        let start = first.parse::<usize>().map_or(0, |n| n.saturating_sub(1));
        let end = match last.map(|s| s.parse::<usize>()) {
            Some(Ok(end)) => end,
            Some(Err(_)) => lines.len(),
            None if first.is_empty() => lines.len(),
            None => start + 1,
        };
        return Some(lines.into_iter().take(end).skip(start).collect());
    }
    let anchor = first;
    if !lines
        .iter()
        .any(|l| anchor_name(l, "ANCHOR:") == Some(anchor))
    {
        return None;
    }
    // Marker lines are never shown; `include` stops at the first ANCHOR_END, `rustdoc_include`
    // shows every section of that name.
    let (mut inside, mut shown) = (false, Vec::new());
    for line in lines {
        if anchor_name(line, "ANCHOR:") == Some(anchor) {
            inside = true;
        } else if anchor_name(line, "ANCHOR_END:") == Some(anchor) {
            inside = false;
            if !rustdoc {
                break;
            }
        } else if inside
            && anchor_name(line, "ANCHOR:").is_none()
            && anchor_name(line, "ANCHOR_END:").is_none()
        {
            shown.push(line);
        }
    }
    Some(shown)
}
