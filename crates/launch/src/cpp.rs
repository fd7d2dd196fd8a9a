//! Just enough of the C preprocessor to read the kernels' signatures: comments removed, lines
//! joined at a backslash, and `#define` macros (object-like and function-like, with `##`)
//! expanded; `#ifdef`, `#ifndef`, `#if 0`, `#if 1`, `#if defined(X)`, `#elif`, `#else` and
//! `#endif` keep one branch, as the compiler would with no `-D` options; a condition it cannot
//! evaluate is an error, never both branches. Other directives (`#include`, `#pragma`) are
//! dropped.

use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<String>>,
    body: String,
}

/// The text of `source` with its comments and directives removed and its macros expanded.
pub fn preprocess(source: &str) -> Result<String, String> {
    let (text, macros) = read(source)?;
    Ok(expand(&text, &macros, &HashSet::new()))
}

/// `text` with the macros that `source` defines expanded in it.
pub fn expand_with_macros_of(source: &str, text: &str) -> Result<String, String> {
    let (_, macros) = read(source)?;
    Ok(expand(text, &macros, &HashSet::new()))
}

/// One `#if` being read: whether its current branch is kept, and whether any branch was.
struct Branch {
    keeping: bool,
    kept_one: bool,
}

/// The text of `source` without comments and directives, and the macros it defines.
fn read(source: &str) -> Result<(String, HashMap<String, Macro>), String> {
    let joined = strip_comments(source).replace("\\\n", " ");
    let mut macros = HashMap::new();
    let mut text = String::new();
    let mut open: Vec<Branch> = Vec::new();
    for line in joined.lines() {
        let outer = open.iter().all(|b| b.keeping);
        let Some(directive) = line.trim_start().strip_prefix('#') else {
            if outer {
                text.push_str(line);
            }
            text.push('\n'); // the line count stays the file's
            continue;
        };
        let directive = directive.trim_start();
        let word_end = directive
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(directive.len());
        let (word, rest) = directive.split_at(word_end);
        let rest = rest.trim();
        match word {
            "if" | "ifdef" | "ifndef" => {
                let holds = outer && condition(word, rest, &macros)?;
                open.push(Branch {
                    keeping: holds,
                    kept_one: holds || !outer,
                });
            }
            "elif" | "else" => {
                let Some(branch) = open.pop() else {
                    return Err(format!("`#{word}` without an `#if`"));
                };
                let outer = open.iter().all(|b| b.keeping);
                let holds = !branch.kept_one
                    && outer
                    && (word == "else" || condition("if", rest, &macros)?);
                open.push(Branch {
                    keeping: holds,
                    kept_one: branch.kept_one || holds,
                });
            }
            "endif" => {
                open.pop().ok_or("`#endif` without an `#if`")?;
            }
            "define" if outer => define(rest, &mut macros),
            "undef" if outer => {
                macros.remove(rest);
            }
            _ => {}
        }
    }
    if !open.is_empty() {
        return Err("an `#if` has no `#endif`".into());
    }
    Ok((text, macros))
}

/// Whether `#word rest` keeps its branch: `#ifdef X`, `#ifndef X`, `#if 0`, `#if 1`,
/// `#if defined(X)` and `#if !defined(X)`.
fn condition(word: &str, rest: &str, macros: &HashMap<String, Macro>) -> Result<bool, String> {
    let defined = |name: &str| macros.contains_key(name.trim());
    let unwrap = |t: &str| {
        t.trim().strip_prefix("defined").map(|d| {
            d.trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_string()
        })
    };
    Ok(match (word, rest) {
        ("ifdef", name) => defined(name),
        ("ifndef", name) => !defined(name),
        (_, "0") => false,
        (_, "1") => true,
        (_, cond) => match (unwrap(cond), cond.strip_prefix('!').and_then(unwrap)) {
            (Some(name), _) => defined(&name),
            (_, Some(name)) => !defined(&name),
            _ => {
                return Err(format!(
                    "the launcher generator cannot evaluate `#if {cond}`: use `#ifdef`, \
                     `#ifndef`, `#if 0`, `#if 1` or `#if defined(X)`"
                ));
            }
        },
    })
}

fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
            out.push(' ');
        } else if rest.starts_with('"') || (rest.starts_with('\'') && !in_number(&out)) {
            let quote = rest.as_bytes()[0];
            let mut end = 1;
            while end < rest.len() && rest.as_bytes()[end] != quote {
                end += if rest.as_bytes()[end] == b'\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(rest.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether `out` ends inside a number, where `'` separates digits (`1'000'000`) instead of
/// opening a character literal.
fn in_number(out: &str) -> bool {
    let token = out
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\'' || c == '.'))
        .next()
        .unwrap_or("");
    token.starts_with(|c: char| c.is_ascii_digit())
}

fn define(def: &str, macros: &mut HashMap<String, Macro>) {
    let def = def.trim_start();
    let name_end = def
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(def.len());
    let (name, rest) = def.split_at(name_end);
    let m = match rest.strip_prefix('(') {
        Some(after) => {
            let close = after.find(')').unwrap_or(after.len());
            let params = after[..close]
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            let body = after.get(close + 1..).unwrap_or("").trim().to_string();
            Macro {
                params: Some(params),
                body,
            }
        }
        None => Macro {
            params: None,
            body: rest.trim().to_string(),
        },
    };
    macros.insert(name.to_string(), m);
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `text` with every macro expanded, except those in `active` (a macro is not expanded inside
/// its own expansion, as in C).
fn expand(text: &str, macros: &HashMap<String, Macro>, active: &HashSet<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or_default();
        if c == '"' {
            let end = text[i + 1..].find('"').map_or(text.len(), |e| i + e + 2);
            out.push_str(&text[i..end]);
            i = end;
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == '_') {
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while i < text.len() && is_ident(bytes[i] as char) {
            i += 1;
        }
        let word = &text[start..i];
        let Some(m) = macros.get(word).filter(|_| !active.contains(word)) else {
            out.push_str(word);
            continue;
        };
        let mut inner = active.clone();
        inner.insert(word.to_string());
        match &m.params {
            None => out.push_str(&expand(&m.body, macros, &inner)),
            Some(params) => {
                let after = text[i..].trim_start();
                if !after.starts_with('(') {
                    out.push_str(word);
                    continue;
                }
                let open = text.len() - after.len();
                let (args, end) = arguments(text, open);
                i = end;
                let substituted = substitute(&m.body, params, &args);
                out.push_str(&expand(&substituted, macros, &inner));
            }
        }
    }
    out
}

/// The arguments of a call whose `(` is at `open`, split at top-level commas, and the index
/// after its `)`.
fn arguments(text: &str, open: usize) -> (Vec<String>, usize) {
    let mut depth = 0;
    let mut args = vec![String::new()];
    for (k, c) in text[open..].char_indices() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let args = args.into_iter().map(|a| a.trim().to_string()).collect();
                    return (args, open + k + 1);
                }
            }
            ',' if depth == 1 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(c);
        }
    }
    (args, text.len())
}

/// The body with each parameter replaced by its argument, then `a ## b` pasted into `ab`.
fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < body.len() {
        let c = body[i..].chars().next().unwrap_or_default();
        if !(c.is_ascii_alphabetic() || c == '_') {
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while i < body.len() && is_ident(body.as_bytes()[i] as char) {
            i += 1;
        }
        let word = &body[start..i];
        match params.iter().position(|p| p == word) {
            Some(k) => out.push_str(args.get(k).map_or("", String::as_str)),
            None => out.push_str(word),
        }
    }
    let mut pasted = String::new();
    for (k, piece) in out.split("##").enumerate() {
        if k == 0 {
            pasted.push_str(piece.trim_end());
        } else {
            pasted.push_str(piece.trim());
        }
    }
    pasted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_expand_as_in_c() {
        let src = "#define T 256 // threads\n\
                   #define ARGS const float *x, \\\n  int n\n\
                   #define K(F, B) extern \"C\" __global__ void __launch_bounds__(T) k_##F##_##B(ARGS) {}\n\
                   #define EVERY(M, B) M(1, B) M(2, B)\n\
                   /* a comment with K(9, 9) */\n\
                   EVERY(K, 64)\n";
        let out = preprocess(src)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            out.contains("__launch_bounds__(256) k_1_64(const float *x, int n)"),
            "{out}"
        );
        assert!(
            out.contains("__launch_bounds__(256) k_2_64(const float *x, int n)"),
            "{out}"
        );
        assert!(!out.contains("k_9_9"), "{out}");
    }

    #[test]
    fn one_branch_of_each_if_is_kept() {
        let src = "#define WIDE\n\
                   #ifdef WIDE\nint wide;\n#else\nint narrow;\n#endif\n\
                   #ifndef ITEMS\n#define ITEMS 16\n#endif\n\
                   #if 0\nint never;\n#elif defined(WIDE)\nint elif;\n#else\nint other;\n#endif\n\
                   #if !defined(WIDE)\nint not_wide;\n#endif\n\
                   int items = ITEMS;\n";
        let out = preprocess(src).unwrap();
        for kept in ["int wide;", "int elif;", "int items = 16;"] {
            assert!(out.contains(kept), "{kept} missing: {out}");
        }
        for dropped in ["narrow", "never", "other", "not_wide"] {
            assert!(!out.contains(dropped), "{dropped} kept: {out}");
        }
        let e = preprocess("#if ITEMS > 8\nint x;\n#endif\n").unwrap_err();
        assert!(e.contains("cannot evaluate `#if ITEMS > 8`"), "{e}");
        assert!(
            preprocess("#ifdef X\nint x;\n")
                .unwrap_err()
                .contains("no `#endif`")
        );
    }

    /// A C++14 digit separator is not the start of a character literal, so a comment after it
    /// is still a comment.
    #[test]
    fn digit_separators_do_not_open_a_character_literal() {
        let out = preprocess("int n = 1'000; // don't\nint k(int *x) {}\n").unwrap();
        assert!(!out.contains("don"), "{out}");
        assert!(out.contains("int k(int *x)"), "{out}");
        let out = preprocess("char c = 'a'; // it's\nint m;\n").unwrap();
        assert!(out.contains("'a'") && !out.contains("it"), "{out}");
    }
}
