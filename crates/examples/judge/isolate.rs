//! Each part in a process of its own (`judge --part ...`), under a time limit: a kernel that
//! never ends, or one that faults and spoils its CUDA context, stops that part only.
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use protocol::remote::{RunnerReply, Verdict as Said};

use crate::exercise::Verdict;
use crate::part::reply;

/// How the judge starts a part's process: whose code, which seeds, how long it may run.
pub struct Child {
    pub code: &'static str,
    pub seeds: String,
    pub limit: Duration,
}

/// The most output kept from a part's process.
const MAX_OUTPUT: u64 = 1 << 20;

impl Child {
    /// The part's arguments after `--part`.
    pub fn args(&self, chapter: &str, name: &str, side: &str) -> Vec<String> {
        let words = [chapter, name, side, self.code, &self.seeds];
        words.iter().map(|w| w.to_string()).collect()
    }

    /// The last line that `judge --part CHAPTER NAME SIDE ...` printed, or why there is none.
    pub fn last_line(&self, chapter: &str, name: &str, side: &str) -> Result<String, String> {
        let me = std::env::current_exe().map_err(|e| format!("could not find the judge: {e}"))?;
        let mut child = Command::new(me)
            .arg("--part")
            .args(self.args(chapter, name, side))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not start the part's process: {e}"))?;
        let out = read_capped(child.stdout.take().expect("piped"));
        let err = read_capped(child.stderr.take().expect("piped"));
        let began = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if began.elapsed() > self.limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "it ran past the time limit of {} s (a loop that never ends? \
                         `--time-limit S` gives it longer)",
                        self.limit.as_secs()
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => return Err(format!("could not wait for the part's process: {e}")),
            }
        };
        let out = out.join().unwrap_or_default();
        let err = err.join().unwrap_or_default();
        match out.lines().last() {
            Some(line) if status.success() => Ok(line.to_string()),
            _ => {
                let said = err.lines().last().unwrap_or("nothing").trim();
                Err(format!(
                    "its process ended without a verdict ({status}); it said: {}",
                    said.chars().take(150).collect::<String>()
                ))
            }
        }
    }

    /// A CPU or GPU part, judged here.
    pub fn judge(&self, chapter: &str, name: &str, side: &str) -> RunnerReply {
        let line = match self.last_line(chapter, name, side) {
            Ok(line) => line,
            Err(why) => return reply(Verdict::Failed(why), None),
        };
        serde_json::from_str(&line).unwrap_or_else(|_| {
            reply(
                Verdict::Failed(format!("its process printed no verdict, but `{line}`")),
                None,
            )
        })
    }
}

fn read_capped(pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut pipe = pipe;
        let mut bytes = Vec::new();
        let _ = (&mut pipe).take(MAX_OUTPUT).read_to_end(&mut bytes);
        // Keep draining, so that a part that prints without end is stopped by its time limit,
        // not by a full pipe.
        let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Words of the driver's errors for a kernel that faulted.
const FAULTS: [&str; 6] = [
    "ILLEGAL_ADDRESS",
    "illegal memory access",
    "LAUNCH_FAILED",
    "unspecified launch failure",
    "MISALIGNED_ADDRESS",
    "ILLEGAL_INSTRUCTION",
];

/// For a GPU part judged here that faulted (or whose process died), the command that shows
/// where: the same part under compute-sanitizer.
pub fn sanitizer_hint(
    reply: &RunnerReply,
    child: &Child,
    chapter: &str,
    name: &str,
) -> Option<String> {
    let died = reply.line.contains("its process ended without a verdict");
    let faulted = FAULTS.iter().any(|f| reply.line.contains(f));
    if reply.verdict != Said::Failed || !(died || faulted) || reply.line.contains("(remote") {
        return None;
    }
    let me = std::env::current_exe().ok()?;
    Some(format!(
        "To see where the kernel went wrong: compute-sanitizer --tool memcheck {} --part {}",
        me.display(),
        child.args(chapter, name, "gpu").join(" ")
    ))
}
