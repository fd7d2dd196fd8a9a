//! `judge --remote URL --token T`: the GPU parts go to the workshop's server as the kernel
//! file and the plain data the learner's Rust made here (the plan); the server judges them on
//! its GPU and answers in the words of a local run.
use std::time::{Duration, Instant};

use course::kernel::KernelFile;
use protocol::remote::{
    Ack, JUDGE_HEADER, Outcome, Refusal, RunnerReply, State, Status, Submission, Verdict as Said,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::exercise::Verdict;
use crate::http::{Failure, Transport};
use crate::isolate::Child;
use crate::part::reply;

/// What `judge --part CHAPTER EXERCISE plan ...` prints: the learner's plan for the seeds.
#[derive(Serialize, Deserialize)]
pub struct Plan {
    pub plan: Value,
    pub todo: Option<String>,
    pub kernel_name: String,
    pub local_only: Option<String>,
}

/// The longest wait for one verdict.
const PATIENCE: Duration = Duration::from_secs(30 * 60);
/// Tries of a request that found no server, before giving up.
const TRIES: u32 = 5;

pub struct Server {
    base: String,
    token: String,
    fingerprint: String,
    transport: Transport,
}

impl Server {
    pub fn new(
        url: &str,
        token: &str,
        fingerprint: &str,
        ca: Option<&str>,
    ) -> Result<Server, String> {
        let base = url.trim_end_matches('/').to_string();
        Ok(Server {
            transport: Transport::new(&base, ca)?,
            base,
            token: token.to_string(),
            fingerprint: fingerprint.to_string(),
        })
    }

    /// A request, tried again while the server cannot be reached; the reply's JSON, or the
    /// server's refusal as one sentence.
    fn request<T: for<'de> Deserialize<'de>>(
        &self,
        body: Option<&Submission>,
        path: &str,
    ) -> Result<T, String> {
        let (method, body) = match body {
            Some(body) => (
                "POST",
                Some(serde_json::to_vec(body).expect("a submission is JSON")),
            ),
            None => ("GET", None),
        };
        let bearer = format!("Bearer {}", self.token);
        let headers = [
            ("Authorization", bearer.as_str()),
            (JUDGE_HEADER, self.fingerprint.as_str()),
        ];
        let mut wait = Duration::from_millis(500);
        for attempt in 1..=TRIES {
            match self
                .transport
                .send(&self.base, method, path, &headers, body.as_deref())
            {
                Ok((status, text)) => {
                    if (200..300).contains(&status) {
                        return serde_json::from_str(&text).map_err(|e| {
                            format!("the server's reply is not what this judge expects ({e})")
                        });
                    }
                    return Err(match serde_json::from_str::<Refusal>(&text) {
                        Ok(refusal) => format!("the server refused: {}", refusal.error),
                        Err(_) => format!("the server answered with status {status}"),
                    });
                }
                Err(Failure::Final(why)) => return Err(why),
                Err(Failure::Unreachable(why)) if attempt == TRIES => return Err(why),
                Err(Failure::Unreachable(_)) => {
                    std::thread::sleep(wait);
                    wait *= 2;
                }
            }
        }
        unreachable!("the last try returns")
    }

    /// Sends the submission (again, with the same key, if the first answer was lost) and
    /// waits for its verdict.
    fn judge(&self, submission: &Submission) -> Result<(i64, Outcome), String> {
        let ack: Ack = self.request(Some(submission), "/api/submissions")?;
        let began = Instant::now();
        let mut last_ahead = None;
        loop {
            let status: Status = self.request(None, &format!("/api/submissions/{}", ack.id))?;
            if let (State::Done, Some(outcome)) = (status.state, status.outcome) {
                return Ok((ack.id, outcome));
            }
            if status.ahead != last_ahead {
                if let Some(ahead) = status.ahead.filter(|a| *a > 0) {
                    eprintln!("  #{}: {ahead} ahead in the server's queue", ack.id);
                }
                last_ahead = status.ahead;
            }
            if began.elapsed() > PATIENCE {
                return Err(format!(
                    "no verdict for submission #{} after {} minutes",
                    ack.id,
                    PATIENCE.as_secs() / 60
                ));
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

/// A 64-bit FNV-1a hash of `texts`, each ended by a zero byte, in hexadecimal: the judge's
/// fingerprint, and the key that makes a resent submission the same one (same id, same verdict).
pub fn hash_of<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for text in texts {
        for byte in text.bytes().chain([0]) {
            hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// The verdict line with what a local run lacks: the submission's number, its time and its
/// place on the exercise's board.
fn line_of(id: i64, outcome: &Outcome) -> String {
    let mut extra = vec![format!("remote #{id}")];
    if let Some(t) = &outcome.timing {
        extra.push(format!(
            "median {:.1} µs, {:.1} {}",
            t.median_us, t.rate, t.unit
        ));
    }
    if let Some((place, of)) = outcome.place {
        extra.push(format!("place {place} of {of} on the board"));
    }
    let line = format!("{} ({})", outcome.line, extra.join("; "));
    match &outcome.details {
        Some(details) => format!("{line}\n{details}"),
        None => line,
    }
}

impl Child {
    /// A GPU part judged by the server: the plan made here, in a process of its own, then the
    /// kernel file and the plan sent.
    pub fn remote(
        &self,
        server: &Server,
        chapter: &str,
        name: &str,
        kernel: &KernelFile,
    ) -> RunnerReply {
        let line = match self.last_line(chapter, name, "plan") {
            Ok(line) => line,
            Err(why) => return reply(Verdict::Failed(why), None),
        };
        let plan: Plan = match serde_json::from_str(&line) {
            Ok(plan) => plan,
            // The learner's Rust could not make the plan: the verdict came instead.
            Err(_) => {
                return serde_json::from_str(&line).unwrap_or_else(|_| {
                    reply(Verdict::Failed(format!("no plan, but `{line}`")), None)
                });
            }
        };
        let seeds: Vec<u64> = self
            .seeds
            .split(',')
            .filter_map(|s| s.parse().ok())
            .collect();
        let plan_text = plan.plan.to_string();
        let seeds_text = self.seeds.clone();
        let todo = plan.todo.clone().unwrap_or_default();
        let parts = [
            chapter,
            name,
            &plan.kernel_name,
            kernel.source,
            &plan_text,
            &todo,
            &seeds_text,
        ];
        let submission = Submission {
            judge: server.fingerprint.clone(),
            key: hash_of(std::iter::once(server.token.as_str()).chain(parts)),
            chapter: chapter.into(),
            exercise: name.into(),
            kernel_name: plan.kernel_name,
            kernel: kernel.source.into(),
            plan: plan.plan,
            todo: plan.todo,
            seeds,
        };
        match server.judge(&submission) {
            Ok((id, outcome)) => RunnerReply {
                verdict: said_of(&outcome.line),
                line: line_of(id, &outcome),
                timing: outcome.timing,
            },
            Err(why) => reply(Verdict::Failed(why), None),
        }
    }
}

fn said_of(line: &str) -> Said {
    match line {
        "passed" => Said::Passed,
        l if l.starts_with("not yet") => Said::NotYet,
        l if l.starts_with("skipped") => Said::Skipped,
        _ => Said::Failed,
    }
}
