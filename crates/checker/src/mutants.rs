//! Kernel mutations for the GPU check: each `mutations/gpu/NAME.patch` breaks one kernel the way
//! a learner might, and names the case that must catch it and the line of the book it must fail:
//!
//! ```text
//! # The wide histogram kernel stops before its last n % 16 bytes.
//! # case: ch05/histogram_three_ways-tail
//! # expect: shared, grid-stride, 16 B loads  right on both: yes
//! diff --git a/kernels/ch05-histogram.cu b/kernels/ch05-histogram.cu
//! ```
//!
//! `scripts/gpu-bundle.sh` applies each patch to a copy of `kernels/` and puts the files it
//! changed, with the patch, in `mutants/NAME/` of the bundle; `gpu-check --mutations` runs the
//! case with `COURSE_KERNELS` naming that folder, so the program compiles the mutated kernel.
//! A mutant is caught only when the program runs to the end (a crash or a time-out does not
//! count) and its output differs from the book on the line the patch expects. A patch
//! with `# sanitizer: TOOL` (a dropped barrier, say) must also make that compute-sanitizer tool
//! report errors. A patch with `# fault: TEXT` names the one failure that does count: a mutant
//! whose kernel cannot finish correctly (an mbarrier wait dropped, say) is also caught when the
//! program stops with a non-zero status and printed TEXT, which names the fault and the kernel.

use std::path::{Path, PathBuf};

use crate::differences;

/// One mutant of the bundle.
#[derive(Debug)]
pub struct Mutant {
    pub name: String,
    /// The case that must catch it (`ch05/histogram_three_ways-tail`).
    pub case: String,
    /// Text of the book's line that the run must fail.
    pub expect: String,
    /// A compute-sanitizer tool that must report it too (`# sanitizer: racecheck`), for a
    /// mutant that drops a barrier.
    pub sanitizer: Option<String>,
    /// The text of the fault that also catches it (`# fault: ...`): the program's own sentence
    /// naming the error and the faulting kernel.
    pub fault: Option<String>,
    /// The folder of the mutated kernel files.
    pub dir: PathBuf,
}

/// The mutant of the bundle's folder `DIR`, from its `DIR/mutant.patch`.
pub fn read_mutant(dir: &Path) -> Result<Mutant, String> {
    let patch = dir.join("mutant.patch");
    let text = std::fs::read_to_string(&patch)
        .map_err(|e| format!("cannot read {}: {e}", patch.display()))?;
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    parse(&name, &text, dir)
}

/// A mutant from its patch's `# case:`, `# expect:`, `# sanitizer:` and `# fault:` lines.
pub fn parse(name: &str, patch: &str, dir: &Path) -> Result<Mutant, String> {
    let header = |key: &str| {
        patch
            .lines()
            .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
            .map(str::to_string)
            .ok_or_else(|| format!("mutant {name} has no `# {key}: ` line"))
    };
    Ok(Mutant {
        name: name.to_string(),
        case: header("case")?,
        expect: header("expect")?,
        sanitizer: header("sanitizer").ok(),
        fault: header("fault").ok(),
        dir: dir.to_path_buf(),
    })
}

/// Whether a mutant's run caught it: `Ok` with the line that failed, or `Err` saying why it was
/// not caught. `exit` is the program's exit status (`None`: killed, such as by the time-out);
/// `fault`, the text of the one fault that counts as a catch.
pub fn caught(
    expected: &str,
    printed: &str,
    exit: Option<i32>,
    expect: &str,
    fault: Option<&str>,
) -> Result<String, String> {
    match exit {
        Some(0) => {}
        Some(code) => {
            let named = fault.and_then(|f| printed.lines().find(|l| l.contains(f)));
            return match named {
                Some(line) => Ok(format!(
                    "it stopped with status {code}, with the fault it names: `{}`",
                    line.trim()
                )),
                None => Err(format!(
                    "the program exited with status {code}: a crash is not a catch{}",
                    match fault {
                        Some(f) => format!(" unless it prints `{f}`"),
                        None => String::new(),
                    }
                )),
            };
        }
        None => return Err("the program did not finish (killed or timed out)".into()),
    }
    if expected.trim().is_empty() {
        return Err("its case is not recorded yet: record the case on the GPU first".into());
    }
    let found = differences(expected, printed);
    let Some((first, first_book, _)) = found.first() else {
        return Err("its output matched the book's".into());
    };
    match found.iter().find(|(_, book, _)| book.contains(expect)) {
        Some((line, book, run)) => Ok(format!(
            "line {line}: the book says `{book}`, the mutant printed `{run}`"
        )),
        None => Err(format!(
            "its output differs from line {first} (`{first_book}`) on, but not on the line with `{expect}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOOK: &str = "sum 4.20 ms (this machine)\nright on both: yes\ndone\n";

    #[test]
    fn caught_only_on_the_expected_line_after_a_full_run() {
        let wrong = "sum 3.10 ms (this machine)\nright on both: NO\ndone\n";
        assert!(
            caught(BOOK, wrong, Some(0), "right on both", None)
                .unwrap()
                .starts_with("line 3:")
        );
        assert!(caught(BOOK, BOOK, Some(0), "right on both", None).is_err());
        assert!(caught(BOOK, wrong, Some(1), "right on both", None).is_err());
        assert!(caught(BOOK, wrong, None, "right on both", None).is_err());
        assert!(caught(BOOK, wrong, Some(0), "done", None).is_err());
        assert!(
            caught(BOOK, wrong, Some(0), "sum", None).is_err(),
            "a masked time is no catch"
        );
        assert!(
            caught(
                BOOK,
                "sum 3.10 ms (this machine)\n",
                Some(0),
                "right on both",
                None
            )
            .is_ok()
        );
    }

    #[test]
    fn a_fault_is_a_catch_only_when_the_patch_names_it_and_the_program_prints_it() {
        let fault = "because hopper_wgmma faulted on the GPU";
        let died = format!("sum 3.10 ms (this machine)\nError: launch failed, {fault}; run it.\n");
        assert!(
            caught(BOOK, &died, Some(1), "right on both", Some(fault))
                .unwrap()
                .contains("status 1")
        );
        assert!(caught(BOOK, &died, Some(1), "right on both", None).is_err());
        let other = "Error: launch failed, because hopper_tuned faulted on the GPU.\n";
        assert!(caught(BOOK, other, Some(1), "right on both", Some(fault)).is_err());
        assert!(caught(BOOK, &died, None, "right on both", Some(fault)).is_err());
    }
}
