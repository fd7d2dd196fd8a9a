//! load-run: drives a running course-server as a room of learners would, mixes in bad
//! submissions, can kill the server with SIGKILL and restart it in the middle, and writes a
//! markdown report of what it measured. See `load-run --help`.
//!
//! It speaks plain HTTP/1.1 on a `TcpStream` (one request per connection), so that it can also
//! send what no well-behaved client sends: a 50 MB body, malformed JSON, no token.
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use protocol::remote::{Ack, JUDGE_HEADER, Job, Refusal, State, Status};
use serde_json::json;

const USAGE: &str = "\
load-run: drives a running course-server with simulated learners and writes a markdown report

usage:
  load-run --url URL --runner PATH --tokens FILE [--learners N] [--submissions N | --minutes M]
           [--out FILE.md] [--seed S] [--patience SECONDS] [--stall SECONDS]
           [--kill-restart CMD (--server-pid PID | --pid-file FILE)]

  --url URL            the server, e.g. http://127.0.0.1:8080 (plain HTTP only)
  --runner PATH        the judge: its --fingerprint, --list-exercises and --solution-job give
                       the course's solutions, which the learners send
  --tokens FILE        lines `NAME TOKEN`, as `course-server add-learner` prints them
  --learners N         simulated learners, one thread each (default 25; at most the tokens)
  --submissions N      submissions per learner (default 20)
  --minutes M          send for M minutes instead (then wait for the last verdicts)
  --out FILE.md        the report (default load-run-report.md)
  --seed S             picks the exercises and the resends (default 36, printed)
  --patience SECONDS   longest wait for one verdict, or for the server to answer (default 600)
  --stall SECONDS      when no verdict at all came for this long while some are awaited, the
                       server has stopped judging: stop sending and report (default 180)
  --kill-restart CMD   after half the submissions (or half the minutes), wait until a submission
                       is in state timing (or, without a GPU, judging), kill -9 the server, run
                       CMD with `sh -c` in the background, and wait until the server answers
  --server-pid PID     the server's process id, for --kill-restart
  --pid-file FILE      a file holding the server's process id (read at the kill, and again
                       after the restart for the report)

One submission in 10 is a bad one, in turn: an endless kernel, an out-of-bounds write, a kernel
that does not compile, a kernel that prints ~10 MB, a 50 MB body, a wrong token, no token,
malformed JSON, an include of /etc/passwd. Exit status 0 when nothing was lost, the server
answers at the end and every bad submission's answer passed its checks; 1 otherwise; 2 for a
bad argument.
";

const DEFAULT_SEED: u64 = 36;
/// One submission in this many is a bad one.
const BAD_EVERY: usize = 10;
/// A good submission is sent again with the same key (after its verdict) one time in this many.
const RESEND_EVERY: u64 = 8;
const POLL: Duration = Duration::from_millis(250);
/// The exercise whose kernel the bad kernels are made from, when the runner lists it.
const BAD_BASE: (&str, &str) = ("ch05", "tile_reverse");

// ---------------------------------------------------------------------------------------------
// The command line

struct Args {
    url: String,
    runner: PathBuf,
    tokens: PathBuf,
    learners: usize,
    submissions: usize,
    minutes: Option<f64>,
    out: PathBuf,
    seed: u64,
    patience: Duration,
    stall: Duration,
    kill_restart: Option<String>,
    server_pid: Option<i32>,
    pid_file: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Option<Args>, String> {
    let mut values: Vec<(String, String)> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--help" || arg == "-h" {
            return Ok(None);
        }
        let known = [
            "--url",
            "--runner",
            "--tokens",
            "--learners",
            "--submissions",
            "--minutes",
            "--out",
            "--seed",
            "--patience",
            "--stall",
            "--kill-restart",
            "--server-pid",
            "--pid-file",
        ];
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if !known.contains(&name.as_str()) {
            return Err(format!(
                "there is no option or argument `{arg}` (load-run --help lists them)"
            ));
        }
        let value = value
            .or_else(|| it.next().cloned())
            .ok_or_else(|| format!("{name} needs a value"))?;
        if values.iter().any(|(n, _)| *n == name) {
            return Err(format!("{name} is given twice"));
        }
        values.push((name, value));
    }
    let take = |name: &str| {
        values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let number = |name: &str, default: u64| -> Result<u64, String> {
        match take(name) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .ok()
                .filter(|n| *n >= 1 || name == "--seed")
                .ok_or_else(|| format!("{name} takes a whole number of at least 1, not `{v}`")),
        }
    };
    let needed = |name: &str| take(name).ok_or_else(|| format!("load-run needs {name}"));
    let minutes = match take("--minutes") {
        None => None,
        Some(v) => Some(
            v.parse::<f64>()
                .ok()
                .filter(|m| *m > 0.0 && m.is_finite())
                .ok_or_else(|| format!("--minutes takes a number above 0, not `{v}`"))?,
        ),
    };
    if minutes.is_some() && take("--submissions").is_some() {
        return Err("--submissions and --minutes do not go together: give one".into());
    }
    let kill_restart = take("--kill-restart");
    let server_pid = match take("--server-pid") {
        None => None,
        Some(v) => Some(
            v.parse::<i32>()
                .ok()
                .filter(|p| *p > 1)
                .ok_or_else(|| format!("--server-pid takes a process id, not `{v}`"))?,
        ),
    };
    let pid_file = take("--pid-file").map(PathBuf::from);
    if kill_restart.is_some() && server_pid.is_none() && pid_file.is_none() {
        return Err("--kill-restart needs --server-pid PID or --pid-file FILE".into());
    }
    if kill_restart.is_none() && (server_pid.is_some() || pid_file.is_some()) {
        return Err("--server-pid and --pid-file go with --kill-restart CMD".into());
    }
    Ok(Some(Args {
        url: needed("--url")?,
        runner: PathBuf::from(needed("--runner")?),
        tokens: PathBuf::from(needed("--tokens")?),
        learners: number("--learners", 25)? as usize,
        submissions: number("--submissions", 20)? as usize,
        minutes,
        out: PathBuf::from(take("--out").unwrap_or_else(|| "load-run-report.md".into())),
        seed: number("--seed", DEFAULT_SEED)?,
        patience: Duration::from_secs(number("--patience", 600)?),
        stall: Duration::from_secs(number("--stall", 180)?),
        kill_restart,
        server_pid,
        pid_file,
    }))
}

// ---------------------------------------------------------------------------------------------
// Plain HTTP/1.1, one request per connection

#[derive(Clone)]
struct Http {
    host: String,
    address: SocketAddr,
}

impl Http {
    fn new(url: &str) -> Result<Http, String> {
        let rest = url.strip_prefix("http://").ok_or_else(|| {
            format!("--url must start with http:// (load-run speaks plain HTTP), not `{url}`")
        })?;
        let host = rest.split('/').next().unwrap_or_default().to_string();
        let with_port = if host.contains(':') {
            host.clone()
        } else {
            format!("{host}:80")
        };
        let address = with_port
            .to_socket_addrs()
            .map_err(|e| format!("could not resolve {host}: {e}"))?
            .next()
            .ok_or_else(|| format!("{host} has no address"))?;
        Ok(Http { host, address })
    }

    /// The response's status and body, or why there was none (the server could not be reached,
    /// or closed the connection without an answer).
    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
        timeout: Duration,
    ) -> Result<(u16, String), String> {
        let stream = TcpStream::connect_timeout(&self.address, Duration::from_secs(5))
            .map_err(|e| format!("could not connect: {e}"))?;
        stream.set_read_timeout(Some(timeout)).ok();
        stream.set_write_timeout(Some(timeout)).ok();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.host
        );
        for (name, value) in headers {
            let _ = write!(head, "{name}: {value}\r\n");
        }
        if let Some(body) = &body {
            let _ = write!(
                head,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            );
        }
        head += "\r\n";
        // The body is written by a thread of its own: a server that answers before reading it
        // all (a body too large) must not leave this one blocked on a full socket.
        let mut writer = stream
            .try_clone()
            .map_err(|e| format!("could not use the connection: {e}"))?;
        let written = thread::spawn(move || -> std::io::Result<()> {
            writer.write_all(head.as_bytes())?;
            if let Some(body) = body {
                writer.write_all(&body)?;
            }
            writer.flush()
        });
        let mut raw = Vec::new();
        let read = (&stream).read_to_end(&mut raw);
        let wrote = written.join().unwrap_or(Ok(()));
        if raw.is_empty() {
            return Err(match (read, wrote) {
                (Err(e), _) => format!("no answer ({e})"),
                (Ok(_), Err(e)) => format!("no answer (sending failed: {e})"),
                (Ok(_), Ok(())) => "the connection closed without an answer".into(),
            });
        }
        parse_response(&raw)
    }
}

fn parse_response(raw: &[u8]) -> Result<(u16, String), String> {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("an incomplete answer of {} bytes", raw.len()))?;
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| "an answer without a status".to_string())?;
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    Ok((
        code,
        if chunked {
            dechunk(body)
        } else {
            body.to_string()
        },
    ))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out += &rest[..size];
        body = rest.get(size + 2..).unwrap_or_default();
    }
    out
}

// ---------------------------------------------------------------------------------------------
// What is sent

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Good,
    EndlessLoop,
    OutOfBounds,
    NoCompile,
    Printf,
    BigBody,
    WrongToken,
    NoToken,
    BadJson,
    IncludePasswd,
}

const BAD_KINDS: [Kind; 9] = [
    Kind::EndlessLoop,
    Kind::OutOfBounds,
    Kind::NoCompile,
    Kind::Printf,
    Kind::BigBody,
    Kind::WrongToken,
    Kind::NoToken,
    Kind::BadJson,
    Kind::IncludePasswd,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Good => "good",
            Kind::EndlessLoop => "endless kernel",
            Kind::OutOfBounds => "out-of-bounds write",
            Kind::NoCompile => "does not compile",
            Kind::Printf => "printf ~10 MB",
            Kind::BigBody => "50 MB body",
            Kind::WrongToken => "wrong token",
            Kind::NoToken => "no token",
            Kind::BadJson => "malformed JSON",
            Kind::IncludePasswd => "#include \"/etc/passwd\"",
        }
    }

    /// The answer names the cause when it holds one of these (case-insensitive).
    fn expected(self) -> &'static [&'static str] {
        match self {
            Kind::Good => &[],
            Kind::EndlessLoop => &["time limit"],
            Kind::OutOfBounds => &["illegal", "out of bounds", "address", "memory access"],
            Kind::NoCompile => &["compile", "nvrtc"],
            // The output is noise around a correct kernel: its verdict must still come through.
            Kind::Printf => &["passed"],
            Kind::BigBody => &["MB", "at most"],
            Kind::WrongToken | Kind::NoToken => &["token"],
            Kind::BadJson => &["JSON"],
            Kind::IncludePasswd => &["include"],
        }
    }

    /// Refused over HTTP (never acknowledged), rather than judged.
    fn refused_at_the_door(self) -> bool {
        matches!(
            self,
            Kind::BigBody | Kind::WrongToken | Kind::NoToken | Kind::BadJson
        )
    }

    /// What the kind is injected into the base kernel, at the start of every kernel's body.
    fn injection(self) -> Option<&'static str> {
        match self {
            // The clock is read anew each time round, so the compiler cannot drop the loop (one
            // on a volatile local variable came back `passed` on the H100).
            Kind::EndlessLoop => Some(" while (clock64() >= 0) {} "),
            // A volatile store to an address no allocation has: the compiler must emit it, and
            // the GPU faults on it (a store far past a local variable came back `passed`).
            Kind::OutOfBounds => Some(" *(volatile int *)(16ull) = 1; "),
            Kind::NoCompile => Some(" this is not CUDA; "),
            // 100 lines of ~100 bytes from each thread of the first block (up to 1024): ~10 MB
            // asked of printf per launch, spread so that it is quick (one thread printing it
            // all ran past 20 s on the H100).
            Kind::Printf => Some(
                " if (blockIdx.x == 0) { for (int load_run_k = 0; load_run_k < 100; \
                 ++load_run_k) { printf(\"load-run printf: thread %d, line %d of 100 \
                 ........................................................\\n\", \
                 (int)threadIdx.x, load_run_k); } } ",
            ),
            _ => None,
        }
    }
}

/// `code` after the opening brace of every `__global__` function of `kernel`.
fn inject(kernel: &str, code: &str) -> String {
    let mut out = String::new();
    let mut rest = kernel;
    while let Some(at) = rest.find("__global__") {
        let line_start = rest[..at].rfind('\n').map_or(0, |n| n + 1);
        let in_comment = rest[line_start..at].contains("//");
        let Some(brace) = rest[at..].find('{').map(|b| at + b) else {
            break;
        };
        if in_comment {
            out.push_str(&rest[..at + "__global__".len()]);
            rest = &rest[at + "__global__".len()..];
            continue;
        }
        out.push_str(&rest[..=brace]);
        out.push_str(code);
        rest = &rest[brace + 1..];
    }
    out.push_str(rest);
    out
}

fn body_of(fingerprint: &str, key: &str, job: &Job, kernel: &str) -> Vec<u8> {
    json!({
        "judge": fingerprint,
        "key": key,
        "chapter": job.chapter,
        "exercise": job.exercise,
        "kernel_name": job.kernel_name,
        "kernel": kernel,
        "plan": job.plan,
        "todo": null,
        "seeds": job.seeds,
    })
    .to_string()
    .into_bytes()
}

/// splitmix64: small, and the same everywhere for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---------------------------------------------------------------------------------------------
// One simulated learner

#[derive(Clone, Debug)]
struct Record {
    kind: Kind,
    exercise: String,
    sent_at: Instant,
    /// POSTs of this submission that got no answer (the server down) before one did.
    unanswered_posts: u32,
    /// The POST's answer: its status, and the id or the refusal's sentence.
    status: Option<u16>,
    id: Option<i64>,
    refusal: Option<String>,
    /// The verdict line, when it came.
    line: Option<String>,
    done_at: Option<Instant>,
    /// Why no verdict came.
    problem: Option<String>,
    resend: Option<Resend>,
}

#[derive(Clone, Debug)]
struct Resend {
    status: Option<u16>,
    id: Option<i64>,
    line: Option<String>,
}

struct Shared {
    http: Http,
    fingerprint: String,
    jobs: Vec<Job>,
    bad_base: Job,
    seed: u64,
    run_nonce: u64,
    learners: usize,
    submissions: usize,
    deadline: Option<Instant>,
    patience: Duration,
    stall: Duration,
    /// When the last verdict came (or the run began).
    progress: Mutex<Instant>,
    /// Set when no verdict came for `stall`: the server stopped judging.
    stalled: Mutex<Option<Instant>>,
    sent: AtomicUsize,
    any_passed: AtomicBool,
    finished: AtomicBool,
}

fn refusal_sentence(body: &str) -> String {
    match serde_json::from_str::<Refusal>(body) {
        Ok(r) => r.error,
        Err(_) => format!("(not a refusal's JSON) {}", cut(body, 150)),
    }
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}

impl Shared {
    /// A request tried again while the server gives no answer (killed, restarting), up to
    /// the patience; the number of unanswered tries comes back too.
    fn persistent(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> (Result<(u16, String), String>, u32) {
        let give_up = Instant::now() + self.patience.min(self.stall);
        let mut unanswered = 0;
        loop {
            match self.http.request(
                method,
                path,
                headers,
                body.map(<[u8]>::to_vec),
                Duration::from_secs(60),
            ) {
                Ok(answer) => return (Ok(answer), unanswered),
                Err(e) if Instant::now() >= give_up => return (Err(e), unanswered),
                Err(_) => {
                    unanswered += 1;
                    thread::sleep(POLL);
                }
            }
        }
    }

    fn more_to_send(&self, k: usize) -> bool {
        if self.stalled.lock().unwrap().is_some() {
            return false;
        }
        match self.deadline {
            Some(deadline) => Instant::now() < deadline,
            None => k < self.submissions,
        }
    }

    fn learner(&self, index: usize, token: &str) -> Vec<Record> {
        let mut rng = Rng(self.seed ^ (index as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let auth = format!("Bearer {token}");
        let mut records = Vec::new();
        let mut k = 0;
        while self.more_to_send(k) {
            // Interleaved over the learners, so that the bad ones are spread over them and
            // over the run.
            let global = k * self.learners + index;
            // Each kind once at the start (the first submission of the first learners), so that
            // a short run sees every one, then one in BAD_EVERY.
            let kind = if k == 0 && index < BAD_KINDS.len() {
                BAD_KINDS[index]
            } else if global % BAD_EVERY == BAD_EVERY - 1 {
                BAD_KINDS[(global / BAD_EVERY) % BAD_KINDS.len()]
            } else {
                Kind::Good
            };
            let job = match kind {
                Kind::Good => &self.jobs[rng.below(self.jobs.len() as u64) as usize],
                _ => &self.bad_base,
            };
            let key = format!("load-{}-{}-{index}-{k}", self.run_nonce, self.seed);
            let kernel = match (kind, kind.injection()) {
                (_, Some(code)) => inject(&job.kernel, code),
                (Kind::IncludePasswd, _) => format!("#include \"/etc/passwd\"\n{}", job.kernel),
                _ => job.kernel.clone(),
            };
            let mut body = body_of(&self.fingerprint, &key, job, &kernel);
            let mut headers: Vec<(&str, &str)> = vec![(JUDGE_HEADER, &self.fingerprint)];
            let wrong = format!("Bearer {}", "0".repeat(32));
            match kind {
                Kind::NoToken => {}
                Kind::WrongToken => headers.push(("Authorization", &wrong)),
                _ => headers.push(("Authorization", &auth)),
            }
            match kind {
                Kind::BadJson => body.truncate(body.len() / 2),
                Kind::BigBody => {
                    body =
                        format!("{{\"judge\":\"{}\",\"kernel\":\"", self.fingerprint).into_bytes();
                    body.resize(50_000_000, b'x');
                }
                _ => {}
            }
            self.sent.fetch_add(1, Ordering::Relaxed);
            let mut record = Record {
                kind,
                exercise: format!("{} {}", job.chapter, job.exercise),
                sent_at: Instant::now(),
                unanswered_posts: 0,
                status: None,
                id: None,
                refusal: None,
                line: None,
                done_at: None,
                problem: None,
                resend: None,
            };
            let (answer, unanswered) = if kind.refused_at_the_door() {
                // Sent once: the answer to this very request is what is tested.
                let answer = self.http.request(
                    "POST",
                    "/api/submissions",
                    &headers,
                    Some(body.clone()),
                    Duration::from_secs(60),
                );
                (answer, 0)
            } else {
                self.persistent("POST", "/api/submissions", &headers, Some(&body))
            };
            record.unanswered_posts = unanswered;
            match answer {
                Err(e) => record.problem = Some(format!("the POST got no answer: {e}")),
                Ok((status, text)) => {
                    record.status = Some(status);
                    if (200..300).contains(&status) {
                        match serde_json::from_str::<Ack>(&text) {
                            Ok(ack) => record.id = Some(ack.id),
                            Err(e) => {
                                record.problem =
                                    Some(format!("the acknowledgement is not an id ({e})"))
                            }
                        }
                    } else {
                        record.refusal = Some(refusal_sentence(&text));
                    }
                }
            }
            if let Some(id) = record.id {
                match self.wait_for_verdict(&auth, id) {
                    Ok(line) => {
                        record.done_at = Some(Instant::now());
                        if kind == Kind::Good && line == "passed" {
                            self.any_passed.store(true, Ordering::Relaxed);
                        }
                        record.line = Some(line);
                    }
                    Err(why) => record.problem = Some(why),
                }
            }
            // Now and then the same submission again, same key: the same id must come back,
            // with the same verdict, and nothing judged twice.
            if kind == Kind::Good && record.line.is_some() && rng.below(RESEND_EVERY) == 0 {
                let (answer, _) =
                    self.persistent("POST", "/api/submissions", &headers, Some(&body));
                let mut resend = Resend {
                    status: None,
                    id: None,
                    line: None,
                };
                if let Ok((status, text)) = answer {
                    resend.status = Some(status);
                    resend.id = serde_json::from_str::<Ack>(&text).ok().map(|a| a.id);
                    if let Some(id) = resend.id {
                        resend.line = self.wait_for_verdict(&auth, id).ok();
                    }
                }
                record.resend = Some(resend);
            }
            records.push(record);
            k += 1;
        }
        records
    }

    fn wait_for_verdict(&self, auth: &str, id: i64) -> Result<String, String> {
        let path = format!("/api/submissions/{id}");
        let give_up = Instant::now() + self.patience;
        loop {
            let (answer, _) = self.persistent("GET", &path, &[("Authorization", auth)], None);
            let (status, text) = answer.map_err(|e| format!("polling #{id} got no answer: {e}"))?;
            if status != 200 {
                return Err(format!(
                    "polling #{id} was refused ({status}): {}",
                    refusal_sentence(&text)
                ));
            }
            let parsed: Status = serde_json::from_str(&text)
                .map_err(|e| format!("#{id}'s status is not what load-run expects ({e})"))?;
            if parsed.state == State::Done {
                *self.progress.lock().unwrap() = Instant::now();
                return parsed
                    .outcome
                    .map(|o| o.line)
                    .ok_or_else(|| format!("#{id} is done without an outcome"));
            }
            let last = *self.progress.lock().unwrap();
            if last.elapsed() > self.stall {
                let mut stalled = self.stalled.lock().unwrap();
                stalled.get_or_insert(last);
                return Err(format!(
                    "the server gave no verdict at all for {} s (#{id} was {:?})",
                    self.stall.as_secs(),
                    parsed.state
                ));
            }
            if Instant::now() >= give_up {
                return Err(format!(
                    "no verdict for #{id} within {} s",
                    self.patience.as_secs()
                ));
            }
            thread::sleep(POLL);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The kill and the restart

#[derive(Default, Debug)]
struct Kill {
    /// Seconds from the run's start.
    asked_s: Option<f64>,
    killed_s: Option<f64>,
    pid: Option<i32>,
    /// The state looked for, and what was in the server's queue at the kill.
    waited_for: String,
    in_flight: Vec<(i64, String)>,
    back_s: Option<f64>,
    new_pid: Option<i32>,
    note: Option<String>,
}

fn overview_queue(http: &Http) -> Option<Vec<(i64, String)>> {
    let (status, text) = http
        .request("GET", "/api/overview", &[], None, Duration::from_secs(10))
        .ok()?;
    if status != 200 {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(
        value["queue"]
            .as_array()?
            .iter()
            .filter_map(|w| Some((w["id"].as_i64()?, w["state"].as_str()?.to_string())))
            .collect(),
    )
}

fn read_pid(file: &Path) -> Result<i32, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("could not read the pid file {}: {e}", file.display()))?;
    text.trim()
        .parse::<i32>()
        .ok()
        .filter(|p| *p > 1)
        .ok_or_else(|| format!("{} does not hold a process id", file.display()))
}

fn kill_and_restart(
    shared: &Shared,
    server_pid: Option<i32>,
    pid_file: Option<&Path>,
    command: &str,
    began: Instant,
) -> Kill {
    let mut kill = Kill::default();
    let since = |t: Instant| t.duration_since(began).as_secs_f64();
    // Half way: half the submissions sent, or half the minutes gone.
    let total = shared.learners * shared.submissions;
    loop {
        if shared.finished.load(Ordering::Relaxed) {
            kill.note = Some("not killed: the learners finished before half way".into());
            return kill;
        }
        let half = match shared.deadline {
            Some(deadline) => Instant::now() >= began + (deadline - began) / 2,
            None => shared.sent.load(Ordering::Relaxed) >= total / 2,
        };
        if half {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    kill.asked_s = Some(since(Instant::now()));
    // A timed run in progress is the worst moment; without a GPU nothing passes and nothing is
    // timed, so a correctness run (judging) will do, and after a minute anything waiting.
    let asked = Instant::now();
    let in_flight = loop {
        let queue = overview_queue(&shared.http).unwrap_or_default();
        let waited = asked.elapsed();
        let gpu = shared.any_passed.load(Ordering::Relaxed);
        let wanted: &[&str] = if waited > Duration::from_secs(60) {
            &["timing", "judging", "queued"]
        } else if gpu || waited < Duration::from_secs(5) {
            &["timing"]
        } else {
            &["timing", "judging"]
        };
        if queue.iter().any(|(_, s)| wanted.contains(&s.as_str())) {
            kill.waited_for = wanted.join(" or ");
            break queue;
        }
        if shared.finished.load(Ordering::Relaxed) {
            kill.note = Some("not killed: the learners finished before a run was seen".into());
            return kill;
        }
        thread::sleep(Duration::from_millis(50));
    };
    let pid = match (server_pid, pid_file) {
        (Some(pid), _) => Ok(pid),
        (None, Some(file)) => read_pid(file),
        (None, None) => Err("no server pid".to_string()),
    };
    let pid = match pid {
        Ok(pid) => pid,
        Err(e) => {
            kill.note = Some(format!("not killed: {e}"));
            return kill;
        }
    };
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default();
    if !cmdline.contains("course-server") {
        kill.note = Some(format!(
            "not killed: process {pid} is not a course-server (`{}`)",
            cut(&cmdline, 80)
        ));
        return kill;
    }
    // SAFETY: kill(2) has no memory effects.
    let r = unsafe { libc::kill(pid, libc::SIGKILL) };
    if r != 0 {
        kill.note = Some(format!(
            "not killed: kill -9 {pid} failed: {}",
            std::io::Error::last_os_error()
        ));
        return kill;
    }
    kill.killed_s = Some(since(Instant::now()));
    kill.pid = Some(pid);
    kill.in_flight = in_flight;
    // Until the old one no longer answers (its port is free for the new one).
    let gone = Instant::now() + Duration::from_secs(10);
    while Instant::now() < gone && overview_queue(&shared.http).is_some() {
        thread::sleep(Duration::from_millis(50));
    }
    match Command::new("sh")
        .args(["-c", command])
        .stdin(Stdio::null())
        .spawn()
    {
        Ok(mut child) => {
            thread::spawn(move || child.wait());
        }
        Err(e) => {
            kill.note = Some(format!("the restart command could not start: {e}"));
            return kill;
        }
    }
    let give_up = Instant::now() + Duration::from_secs(120);
    while Instant::now() < give_up {
        if overview_queue(&shared.http).is_some() {
            kill.back_s = Some(since(Instant::now()));
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    if kill.back_s.is_none() {
        kill.note = Some("the server did not answer within 120 s of the restart".into());
    }
    if let Some(file) = pid_file {
        kill.new_pid = read_pid(file).ok().filter(|p| *p != pid);
    }
    kill
}

// ---------------------------------------------------------------------------------------------
// The report

/// One line of at most 200 characters, with no trace of a panic.
fn one_sentence(answer: &str) -> Result<(), String> {
    if answer.is_empty() {
        return Err("empty".into());
    }
    if answer.contains('\n') {
        return Err(format!("{} lines", answer.lines().count()));
    }
    if answer.chars().count() > 200 {
        return Err(format!("{} characters", answer.chars().count()));
    }
    for trace in ["panicked", "stack backtrace", "RUST_BACKTRACE"] {
        if answer.contains(trace) {
            return Err(format!("has `{trace}`"));
        }
    }
    Ok(())
}

/// Whether the answer names the cause: `None` where it cannot here (skipped: no GPU).
fn names_cause(kind: Kind, answer: &str) -> Option<bool> {
    if answer.starts_with("skipped") {
        return None;
    }
    let lower = answer.to_lowercase();
    Some(
        kind.expected()
            .iter()
            .any(|w| lower.contains(&w.to_lowercase())),
    )
}

/// What the server answered to a submission, as one string for the table.
fn answer_of(r: &Record) -> String {
    match (&r.status, &r.refusal, &r.line, &r.problem) {
        (Some(s), Some(refusal), _, _) => format!("HTTP {s}: {refusal}"),
        (_, _, Some(line), _) => line.clone(),
        (_, _, _, Some(problem)) => format!("(none: {problem})"),
        _ => "(none)".into(),
    }
}

/// The part of the answer that the one-sentence check reads: the refusal or the verdict line.
fn checked_text(r: &Record) -> Option<&str> {
    r.refusal.as_deref().or(r.line.as_deref())
}

fn md(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('\n', "⏎")
        .replace('`', "'")
}

fn machine() -> Vec<String> {
    let output = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let gpu = output("nvidia-smi", &["-L"])
        .filter(|s| !s.is_empty())
        .map(|s| s.lines().collect::<Vec<_>>().join("; "))
        .unwrap_or_else(|| "none (`nvidia-smi -L` did not run or found none)".into());
    vec![
        format!(
            "`uname -a`: {}",
            output("uname", &["-a"]).unwrap_or_else(|| "?".into())
        ),
        format!(
            "`nproc`: {}",
            output("nproc", &[]).unwrap_or_else(|| "?".into())
        ),
        format!("GPU: {gpu}"),
    ]
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at]
}

struct Totals {
    lost: usize,
    checks_failed: usize,
    alive: bool,
}

fn report(
    args: &Args,
    shared: &Shared,
    records: &[(usize, Record)],
    kill: Option<&Kill>,
    began: Instant,
    ended: Instant,
    started_at: u64,
) -> (String, Totals) {
    let mut out = String::new();
    let w = &mut out;
    let since = |t: Instant| t.duration_since(began).as_secs_f64();
    let _ = writeln!(w, "# course-server load run\n");
    let _ = writeln!(
        w,
        "Written by `load-run` (crates/course-server/src/bin/load-run.rs); every number below was \
         measured in this run.\n"
    );
    let _ = writeln!(w, "## Setup\n");
    let _ = writeln!(
        w,
        "- started: {started_at} (Unix seconds), ran {:.1} s",
        since(ended)
    );
    for line in machine() {
        let _ = writeln!(w, "- {line}");
    }
    let _ = writeln!(w, "- server: {}", args.url);
    let _ = writeln!(
        w,
        "- runner: {} (judge fingerprint {}, {} exercises)",
        args.runner.display(),
        shared.fingerprint,
        shared.jobs.len()
    );
    let _ = writeln!(
        w,
        "- learners: {}, {}; seed {}",
        shared.learners,
        match args.minutes {
            Some(m) => format!("sending for {m} minutes"),
            None => format!("{} submissions each", shared.submissions),
        },
        args.seed
    );
    let _ = writeln!(
        w,
        "- good submissions: the course's solution of a random exercise (from `judge \
         --solution-job`), with a fresh key each; one in {RESEND_EVERY} sent again with the same \
         key after its verdict. The first submission of each of the first learners is a bad one of \
         each kind, then one submission in {BAD_EVERY} (below); bad kernels \
         are made from {} {}.",
        shared.bad_base.chapter, shared.bad_base.exercise
    );

    let all: Vec<&Record> = records.iter().map(|(_, r)| r).collect();
    let acked: Vec<&Record> = all.iter().copied().filter(|r| r.id.is_some()).collect();
    let judged = acked.iter().filter(|r| r.line.is_some()).count();
    let unacked_but_expected = all
        .iter()
        .filter(|r| !r.kind.refused_at_the_door() && r.id.is_none())
        .count();
    let accepted_bad_door = all
        .iter()
        .filter(|r| r.kind.refused_at_the_door() && r.id.is_some())
        .count();
    // Loss: an acknowledged submission without a verdict, or a resend that got another id or
    // another verdict.
    let no_verdict: Vec<&Record> = acked.iter().copied().filter(|r| r.line.is_none()).collect();
    let resends: Vec<(&Record, &Resend)> = all
        .iter()
        .filter_map(|r| r.resend.as_ref().map(|s| (*r, s)))
        .collect();
    let resend_differs: Vec<&(&Record, &Resend)> = resends
        .iter()
        .filter(|(r, s)| s.id != r.id || s.line != r.line)
        .collect();
    let lost = no_verdict.len() + resend_differs.len();
    let mut ids: Vec<i64> = acked.iter().filter_map(|r| r.id).collect();
    ids.sort_unstable();
    let distinct = {
        let mut d = ids.clone();
        d.dedup();
        d.len()
    };

    let _ = writeln!(w, "\n## Submissions\n");
    let _ = writeln!(w, "| | count |\n|---|---:|");
    let _ = writeln!(w, "| sent (POSTs of new keys) | {} |", all.len());
    let _ = writeln!(
        w,
        "| of them good / bad | {} / {} |",
        all.iter().filter(|r| r.kind == Kind::Good).count(),
        all.iter().filter(|r| r.kind != Kind::Good).count()
    );
    let _ = writeln!(w, "| acknowledged with an id | {} |", acked.len());
    let _ = writeln!(w, "| distinct ids among them | {distinct} |");
    let _ = writeln!(w, "| judged (got a verdict) | {judged} |");
    let _ = writeln!(
        w,
        "| **lost** (acknowledged without a verdict, or a resend with another id or verdict) | **{lost}** |"
    );
    let _ = writeln!(
        w,
        "| not acknowledged though they should have been | {unacked_but_expected} |"
    );
    let _ = writeln!(
        w,
        "| acknowledged though they should have been refused | {accepted_bad_door} |"
    );
    let _ = writeln!(
        w,
        "| POSTs tried again after no answer (server down) | {} |",
        all.iter()
            .map(|r| r.unanswered_posts as usize)
            .sum::<usize>()
    );
    let _ = writeln!(
        w,
        "| resent with the same key / same id and verdict | {} / {} |",
        resends.len(),
        resends.len() - resend_differs.len()
    );
    if let Some(at) = *shared.stalled.lock().unwrap() {
        let _ = writeln!(
            w,
            "\n**The server stopped judging**: no verdict came after {:.1} s, for {} s while \
             submissions waited; the learners stopped sending then.",
            since(at),
            shared.stall.as_secs()
        );
    }
    if !no_verdict.is_empty() || !resend_differs.is_empty() {
        let _ = writeln!(w);
    }
    for r in no_verdict.iter().take(10) {
        let _ = writeln!(
            w,
            "- no verdict: #{} ({}, {}): {}",
            r.id.unwrap_or(0),
            r.kind.name(),
            r.exercise,
            md(r.problem.as_deref().unwrap_or("?"))
        );
    }
    for (r, s) in resend_differs.iter().take(10) {
        let _ = writeln!(
            w,
            "- resend differs: #{:?} `{}` then #{:?} `{}`",
            r.id,
            md(r.line.as_deref().unwrap_or("-")),
            s.id,
            md(s.line.as_deref().unwrap_or("-"))
        );
    }

    // Times from the first POST to the verdict seen.
    let mut waits: Vec<f64> = acked
        .iter()
        .filter_map(|r| Some(r.done_at?.duration_since(r.sent_at).as_secs_f64()))
        .collect();
    waits.sort_by(f64::total_cmp);
    let last_verdict = acked.iter().filter_map(|r| r.done_at).max();
    let span_min = last_verdict.map_or(f64::NAN, |t| since(t) / 60.0);
    let _ = writeln!(w, "\n## Speed\n");
    let _ = writeln!(
        w,
        "- verdicts per minute: {:.1} ({judged} verdicts in {:.2} minutes, from the first send to \
         the last verdict)",
        judged as f64 / span_min,
        span_min
    );
    let _ = writeln!(
        w,
        "- send to verdict: median {:.2} s, 90th percentile {:.2} s, worst {:.2} s (polling every \
         {} ms)",
        percentile(&waits, 0.5),
        percentile(&waits, 0.9),
        waits.last().copied().unwrap_or(f64::NAN),
        POLL.as_millis()
    );

    let good: Vec<&Record> = acked
        .iter()
        .copied()
        .filter(|r| r.kind == Kind::Good)
        .collect();
    let mut classes: Vec<(String, usize)> = Vec::new();
    for r in &good {
        let class = match r.line.as_deref() {
            None => "(no verdict)".to_string(),
            Some("passed") => "passed".into(),
            Some(l) => l.split(':').next().unwrap_or(l).to_string(),
        };
        match classes.iter_mut().find(|(c, _)| *c == class) {
            Some((_, n)) => *n += 1,
            None => classes.push((class, 1)),
        }
    }
    let _ = writeln!(w, "\n## Verdicts of the good submissions\n");
    for (class, n) in &classes {
        let _ = writeln!(w, "- {class}: {n}");
    }
    let skipped_all = !good.is_empty()
        && good
            .iter()
            .all(|r| r.line.as_deref().is_some_and(|l| l.starts_with("skipped")));
    if skipped_all {
        let example = good[0].line.clone().unwrap_or_default();
        let _ = writeln!(
            w,
            "\nNo GPU judged here: every good submission's verdict was `skipped` (e.g. `{}`). \
             The runner compiled each kernel with NVRTC and stopped there, so this run tests the \
             queue, the database and the HTTP side, not the judging or the timing.",
            md(&example)
        );
    }
    let mut odd: Vec<String> = good
        .iter()
        .filter_map(|r| r.line.clone())
        .filter(|l| l != "passed" && !l.starts_with("skipped"))
        .collect();
    odd.sort();
    odd.dedup();
    for line in odd.iter().take(8) {
        let _ = writeln!(
            w,
            "- a good submission's verdict: `{}`",
            md(&cut(line, 300))
        );
    }

    let _ = writeln!(w, "\n## Bad submissions\n");
    let _ = writeln!(
        w,
        "Each answer is checked to be one line of at most 200 characters without a backtrace \
         (`one line`), and to name the cause (`cause`: holds one of the words listed; n/a where \
         the verdict is `skipped`, as without a GPU, so the fault never happened).\n"
    );
    let _ = writeln!(
        w,
        "| kind | sent | answers seen (count) | one line | cause (words) |\n|---|---:|---|---|---|"
    );
    let mut checks_failed = 0;
    for kind in BAD_KINDS {
        let of_kind: Vec<&Record> = all.iter().copied().filter(|r| r.kind == kind).collect();
        let mut answers: Vec<(String, usize)> = Vec::new();
        let (mut one_ok, mut cause_ok, mut cause_na) = (0, 0, 0);
        for r in &of_kind {
            let answer = answer_of(r);
            match answers.iter_mut().find(|(a, _)| *a == answer) {
                Some((_, n)) => *n += 1,
                None => answers.push((answer, 1)),
            }
            let text = checked_text(r).unwrap_or("");
            let sentence = one_sentence(text);
            if sentence.is_ok() {
                one_ok += 1;
            }
            match names_cause(kind, text) {
                Some(true) => cause_ok += 1,
                Some(false) => {}
                None => cause_na += 1,
            }
        }
        let n = of_kind.len();
        checks_failed += (n - one_ok) + (n - cause_ok - cause_na);
        let shown: Vec<String> = answers
            .iter()
            .map(|(a, c)| format!("`{}` ({c})", md(&cut(a, 240))))
            .collect();
        let failures: Vec<String> = of_kind
            .iter()
            .filter_map(|r| one_sentence(checked_text(r).unwrap_or("")).err())
            .take(1)
            .collect();
        let _ = writeln!(
            w,
            "| {} | {n} | {} | {one_ok}/{n}{} | {}{} ({}) |",
            kind.name(),
            shown.join("<br>"),
            failures
                .first()
                .map(|f| format!(" (fails: {f})"))
                .unwrap_or_default(),
            if cause_na == n && n > 0 {
                "n/a".to_string()
            } else {
                format!("{cause_ok}/{}", n - cause_na)
            },
            if cause_na > 0 && cause_na < n {
                format!(", {cause_na} n/a")
            } else {
                String::new()
            },
            kind.expected()
                .iter()
                .map(|e| format!("'{e}'"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    if let Some(kill) = kill {
        let _ = writeln!(w, "\n## Kill -9 and restart\n");
        match (kill.killed_s, kill.pid) {
            (Some(at), Some(pid)) => {
                let in_flight: Vec<i64> = kill.in_flight.iter().map(|(id, _)| *id).collect();
                let count = |state: &str| kill.in_flight.iter().filter(|(_, s)| s == state).count();
                let _ = writeln!(
                    w,
                    "- half way at {:.1} s; waited for a submission in state {}; `kill -9 {pid}` at \
                     {at:.1} s",
                    kill.asked_s.unwrap_or(f64::NAN),
                    kill.waited_for
                );
                let _ = writeln!(
                    w,
                    "- in the server's queue at the kill: {} submissions ({} queued, {} judging, {} \
                     timing)",
                    in_flight.len(),
                    count("queued"),
                    count("judging"),
                    count("timing")
                );
                let verdicts_after = in_flight
                    .iter()
                    .filter(|id| acked.iter().any(|r| r.id == Some(**id) && r.line.is_some()))
                    .count();
                let ours = in_flight
                    .iter()
                    .filter(|id| acked.iter().any(|r| r.id == Some(**id)))
                    .count();
                let _ = writeln!(
                    w,
                    "- of those, this run's: {ours}; given a verdict after the restart: \
                     {verdicts_after} (they count in the loss above)"
                );
                match kill.back_s {
                    Some(back) => {
                        let _ = writeln!(
                            w,
                            "- the restart command ran; the server answered again at {back:.1} s \
                             ({:.1} s after the kill){}",
                            back - at,
                            kill.new_pid
                                .map(|p| format!(", new pid {p}"))
                                .unwrap_or_default()
                        );
                    }
                    None => {
                        let _ = writeln!(w, "- the server did **not** come back");
                    }
                }
            }
            _ => {}
        }
        if let Some(note) = &kill.note {
            let _ = writeln!(w, "- {note}");
        }
    }

    let _ = writeln!(w, "\n## The server at the end\n");
    let end = shared
        .http
        .request("GET", "/api/overview", &[], None, Duration::from_secs(10));
    let alive = match &end {
        Ok((200, text)) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => {
                let c = &v["counts"];
                let _ = writeln!(
                    w,
                    "- GET /api/overview: 200; the server counts {} learners, {} submissions ({} \
                     done, {} queued, {} judging, {} timing)",
                    c["learners"],
                    c["submissions"],
                    c["done"],
                    c["queued"],
                    c["judging"],
                    c["timing"]
                );
                true
            }
            Err(e) => {
                let _ = writeln!(w, "- GET /api/overview: 200 but not its JSON ({e})");
                false
            }
        },
        Ok((status, text)) => {
            let _ = writeln!(
                w,
                "- GET /api/overview: **{status}**: {}",
                md(&refusal_sentence(text))
            );
            false
        }
        Err(e) => {
            let _ = writeln!(w, "- GET /api/overview: **no answer** ({e})");
            false
        }
    };
    let _ = writeln!(
        w,
        "\nResult: {lost} lost, {checks_failed} failed checks of bad submissions' answers, server {}.",
        if alive { "alive" } else { "NOT answering" }
    );
    (
        out,
        Totals {
            lost,
            checks_failed,
            alive,
        },
    )
}

// ---------------------------------------------------------------------------------------------

fn runner_output(runner: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(runner)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run {}: {e}", runner.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {} failed ({}): {}",
            runner.display(),
            args.join(" "),
            out.status,
            cut(String::from_utf8_lossy(&out.stderr).trim(), 150)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn run(args: Args) -> Result<Totals, (u8, String)> {
    let bad = |s: String| (2u8, s);
    let fail = |s: String| (1u8, s);
    let http = Http::new(&args.url).map_err(bad)?;
    let tokens_text = std::fs::read_to_string(&args.tokens)
        .map_err(|e| bad(format!("could not read {}: {e}", args.tokens.display())))?;
    let tokens: Vec<String> = tokens_text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().nth(1).map(String::from))
        .collect();
    if tokens.len() < args.learners {
        return Err(bad(format!(
            "{} holds {} tokens, fewer than the {} learners",
            args.tokens.display(),
            tokens.len(),
            args.learners
        )));
    }
    let fingerprint = runner_output(&args.runner, &["--fingerprint"])
        .map_err(fail)?
        .trim()
        .to_string();
    let list = runner_output(&args.runner, &["--list-exercises"]).map_err(fail)?;
    let mut jobs = Vec::new();
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (chapter, exercise) = line
            .split_once(' ')
            .ok_or_else(|| fail(format!("--list-exercises printed `{line}`")))?;
        let text = runner_output(&args.runner, &["--solution-job", chapter, exercise.trim()])
            .map_err(fail)?;
        let job: Job = serde_json::from_str(text.lines().last().unwrap_or_default())
            .map_err(|e| fail(format!("--solution-job {line} is not a job ({e})")))?;
        jobs.push(job);
    }
    if jobs.is_empty() {
        return Err(fail("the runner lists no exercises".into()));
    }
    let bad_base = jobs
        .iter()
        .find(|j| j.chapter == BAD_BASE.0 && j.exercise == BAD_BASE.1)
        .unwrap_or(&jobs[0])
        .clone();
    match http.request("GET", "/api/overview", &[], None, Duration::from_secs(10)) {
        Ok((200, _)) => {}
        Ok((status, _)) => {
            return Err(fail(format!(
                "the server at {} answered /api/overview with {status}",
                args.url
            )));
        }
        Err(e) => {
            return Err(fail(format!(
                "the server at {} does not answer: {e}",
                args.url
            )));
        }
    }
    let started_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    eprintln!(
        "load-run: {} learners, {}, seed {}, against {} ({} exercises)",
        args.learners,
        match args.minutes {
            Some(m) => format!("{m} minutes"),
            None => format!("{} submissions each", args.submissions),
        },
        args.seed,
        args.url,
        jobs.len()
    );
    let began = Instant::now();
    let shared = Arc::new(Shared {
        http,
        fingerprint,
        jobs,
        bad_base,
        seed: args.seed,
        run_nonce: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0),
        learners: args.learners,
        submissions: args.submissions,
        deadline: args
            .minutes
            .map(|m| began + Duration::from_secs_f64(m * 60.0)),
        patience: args.patience,
        stall: args.stall,
        progress: Mutex::new(began),
        stalled: Mutex::new(None),
        sent: AtomicUsize::new(0),
        any_passed: AtomicBool::new(false),
        finished: AtomicBool::new(false),
    });
    let learners: Vec<_> = (0..args.learners)
        .map(|i| {
            let shared = shared.clone();
            let token = tokens[i].clone();
            thread::spawn(move || shared.learner(i, &token))
        })
        .collect();
    let kill = Arc::new(Mutex::new(None));
    let killer = args.kill_restart.clone().map(|command| {
        let shared = shared.clone();
        let kill = kill.clone();
        let (server_pid, pid_file) = (args.server_pid, args.pid_file.clone());
        thread::spawn(move || {
            let done = kill_and_restart(&shared, server_pid, pid_file.as_deref(), &command, began);
            eprintln!(
                "load-run: {}",
                match (done.killed_s, done.back_s) {
                    (Some(k), Some(b)) =>
                        format!("killed the server at {k:.1} s, back at {b:.1} s"),
                    (Some(k), None) =>
                        format!("killed the server at {k:.1} s; it did not come back"),
                    _ => done.note.clone().unwrap_or_default(),
                }
            );
            *kill.lock().unwrap() = Some(done);
        })
    });
    let mut records = Vec::new();
    for (i, handle) in learners.into_iter().enumerate() {
        let mine = handle
            .join()
            .map_err(|_| fail(format!("learner {i}'s thread panicked")))?;
        records.extend(mine.into_iter().map(|r| (i, r)));
    }
    shared.finished.store(true, Ordering::Relaxed);
    if let Some(killer) = killer {
        let _ = killer.join();
    }
    let ended = Instant::now();
    let kill = kill.lock().unwrap().take();
    let (text, totals) = report(
        &args,
        &shared,
        &records,
        kill.as_ref(),
        began,
        ended,
        started_at,
    );
    std::fs::write(&args.out, text)
        .map_err(|e| fail(format!("could not write {}: {e}", args.out.display())))?;
    eprintln!(
        "load-run: {} sent, {} lost, {} failed checks, server {}; report in {}",
        records.len(),
        totals.lost,
        totals.checks_failed,
        if totals.alive {
            "alive"
        } else {
            "NOT answering"
        },
        args.out.display()
    );
    Ok(totals)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&args) {
        Ok(Some(args)) => args,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(sentence) => {
            eprintln!("load-run: {sentence}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(t) if t.lost == 0 && t.alive && t.checks_failed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err((code, sentence)) => {
            eprintln!("load-run: {sentence}");
            ExitCode::from(code)
        }
    }
}
