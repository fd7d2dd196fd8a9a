//! The judge on the course's solutions and on the learners' starters, one test per part: every
//! part of a solution passes and every part of a starter is "not yet" (a starter that computes
//! the right answer while its TODO is still there is "not yet" too). A part the judge skips is
//! reported as ignored with its reason, never as passed: a CPU part that compiles a kernel needs
//! NVRTC; a GPU part needs NVRTC to compile its kernel (a test of its own) and a GPU to run it.
use std::process::Command;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use protocol::Missing;

/// One line of the judge's verdicts: the exercise (`chNN NAME`), the side and the verdict.
struct Line {
    exercise: String,
    side: String,
    verdict: String,
}

/// The judge's verdict lines and its exit status; `None` for a project without exercises
/// (a fork of a chapter that has none).
fn judge(args: &[&str]) -> Option<(Vec<Line>, Option<i32>)> {
    let out = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(args)
        .output()
        .expect("the judge runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if text.starts_with("No chapter here has exercises.") {
        return None;
    }
    let lines = text
        .lines()
        .filter_map(|line| {
            let side = ["CPU", "GPU"]
                .into_iter()
                .find(|side| line.contains(&format!(" {side}: ")))?;
            let (exercise, verdict) = line.split_once(&format!(" {side}: "))?;
            Some(Line {
                exercise: exercise.split_whitespace().collect::<Vec<_>>().join(" "),
                side: side.to_string(),
                verdict: verdict.to_string(),
            })
        })
        .collect();
    Some((lines, out.status.code()))
}

type Outcome = Result<Completion, Failed>;

/// A CPU part: `expected`, or skipped because the part compiles a kernel and NVRTC is missing.
fn cpu_part(verdict: &str, expected: &str) -> Outcome {
    if verdict.starts_with(expected) {
        return Ok(Completion::Completed);
    }
    if verdict == "skipped: NVRTC not found" {
        let why = Missing::Nvrtc.skip("this part compiles its kernel file with NVRTC")?;
        return Ok(Completion::ignored_with(why));
    }
    Err(format!("says `{verdict}`, expected `{expected}`").into())
}

/// A GPU part's kernel compiles: it ran and was judged (its verdict is the other test's
/// concern), or the judge compiled it without a GPU to run it on.
fn gpu_part_compiles(verdict: &str) -> Outcome {
    let judged = verdict.starts_with("passed") || verdict.starts_with("not yet");
    if judged || verdict.ends_with("compiles with NVRTC") {
        return Ok(Completion::Completed);
    }
    if verdict.ends_with("and no NVRTC to compile the kernel") {
        let why = Missing::Nvrtc.skip("the kernel of this part is compiled by NVRTC")?;
        return Ok(Completion::ignored_with(why));
    }
    Err(format!("says `{verdict}`: its kernel did not compile, or did not run").into())
}

/// A GPU part on the GPU: `expected`, or skipped for want of a GPU.
fn gpu_part_runs(verdict: &str, expected: &str) -> Outcome {
    if verdict.starts_with(expected) {
        return Ok(Completion::Completed);
    }
    // `skipped: no GPU here (WHY); ...` or `skipped: no GPU here (WHY), and ...`
    if let Some(rest) = verdict.strip_prefix("skipped: no GPU here (") {
        let why = rest.rfind(')').map_or(rest, |end| &rest[..end]);
        return Ok(Completion::ignored_with(Missing::Gpu.skip(why)?));
    }
    Err(format!("says `{verdict}`, expected `{expected}`").into())
}

/// The tests of one judge run: its exit status, then each part of each exercise.
fn trials_of(
    which: &'static str,
    args: &'static [&'static str],
    expected: &'static str,
) -> Vec<Trial> {
    let Some((lines, status)) = judge(args) else {
        return Vec::new();
    };
    let shown = format!("judge {}", args.join(" "));
    let mut trials = vec![Trial::test(format!("judge::{which}::exit-status"), {
        let (empty, shown) = (lines.is_empty(), shown.clone());
        move || match (empty, status) {
            (true, _) => Err(format!("`{shown}` printed no verdicts").into()),
            (false, Some(0)) => Ok(()),
            (false, status) => Err(format!("`{shown}` exited with {status:?}, not 0").into()),
        }
    })];
    for line in lines {
        let name = format!("judge::{which}::{}::{}", line.exercise, line.side);
        let shown = format!("`{shown}`: {} {}", line.exercise, line.side);
        let with_context = move |outcome: Outcome| {
            outcome
                .map_err(|e| Failed::from(format!("{shown} {}", e.message().unwrap_or_default())))
        };
        let verdict = line.verdict;
        if line.side == "CPU" {
            trials.push(Trial::ignorable_test(name, move || {
                with_context(cpu_part(&verdict, expected))
            }));
        } else {
            let (context, v) = (with_context.clone(), verdict.clone());
            trials.push(Trial::ignorable_test(
                format!("{name}::compiles"),
                move || context(gpu_part_compiles(&v)),
            ));
            trials.push(Trial::ignorable_test(format!("{name}::runs"), move || {
                with_context(gpu_part_runs(&verdict, expected))
            }));
        }
    }
    trials
}

/// One exercise on its own, with a seed, and three bad command lines that must exit 2.
fn one_exercise_and_bad_arguments() -> Result<(), Failed> {
    let Some((lines, _)) = judge(&["--solutions"]) else {
        return Ok(());
    };
    let first: Vec<&str> = lines[0].exercise.split(' ').collect();
    let (one, status) = judge(&[first[0], first[1], "--solutions", "--seed", "7"]).unwrap();
    if status != Some(0) || !one.iter().all(|l| l.exercise == lines[0].exercise) {
        return Err(format!(
            "`judge {} --solutions --seed 7` judged more, or failed",
            first.join(" ")
        )
        .into());
    }
    for bad in [&["ch99"][..], &[first[0], "no_such"], &["--no-such-option"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(bad)
            .output()
            .map_err(|e| e.to_string())?;
        let said = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(2) || said.lines().count() != 1 {
            let code = out.status.code();
            let shown = bad.join(" ");
            return Err(format!(
                "`judge {shown}` must exit 2 with one sentence, not {code:?}: {said}"
            )
            .into());
        }
    }
    Ok(())
}

/// `judge ch10` names chapter 10's own judge (in its own workspace) in one sentence, and exits
/// 2; a project forked without chapter 10 has nothing to name.
fn ch10_names_its_own_judge() -> Result<(), Failed> {
    let ch10 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ch10-rust-kernels");
    if !ch10.exists() {
        return Ok(());
    }
    let out = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["ch10", "plane"])
        .output()
        .map_err(|e| e.to_string())?;
    let said = String::from_utf8_lossy(&out.stderr);
    let command = "cd crates/ch10-rust-kernels && cargo run --bin judge -- ch10 plane";
    if out.status.code() != Some(2) || said.lines().count() != 1 || !said.contains(command) {
        return Err(format!(
            "`judge ch10 plane` must exit 2 with one sentence giving `{command}`, not {:?}: {said}",
            out.status.code()
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = trials_of("solutions", &["--solutions"], "passed");
    trials.extend(trials_of("starters", &[], "not yet"));
    trials.push(Trial::test(
        "judge::one-exercise-and-bad-arguments",
        one_exercise_and_bad_arguments,
    ));
    trials.push(Trial::test(
        "judge::ch10-names-its-own-judge",
        ch10_names_its_own_judge,
    ));
    let conclusion = libtest_mimic::run(&args, trials);
    protocol::report_skipped(conclusion.num_ignored, "judge tests");
    conclusion.exit();
}
