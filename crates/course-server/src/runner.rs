//! Running one job: the [`Runner`] trait the queue uses, and [`LocalProcess`], which runs the
//! judge on this machine, each job in its own process group with a time limit. Another backend
//! (a batch system, say) implements the same trait.
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use protocol::remote::{Job, RunnerReply, Timing, Verdict};

pub struct Limits {
    /// Wall-clock time a correctness run may take before its whole process group is killed.
    pub wall: Duration,
    /// The same for a timed run, which runs the check eleven times (a warm-up and ten timed
    /// launches, each on fresh inputs, each checked).
    pub timed_wall: Duration,
}

impl Limits {
    pub fn of(&self, job: &Job) -> Duration {
        if job.timed {
            self.timed_wall
        } else {
            self.wall
        }
    }
}

/// What one run gave.
#[derive(Debug)]
pub struct RunOutcome {
    pub verdict: Verdict,
    pub line: String,
    pub timing: Option<Timing>,
    /// The run may have left the GPU in a bad state: check it before the next run.
    pub fault: bool,
}

pub trait Runner: Send + Sync {
    /// Runs `job` to its verdict. `started` is told the run's handle (here its process group)
    /// as soon as it runs, so that a server killed meanwhile can end it after a restart.
    fn run(&self, job: &Job, limits: &Limits, started: &mut dyn FnMut(i32)) -> RunOutcome;
    /// Whether the GPU can take the next run.
    fn check_gpu(&self) -> Result<(), String>;
    /// Ends a run a killed server left behind, if it is still there.
    fn end_leftover(&self, handle: i32);
}

pub struct LocalProcess {
    pub program: PathBuf,
}

/// The only variables a run sees: where programs and CUDA's libraries are, and which GPU.
const KEPT_ENV: [&str; 4] = [
    "PATH",
    "LD_LIBRARY_PATH",
    "COURSE_CUDA_INCLUDE",
    "CUDA_VISIBLE_DEVICES",
];

/// Kept of each of a run's stdout and stderr: their last bytes, where the reply is.
const OUTPUT_CAP: usize = 64 * 1024;

const FAULT_MARKS: [&str; 3] = [
    "CUDA_ERROR",
    "illegal address",
    "unspecified launch failure",
];

impl Runner for LocalProcess {
    fn run(&self, job: &Job, limits: &Limits, started: &mut dyn FnMut(i32)) -> RunOutcome {
        let mut input = serde_json::to_vec(job).expect("a job is JSON");
        input.push(b'\n');
        let ended = match run_process(
            &self.program,
            &["--run-submission"],
            &input,
            limits.of(job),
            OUTPUT_CAP,
            started,
        ) {
            Ok(ended) => ended,
            Err(e) => {
                return RunOutcome {
                    verdict: Verdict::Failed,
                    line: format!("failed: the server could not start its runner: {e}"),
                    timing: None,
                    fault: false,
                };
            }
        };
        if ended.cut {
            eprintln!(
                "course-server: a run of {} {} printed more than {} KiB; only the end was kept",
                job.chapter,
                job.exercise,
                OUTPUT_CAP / 1024
            );
        }
        if ended.timed_out {
            return RunOutcome {
                verdict: Verdict::Failed,
                line: format!(
                    "failed: the run passed the {} s time limit (a kernel that never ends?)",
                    limits.of(job).as_secs()
                ),
                timing: None,
                fault: true,
            };
        }
        let stderr = String::from_utf8_lossy(&ended.stderr);
        let faulty_output = FAULT_MARKS.iter().any(|m| stderr.contains(m));
        let reply =
            last_line(&ended.stdout).and_then(|l| serde_json::from_str::<RunnerReply>(&l).ok());
        match reply {
            Some(reply) => RunOutcome {
                fault: ended.code != Some(0)
                    || faulty_output
                    || FAULT_MARKS.iter().any(|m| reply.line.contains(m)),
                verdict: reply.verdict,
                line: reply.line,
                timing: reply.timing,
            },
            None => RunOutcome {
                verdict: Verdict::Failed,
                line: format!(
                    "failed: the runner ended without a verdict ({}): {}",
                    ended.status_words(),
                    cut_chars(&last_line(&ended.stderr).unwrap_or_default(), 150)
                ),
                timing: None,
                fault: true,
            },
        }
    }

    fn check_gpu(&self) -> Result<(), String> {
        let ended = run_process(
            &self.program,
            &["--gpu-health"],
            b"",
            Duration::from_secs(30),
            OUTPUT_CAP,
            &mut |_| {},
        )
        .map_err(|e| format!("the GPU check could not start: {e}"))?;
        if ended.timed_out {
            return Err("the GPU check passed its 30 s limit".into());
        }
        if ended.code == Some(0) {
            return Ok(());
        }
        Err(format!(
            "the GPU check failed ({}): {}",
            ended.status_words(),
            cut_chars(&last_line(&ended.stderr).unwrap_or_default(), 150)
        ))
    }

    fn end_leftover(&self, pgid: i32) {
        let cmdline = std::fs::read(format!("/proc/{pgid}/cmdline")).unwrap_or_default();
        let ours = cmdline
            .split(|&b| b == 0)
            .any(|arg| arg == b"--run-submission");
        if ours {
            eprintln!(
                "course-server: ending the run left by the previous server (process group {pgid})"
            );
            kill_group(pgid);
        }
    }
}

/// A finished (or killed) process's exit and the ends of its output.
pub struct Ended {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// Some output was dropped (only the last [`OUTPUT_CAP`] bytes of each stream are kept).
    pub cut: bool,
}

impl Ended {
    pub fn status_words(&self) -> String {
        let or_none = |v: Option<i32>| v.map_or("none".to_string(), |v| v.to_string());
        format!(
            "exit status {}, signal {}",
            or_none(self.code),
            or_none(self.signal)
        )
    }
}

static RUN_DIRS: AtomicU64 = AtomicU64::new(0);
const RUN_DIR_PREFIX: &str = "course-server-run-";

/// Removes the run directories of servers that are no longer running (killed mid-run).
pub fn remove_stale_run_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(RUN_DIR_PREFIX)) else {
            continue;
        };
        let server = rest.split('-').next().unwrap_or("");
        if server.parse::<u32>().is_ok() && !Path::new("/proc").join(server).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Runs `program args` in a fresh directory and process group, with only [`KEPT_ENV`], `input`
/// on its stdin, and a wall-clock limit after which the whole group is killed; of each output
/// stream, the last `cap` bytes are kept.
pub fn run_process(
    program: &Path,
    args: &[&str],
    input: &[u8],
    wall: Duration,
    cap: usize,
    started: &mut dyn FnMut(i32),
) -> std::io::Result<Ended> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};

    let dir = std::env::temp_dir().join(format!(
        "{RUN_DIR_PREFIX}{}-{}",
        std::process::id(),
        RUN_DIRS.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .current_dir(&dir)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in KEPT_ENV {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
    };
    let pgid = child.id() as i32;
    started(pgid);

    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    // A child that never reads its stdin must not hold up the server: write from a thread.
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let stdout = keep_tail(child.stdout.take().expect("stdout is piped"), cap);
    let stderr = keep_tail(child.stderr.take().expect("stderr is piped"), cap);

    let deadline = Instant::now() + wall;
    let mut timed_out = false;
    while !has_exited(pgid) {
        if Instant::now() >= deadline {
            timed_out = true;
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    // Not yet reaped, so the group's id is still ours: this ends a run past its limit, and
    // anything a finished run left running in its group (which would hold its pipes open).
    kill_group(pgid);
    let status = child.wait()?;
    let _ = writer.join();
    let (stdout, cut_out) = stdout.join().expect("the stdout reader does not panic");
    let (stderr, cut_err) = stderr.join().expect("the stderr reader does not panic");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Ended {
        stdout,
        stderr,
        code: status.code(),
        signal: status.signal(),
        timed_out,
        cut: cut_out || cut_err,
    })
}

/// Reads a stream to its end, keeping only its last `cap` bytes, so that the child never
/// blocks on a full pipe and the server never holds more than that.
fn keep_tail(
    mut stream: impl Read + Send + 'static,
    cap: usize,
) -> thread::JoinHandle<(Vec<u8>, bool)> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut cut = false;
        let mut buf = [0u8; 16 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => kept.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            if kept.len() > 2 * cap {
                kept.drain(..kept.len() - cap);
                cut = true;
            }
        }
        if kept.len() > cap {
            kept.drain(..kept.len() - cap);
            cut = true;
        }
        (kept, cut)
    })
}

/// Whether the child has ended, without reaping it (its pid, the group's id, stays ours).
fn has_exited(pid: i32) -> bool {
    // SAFETY: waitid only writes into the zeroed siginfo_t it is given.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        r != 0 || info.si_pid() != 0
    }
}

pub fn kill_group(pgid: i32) {
    if pgid > 1 {
        // SAFETY: kill has no memory effects; a negative pid names the process group.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// The last non-empty line (output cut to its end may start inside a character: lossy).
pub fn last_line(bytes: &[u8]) -> Option<String> {
    bytes
        .split(|&b| b == b'\n')
        .rev()
        .map(|l| String::from_utf8_lossy(l).trim().to_string())
        .find(|l| !l.is_empty())
}

pub fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}
