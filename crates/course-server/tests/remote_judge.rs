//! The real judge against the real server: `course-server` with `judge` as its runner, and
//! `judge --remote URL --token T` as a learner types it. Needs `target/debug/judge` (built by
//! `cargo build --bin judge`, as .ci/run does before `cargo test -p course-server`). Without a
//! GPU the server's runner compiles each kernel with NVRTC (or finds none) and answers
//! `skipped: no GPU on the server`; with one, the course's solutions pass.
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};

mod common;
use common::{SERVER, TestDir, add_learner};

/// The judge beside the server binary (target/debug/judge); it must have been built.
fn judge_path() -> PathBuf {
    let judge = Path::new(SERVER).with_file_name("judge");
    assert!(
        judge.is_file(),
        "there is no judge at {}: build it first with `cargo build --bin judge` (.ci/run does, \
         before `cargo test -p course-server`)",
        judge.display()
    );
    judge
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Server {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    url: String,
    log: PathBuf,
}

impl Server {
    fn start(db: &Path, judge: &Path) -> Server {
        let log = db.with_extension("log");
        let mut child = Command::new(SERVER)
            .args(["--listen", "127.0.0.1:0", "--db"])
            .arg(db)
            .arg("--runner")
            .arg(judge)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let address = line
            .split("serving http://")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| {
                panic!(
                    "the server did not start: {line}{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            });
        Server {
            url: format!("http://{address}"),
            child,
            _stdout: stdout,
            log,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `judge ARGS` from the workspace's root; its output, with stdout and stderr as text.
fn judge(judge: &Path, args: &[&str]) -> (Output, String, String) {
    let out = Command::new(judge)
        .args(args)
        .args(["--seed", "7"])
        .current_dir(workspace())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// The verdict lines `CHAPTER EXERCISE SIDE: VERDICT`, as (exercise, side, verdict).
fn verdicts(stdout: &str, chapter: &str) -> Vec<(String, String, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{chapter} ")))
        .filter_map(|rest| {
            let (exercise, rest) = rest.split_once(' ')?;
            let (side, verdict) = rest.trim_start().split_once(": ")?;
            Some((exercise.into(), side.into(), verdict.into()))
        })
        .collect()
}

/// A GPU part the server judged: its number, and a verdict a GPU or the lack of one explains.
fn judged_remotely(verdict: &str) -> bool {
    verdict.contains("(remote #")
        && (verdict.starts_with("skipped: no GPU on the server")
            || verdict.starts_with("passed")
            || verdict.starts_with("not yet"))
}

#[test]
fn the_learners_judge_sends_gpu_parts_to_the_server() {
    let judge_bin = judge_path();
    let dir = TestDir::new("remote-judge");
    let db = dir.join("db.sqlite");
    let token = add_learner(&db, "ada");
    let server = Server::start(&db, &judge_bin);
    let url = server.url.clone();
    // GPU parts the server answered, by their `(remote #N)`.
    let mut sent: i64 = 0;

    // Chapter 5's solutions: the CPU parts judged here, every GPU part by the server.
    let (out, stdout, stderr) = judge(
        &judge_bin,
        &["--remote", &url, "--token", &token, "ch05", "--solutions"],
    );
    let context = format!("{stdout}\n{stderr}\nserver log:\n{}", server.log());
    assert!(out.status.success(), "{context}");
    let lines = verdicts(&stdout, "ch05");
    let listed = Command::new(&judge_bin)
        .arg("--list-exercises")
        .output()
        .unwrap();
    let remote_parts = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter(|l| l.starts_with("ch05 "))
        .count();
    let gpu: Vec<_> = lines.iter().filter(|(_, side, _)| side == "GPU").collect();
    let cpu: Vec<_> = lines.iter().filter(|(_, side, _)| side == "CPU").collect();
    assert!(remote_parts > 0, "{context}");
    assert_eq!(gpu.len(), remote_parts, "{context}");
    for (exercise, _, verdict) in &gpu {
        assert!(judged_remotely(verdict), "{exercise}: {verdict}\n{context}");
    }
    let mut ids: Vec<&str> = gpu
        .iter()
        .map(|(_, _, v)| {
            v.split("(remote #")
                .nth(1)
                .unwrap()
                .split([')', ';'])
                .next()
                .unwrap()
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids.len(),
        gpu.len(),
        "one submission per GPU part\n{context}"
    );
    sent += ids.len() as i64;
    assert!(!cpu.is_empty(), "{context}");
    for (exercise, _, verdict) in &cpu {
        assert!(
            !verdict.contains("remote")
                && (verdict == "passed" || verdict.starts_with("skipped: NVRTC not found")),
            "{exercise}: {verdict}\n{context}"
        );
    }

    // A starter, as a learner who has not begun: it still goes to the server, or says what
    // is left to do here, and nothing fails.
    let (out, stdout, stderr) = judge(
        &judge_bin,
        &["--remote", &url, "--token", &token, "ch04", "which_faster"],
    );
    let context = format!("{stdout}\n{stderr}\nserver log:\n{}", server.log());
    assert!(out.status.success(), "{context}");
    let lines = verdicts(&stdout, "ch04");
    let gpu: Vec<_> = lines.iter().filter(|(_, side, _)| side == "GPU").collect();
    assert_eq!(gpu.len(), 1, "{context}");
    let verdict = &gpu[0].2;
    assert!(
        judged_remotely(verdict) || verdict.starts_with("not yet"),
        "{verdict}\n{context}"
    );
    sent += i64::from(verdict.contains("(remote #"));
    let cpu: Vec<_> = lines.iter().filter(|(_, side, _)| side == "CPU").collect();
    assert_eq!(cpu.len(), 1, "{context}");
    assert!(
        !cpu[0].2.contains("remote") && !cpu[0].2.starts_with("failed"),
        "{context}"
    );

    // A GPU part that only a GPU of one's own can judge is not sent.
    let (out, stdout, stderr) = judge(
        &judge_bin,
        &[
            "--remote",
            &url,
            "--token",
            &token,
            "ch03",
            "outer_product",
            "--solutions",
        ],
    );
    let context = format!("{stdout}\n{stderr}");
    assert!(out.status.success(), "{context}");
    let lines = verdicts(&stdout, "ch03");
    let gpu: Vec<_> = lines.iter().filter(|(_, side, _)| side == "GPU").collect();
    assert_eq!(gpu.len(), 1, "{context}");
    assert!(
        gpu[0]
            .2
            .starts_with("skipped: judged on a GPU of your own only"),
        "{context}"
    );

    // A wrong token: one sentence that says so, and a failing exit status.
    let wrong = "0".repeat(32);
    let (out, stdout, stderr) = judge(
        &judge_bin,
        &[
            "--remote",
            &url,
            "--token",
            &wrong,
            "ch05",
            "tile_reverse",
            "--solutions",
        ],
    );
    let context = format!("{stdout}\n{stderr}");
    assert!(!out.status.success(), "{context}");
    let lines = verdicts(&stdout, "ch05");
    let gpu: Vec<_> = lines.iter().filter(|(_, side, _)| side == "GPU").collect();
    assert_eq!(gpu.len(), 1, "{context}");
    let verdict = &gpu[0].2;
    assert!(
        verdict.starts_with("failed: the server refused: unknown token"),
        "{context}"
    );
    assert!(verdict.chars().count() <= 250, "{verdict}");
    assert!(
        !stderr.contains("panicked") && !stdout.contains("panicked"),
        "{context}"
    );

    // The server holds exactly the submissions that were answered, each judged.
    let log = server.log();
    assert!(
        !log.contains("panicked") && !log.contains("database error"),
        "{log}"
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (total, done): (i64, i64) = conn
        .query_row(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE state = 'done') FROM submissions",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((total, done), (sent, sent), "{log}");
}
