//! The real server binary on a free port, with tests/fake-runner.sh as its judge (no GPU
//! needed), spoken to over plain HTTP/1.1 on a TcpStream.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use protocol::remote::{Ack, JUDGE_HEADER, Refusal, State, Status};

mod common;
use common::{SERVER, TestDir, add_learner, fake_runner};

const FINGERPRINT: &str = "fake-judge-1";

struct Server {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    port: u16,
    db: PathBuf,
}

impl Server {
    fn start(db: &Path, extra: &[&str]) -> Server {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(db.with_extension("log"))
            .unwrap();
        let mut child = Command::new(SERVER)
            .args(["--listen", "127.0.0.1:0", "--time-limit", "2", "--db"])
            .arg(db)
            .arg("--runner")
            .arg(fake_runner())
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains("serving http://127.0.0.1:"), "{line}");
        let address = line.split("://").nth(1).unwrap().split(' ').next().unwrap();
        let port = address.rsplit(':').next().unwrap().parse().unwrap();
        Server {
            child,
            _stdout: stdout,
            port,
            db: db.to_path_buf(),
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.db.with_extension("log")).unwrap_or_default()
    }

    fn submit(&self, token: &str, key: &str, exercise: &str, kernel: &str) -> (u16, String) {
        let body = submission(key, exercise, kernel);
        request(
            self.port,
            "POST",
            "/api/submissions",
            Some(token),
            Some(FINGERPRINT),
            Some(body.as_bytes()),
        )
    }

    fn accepted(&self, token: &str, key: &str, exercise: &str, kernel: &str) -> i64 {
        let (code, body) = self.submit(token, key, exercise, kernel);
        assert_eq!(code, 202, "{body}");
        serde_json::from_str::<Ack>(&body).unwrap().id
    }

    fn status(&self, token: &str, id: i64) -> Status {
        let (code, body) = request(
            self.port,
            "GET",
            &format!("/api/submissions/{id}"),
            Some(token),
            None,
            None,
        );
        assert_eq!(code, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    fn wait_done(&self, token: &str, id: i64) -> Status {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let status = self.status(token, id);
            if status.state == State::Done {
                return status;
            }
            assert!(
                Instant::now() < end,
                "submission {id} not done: {status:?}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn get_json(&self, path: &str, token: Option<&str>) -> serde_json::Value {
        let (code, body) = request(self.port, "GET", path, token, None, None);
        assert_eq!(code, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Runs the killed server was in the middle of (a restarted one would end them).
        if let Ok(conn) = rusqlite::Connection::open(&self.db) {
            if let Ok(mut stmt) =
                conn.prepare("SELECT runner_pid FROM submissions WHERE runner_pid IS NOT NULL")
            {
                let pids: Vec<i32> = stmt
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .flatten()
                    .collect();
                for pid in pids {
                    if cmdline(pid).contains("--run-submission") {
                        unsafe { libc::kill(-pid, libc::SIGKILL) };
                    }
                }
            }
        }
    }
}

fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

fn submission(key: &str, exercise: &str, kernel: &str) -> String {
    let (chapter, exercise) = exercise.split_once(' ').unwrap();
    serde_json::json!({
        "judge": FINGERPRINT,
        "key": key,
        "chapter": chapter,
        "exercise": exercise,
        "kernel_name": "tile_reverse.cu",
        "kernel": kernel,
        "plan": {"block": 256},
        "todo": null,
        "seeds": [42, 7],
    })
    .to_string()
}

/// One request on its own connection; the response's status and body.
fn request(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    judge: Option<&str>,
    body: Option<&[u8]>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    if let Some(token) = token {
        head += &format!("Authorization: Bearer {token}\r\n");
    }
    if let Some(judge) = judge {
        head += &format!("{JUDGE_HEADER}: {judge}\r\n");
    }
    if let Some(body) = body {
        head += &format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    head += "\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    if let Some(body) = body {
        stream.write_all(body).unwrap();
    }
    read_response(stream)
}

fn read_response(mut stream: TcpStream) -> (u16, String) {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no response: {text:?}"));
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (code, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out += &rest[..size];
        body = &rest[size + 2..];
    }
}

/// A refusal is one sentence of at most 200 characters; returns it.
fn refusal(code: u16, body: &str, expected: u16) -> String {
    assert_eq!(code, expected, "{body}");
    let error = serde_json::from_str::<Refusal>(body)
        .unwrap_or_else(|e| panic!("{e}: {body}"))
        .error;
    assert!(!error.is_empty() && error.chars().count() <= 200, "{error}");
    assert!(
        !error.contains('\n') && !error.contains(". "),
        "not one sentence: {error}"
    );
    error
}

#[test]
fn command_line_and_learners() {
    let dir = TestDir::new("cli");
    let db = dir.join("db.sqlite");
    let run = |args: &[&str]| Command::new(SERVER).args(args).output().unwrap();
    let help = run(&["--help"]);
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("add-learner NAME"));

    let one_sentence_exit_2 = |args: &[&str]| {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        stderr
    };
    one_sentence_exit_2(&["--bogus", "1"]);
    one_sentence_exit_2(&["serve"]);
    one_sentence_exit_2(&["--listen", "127.0.0.1:0", "--time-limit", "0"]);
    one_sentence_exit_2(&["--listen", "127.0.0.1:0", "--cert", "a.pem"]);
    let no_runner = one_sentence_exit_2(&["--listen", "127.0.0.1:0", "--runner", "/no/such/judge"]);
    assert!(no_runner.contains("/no/such/judge"), "{no_runner}");
    one_sentence_exit_2(&["add-learner", "no spaces please"]);
    one_sentence_exit_2(&["export", "--db", dir.join("none.sqlite").to_str().unwrap()]);

    let out = run(&["add-learner", "ana", "ben", "--db", db.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("ana ") && lines[1].starts_with("ben "));
    assert_ne!(lines[0][4..], lines[1][4..]);

    let again = run(&["add-learner", "cai", "ana", "--db", db.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("already a learner called ana"), "{stderr}");
    // All or nothing: cai was not added either.
    add_learner(&db, "cai");
}

#[test]
fn judged_once_with_board_history_and_export() {
    let dir = TestDir::new("board");
    let db = dir.join("db.sqlite");
    let ana = add_learner(&db, "ana");
    let server = Server::start(&db, &[]);
    // Learners can be added while the server runs.
    let ben = add_learner(&db, "ben");

    let id = server.accepted(&ana, "k1", "ch05 tile_reverse", "US=80");
    let (code, body) = server.submit(&ana, "k1", "ch05 tile_reverse", "US=80");
    assert_eq!(
        (code, serde_json::from_str::<Ack>(&body).unwrap().id),
        (200, id)
    );
    let done = server.wait_done(&ana, id);
    let outcome = done.outcome.unwrap();
    assert_eq!(outcome.line, "passed");
    assert_eq!(outcome.timing.unwrap().median_us, 80.0);
    assert_eq!(outcome.place, Some((1, 1)));
    let (code, body) = server.submit(&ana, "k1", "ch05 tile_reverse", "US=80");
    assert_eq!(
        (code, serde_json::from_str::<Ack>(&body).unwrap().id),
        (200, id)
    );

    let faster = server.accepted(&ben, "k1", "ch05 tile_reverse", "US=40");
    assert_eq!(
        server.wait_done(&ben, faster).outcome.unwrap().place,
        Some((1, 2))
    );
    assert_eq!(server.status(&ana, id).outcome.unwrap().place, Some((2, 2)));
    let not_yet = server.accepted(&ben, "k2", "ch06 warp_sum", "NOTYET");
    let outcome = server.wait_done(&ben, not_yet).outcome.unwrap();
    assert!(
        outcome.line.starts_with("not yet: out[3]"),
        "{}",
        outcome.line
    );
    assert_eq!((outcome.timing, outcome.place), (None, None));

    let history = server.get_json("/api/history", Some(&ana));
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
    assert_eq!(history[0]["id"], id);
    assert_eq!(history[0]["line"], "passed");

    // The course's solution (US=50 in the fake) is timed when no learner's timed run waits.
    let end = Instant::now() + Duration::from_secs(10);
    let overview = loop {
        let overview = server.get_json("/api/overview", None);
        if overview["boards"][0]["solution_us"].is_number() {
            break overview;
        }
        assert!(
            Instant::now() < end,
            "no reference time: {overview}\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let board = &overview["boards"][0];
    assert_eq!(
        (&board["chapter"], &board["exercise"]),
        (&"ch05".into(), &"tile_reverse".into())
    );
    assert_eq!(board["entries"][0]["learner"], "ben");
    assert_eq!(board["entries"][1]["learner"], "ana");
    assert_eq!(board["entries"][1]["place"], 2);
    assert_eq!(board["entries"][1]["share_of_solution"], 50.0 / 80.0);
    assert_eq!(overview["counts"]["submissions"], 3);
    assert_eq!(overview["counts"]["done"], 3);
    assert_eq!(overview["counts"]["learners"], 2);
    assert_eq!(overview["queue"].as_array().unwrap().len(), 0);

    let csv = dir.join("out.csv");
    let out = Command::new(SERVER)
        .args([
            "export",
            "--db",
            db.to_str().unwrap(),
            "--out",
            csv.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("id,learner,chapter,exercise,state,verdict,line,median_us"));
    assert!(
        lines[1].starts_with(&format!(
            "{id},ana,ch05,tile_reverse,done,passed,passed,80,12.5,GB/s,"
        )),
        "{}",
        lines[1]
    );
    assert!(
        lines[3].contains(r#",not_yet,"not yet: out[3] is 1, expected ""2""",,,,"#),
        "{}",
        lines[3]
    );
}

#[test]
fn refusals_are_one_sentence_each() {
    let dir = TestDir::new("refusals");
    let db = dir.join("db.sqlite");
    let ana = add_learner(&db, "ana");
    let ben = add_learner(&db, "ben");
    let server = Server::start(&db, &[]);
    let post = |token: Option<&str>, judge: Option<&str>, body: &str| {
        request(
            server.port,
            "POST",
            "/api/submissions",
            token,
            judge,
            Some(body.as_bytes()),
        )
    };
    let good = submission("k", "ch05 tile_reverse", "fine");

    let (c, b) = post(None, Some(FINGERPRINT), &good);
    assert!(refusal(c, &b, 401).contains("no token"));
    let (c, b) = post(Some("0123"), Some(FINGERPRINT), &good);
    assert!(refusal(c, &b, 401).starts_with("unknown token"));
    let (c, b) = post(Some(&ana), Some(FINGERPRINT), "{\"judge\": ");
    assert!(refusal(c, &b, 400).contains("not the JSON"));
    let (c, b) = post(Some(&ana), Some(FINGERPRINT), "{\"judge\": \"x\"}");
    assert!(refusal(c, &b, 400).contains("missing field"));
    let (c, b) = post(Some(&ana), Some("judge-from-last-year"), &good);
    let e = refusal(c, &b, 409);
    assert!(
        e.contains("(judge judge-from-last-year, server fake-judge-1)")
            && e.contains("server fake-judge-1"),
        "{e}"
    );
    let (c, b) = post(
        Some(&ana),
        Some(FINGERPRINT),
        &submission("k", "ch05 tile_rev", "x"),
    );
    assert!(refusal(c, &b, 404).contains("ch05 tile_rev"));
    let big_kernel = "x".repeat(300 * 1024);
    let (c, b) = post(
        Some(&ana),
        Some(FINGERPRINT),
        &submission("k", "ch05 tile_reverse", &big_kernel),
    );
    assert!(refusal(c, &b, 413).contains("300 KiB"));
    let sneaky = good.replace("tile_reverse.cu", "../../etc/passwd");
    let (c, b) = post(Some(&ana), Some(FINGERPRINT), &sneaky);
    assert!(refusal(c, &b, 400).contains("plain file name"));

    // 50 MB announced: refused before it is read.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let head = format!(
        "POST /api/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ana}\r\n{JUDGE_HEADER}: {FINGERPRINT}\r\nContent-Length: 50000000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let _ = stream.write_all(&vec![b'x'; 64 * 1024]);
    let (c, b) = read_response(stream);
    assert!(refusal(c, &b, 413).contains("50.0 MB"));
    // 2 MB without a length: read up to the limit, then refused.
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let head = format!(
        "POST /api/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ana}\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = format!("10000\r\n{}\r\n", "x".repeat(0x10000));
    for _ in 0..32 {
        if stream.write_all(chunk.as_bytes()).is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let (c, b) = read_response(stream);
    assert!(refusal(c, &b, 413).contains("at most 1 MiB"));

    let id = server.accepted(&ana, "k", "ch05 tile_reverse", "fine");
    let (c, b) = request(
        server.port,
        "GET",
        &format!("/api/submissions/{id}"),
        Some(&ben),
        None,
        None,
    );
    assert!(refusal(c, &b, 404).contains(&format!("no submission {id}")));
    let (c, b) = request(
        server.port,
        "GET",
        "/api/submissions/abc",
        Some(&ana),
        None,
        None,
    );
    refusal(c, &b, 404);
    let (c, b) = request(server.port, "GET", "/api/history", None, None, None);
    refusal(c, &b, 401);
    let (c, b) = request(server.port, "GET", "/api/nothing", None, None, None);
    refusal(c, &b, 404);
    let (c, b) = request(server.port, "GET", "/api/submissions", None, None, None);
    refusal(c, &b, 405);
    let (c, b) = request(server.port, "GET", "/", None, None, None);
    assert_eq!(c, 200);
    assert!(b.contains("<html"));
    server.wait_done(&ana, id);
}

#[test]
fn time_limit_and_queue_cap() {
    let dir = TestDir::new("limits");
    let db = dir.join("db.sqlite");
    let ana = add_learner(&db, "ana");
    let server = Server::start(&db, &["--queue-cap", "2", "--correctness-runs", "1"]);
    let first = server.accepted(&ana, "a", "ch05 tile_reverse", "LOOP");
    let second = server.accepted(&ana, "b", "ch05 tile_reverse", "LOOP");
    let (c, b) = server.submit(&ana, "c", "ch05 tile_reverse", "fine");
    assert_eq!(
        refusal(c, &b, 429),
        "you already have 2 submissions waiting; wait for their verdicts"
    );
    // A resend is not a new submission: the cap does not refuse it.
    let (c, b) = server.submit(&ana, "a", "ch05 tile_reverse", "LOOP");
    assert_eq!(
        (c, serde_json::from_str::<Ack>(&b).unwrap().id),
        (200, first)
    );
    assert_eq!(server.status(&ana, second).ahead, Some(0));

    let timed_out = "failed: the run passed the 2 s time limit (a kernel that never ends?)";
    for id in [first, second] {
        assert_eq!(server.wait_done(&ana, id).outcome.unwrap().line, timed_out);
    }
    let next = server.accepted(&ana, "c", "ch05 tile_reverse", "fine");
    assert_eq!(server.wait_done(&ana, next).outcome.unwrap().line, "passed");
}

#[test]
fn crash_and_flood_of_output() {
    let dir = TestDir::new("crash");
    let db = dir.join("db.sqlite");
    let ana = add_learner(&db, "ana");
    let server = Server::start(&db, &[]);
    let crash = server.accepted(&ana, "a", "ch05 tile_reverse", "CRASH");
    let line = server.wait_done(&ana, crash).outcome.unwrap().line;
    assert_eq!(
        line,
        "failed: the runner ended without a verdict (exit status 139, signal none): \
         CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
    );
    // The next run waits for a GPU check (the fake's always passes).
    let spam = server.accepted(&ana, "b", "ch05 tile_reverse", "SPAM");
    let outcome = server.wait_done(&ana, spam).outcome.unwrap();
    assert_eq!(outcome.line, "passed");
    assert_eq!(outcome.timing.unwrap().median_us, 100.0);
    assert!(
        server.log().contains("only the end was kept"),
        "{}",
        server.log()
    );
}

#[test]
fn a_killed_server_restarts_and_judges_once() {
    let dir = TestDir::new("restart");
    let db = dir.join("db.sqlite");
    let ana = add_learner(&db, "ana");
    let mut server = Server::start(&db, &[]);
    let id = server.accepted(&ana, "a", "ch05 tile_reverse", "LOOP");

    let conn = rusqlite::Connection::open(&db).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    let pid: i32 = loop {
        let pid: Option<i32> = conn
            .query_row(
                "SELECT runner_pid FROM submissions WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        if let Some(pid) = pid {
            break pid;
        }
        assert!(Instant::now() < end, "the run never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(cmdline(pid).contains("--run-submission"));
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        cmdline(pid).contains("--run-submission"),
        "the runner outlives a killed server"
    );

    let restarted = Server::start(&db, &[]);
    let end = Instant::now() + Duration::from_secs(2);
    while cmdline(pid).contains("--run-submission") {
        assert!(
            Instant::now() < end,
            "the orphaned runner {pid} is still there"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let outcome = restarted.wait_done(&ana, id).outcome.unwrap();
    assert_eq!(
        outcome.line,
        "failed: the run passed the 2 s time limit (a kernel that never ends?)"
    );
    let (rows, done): (u32, u32) = conn
        .query_row(
            "SELECT count(*), sum(state = 'done') FROM submissions",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((rows, done), (1, 1));
    assert!(
        restarted
            .log()
            .contains("was being judged when the server stopped")
    );
}
