//! What the server asks its judge program once, at start: its fingerprint, the exercises it can
//! judge remotely, and the course's own solution of each (for the board's reference times).
use std::path::Path;
use std::time::Duration;

use protocol::remote::Job;

use crate::runner::{cut_chars, last_line, run_process};

const ASK_LIMIT: Duration = Duration::from_secs(30);
/// The most kept of an answer: a solution's job holds its kernel and plan (chapter 4's bounds
/// check's is 114 KB, past the 64 KiB kept of a run's output).
const ANSWER_CAP: usize = 4 << 20;

/// Runs `program args` and returns its stdout, or a sentence saying why not.
fn ask(program: &Path, args: &[&str]) -> Result<String, String> {
    let asked = format!("{} {}", program.display(), args.join(" "));
    let ended = run_process(program, args, b"", ASK_LIMIT, ANSWER_CAP, &mut |_| {})
        .map_err(|e| format!("could not run {asked}: {e}"))?;
    if ended.timed_out {
        return Err(format!(
            "{asked} did not answer within {} s",
            ASK_LIMIT.as_secs()
        ));
    }
    if ended.code != Some(0) {
        return Err(match last_line(&ended.stderr) {
            Some(line) => format!("{asked} failed: {}", cut_chars(&line, 150)),
            None => format!(
                "{asked} failed ({}) without a message",
                ended.status_words()
            ),
        });
    }
    Ok(String::from_utf8_lossy(&ended.stdout).into_owned())
}

pub fn fingerprint(program: &Path) -> Result<String, String> {
    let out = ask(program, &["--fingerprint"])?;
    match out.trim() {
        "" => Err(format!(
            "{} --fingerprint printed nothing",
            program.display()
        )),
        line => Ok(line.to_string()),
    }
}

/// The remotely judged exercises, as (chapter, exercise).
pub fn exercises(program: &Path) -> Result<Vec<(String, String)>, String> {
    let out = ask(program, &["--list-exercises"])?;
    let mut list = Vec::new();
    for line in out.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.split_whitespace().collect::<Vec<_>>()[..] {
            [chapter, exercise] => list.push((chapter.to_string(), exercise.to_string())),
            _ => {
                return Err(format!(
                    "{} --list-exercises printed `{}`, not `chNN EXERCISE`",
                    program.display(),
                    cut_chars(line, 80)
                ));
            }
        }
    }
    Ok(list)
}

pub fn solution_job(program: &Path, chapter: &str, exercise: &str) -> Result<Job, String> {
    let out = ask(program, &["--solution-job", chapter, exercise])?;
    let line = last_line(out.as_bytes()).unwrap_or_default();
    let mut job: Job = serde_json::from_str(&line).map_err(|e| {
        format!(
            "{} --solution-job {chapter} {exercise} printed no job: {e}",
            program.display()
        )
    })?;
    job.timed = true;
    Ok(job)
}
