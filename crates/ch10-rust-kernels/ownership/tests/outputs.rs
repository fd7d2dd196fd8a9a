//! Every ownership program, run and compared with its recording `programs/NAME.gpu.txt` by the
//! course's checker (timings masked, and counted; lines marked `(varies)` or `(this machine)`
//! masked; every verdict compared). Without a GPU each program is reported as ignored, with
//! its reason, never as passed. With a GPU, a program whose recording is missing fails, saying
//! how to record it. Every program answers `--help` with a usage and refuses an argument.
//!
//! The programs are found beside this test's binary (`target/<profile>/`), the recordings under
//! the working directory (the package's folder, where cargo runs the test): the binaries of a
//! release build and this test may be copied to a GPU machine without a toolchain and run
//! there from a copy of the package.

use std::path::{Path, PathBuf};

use checker::{Case, compare};
use libtest_mimic::{Arguments, Completion, Trial};
use protocol::EXIT_BAD_ARGUMENT;

const PROGRAMS: [&str; 3] = [
    "copy_in_flight",
    "freed_in_flight",
    "two_streams_one_buffer",
];

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for program in PROGRAMS {
        trials.push(output_trial(program));
        trials.push(Trial::test(format!("usage::{program}"), move || {
            usage(program).map_err(Into::into)
        }));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    protocol::report_skipped(conclusion.num_ignored, "output tests");
    conclusion.exit();
}

fn bin_dir() -> PathBuf {
    // This test runs from target/<profile>/deps; cargo builds the programs one folder up.
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf()
}

fn recording(program: &str) -> PathBuf {
    Path::new("programs").join(format!("{program}.gpu.txt"))
}

fn output_trial(program: &'static str) -> Trial {
    Trial::ignorable_test(format!("output::{program}"), move || {
        let path = recording(program);
        let recorded = path.exists();
        let case = match recorded {
            true => Case::read(&path, Path::new("programs"))?,
            false => Case {
                name: program.into(),
                path: path.clone(),
                bin: program.into(),
                args: Vec::new(),
                env: Vec::new(),
                expected: String::new(),
                gpu: true,
                host: false,
            },
        };
        let run = case.run(&bin_dir(), &[])?;
        if let Some(missing) = case.skip(&run) {
            return Ok(Completion::ignored_with(missing.skip(run.last_sentence())?));
        }
        if !recorded {
            return Err(format!(
                "{} is missing: record it on the GPU (see NOTES.md); this run printed:\n{}",
                path.display(),
                run.printed
            )
            .into());
        }
        let compared = compare(&case.expected, &run.printed)
            .map_err(|why| format!("{program}: {why}\n--- the run printed ---\n{}", run.printed))?;
        // One test at a time, so this lands on the test's own line, before its `ok`.
        print!(
            "{} masked, {} within a bound: ",
            compared.masked, compared.within_bound
        );
        Ok(Completion::Completed)
    })
}

/// `--help` prints a usage and exits 0; an argument is refused with one sentence and status 2.
fn usage(program: &str) -> Result<(), String> {
    let exe = bin_dir().join(program);
    let run = |arg: &str| {
        std::process::Command::new(&exe)
            .arg(arg)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))
    };
    let help = run("--help")?;
    let text = String::from_utf8_lossy(&help.stdout);
    if help.status.code() != Some(0) || !text.starts_with(&format!("Usage: {program}")) {
        return Err(format!("`{program} --help` printed no usage:\n{text}"));
    }
    let bad = run("--trials=3")?;
    let said = String::from_utf8_lossy(&bad.stderr);
    let one_sentence = said.starts_with("Error: ") && said.trim_end().lines().count() == 1;
    if bad.status.code() != Some(EXIT_BAD_ARGUMENT) || !one_sentence {
        return Err(format!(
            "`{program} --trials=3` must be refused in one sentence with status {EXIT_BAD_ARGUMENT}, \
             not status {:?} and:\n{said}",
            bad.status.code()
        ));
    }
    Ok(())
}
