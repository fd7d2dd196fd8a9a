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
//! report errors.

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

/// A mutant from its patch's `# case:`, `# expect:` and `# sanitizer:` lines.
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
        dir: dir.to_path_buf(),
    })
}

/// Whether a mutant's run caught it: `Ok` with the line that failed, or `Err` saying why it was
/// not caught. `exit` is the program's exit status (`None`: killed, such as by the time-out).
pub fn caught(
    expected: &str,
    printed: &str,
    exit: Option<i32>,
    expect: &str,
) -> Result<String, String> {
    match exit {
        Some(0) => {}
        Some(code) => {
            return Err(format!(
                "the program exited with status {code}: a crash is not a catch"
            ));
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
            caught(BOOK, wrong, Some(0), "right on both")
                .unwrap()
                .starts_with("line 3:")
        );
        assert!(caught(BOOK, BOOK, Some(0), "right on both").is_err());
        assert!(caught(BOOK, wrong, Some(1), "right on both").is_err());
        assert!(caught(BOOK, wrong, None, "right on both").is_err());
        assert!(caught(BOOK, wrong, Some(0), "done").is_err());
        assert!(
            caught(BOOK, wrong, Some(0), "sum").is_err(),
            "a masked time is no catch"
        );
        assert!(
            caught(
                BOOK,
                "sum 3.10 ms (this machine)\n",
                Some(0),
                "right on both"
            )
            .is_ok()
        );
    }
}
