//! The judge on the course's solutions and on the learners' starters: every CPU part of a
//! solution passes and every CPU part of a starter is "not yet"; GPU parts pass or, without a
//! GPU, say they were skipped. Nothing fails or crashes.
use std::process::Command;

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

fn check(args: &[&str], expected: &str) {
    let Some((lines, status)) = judge(args) else {
        return;
    };
    let shown = args.join(" ");
    assert!(!lines.is_empty(), "`judge {shown}` printed no verdicts");
    for l in &lines {
        let ok = l.verdict.starts_with(expected)
            || (l.side == "GPU" && l.verdict.starts_with("skipped: no GPU here"));
        assert!(
            ok,
            "`judge {shown}`: {} {} says `{}`, expected `{expected}`",
            l.exercise, l.side, l.verdict
        );
    }
    assert_eq!(status, Some(0), "`judge {shown}` exit status");
}

#[test]
fn solutions_pass() {
    check(&["--solutions"], "passed");
}

#[test]
fn starters_are_not_yet() {
    check(&[], "not yet");
}

#[test]
fn one_exercise_and_bad_arguments() {
    let Some((lines, _)) = judge(&["--solutions"]) else {
        return;
    };
    let first: Vec<&str> = lines[0].exercise.split(' ').collect();
    let (one, status) = judge(&[first[0], first[1], "--solutions", "--seed", "7"]).unwrap();
    assert_eq!(status, Some(0));
    assert!(one.iter().all(|l| l.exercise == lines[0].exercise));
    for bad in [&["ch99"][..], &[first[0], "no_such"], &["--no-such-option"]] {
        let status = Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(bad)
            .status()
            .unwrap();
        assert_eq!(
            status.code(),
            Some(2),
            "`judge {}` must exit 2",
            bad.join(" ")
        );
    }
}
