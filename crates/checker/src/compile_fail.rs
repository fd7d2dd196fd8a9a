//! The test of the programs the book shows failing to compile, with the compiler's real error,
//! shared by the course's workspace (`crates/examples/tests/compile_fail.rs`) and chapter 10's
//! (`crates/ch10-rust-kernels/ownership/tests/compile_fail.rs`); feature `compile-fail`.
//!
//! On the pinned compiler (`rust-toolchain.toml`) each `compile-fail/NAME.rs` must fail with
//! exactly `compile-fail/NAME.stderr`, the file the book includes under it. Another compiler
//! draws its diagrams its own way, so there only each error's first line (its code and message)
//! is compared, and the exact comparison is reported as skipped: an upgrade degrades the check
//! instead of failing it, and says so. `TRYBUILD=overwrite` rewrites the `.stderr` files from a
//! fresh run (on the pinned compiler).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Completion, Trial};
use protocol::Missing;

/// Runs the check on `compile-fail/` of the crate under test (the working directory of its
/// tests), against the pinned compiler that `toolchain_file` (the text of `rust-toolchain.toml`)
/// names; `scratch` is a folder of the test's own (`CARGO_TARGET_TMPDIR`) for the copies
/// compiled on another compiler. Exits with the tests' status.
pub fn run(toolchain_file: &str, scratch: &Path) -> ! {
    // trybuild builds the programs with a cargo of its own: keep its progress lines and colour
    // codes out of the test output (cargo reads `term.quiet` from the environment).
    // SAFETY: no other thread runs yet.
    unsafe {
        std::env::set_var("CARGO_TERM_QUIET", "true");
        std::env::set_var("NO_COLOR", "1");
    }
    let mut args = Arguments::from_args();
    // The trials set environment variables for trybuild: one at a time.
    args.test_threads = Some(1);
    let pinned = pinned_version(toolchain_file);
    let copies = scratch.join("compile-fail-other-rustc");
    let running = rustc_version();
    let count = compile_fail_programs().len();
    let exact = format!("compile-fail::{count}-programs-fail-with-the-errors-the-book-shows");
    let mut trials = Vec::new();
    if running == pinned {
        trials.push(Trial::test(exact, || {
            trybuild::TestCases::new().compile_fail("compile-fail/*.rs");
            Ok(())
        }));
    } else {
        trials.push(Trial::test(
            format!("compile-fail::{count}-programs-fail-with-the-first-error-line-the-book-shows"),
            move || {
                let mismatches = compare_first_lines_on_this_compiler(&copies);
                match mismatches.is_empty() {
                    true => Ok(()),
                    false => Err(mismatches.join("\n").into()),
                }
            },
        ));
        trials.push(Trial::ignorable_test(exact, move || {
            let why = format!(
                "rustc {running} is not the pinned {pinned} (rust-toolchain.toml), which draws the messages the book shows"
            );
            Ok(Completion::ignored_with(Missing::PinnedRustc.skip(&why)?))
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Compiles copies of the programs with `TRYBUILD=overwrite`, which records what this compiler
/// prints, in `copies`, and lists every program whose first error line differs from the recorded
/// one.
fn compare_first_lines_on_this_compiler(copies: &Path) -> Vec<String> {
    let _ = fs::remove_dir_all(copies);
    fs::create_dir_all(copies).unwrap();
    let programs = compile_fail_programs();
    for program in &programs {
        fs::copy(program, copies.join(program.file_name().unwrap())).unwrap();
    }
    // SAFETY: the trials run one at a time, and nothing else reads the environment.
    unsafe { std::env::set_var("TRYBUILD", "overwrite") };
    // The check runs when the `TestCases` is dropped; a program that compiles fails it.
    trybuild::TestCases::new().compile_fail(copies.join("*.rs"));

    let mut mismatches = Vec::new();
    for program in &programs {
        let read = |path: PathBuf| fs::read_to_string(&path).unwrap_or_default();
        let book = read(program.with_extension("stderr"));
        let here = read(
            copies
                .join(program.file_name().unwrap())
                .with_extension("stderr"),
        );
        let (book, here) = (first_error_line(&book), first_error_line(&here));
        if book.is_none() || book != here {
            mismatches.push(format!(
                "{}: the book shows `{}`, this compiler says `{}`",
                program.display(),
                book.unwrap_or("(no error)"),
                here.unwrap_or("(no error)")
            ));
        }
    }
    mismatches
}

fn compile_fail_programs() -> Vec<PathBuf> {
    let mut programs: Vec<PathBuf> = fs::read_dir("compile-fail")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    programs.sort();
    programs
}

/// The line that names the error: `error[E0596]: cannot borrow ...`.
fn first_error_line(stderr: &str) -> Option<&str> {
    stderr.lines().find(|line| line.starts_with("error"))
}

/// `1.95.0` from the toolchain file's `channel = "1.95.0"`.
fn pinned_version(toolchain_file: &str) -> String {
    let channel = toolchain_file
        .lines()
        .find_map(|line| line.trim().strip_prefix("channel"))
        .expect("rust-toolchain.toml names a channel");
    channel
        .trim_start_matches([' ', '='])
        .trim()
        .trim_matches('"')
        .to_string()
}

/// `1.95.0` from `rustc 1.95.0 (59807616e 2026-04-14)`, for the compiler cargo runs here.
fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .arg("--version")
        .output()
        .expect("rustc runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string()
}
