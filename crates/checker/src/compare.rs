//! Comparing what a program printed with what the book shows.
//!
//! Every number is compared, in one of three classes:
//!
//! 1. **exactly**: sizes, counts, integer sums, seeds, bounds, and every word (`yes`, `NO`);
//!    this is the default;
//! 2. **within the line's own bound**: on a line that states its check, `..., bound B: yes`,
//!    a number with a decimal point or an exponent may differ from the book's by at most
//!    `B × max(1, |book's value|)` (floating-point results whose order of addition varies);
//!    the line's integers, its bound and its verdict are still compared exactly;
//! 3. **masked**, and counted: a measurement (a number followed by a unit of time or rate,
//!    `12.3 ms`, `512 GB/s`; a ratio `3.41x` or a share `87%` on a line that holds the times or
//!    rates it divides, so a ratio without them, or a bound `more than 10x`, is compared
//!    exactly), and every number on a line the program marks `(varies)` (changes from run to
//!    run: a racy count) or `(this machine)` (a fact of the hardware or derived from one), and
//!    the `CPU: ...` / `GPU: ...` line that names the machine, indented or not (its words may
//!    differ too: the GPU's name, compute capability and SM count are masked as one). The
//!    GPU's name that a run's first `GPU:` line states is read as the book's wherever else the
//!    run prints it (a line that compares a rate with this GPU's datasheet names it).
//!    A marked line may not state a verdict or a bound: a result is never masked.
//!
//! Runs of spaces count as one, since masked numbers change the widths of table columns.
//!
//! A GPU that the floors' table does not list (`course::floor`) prints its floor lines without
//! their numbers, and such a line is accepted against the book's as **not known**, and counted
//! apart from what passed (see [`not_known`]): a line that says `no floor known for this GPU`,
//! in place of a line of the book that is marked or is about a floor, with the same text before
//! the first `:`; and a marked line with `-` where the book has a masked number (a column of
//! times over their floor).

const RATE_UNITS: [&str; 9] = [
    "MB/s", "GB/s", "TB/s", "GFLOP/s", "TFLOP/s", "Gop/s", "Mop/s", "Mkeys/s", "Gkeys/s",
];

/// The marker of a line whose numbers change from run to run.
pub const VARIES: &str = "(varies)";
/// The marker of a line whose numbers are facts of the machine, or derived from them.
pub const THIS_MACHINE: &str = "(this machine)";

/// One token of a line: a number (with what precedes and follows it in the token) or a word.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Number {
        prefix: String,
        text: String,
        suffix: String,
    },
}

/// Splits `(-12.5ms,` into (`(`, `-12.5`, `ms,`) when the token holds a number after its
/// opening punctuation.
fn split_number(token: &str) -> Option<(&str, &str, &str)> {
    let after_prefix = token.trim_start_matches(['(', '[', '~', '≈', '=', '<', '>', '≤']);
    let body = after_prefix
        .strip_prefix(['-', '+', '−'])
        .unwrap_or(after_prefix);
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut end = 0;
    let bytes = body.as_bytes();
    while end < bytes.len() {
        let c = bytes[end] as char;
        let exponent_sign =
            (c == '-' || c == '+') && end > 0 && matches!(bytes[end - 1], b'e' | b'E');
        let exponent = (c == 'e' || c == 'E')
            && bytes
                .get(end + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+');
        let grouped = (c == ',' || c == '.' || c == '_')
            && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() || grouped || exponent || exponent_sign {
            end += 1;
        } else {
            break;
        }
    }
    let prefix_len = token.len() - after_prefix.len();
    let number_end = prefix_len + (after_prefix.len() - body.len()) + end;
    Some((
        &token[..prefix_len],
        &token[prefix_len..number_end],
        &token[number_end..],
    ))
}

fn tokens(line: &str) -> Vec<Token> {
    // `[-0.5,` and `[ 0.5,` are the same column, aligned: split brackets off first.
    let spaced = line.replace('[', "[ ").replace('(', "( ");
    spaced
        .split_whitespace()
        .map(|t| match split_number(t) {
            Some((prefix, text, suffix)) => Token::Number {
                prefix: prefix.into(),
                text: text.into(),
                suffix: suffix.into(),
            },
            None => Token::Word(t.into()),
        })
        .collect()
}

fn bare(text: &str) -> &str {
    text.trim_end_matches([',', ';', ')', '.', ':', ']'])
}

fn is_time(text: &str) -> bool {
    protocol::TIME_UNITS
        .iter()
        .any(|(unit, _)| *unit == bare(text))
}

fn is_rate(text: &str) -> bool {
    RATE_UNITS.contains(&bare(text))
}

/// The value as a float, ignoring digit-group separators (`4,210` and `1_000`).
fn value(text: &str) -> Option<f64> {
    text.replace([',', '_'], "").replace('−', "-").parse().ok()
}

fn is_float(text: &str) -> bool {
    text.contains(['.', 'e', 'E'])
}

/// How a line is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Every number exactly, but measurements.
    Plain,
    /// Floats within this bound, the rest exactly.
    Bound(f64),
    /// Every number masked.
    Marked,
}

/// `bound B: yes` / `bound B: NO` at the end of a line (the first number after the last
/// word `bound`).
fn stated_bound(toks: &[Token]) -> Option<f64> {
    let at = toks
        .iter()
        .rposition(|t| matches!(t, Token::Word(w) if w == "bound"))?;
    match toks.get(at + 1) {
        Some(Token::Number { text, .. }) => value(text),
        _ => None,
    }
}

fn has_verdict(line: &str) -> bool {
    let end = line.trim_end();
    end.ends_with(": yes") || end.ends_with(": NO")
}

/// The line that names the machine, `GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)`
/// (`course::machine`), at the start of a line or indented below a line it belongs to.
fn is_machine_line(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("CPU: ") || line.starts_with("GPU: ")
}

fn is_marked(line: &str) -> bool {
    line.contains(VARIES) || line.contains(THIS_MACHINE) || is_machine_line(line)
}

/// A line of the book that breaks the rules above (a masked result), or `None`.
pub fn lint_line(line: &str) -> Option<String> {
    let verdict = line.contains(": yes") || line.contains(": NO");
    if is_marked(line) && (verdict || stated_bound(&tokens(line)).is_some()) {
        return Some(format!(
            "`{line}` is marked as varying but states a result; print the result on a line of its own"
        ));
    }
    None
}

fn kind(line: &str, toks: &[Token]) -> Kind {
    if is_marked(line) {
        Kind::Marked
    } else if let Some(b) = stated_bound(toks).filter(|_| has_verdict(line)) {
        Kind::Bound(b)
    } else {
        Kind::Plain
    }
}

/// Which numbers of a line are measurements (masked on any line).
fn measurements(toks: &[Token]) -> Vec<bool> {
    let has_measure = toks.iter().enumerate().any(|(i, t)| match t {
        Token::Number { suffix, .. } => {
            is_time(suffix)
                || is_rate(suffix)
                || (suffix.is_empty()
                    && matches!(toks.get(i + 1), Some(Token::Word(w)) if is_time(w) || is_rate(w)))
        }
        _ => false,
    });
    toks.iter()
        .enumerate()
        .map(|(i, t)| match t {
            Token::Number { suffix, .. } => {
                let next_is_unit = suffix.is_empty()
                    && matches!(toks.get(i + 1), Some(Token::Word(w)) if is_time(w) || is_rate(w));
                // A ratio is masked only beside the measurements it divides; after `than`
                // ("more than 10x") it is a bound, and bounds are exact.
                let after_than = matches!(i.checked_sub(1).map(|j| &toks[j]), Some(Token::Word(w)) if w == "than");
                let ratio = (bare(suffix) == "x" || bare(suffix) == "×") && has_measure && !after_than;
                let share = bare(suffix) == "%" && has_measure;
                is_time(suffix) || is_rate(suffix) || next_is_unit || ratio || share
            }
            _ => false,
        })
        .collect()
}

/// The line as compared: masked numbers become `#` (a masked duration's unit `time`), numbers
/// compared within a bound become `~`, and how many numbers were masked.
fn shape(line: &str) -> (Vec<String>, Vec<Option<f64>>, Kind, usize) {
    let toks = tokens(line);
    let kind = kind(line, &toks);
    let measured = measurements(&toks);
    let bound_at = toks
        .iter()
        .rposition(|t| matches!(t, Token::Word(w) if w == "bound"))
        .map(|i| i + 1);
    let mut words = Vec::new();
    let mut values = Vec::new();
    let mut masked = 0;
    for (i, t) in toks.iter().enumerate() {
        let text = match t {
            Token::Word(w) => {
                let after_time = i > 0
                    && measured[i - 1]
                    && is_time(w)
                    && matches!(&toks[i - 1], Token::Number { suffix, .. } if suffix.is_empty());
                if after_time {
                    w.replacen(bare(w), "time", 1)
                } else {
                    w.clone()
                }
            }
            Token::Number {
                prefix,
                text,
                suffix,
            } => {
                let suffix = if is_time(suffix) {
                    suffix.replacen(bare(suffix), "time", 1)
                } else {
                    suffix.clone()
                };
                if measured[i] || kind == Kind::Marked {
                    masked += 1;
                    format!("{prefix}#{suffix}")
                } else if matches!(kind, Kind::Bound(_)) && is_float(text) && bound_at != Some(i) {
                    values.push(value(text));
                    format!("{prefix}~{suffix}")
                } else {
                    format!("{prefix}{text}{suffix}")
                }
            }
        };
        words.push(text);
    }
    (words, values, kind, masked)
}

/// The line with its masked numbers replaced by `#`, as the comparison sees it.
pub fn mask_line(line: &str) -> String {
    shape(line).0.join(" ")
}

/// What a comparison that passed ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Compared {
    /// Numbers masked: measurements and numbers on marked lines.
    pub masked: usize,
    /// Numbers compared within a bound rather than exactly.
    pub within_bound: usize,
    /// Lines accepted only because this GPU has no floor known: see [`not_known`].
    pub not_known: usize,
}

pub use protocol::{NO_FLOOR, NO_REFERENCE};

/// `Some` (one line not known) when the run's line `a` differs from the book's `e` only because
/// the run's GPU has no floor known: either `a` says [`NO_FLOOR`] after the same text, up to the
/// first `:`, as `e` (compared as `e`'s numbers are: all masked on a marked line), where `e` is
/// marked or that text names a floor; or both lines are marked and `a` has `-` wherever it
/// differs, in place of a number of `e`'s. Likewise when the run had no CUB to compare with:
/// `a` says [`NO_REFERENCE`] after the same text as `e`, and that text names CUB.
pub fn not_known(e: &str, a: &str) -> Option<Compared> {
    let one = Compared {
        not_known: 1,
        ..Compared::default()
    };
    if a.contains(NO_FLOOR) || a.contains(NO_REFERENCE) {
        let (e_label, _) = e.split_once(':')?;
        let (a_label, _) = a.split_once(':')?;
        let masked = |label: &str| match is_marked(e) {
            true => mask_line(&format!("{label} {THIS_MACHINE}")),
            false => mask_line(label),
        };
        let about_it = match a.contains(NO_FLOOR) {
            true => is_marked(e) || e_label.contains("floor"),
            false => e_label.contains("CUB"),
        };
        return (about_it && masked(e_label) == masked(a_label)).then_some(one);
    }
    if !(is_marked(e) && is_marked(a)) {
        return None;
    }
    let (ew, aw) = (shape(e).0, shape(a).0);
    let e_toks = tokens(e);
    let dashes = ew.len() == aw.len()
        && ew
            .iter()
            .zip(&aw)
            .zip(&e_toks)
            .all(|((x, y), t)| x == y || (y == "-" && matches!(t, Token::Number { .. })));
    (dashes && ew != aw).then_some(one)
}

fn compare_line(e: &str, a: &str) -> Result<Compared, String> {
    let (ew, ev, kind, masked) = shape(e);
    if is_machine_line(e) {
        // The line that names the machine: another machine is not a difference.
        // `GPU:` or `CPU:`, indented alike.
        let label = |line: &str| line[..line.len() - line.trim_start().len() + 4].to_string();
        return match is_machine_line(a) && label(e) == label(a) {
            true => Ok(Compared {
                masked,
                ..Compared::default()
            }),
            false => Err("should name the machine".into()),
        };
    }
    let (aw, av, _, _) = shape(a);
    if ew != aw {
        return not_known(e, a).ok_or_else(|| "differs".into());
    }
    if let Kind::Bound(bound) = kind {
        for (x, y) in ev.iter().zip(&av) {
            let (Some(x), Some(y)) = (x, y) else {
                return Err("holds a number that does not parse".into());
            };
            if (x - y).abs() > bound * x.abs().max(1.0) || x.is_nan() != y.is_nan() {
                return Err(format!(
                    "{y} is farther from the book's {x} than the line's bound {bound} allows"
                ));
            }
        }
    }
    Ok(Compared {
        masked,
        within_bound: ev.len(),
        ..Compared::default()
    })
}

/// `Ok` when `actual` shows the same output as `expected`, else a message naming the first
/// line that differs and why.
pub fn compare(expected: &str, actual: &str) -> Result<Compared, String> {
    let actual = &*on_the_books_gpu(expected, actual);
    let mut total = Compared::default();
    for (i, e) in expected.lines().enumerate() {
        if let Some(why) = lint_line(e) {
            return Err(format!("line {} of the book: {why}", i + 2));
        }
    }
    let act: Vec<&str> = actual.lines().collect();
    for (i, (e, a)) in expected.lines().zip(&act).enumerate() {
        let line = compare_line(e, a).map_err(|why| {
            format!(
                "line {} {why}:\n  book: {e}\n  run:  {a}",
                i + 2 // the command is line 1 of the file
            )
        })?;
        total.masked += line.masked;
        total.within_bound += line.within_bound;
        total.not_known += line.not_known;
    }
    let lines = expected.lines().count();
    if lines != act.len() {
        return Err(format!(
            "the book shows {lines} lines, the run printed {}",
            act.len()
        ));
    }
    Ok(total)
}

/// The GPU's name as the first `GPU: NAME (...)` line of an output states it.
fn gpu_name(text: &str) -> Option<&str> {
    let rest = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("GPU: "))?;
    let name = rest.split(" (").next().unwrap_or(rest).trim();
    (!name.is_empty()).then_some(name)
}

/// The run's output with its GPU's name, wherever it occurs, replaced by the book's.
fn on_the_books_gpu<'a>(expected: &str, actual: &'a str) -> std::borrow::Cow<'a, str> {
    match (gpu_name(expected), gpu_name(actual)) {
        (Some(book), Some(run)) if book != run => actual.replace(run, book).into(),
        _ => actual.into(),
    }
}

/// The lines where a run differs from the book, by the rules of [`compare`]: each one's line
/// in the expected-output file (the command is line 1), the book's line and the run's (empty
/// when the run printed fewer lines). Empty when every line the book shows matches.
pub fn differences(expected: &str, actual: &str) -> Vec<(usize, String, String)> {
    let actual = &*on_the_books_gpu(expected, actual);
    let act: Vec<&str> = actual.lines().collect();
    let differs = |i: usize, e: &str| act.get(i).is_none_or(|a| compare_line(e, a).is_err());
    expected
        .lines()
        .enumerate()
        .filter(|&(i, e)| differs(i, e))
        .map(|(i, e)| {
            (
                i + 2,
                e.to_string(),
                act.get(i).copied().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// For a run on fresh random inputs: every line of the book that ends with a verdict must end
/// with the same verdict, and the run must print as many lines.
pub fn compare_verdicts(expected: &str, actual: &str) -> Result<usize, String> {
    let act: Vec<&str> = actual.lines().collect();
    let exp: Vec<&str> = expected.lines().collect();
    if exp.len() != act.len() {
        return Err(format!(
            "the book shows {} lines, the run printed {}",
            exp.len(),
            act.len()
        ));
    }
    let mut checked = 0;
    for (i, (e, a)) in exp.iter().zip(&act).enumerate() {
        if has_verdict(e) && !has_verdict(a) && not_known(e, a).is_some() {
            continue; // no floor known for this GPU: nothing to check
        }
        if has_verdict(e) {
            checked += 1;
            let verdict = |l: &str| l.trim_end().rsplit(": ").next().map(str::to_string);
            if !has_verdict(a) || verdict(e) != verdict(a) {
                return Err(format!(
                    "line {} gives another verdict on fresh inputs:\n  book: {e}\n  run:  {a}",
                    i + 2
                ));
            }
        }
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_are_masked_and_results_are_not() {
        assert_eq!(
            mask_line("serial   12.3 ms   rayon 4.1ms  3.00x"),
            "serial # time rayon #time #x"
        );
        assert_eq!(mask_line("took 976 µs"), mask_line("took 1.02 ms"));
        assert_eq!(mask_line("sum = 499999500000"), "sum = 499999500000");
        assert_eq!(mask_line("copy: 4,210 GB/s (91%)"), "copy: # GB/s ( #%)");
        assert_eq!(mask_line("sort: 23.68 Gkeys/s"), "sort: # Gkeys/s");
        assert_eq!(
            mask_line("error 1.5e-7 after 3 runs"),
            "error 1.5e-7 after 3 runs"
        );
    }

    #[test]
    fn sizes_and_shares_without_a_measurement_are_exact() {
        assert!(compare("image of 48 x 48\n", "image of 47 x 48\n").is_err());
        assert!(
            compare(
                "95% of the work is parallel\n",
                "90% of the work is parallel\n"
            )
            .is_err()
        );
        assert!(compare("1.2 ms, 91% of the copy\n", "1.4 ms, 85% of the copy\n").is_ok());
    }

    #[test]
    fn ratios_are_masked_only_beside_their_measurements() {
        let book = "fusing makes it 2.94x faster (573 µs against 195 µs)\n";
        assert!(
            compare(
                book,
                "fusing makes it 3.10x faster (601 µs against 194 µs)\n"
            )
            .is_ok()
        );
        assert!(compare("G 4 S 2 blocks 8x\n", "G 4 S 2 blocks 9x\n").is_err());
        assert!(compare("speedup 2.94x\n", "speedup 3.10x\n").is_err());
        let bound = "96.3x faster (1.2 ms against 12 µs), more than 10x: yes\n";
        assert!(
            compare(
                bound,
                "90.1x faster (1.1 ms against 12 µs), more than 10x: yes\n"
            )
            .is_ok()
        );
        assert!(
            compare(
                bound,
                "90.1x faster (1.1 ms against 12 µs), more than 11x: yes\n"
            )
            .is_err()
        );
    }

    #[test]
    fn marked_lines_mask_every_number_and_are_counted() {
        assert_eq!(mask_line("run 1: 7342113 (varies)"), "run #: # ( varies)");
        let c = compare("run 1: 73 (varies)\n", "run 1: 12 (varies)\n").unwrap();
        assert_eq!(c.masked, 2);
        assert!(compare("SMs: 132 (this machine)\n", "SMs: 114 (this machine)\n").is_ok());
        let h200 = "GPU: NVIDIA H200 (9.0, 132 SMs)\nsum 10\n";
        assert!(compare(h200, "GPU: NVIDIA RTX 4090 (8.9, 128 SMs)\nsum 10\n").is_ok());
        assert!(compare(h200, "GPU: NVIDIA RTX 4090 (8.9, 128 SMs)\nsum 11\n").is_err());
        assert!(compare(h200, "sum 10\nsum 10\n").is_err());
    }

    /// A recording of the book, the H200's, as its file holds it (without the command line).
    fn recording(file: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples")
            .join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        text.split_once('\n').unwrap().1.to_string()
    }

    /// The same output as printed on an H100 with another driver: the facts of the machine
    /// replaced, nothing else.
    fn on_an_h100(h200: &str) -> String {
        h200.replace("NVIDIA H200", "NVIDIA H100 80GB HBM3")
            .replace("139.8 GiB", "79.2 GiB")
            .replace("132 SMs", "114 SMs")
            .replace("driver for CUDA 13.0", "driver for CUDA 13.1")
    }

    /// The same output as printed on the other kind of GPU machine: an H200's on an H100, an
    /// H100's on an H200.
    fn on_another_gpu(text: &str) -> String {
        match text.contains("NVIDIA H200") {
            true => on_an_h100(text),
            false => text
                .replace("NVIDIA H100 80GB HBM3", "NVIDIA H200")
                .replace("79.2 GiB", "139.8 GiB"),
        }
    }

    #[test]
    fn check_setup_on_another_gpu_compares_equal_and_its_results_still_count() {
        let book = recording("workshop/check_setup.gpu.txt");
        assert!(book.contains("              GPU: NVIDIA "));
        assert!(book.contains(" GiB of memory (this machine)\n"));
        let h100 = on_another_gpu(&book);
        assert_ne!(h100, book);
        let c = compare(&book, &h100).unwrap();
        assert_eq!(c.not_known, 0);
        // The results are compared as ever: a wrong sum, a GPU not opened, another verdict.
        let wrong = h100.replace(
            "0 of 1000 sums differ from i + 2i: ok",
            "3 of 1000 sums differ from i + 2i: wrong",
        );
        assert!(compare(&book, &wrong).is_err());
        let not_opened = h100.replace("by the NVIDIA driver: ok", "by the NVIDIA driver: wrong");
        assert!(compare(&book, &not_opened).is_err());
        let missing = h100.replacen("GPU: NVIDIA", "no GPU: NVIDIA", 1);
        assert!(compare(&book, &missing).is_err());
        // The machine's lines stay where the book has them, indented alike.
        let unindented = h100.replace("              GPU: NVIDIA", "GPU: NVIDIA");
        assert!(compare(&book, &unindented).is_err());
    }

    /// Recordings that name the GPU where the comparer cannot mask it, each with the reason
    /// it is let be. Empty is the aim.
    const NOT_YET_MASKED: [(&str, &str); 1] = [(
        "ch03/multi_gpu-two.gpu.txt",
        "recorded on two GPUs by an older multi_gpu, which named each GPU mid-line; the \
         program now prints a `GPU:` line per GPU, and the case needs two GPUs to record again",
    )];

    #[test]
    fn the_gpus_name_is_masked_wherever_the_run_prints_it() {
        let book = "GPU: NVIDIA H100 80GB HBM3 (compute capability 9.0, 132 SMs)\n\
                    cuBLAS at 716 TFLOP/s is 72% of the datasheet's 989.4 TFLOP/s (NVIDIA H100 80GB HBM3)\n";
        let h200 = book.replace("NVIDIA H100 80GB HBM3", "NVIDIA H200");
        assert!(compare(book, &h200).is_ok());
        // A name that is not the run's own GPU's is still a difference.
        let other = h200.replacen("(NVIDIA H200)", "(NVIDIA A100)", 1);
        assert!(compare(book, &other).is_err());
        assert_eq!(differences(book, &h200), vec![]);
    }

    #[test]
    fn every_recording_compares_equal_on_another_gpu() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut checked = 0;
        for path in protocol::files_under(&root, "txt") {
            let file = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !file.ends_with(".gpu.txt") || NOT_YET_MASKED.iter().any(|(f, _)| *f == file) {
                continue;
            }
            let book = recording(&file);
            if let Err(why) = compare(&book, &on_another_gpu(&book)) {
                panic!("{file} on another GPU: {why}");
            }
            checked += 1;
        }
        // The whole course has many; a chapter forked alone (no mutations/) has its own few.
        let whole = root.join("../../mutations").is_dir();
        let least = if whole { 50 } else { 1 };
        assert!(checked >= least, "only {checked} recordings found");
        for (file, _) in NOT_YET_MASKED {
            assert!(
                !whole || root.join(file).exists(),
                "{file} is gone: drop it from the list"
            );
        }
    }

    #[test]
    fn a_marked_line_may_not_hide_a_result() {
        assert!(
            compare(
                "sum 5, right: yes (varies)\n",
                "sum 5, right: yes (varies)\n"
            )
            .is_err()
        );
        assert!(lint_line("run 1: 3 lost (varies)").is_none());
    }

    #[test]
    fn bound_lines_compare_floats_within_their_bound() {
        let book = "error 8.9e-6 over 100 values, bound 1e-5: yes\n";
        assert!(compare(book, "error 7.1e-6 over 100 values, bound 1e-5: yes\n").is_ok());
        assert!(compare(book, "error 0.5 over 100 values, bound 1e-5: yes\n").is_err());
        assert!(compare(book, "error 7.1e-6 over 101 values, bound 1e-5: yes\n").is_err());
        assert!(compare(book, "error 7.1e-6 over 100 values, bound 1e-4: yes\n").is_err());
        assert!(compare(book, "error 7.1e-6 over 100 values, bound 1e-5: NO\n").is_err());
        let sum = "sum 49996825.922835, bound 1e-12: yes\n";
        assert!(compare(sum, "sum 49996825.922829, bound 1e-12: yes\n").is_ok());
        assert!(compare(sum, "sum 49996825.9, bound 1e-12: yes\n").is_err());
    }

    #[test]
    fn plain_floats_are_exact() {
        assert!(compare("error 1.5e-14\n", "error 0.3\n").is_err());
        assert!(compare("sum = 10\n", "sum = 11\n").is_err());
        assert!(compare("a\nb\n", "a\n").is_err());
        assert!(compare("took 1.0 ms\n", "took 2.5 ms\n").is_ok());
    }

    #[test]
    fn a_run_without_the_cub_reference_is_not_known_and_counted() {
        let book = "  CUB's scan: 0.185 ms, ours at 0.950 of its speed (this machine)\n\
            \x20 CUB's result equal to ours (checksums): yes\n";
        let absent = "  CUB's scan: no CUB reference beside this program\n\
            \x20 CUB's result equal to ours (checksums): no CUB reference beside this program\n";
        assert_eq!(compare(book, absent).unwrap().not_known, 2);
        // Only a line about CUB may say so: a result about anything else is compared as ever.
        let result = "equal to the CPU's scan: 0 of 64 elements differ: yes\n";
        let excuse = "equal to the CPU's scan: no CUB reference beside this program\n";
        assert!(compare(result, excuse).is_err());
        // Where the reference ran, its verdict is compared as ever.
        assert!(compare(book, &book.replace("(checksums): yes", "(checksums): NO")).is_err());
    }

    #[test]
    fn a_gpu_without_a_floor_is_not_known_and_counted() {
        let book = "N = 8\n\
            special-function floor: 2 x 1.7e10 pairs / (132 SMs x 16/clock x 1980 MHz) = 8.22 ms (this machine)\n\
            \x20 1        32   13.3 ms      1.62x (this machine)\n\
            every time at or above 0.95 x its floor: yes\n";
        let unknown = "N = 8\n\
            special-function floor: no floor known for this GPU (compute capability 99.0)\n\
            \x20 1        32   12.1 ms          - (this machine)\n\
            every time at or above 0.95 x its floor: no floor known for this GPU\n";
        let c = compare(book, unknown).unwrap();
        assert_eq!(c.not_known, 3, "the floor, the row with `-`, the verdict");
        assert_eq!(compare(book, book).unwrap().not_known, 0);
        // Another label is another line.
        let relabelled = unknown.replace("special-function floor: no", "FP32 floor: no");
        assert!(compare(book, &relabelled).is_err());
        // A verdict is compared as ever where the floor is known.
        let failed = book.replace("its floor: yes", "its floor: NO");
        assert!(compare(book, &failed).is_err());
        // `-` stands only for a number of a marked line, and nothing else may differ.
        let wrong_row = unknown.replace("  1        32", "  1        33");
        assert!(
            compare(book, &wrong_row).is_ok(),
            "a marked line's numbers are masked"
        );
        let wrong_word = unknown.replace("ms          -", "s/px          -");
        assert!(compare(book, &wrong_word).is_err());
        // A result is never replaced: only a marked line or a line about a floor.
        let result = "F = 1: relative error 6.6e-7, bound 1e-5: yes\n";
        assert!(compare(result, "F = 1: no floor known for this GPU\n").is_err());
        assert!(compare("N = 8\n", "N = 8: no floor known for this GPU\n").is_err());
        // A fresh seed on such a GPU checks the other verdicts and passes over this one.
        assert_eq!(compare_verdicts(book, unknown), Ok(0));
    }

    #[test]
    fn fresh_inputs_keep_their_verdicts() {
        let book = "seed 1\nsum 10, matches: yes\n";
        assert_eq!(
            compare_verdicts(book, "seed 9\nsum 12, matches: yes\n"),
            Ok(1)
        );
        assert!(compare_verdicts(book, "seed 9\nsum 12, matches: NO\n").is_err());
    }
}
