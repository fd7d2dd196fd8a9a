//! A kernel's launch contract: what must hold for its threads to stay inside the buffers they
//! are given, written in the kernel file above the kernel as
//!
//! ```text
//! // launch adder: n = len(xs) = len(ys) = len(zs); threads >= n
//! ```
//!
//! Clauses are separated by `;`. A chain `a = b = c` says the terms are equal; when one term is
//! a bare scalar parameter, the launcher derives it from the first length in the chain and the
//! caller no longer passes it. `a >= b` and `a <= b` are checked as written. Terms are sums,
//! products and quotients (rounded down, as in C) of numbers, the file's macros, scalar parameters, `len(buffer)` (elements), and the
//! launch's shape: `block`, `grid` and `threads` (their products over x, y, z), `block.x`,
//! `grid.y`, `threads.x` and so on, and `shared` (dynamic shared memory, bytes). A kernel with a
//! contract gets a safe launcher that checks every clause at run time; one without gets an
//! `unsafe` launcher. A name ending in `*` gives the contract to every kernel it starts. The
//! clause `cooperative` makes the launch a cooperative one, for a kernel that synchronises its
//! whole grid.

use crate::signature::Kernel;

/// A contract as the file writes it, for one kernel name or name prefix.
#[derive(Clone, Debug)]
pub struct Written {
    pub pattern: String,
    pub clauses: String,
}

/// Every `// launch NAME: clauses` line of a kernel file, in order.
pub fn written(source: &str) -> Vec<Written> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line
                .trim()
                .strip_prefix("//")?
                .trim()
                .strip_prefix("launch ")?;
            let (name, clauses) = rest.split_once(':')?;
            let name = name.trim();
            let is_name = !name.is_empty()
                && name
                    .trim_end_matches('*')
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            is_name.then(|| Written {
                pattern: name.to_string(),
                clauses: clauses.trim().to_string(),
            })
        })
        .collect()
}

/// The clauses that apply to `name`, joined, or `None` when no contract names it.
pub fn for_kernel(written: &[Written], name: &str) -> Option<String> {
    let clauses: Vec<&str> = written
        .iter()
        .filter(|w| match w.pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => w.pattern == name,
        })
        .map(|w| w.clauses.as_str())
        .collect();
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

/// One clause, ready for the generator.
#[derive(Debug, PartialEq)]
pub enum Clause {
    /// `param = expr`: the launcher computes the parameter.
    Derive { param: String, value: Expr },
    /// `cooperative`: the kernel synchronises its whole grid, so it is launched cooperatively
    /// (the driver then refuses a grid whose blocks cannot all be resident at once).
    Cooperative,
    /// `left op right`, checked when the kernel is launched; `text` is how the file wrote it.
    Check {
        left: Expr,
        op: &'static str,
        right: Expr,
        text: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(u128),
    Param(String),
    Len(String),
    /// `block`, `grid.x`, `threads`, `shared`...
    Shape(String),
    Sum(Box<Expr>, Box<Expr>),
    Product(Box<Expr>, Box<Expr>),
    /// Division rounded down, as C divides non-negative integers.
    Quotient(Box<Expr>, Box<Expr>),
}

/// The clauses of `text` (macros already expanded) for `kernel`, checked against its
/// parameters: derived parameters first, in the order written, then the checks.
pub fn parse(text: &str, kernel: &Kernel) -> Result<Vec<Clause>, String> {
    let mut derived = Vec::new();
    let mut checks = Vec::new();
    for clause in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        if clause == "cooperative" {
            checks.push(Clause::Cooperative);
            continue;
        }
        let (op, parts): (&'static str, Vec<&str>) = if clause.contains(">=") {
            (">=", clause.split(">=").collect())
        } else if clause.contains("<=") {
            ("<=", clause.split("<=").collect())
        } else {
            (
                "=",
                clause.split('=').filter(|p| !p.trim().is_empty()).collect(),
            )
        };
        if parts.len() < 2 || (op != "=" && parts.len() != 2) {
            return Err(format!("`{clause}` is not `a = b`, `a >= b` or `a <= b`"));
        }
        let terms = parts
            .iter()
            .map(|p| expression(p.trim(), kernel).map_err(|e| format!("`{clause}`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let bare = |e: &Expr| matches!(e, Expr::Param(_));
        let derive_at = (op == "=")
            .then(|| terms.iter().position(bare))
            .flatten()
            .filter(|_| terms.iter().filter(|t| bare(t)).count() == 1);
        let source = match derive_at {
            Some(at) => {
                let Expr::Param(param) = &terms[at] else {
                    unreachable!()
                };
                let value = terms
                    .iter()
                    .find(|t| matches!(t, Expr::Len(_)))
                    .ok_or_else(|| format!("`{clause}`: `{param}` has no length to come from"))?
                    .clone();
                derived.push(Clause::Derive {
                    param: param.clone(),
                    value: value.clone(),
                });
                Some((at, value))
            }
            None => None,
        };
        for (i, (a, b)) in parts.iter().zip(parts.iter().skip(1)).enumerate() {
            // In a chain whose parameter is derived, each term is compared with the length
            // it came from; the derived parameter itself needs no check.
            let (left, right, text) = match &source {
                Some((at, value)) => {
                    let other = if i + 1 == *at { i } else { i + 1 };
                    if other == *at || terms[other] == *value {
                        continue;
                    }
                    (
                        value.clone(),
                        terms[other].clone(),
                        format!("{} = {}", parts[0].trim(), parts[other].trim()),
                    )
                }
                None => (
                    terms[i].clone(),
                    terms[i + 1].clone(),
                    format!("{} {op} {}", a.trim(), b.trim()),
                ),
            };
            checks.push(Clause::Check {
                left,
                op: if op == "=" { "==" } else { op },
                right,
                text,
            });
        }
    }
    derived.extend(checks);
    Ok(derived)
}

const SHAPES: [&str; 13] = [
    "block",
    "block.x",
    "block.y",
    "block.z",
    "grid",
    "grid.x",
    "grid.y",
    "grid.z",
    "threads",
    "threads.x",
    "threads.y",
    "threads.z",
    "shared",
];

fn expression(text: &str, kernel: &Kernel) -> Result<Expr, String> {
    let tokens = tokens(text)?;
    let mut at = 0;
    let e = sum(&tokens, &mut at, kernel)?;
    if at != tokens.len() {
        return Err(format!("unexpected `{}`", tokens[at]));
    }
    Ok(e)
}

fn tokens(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                    word.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(word);
        } else if "()*+/".contains(c) {
            out.push(c.to_string());
            chars.next();
        } else {
            return Err(format!("`{c}` is not part of a contract"));
        }
    }
    Ok(out)
}

fn sum(t: &[String], at: &mut usize, k: &Kernel) -> Result<Expr, String> {
    let mut e = product(t, at, k)?;
    while t.get(*at).is_some_and(|s| s == "+") {
        *at += 1;
        e = Expr::Sum(Box::new(e), Box::new(product(t, at, k)?));
    }
    Ok(e)
}

fn product(t: &[String], at: &mut usize, k: &Kernel) -> Result<Expr, String> {
    let mut e = factor(t, at, k)?;
    while let Some(op) = t.get(*at).filter(|s| *s == "*" || *s == "/") {
        *at += 1;
        let next = Box::new(factor(t, at, k)?);
        e = if op == "*" {
            Expr::Product(Box::new(e), next)
        } else {
            Expr::Quotient(Box::new(e), next)
        };
    }
    Ok(e)
}

fn factor(t: &[String], at: &mut usize, k: &Kernel) -> Result<Expr, String> {
    let word = t.get(*at).ok_or("an expression ends too soon")?.clone();
    *at += 1;
    let expect = |at: &mut usize, s: &str| {
        if t.get(*at).is_some_and(|x| x == s) {
            *at += 1;
            Ok(())
        } else {
            Err(format!("expected `{s}`"))
        }
    };
    if word == "(" {
        let e = sum(t, at, k)?;
        expect(at, ")")?;
        return Ok(e);
    }
    if word == "len" {
        expect(at, "(")?;
        let buffer = t.get(*at).ok_or("`len(` ends too soon")?.clone();
        *at += 1;
        expect(at, ")")?;
        return match k.params.iter().find(|p| p.name == buffer) {
            Some(p) if p.access.is_some() => Ok(Expr::Len(buffer)),
            _ => Err(format!("`{buffer}` is not a buffer of {}", k.name)),
        };
    }
    if word.starts_with(|c: char| c.is_ascii_digit()) {
        let digits = word.trim_end_matches(['u', 'U', 'l', 'L']);
        return digits
            .parse()
            .map(Expr::Number)
            .map_err(|_| format!("`{word}` is not a number"));
    }
    if SHAPES.contains(&word.as_str()) {
        return Ok(Expr::Shape(word));
    }
    match k.params.iter().find(|p| p.name == word) {
        Some(p) if p.access.is_none() && !matches!(p.c_type.as_str(), "float" | "double") => {
            Ok(Expr::Param(word))
        }
        _ => Err(format!(
            "`{word}` is not an integer parameter of {} nor a shape",
            k.name
        )),
    }
}

/// Rust for the value of `e`, a `u128`; `?` where a scalar parameter could be negative.
pub fn rust(e: &Expr) -> String {
    match e {
        Expr::Number(n) => format!("{n}u128"),
        Expr::Param(p) => format!("::course::launch::count(self.name, {p:?}, {p}_)?"),
        Expr::Len(b) => format!("({b}_.len() as u128)"),
        Expr::Shape(s) => format!("::course::launch::shape(&config, {s:?})"),
        Expr::Sum(a, b) => format!("({} + {})", rust(a), rust(b)),
        Expr::Product(a, b) => format!("({} * {})", rust(a), rust(b)),
        Expr::Quotient(a, b) => format!("({} / {}.max(1))", rust(a), rust(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adder() -> Kernel {
        crate::signature::kernels(
            "extern \"C\" __global__ void adder(const double *xs, const double *ys, double *zs, int n) {}",
        )
        .unwrap()
        .remove(0)
    }

    #[test]
    fn a_chain_derives_its_parameter_and_checks_the_other_lengths() {
        let clauses = parse("n = len(xs) = len(ys) = len(zs); threads >= n", &adder()).unwrap();
        assert_eq!(
            clauses[0],
            Clause::Derive {
                param: "n".into(),
                value: Expr::Len("xs".into())
            }
        );
        let texts: Vec<_> = clauses[1..]
            .iter()
            .map(|c| match c {
                Clause::Check { text, op, .. } => format!("{text} ({op})"),
                _ => panic!("{c:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            ["n = len(ys) (==)", "n = len(zs) (==)", "threads >= n (>=)"]
        );
    }

    #[test]
    fn mistakes_are_named() {
        let k = adder();
        assert!(parse("m = len(xs)", &k).unwrap_err().contains("`m`"));
        assert!(
            parse("n = len(n)", &k)
                .unwrap_err()
                .contains("not a buffer")
        );
        assert!(parse("n > 3", &k).unwrap_err().contains("not `a = b`"));
        assert!(parse("n = 3", &k).unwrap_err().contains("no length"));
    }

    #[test]
    fn contracts_are_found_by_name_and_prefix() {
        let w = written(
            "// launch adder: n = len(xs)\n// launch image_*: block <= 64\n// launching soon",
        );
        assert_eq!(w.len(), 2);
        assert_eq!(for_kernel(&w, "adder").as_deref(), Some("n = len(xs)"));
        assert_eq!(for_kernel(&w, "image_fast").as_deref(), Some("block <= 64"));
        assert_eq!(for_kernel(&w, "other"), None);
    }
}
