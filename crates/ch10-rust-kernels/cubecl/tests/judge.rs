//! The chapter's judge on wgpu: the course's solution passes, the learner's starter is "not
//! yet", and each wrong answer of `tests/wrong_steps/` (made the judged answer by
//! `COURSE_MUTANT`) fails; `--help` prints a usage and a bad argument gets one sentence and
//! status 2. Where there is no wgpu device the judge says so and exits 77, and the case is
//! reported as skipped with that sentence, never as passed; under `CI=true` it fails instead,
//! as in `tests/outputs.rs`.

use std::process::{Command, Output};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use protocol::{EXIT_BAD_ARGUMENT, Missing};

const JUDGE: &str = env!("CARGO_BIN_EXE_judge");

/// wgpu wants a runtime folder (it prints two errors without one): give the runs one.
fn judge(args: &[&str], mutant: Option<&str>) -> Result<Output, Failed> {
    let mut command = Command::new(JUDGE);
    command.args(args);
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join(format!("ch10-judge-xdg-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        }
        command.env("XDG_RUNTIME_DIR", dir);
    }
    if let Some(name) = mutant {
        command.env("COURSE_MUTANT", name);
    }
    Ok(command.output()?)
}

/// The judge on wgpu must print `ch10 plane: {expected}...` and exit with `status`.
fn verdict_trial(
    name: &str,
    args: &'static [&'static str],
    mutant: Option<&'static str>,
    expected: &'static str,
    status: i32,
) -> Trial {
    Trial::ignorable_test(format!("judge::{name}"), move || {
        let mut all = vec!["ch10", "plane", "--runtime", "wgpu"];
        all.extend(args);
        let out = judge(&all, mutant)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said = stderr.trim().trim_start_matches("Error: ").to_string();
        if let Some(missing) = out.status.code().and_then(Missing::from_exit_status) {
            let why = missing.skip(&said)?;
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                return Err(format!("CI=true requires a wgpu device (lavapipe), but {why}").into());
            }
            return Ok(Completion::ignored_with(why));
        }
        let printed = String::from_utf8_lossy(&out.stdout);
        let line = printed.lines().last().unwrap_or_default();
        let shown = match mutant {
            Some(m) => format!("COURSE_MUTANT={m} judge {}", all.join(" ")),
            None => format!("judge {}", all.join(" ")),
        };
        let wanted = format!("ch10 plane: {expected}");
        if !line.starts_with(&wanted) || out.status.code() != Some(status) {
            return Err(format!(
                "`{shown}` exited with {:?} and printed\n{printed}{said}\nexpected `{wanted}...` \
                 and status {status}",
                out.status.code()
            )
            .into());
        }
        let reason = line.strip_prefix(&wanted).unwrap_or_default().trim();
        if !reason.is_empty() {
            print!("{reason}: ");
        }
        Ok(Completion::Completed)
    })
}

/// `--help` prints a usage; a bad argument gets one sentence and status 2, before any device
/// is opened.
fn command_line_trials() -> Vec<Trial> {
    let help = Trial::test("command-line::help", || {
        let out = judge(&["--help"], None)?;
        let text = String::from_utf8_lossy(&out.stdout);
        match out.status.success() && text.starts_with("Usage: judge") && text.contains("plane") {
            true => Ok(()),
            false => Err(format!("--help printed:\n{text}").into()),
        }
    });
    let refusals: [(&[&str], Option<&str>); 7] = [
        (&["ch09"], None),
        (&["ch10", "scan"], None),
        (&["ch10", "plane", "extra"], None),
        (&["--fast"], None),
        (&["--seed", "x"], None),
        (&["--runtime", "hip"], None),
        (&[], Some("no-such-mutant")),
    ];
    let bad = Trial::test("command-line::bad-arguments-get-one-sentence", move || {
        for (words, mutant) in refusals {
            let out = judge(words, mutant)?;
            let said = String::from_utf8_lossy(&out.stderr);
            let one_sentence = said.lines().count() == 1 && said.starts_with("Error: ");
            if out.status.code() != Some(EXIT_BAD_ARGUMENT) || !one_sentence {
                return Err(format!(
                    "`judge {}` (COURSE_MUTANT {mutant:?}) exited with {:?} and said:\n{said}",
                    words.join(" "),
                    out.status.code()
                )
                .into());
            }
        }
        Ok(())
    });
    vec![help, bad]
}

fn main() {
    let mut args = Arguments::from_args();
    // lavapipe uses every core: one at a time.
    args.test_threads.get_or_insert(1);
    let mut trials = vec![
        verdict_trial("solution-passes", &["--solutions"], None, "passed", 0),
        verdict_trial("starter-is-not-yet", &[], None, "not yet: ", 1),
    ];
    for mutant in ["plane-quarter", "plane-warp-32"] {
        let name = format!("wrong-answer::{mutant}-fails");
        trials.push(verdict_trial(&name, &[], Some(mutant), "failed: ", 1));
    }
    trials.extend(command_line_trials());
    let conclusion = libtest_mimic::run(&args, trials);
    protocol::report_skipped(conclusion.num_ignored, "judge tests");
    conclusion.exit();
}
