//! Comparing what a program printed with what the book shows.
//!
//! Three things are ignored, and nothing else:
//! 1. a measurement: a number followed by a unit of time, rate or ratio (`12.3 ms`,
//!    `512 GB/s`, `3.41x`, `87%`); durations match whatever their unit (`976 µs`, `1.02 ms`);
//! 2. every number on a line that says `(varies)`: the program itself marks values that
//!    change from run to run (the sums of a data race, say);
//! 3. every number, when the machine differs: if a `CPU: ...` or `GPU: ...` line does not
//!    match, the output was recorded on other hardware, so only the words are compared.
//!
//! Runs of spaces count as one, since masked numbers change the widths of table columns.

const UNITS: [&str; 13] = [
    "ns", "µs", "us", "ms", "s", "MB/s", "GB/s", "TB/s", "GFLOP/s", "TFLOP/s", "x", "×", "%",
];

/// Splits `(-12.5ms,` into (`(`, `ms,`) around its number, sign included, when the token
/// starts with one.
fn split_number(token: &str) -> Option<(&str, &str)> {
    let after_prefix = token.trim_start_matches(['(', '[', '~', '≈']);
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
        let digit_group = c == ',' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() || c == '.' || c == '_' || digit_group || exponent || exponent_sign {
            end += 1;
        } else {
            break;
        }
    }
    let prefix_len = token.len() - after_prefix.len();
    Some((&token[..prefix_len], &body[end..]))
}

fn unit_of(text: &str) -> Option<&'static str> {
    let text = text.trim_end_matches([',', ';', ')', '.', ':']);
    UNITS.iter().copied().find(|u| *u == text)
}

/// Time units are one unit for the comparison: `976 µs` in one run is `1.02 ms` in the next.
fn is_time(unit: &str) -> bool {
    matches!(unit, "ns" | "µs" | "us" | "ms" | "s")
}

/// The line with its varying numbers replaced by `#` and its spaces collapsed; a masked
/// duration's unit becomes `time`. With `all_numbers`, every number is replaced (output
/// recorded on other hardware).
pub fn mask_line(line: &str, all_numbers: bool) -> String {
    let varies = all_numbers || line.contains("(varies)");
    // `[-0.5,` and `[ 0.5,` are the same column, aligned: split brackets off first.
    let spaced = line.replace('[', "[ ").replace('(', "( ");
    let mut tokens: Vec<String> = spaced.split_whitespace().map(String::from).collect();
    for i in 0..tokens.len() {
        let Some((prefix, suffix)) = split_number(&tokens[i]) else {
            continue;
        };
        let (prefix, suffix) = (prefix.to_string(), suffix.to_string());
        if suffix.is_empty() {
            if let Some(unit) = tokens.get(i + 1).and_then(|next| unit_of(next)) {
                tokens[i] = format!("{prefix}#");
                if is_time(unit) {
                    tokens[i + 1] = tokens[i + 1].replacen(unit, "time", 1);
                }
            } else if varies {
                tokens[i] = format!("{prefix}#");
            }
        } else if let Some(unit) = unit_of(&suffix) {
            let suffix = if is_time(unit) {
                suffix.replacen(unit, "time", 1)
            } else {
                suffix
            };
            tokens[i] = format!("{prefix}#{suffix}");
        } else if varies {
            tokens[i] = format!("{prefix}#{suffix}");
        }
    }
    tokens.join(" ")
}

fn is_machine_line(line: &str) -> bool {
    line.starts_with("CPU: ") || line.starts_with("GPU: ")
}

/// `Ok` when `actual` shows the same output as `expected`, else a message naming the first
/// line that differs.
pub fn compare(expected: &str, actual: &str) -> Result<(), String> {
    let exp: Vec<&str> = expected.lines().collect();
    let act: Vec<&str> = actual.lines().collect();
    let same_machine = exp
        .iter()
        .filter(|l| is_machine_line(l))
        .zip(act.iter().filter(|l| is_machine_line(l)))
        .all(|(e, a)| mask_line(e, false) == mask_line(a, false));
    for (i, (e, a)) in exp.iter().zip(&act).enumerate() {
        let both_name_hardware = is_machine_line(e) && is_machine_line(a) && e[..4] == a[..4];
        if !same_machine && both_name_hardware {
            continue;
        }
        if mask_line(e, !same_machine) != mask_line(a, !same_machine) {
            return Err(format!(
                "line {} differs:\n  book: {e}\n  run:  {a}",
                i + 2 // the command is line 1 of the file
            ));
        }
    }
    if exp.len() != act.len() {
        return Err(format!(
            "the book shows {} lines, the run printed {}",
            exp.len(),
            act.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_are_masked_and_results_are_not() {
        assert_eq!(
            mask_line("serial   12.3 ms   rayon 4.1ms  3.00x", false),
            "serial # time rayon #time #x"
        );
        assert_eq!(
            mask_line("took 976 µs", false),
            mask_line("took 1.02 ms", false)
        );
        assert_eq!(mask_line("sum = 499999500000", false), "sum = 499999500000");
        assert_eq!(
            mask_line("copy: 4,210 GB/s (91%)", false),
            "copy: # GB/s ( #%)"
        );
        assert_eq!(
            mask_line("error 1.5e-7 after 3 runs", false),
            "error 1.5e-7 after 3 runs"
        );
    }

    #[test]
    fn lines_marked_varies_mask_every_number() {
        assert_eq!(
            mask_line("run 1: 7342113 (varies)", false),
            "run #: # ( varies)"
        );
        assert_eq!(
            mask_line("[ 0.476, -0.753] (varies)", false),
            mask_line("[-0.041,  0.638] (varies)", false)
        );
    }

    #[test]
    fn a_wrong_result_fails() {
        assert!(compare("sum = 10\n", "sum = 11\n").is_err());
        assert!(compare("a\nb\n", "a\n").is_err());
        assert!(compare("took 1.0 ms\n", "took 2.5 ms\n").is_ok());
    }

    #[test]
    fn other_hardware_compares_words_only() {
        let book = "GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)\nSMs: 132\n";
        let other = "GPU: NVIDIA H200 (compute capability 8.9, 128 SMs)\nSMs: 128\n";
        assert!(compare(book, other).is_ok());
        assert!(
            compare(
                book,
                "GPU: NVIDIA GeForce RTX 4090 (compute capability 8.9, 128 SMs)\nSMs: 128\n"
            )
            .is_ok()
        );
        assert!(
            compare(
                book,
                "GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)\nSMs: 128\n"
            )
            .is_err()
        );
    }
}
