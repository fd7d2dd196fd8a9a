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
//! differences (one that would be negative refuses the launch), products, quotients and
//! remainders (`/` and `%`, as C computes them on non-negative integers) of numbers, the file's macros, scalar parameters, `len(buffer)` (elements), and the
//! launch's shape: `block`, `grid` and `threads` (their products over x, y, z), `block.x`,
//! `grid.y`, `threads.x` and so on, and `shared` (dynamic shared memory, bytes). A kernel with a
//! contract gets a safe launcher that checks every clause at run time; one without gets an
//! `unsafe` launcher. A name ending in `*` gives the contract to every kernel it starts. The
//! clause `cooperative` makes the launch a cooperative one, for a kernel that synchronises its
//! whole grid. The clause `clusters` launches the blocks in thread-block clusters (compute
//! capability 9.0): the launcher takes a `course::launch::ClusterConfig`, and the terms
//! `cluster` (blocks per cluster) and `cluster.x`, `cluster.y`, `cluster.z` may be used; naming
//! them without `clusters` is an error.
//!
//! Other clause forms: `aligned(x, 16)` checks that buffer `x` starts on a 16-byte boundary (for
//! a kernel that loads or stores it as vectors); `aligns_itself(x, 16)` says the kernel finds the
//! first 16-byte boundary of `x` itself before loading it as vectors (nothing to check at launch;
//! the kernel test and the kernel's model in the property tests hold it to that); `zeroed(status, next_tile)` has the launcher
//! clear those buffers on the stream before the launch (scratch whose contents the kernel
//! trusts); `index64` says the kernel indexes with 64-bit integers; `unsafe: reason` makes the
//! launcher an `unsafe fn` whose safety section gives the reason (what no check can see).
//!
//! Every contract also gets, without writing them, the invariants every kernel of the course
//! needs ([`implicit`]): `grid.y`, `grid.z`, `block.y` and `block.z` are 1 unless a clause names
//! that axis, and, unless the contract says `index64`, `threads + len(b) <= 2^31` for every
//! buffer `b`: the largest thread index, and a grid-stride index one stride past the end, fit in
//! a 32-bit `int`. A `clusters` contract also gets: `cluster.x >= 1`, `cluster.y` and
//! `cluster.z` 1 unless a clause names that axis (else at least 1), every grid axis a whole
//! number of clusters (`grid.x % cluster.x = 0`...), and `cluster <= 16`, the most any GPU
//! schedules together.

use crate::signature::{Access, Kernel};

/// A contract as the file writes it, for one kernel name or name prefix.
#[derive(Clone, Debug)]
pub struct Written {
    pub pattern: String,
    pub clauses: String,
}

/// Every `// launch NAME: clauses` line of a kernel file, in order. A comment line that starts
/// with `launch ` but is not of that form is an error: a contract mistyped must not vanish.
pub fn written(source: &str) -> Result<Vec<Written>, String> {
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let Some(rest) = line
            .trim()
            .strip_prefix("//")
            .and_then(|c| c.trim().strip_prefix("launch "))
        else {
            continue;
        };
        let parsed = rest.split_once(':').and_then(|(name, clauses)| {
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
        });
        match parsed {
            Some(w) => found.push(w),
            None => {
                return Err(format!(
                    "line {}: `{}` is not a contract (`// launch NAME: clauses`)",
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    Ok(found)
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
    /// `clusters`: the blocks are launched in thread-block clusters of the launch's
    /// `cluster_dim`.
    Clusters,
    /// `left op right`, checked when the kernel is launched; `text` is how the file wrote it.
    Check {
        left: Expr,
        op: &'static str,
        right: Expr,
        text: String,
    },
    /// `aligned(buffer, bytes)`: the buffer's address is a multiple of `bytes`.
    Aligned {
        buffer: String,
        bytes: u32,
        text: String,
    },
    /// `aligns_itself(buffer, bytes)`: the kernel makes its vector accesses of `buffer` only
    /// from its first `bytes` boundary on, whatever the buffer's address, so the launcher checks
    /// nothing; the kernel test then allows vector accesses that wide, and the property tests'
    /// model of the kernel must show the boundary is found.
    AlignsItself { buffer: String, bytes: u32 },
    /// `zeroed(a, b)`: the launcher clears these buffers before the launch.
    Zeroed(Vec<String>),
    /// `index64`: no implicit 32-bit index bound.
    Index64,
    /// `unsafe: reason`: the launcher is `unsafe`, for this reason.
    Unsafe(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(u128),
    Param(String),
    Len(String),
    /// `block`, `grid.x`, `threads`, `shared`...
    Shape(String),
    Sum(Box<Expr>, Box<Expr>),
    /// `a - b`, which must not be negative.
    Difference(Box<Expr>, Box<Expr>),
    Product(Box<Expr>, Box<Expr>),
    /// Division rounded down, as C divides non-negative integers.
    Quotient(Box<Expr>, Box<Expr>),
    /// The remainder of that division, C's `%` (by 0 taken as by 1, as for the quotient).
    Remainder(Box<Expr>, Box<Expr>),
}

/// The clauses of `text` (macros already expanded) for `kernel`, checked against its
/// parameters: derived parameters first, in the order written, then the checks.
pub fn parse(text: &str, kernel: &Kernel) -> Result<Vec<Clause>, String> {
    let mut derived = Vec::new();
    let mut checks = Vec::new();
    for clause in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        if let Some(special) = special_clause(clause, kernel)? {
            checks.push(special);
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
                if derived
                    .iter()
                    .any(|d| matches!(d, Clause::Derive { param: p, .. } if p == param))
                {
                    return Err(format!(
                        "`{clause}` derives `{param}` a second time: derive it once and write \
                         the other lengths as `len(a) = len(b)`"
                    ));
                }
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
    let mut shapes = Vec::new();
    for c in &derived {
        c.shapes(&mut shapes);
    }
    let clusters = derived.contains(&Clause::Clusters);
    let cluster_term = shapes.iter().find(|s| s.starts_with("cluster"));
    if let (Some(term), false) = (cluster_term, clusters) {
        return Err(format!(
            "`{term}` is the shape of a cluster, but the contract does not say `clusters`"
        ));
    }
    if clusters && derived.contains(&Clause::Cooperative) {
        return Err("a launch is `cooperative` or in `clusters`, not both".into());
    }
    let implicit = implicit(kernel, &derived);
    derived.extend(implicit);
    Ok(derived)
}

/// `cooperative`, `clusters`, `index64`, `aligned(x, N)`, `aligns_itself(x, N)`, `zeroed(a, b)` or
/// `unsafe: reason`, or `None` for
/// a clause of another form.
fn special_clause(clause: &str, kernel: &Kernel) -> Result<Option<Clause>, String> {
    let buffer = |name: &str, writes: bool| match kernel.params.iter().find(|p| p.name == name) {
        Some(p) if p.access.is_some() && (!writes || p.access == Some(Access::Write)) => Ok(()),
        _ if writes => Err(format!(
            "`{clause}`: `{name}` is not a buffer {} writes",
            kernel.name
        )),
        _ => Err(format!(
            "`{clause}`: `{name}` is not a buffer of {}",
            kernel.name
        )),
    };
    let inside = |prefix: &str| {
        clause
            .strip_prefix(prefix)
            .and_then(|r| r.trim().strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
            .map(|r| r.split(',').map(str::trim).collect::<Vec<_>>())
    };
    if clause == "cooperative" {
        return Ok(Some(Clause::Cooperative));
    }
    if clause == "clusters" {
        return Ok(Some(Clause::Clusters));
    }
    if clause == "index64" {
        return Ok(Some(Clause::Index64));
    }
    if let Some(reason) = clause.strip_prefix("unsafe:") {
        return match reason.trim() {
            "" => Err("`unsafe:` needs the reason no check can see".into()),
            reason => Ok(Some(Clause::Unsafe(reason.to_string()))),
        };
    }
    for (form, own) in [("aligned", false), ("aligns_itself", true)] {
        let Some(args) = inside(form) else { continue };
        let [name, bytes] = args[..] else {
            return Err(format!("`{clause}` is not `{form}(buffer, bytes)`"));
        };
        buffer(name, false)?;
        let bytes: u32 = bytes
            .parse()
            .ok()
            .filter(|b: &u32| b.is_power_of_two())
            .ok_or_else(|| format!("`{clause}`: `{bytes}` is not a power of two"))?;
        return Ok(Some(match own {
            false => Clause::Aligned {
                buffer: name.to_string(),
                bytes,
                text: clause.to_string(),
            },
            true => Clause::AlignsItself {
                buffer: name.to_string(),
                bytes,
            },
        }));
    }
    if let Some(names) = inside("zeroed") {
        for name in &names {
            buffer(name, true)?;
        }
        return Ok(Some(Clause::Zeroed(
            names.into_iter().map(String::from).collect(),
        )));
    }
    Ok(None)
}

/// The invariants every contract gets without writing them: unused grid and block axes are 1,
/// and (unless `index64`) 32-bit indices cannot overflow: `threads + len(b) <= 2^31` for every
/// buffer `b`, so that the largest thread index and an index one grid stride past the last
/// element both fit in an `int`. With `clusters`, the clusters' shape is sound: see the
/// module's documentation.
pub fn implicit(kernel: &Kernel, clauses: &[Clause]) -> Vec<Clause> {
    let mut shapes = Vec::new();
    for c in clauses {
        c.shapes(&mut shapes);
    }
    let named = |s: &str| shapes.iter().any(|n| n == s);
    let mut out = Vec::new();
    for axis in ["y", "z"] {
        for level in ["grid", "block"] {
            let term = format!("{level}.{axis}");
            if !named(&term) && !named(&format!("threads.{axis}")) {
                out.push(Clause::Check {
                    left: Expr::Shape(term.clone()),
                    op: "==",
                    right: Expr::Number(1),
                    text: format!("{term} = 1 (no clause names the {axis} axis)"),
                });
            }
        }
    }
    if clauses.contains(&Clause::Clusters) {
        out.extend(cluster_shape(&named));
    }
    if !clauses.contains(&Clause::Index64) {
        let threads = || Box::new(Expr::Shape("threads".into()));
        let mut buffers: Vec<&str> = kernel
            .params
            .iter()
            .filter(|p| p.access.is_some())
            .map(|p| p.name.as_str())
            .collect();
        if buffers.is_empty() {
            buffers.push("");
        }
        for b in buffers {
            let (left, text) = match b {
                "" => (*threads(), "threads <= 2147483648".to_string()),
                b => (
                    Expr::Sum(threads(), Box::new(Expr::Len(b.into()))),
                    format!("threads + len({b}) <= 2147483648"),
                ),
            };
            out.push(Clause::Check {
                left,
                op: "<=",
                right: Expr::Number(1 << 31),
                text: format!("{text} (32-bit indices)"),
            });
        }
    }
    out
}

/// What a clustered launch needs of its shape: each cluster axis at least 1 (`y` and `z` exactly
/// 1 unless a clause names them), the grid whole clusters along every axis, and at most 16
/// blocks per cluster, the most the driver takes even with non-portable sizes allowed.
fn cluster_shape(named: &dyn Fn(&str) -> bool) -> Vec<Clause> {
    let shape = |s: &str| Box::new(Expr::Shape(s.into()));
    let check = |left: Expr, op, right, text: String| Clause::Check {
        left,
        op,
        right: Expr::Number(right),
        text,
    };
    let mut out = Vec::new();
    for axis in ["x", "y", "z"] {
        let term = format!("cluster.{axis}");
        out.push(match axis == "x" || named(&term) {
            true => check(*shape(&term), ">=", 1, format!("{term} >= 1 (clusters)")),
            false => check(
                *shape(&term),
                "==",
                1,
                format!("{term} = 1 (no clause names the cluster's {axis} axis)"),
            ),
        });
    }
    for axis in ["x", "y", "z"] {
        let (grid, cluster) = (format!("grid.{axis}"), format!("cluster.{axis}"));
        out.push(check(
            Expr::Remainder(shape(&grid), shape(&cluster)),
            "==",
            0,
            format!("{grid} % {cluster} = 0 (whole clusters)"),
        ));
    }
    out.push(check(
        *shape("cluster"),
        "<=",
        16,
        "cluster <= 16 (the largest cluster)".into(),
    ));
    out
}

impl Clause {
    /// Every shape term the clause names.
    fn shapes(&self, out: &mut Vec<String>) {
        match self {
            Clause::Derive { value, .. } => value.shapes(out),
            Clause::Check { left, right, .. } => {
                left.shapes(out);
                right.shapes(out);
            }
            _ => {}
        }
    }
}

impl Expr {
    /// Every shape term (`block.x`, `threads`...) in the expression.
    fn shapes(&self, out: &mut Vec<String>) {
        match self {
            Expr::Shape(s) => out.push(s.clone()),
            Expr::Sum(a, b)
            | Expr::Difference(a, b)
            | Expr::Product(a, b)
            | Expr::Quotient(a, b)
            | Expr::Remainder(a, b) => {
                a.shapes(out);
                b.shapes(out);
            }
            _ => {}
        }
    }
}

const SHAPES: [&str; 17] = [
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
    "cluster",
    "cluster.x",
    "cluster.y",
    "cluster.z",
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
        } else if "()*+-/%".contains(c) {
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
    while let Some(op) = t.get(*at).filter(|s| *s == "+" || *s == "-") {
        *at += 1;
        let next = Box::new(product(t, at, k)?);
        e = match op.as_str() {
            "+" => Expr::Sum(Box::new(e), next),
            _ => Expr::Difference(Box::new(e), next),
        };
    }
    Ok(e)
}

fn product(t: &[String], at: &mut usize, k: &Kernel) -> Result<Expr, String> {
    let mut e = factor(t, at, k)?;
    while let Some(op) = t.get(*at).filter(|s| ["*", "/", "%"].contains(&s.as_str())) {
        *at += 1;
        let next = Box::new(factor(t, at, k)?);
        e = match op.as_str() {
            "*" => Expr::Product(Box::new(e), next),
            "/" => Expr::Quotient(Box::new(e), next),
            _ => Expr::Remainder(Box::new(e), next),
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

/// Rust for the value of `e`, a `u128`, inside a contract check whose buffers are
/// `course::launch::Span`s and whose launch shape is `config` (a `&LaunchConfig`, or a
/// `&ClusterConfig`); `?` where a scalar parameter could be negative.
pub fn rust(e: &Expr) -> String {
    match e {
        Expr::Number(n) => format!("{n}u128"),
        Expr::Param(p) => format!("::course::launch::count(name, {p:?}, {p}_)?"),
        Expr::Len(b) => format!("({b}_.len as u128)"),
        Expr::Shape(s) => format!("::course::launch::shape(config, {s:?})"),
        Expr::Sum(a, b) => format!("({} + {})", rust(a), rust(b)),
        Expr::Difference(a, b) => format!(
            "::course::launch::difference(name, {}, {})?",
            rust(a),
            rust(b)
        ),
        Expr::Product(a, b) => format!("({} * {})", rust(a), rust(b)),
        Expr::Quotient(a, b) => format!("({} / {}.max(1))", rust(a), rust(b)),
        Expr::Remainder(a, b) => format!("({} % {}.max(1))", rust(a), rust(b)),
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
            texts[..3],
            ["n = len(ys) (==)", "n = len(zs) (==)", "threads >= n (>=)"]
        );
        assert_eq!(
            texts[3..],
            [
                "grid.y = 1 (no clause names the y axis) (==)",
                "block.y = 1 (no clause names the y axis) (==)",
                "grid.z = 1 (no clause names the z axis) (==)",
                "block.z = 1 (no clause names the z axis) (==)",
                "threads + len(xs) <= 2147483648 (32-bit indices) (<=)",
                "threads + len(ys) <= 2147483648 (32-bit indices) (<=)",
                "threads + len(zs) <= 2147483648 (32-bit indices) (<=)",
            ]
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
        let twice = parse("n = len(xs); n = len(ys)", &k).unwrap_err();
        assert!(twice.contains("derives `n` a second time"), "{twice}");
        assert!(
            parse("zeroed(xs)", &k)
                .unwrap_err()
                .contains("not a buffer adder writes")
        );
        assert!(
            parse("aligned(zs, 12)", &k)
                .unwrap_err()
                .contains("power of two")
        );
        assert!(
            parse("aligns_itself(zs, 12)", &k)
                .unwrap_err()
                .contains("power of two")
        );
        assert_eq!(
            parse("aligns_itself(xs, 16)", &k).unwrap()[0],
            Clause::AlignsItself {
                buffer: "xs".into(),
                bytes: 16
            }
        );
        assert!(parse("unsafe:", &k).unwrap_err().contains("reason"));
    }

    /// A named axis is free; `index64` drops the index bounds.
    #[test]
    fn implicit_invariants_follow_the_clauses() {
        let texts = |contract: &str| -> Vec<String> {
            parse(contract, &adder())
                .unwrap()
                .into_iter()
                .filter_map(|c| match c {
                    Clause::Check { text, .. } if text.contains('(') => Some(text),
                    _ => None,
                })
                .collect()
        };
        let two_d = texts("n = len(xs); threads.y >= 1; block.z <= 1");
        assert!(
            !two_d
                .iter()
                .any(|t| t.starts_with("grid.y") || t.starts_with("block.y"))
        );
        assert!(two_d.iter().any(|t| t.starts_with("grid.z")));
        assert!(!two_d.iter().any(|t| t.starts_with("block.z")));
        let wide = texts("n = len(xs); index64");
        assert!(!wide.iter().any(|t| t.contains("32-bit")), "{wide:?}");
    }

    /// `clusters` brings the clusters' invariants; a cluster term without it is an error.
    #[test]
    fn clusters_get_their_invariants_and_only_they_name_a_cluster() {
        let texts = |contract: &str| -> Vec<String> {
            parse(contract, &adder())
                .unwrap()
                .into_iter()
                .filter_map(|c| match c {
                    Clause::Check { text, .. } => Some(text),
                    _ => None,
                })
                .collect()
        };
        let clustered = texts("clusters; n = len(xs); threads >= n");
        for clause in [
            "cluster.x >= 1 (clusters)",
            "cluster.y = 1 (no clause names the cluster's y axis)",
            "cluster.z = 1 (no clause names the cluster's z axis)",
            "grid.x % cluster.x = 0 (whole clusters)",
            "grid.y % cluster.y = 0 (whole clusters)",
            "grid.z % cluster.z = 0 (whole clusters)",
            "cluster <= 16 (the largest cluster)",
        ] {
            assert!(
                clustered.iter().any(|t| t == clause),
                "no {clause}: {clustered:?}"
            );
        }
        let two_d = texts("clusters; n = len(xs); cluster.y <= 2");
        assert!(
            two_d.iter().any(|t| t == "cluster.y >= 1 (clusters)"),
            "{two_d:?}"
        );
        assert!(!texts("n = len(xs)").iter().any(|t| t.contains("cluster")));
        let e = parse("n = len(xs); shared >= 4 * cluster.x", &adder()).unwrap_err();
        assert_eq!(
            e,
            "`cluster.x` is the shape of a cluster, but the contract does not say `clusters`"
        );
        let both = parse("clusters; cooperative; n = len(xs)", &adder()).unwrap_err();
        assert!(both.contains("not both"), "{both}");
        assert_eq!(
            parse("n = len(xs); n % 4 <= 0", &adder()).unwrap()[1],
            Clause::Check {
                left: Expr::Remainder(Box::new(Expr::Param("n".into())), Box::new(Expr::Number(4))),
                op: "<=",
                right: Expr::Number(0),
                text: "n % 4 <= 0".into(),
            }
        );
    }

    #[test]
    fn contracts_are_found_by_name_and_prefix() {
        let w = written(
            "// launch adder: n = len(xs)\n// launch image_*: block <= 64\n// launching soon",
        )
        .unwrap();
        assert_eq!(w.len(), 2);
        assert_eq!(for_kernel(&w, "adder").as_deref(), Some("n = len(xs)"));
        assert_eq!(for_kernel(&w, "image_fast").as_deref(), Some("block <= 64"));
        assert_eq!(for_kernel(&w, "other"), None);
        let e = written("// launch adder n = len(xs)\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("not a contract"), "{e}");
    }
}
