//! What the learner's judge, the workshop server (`course-server`) and the server's runner (the
//! judge again, as `judge --run-submission`) say to each other, as JSON.
//!
//! ```text
//! laptop: judge --remote URL --token T ch05 tile_reverse
//!   POST URL/api/submissions   Authorization: Bearer T   body: Submission
//!     <- 202 Ack { id }                  (the same id again for the same `key`)
//!   GET  URL/api/submissions/ID   Authorization: Bearer T
//!     <- 200 Status { state, ahead, outcome }   until state is "done"
//! server: RUNNER --run-submission  stdin: Job   stdout: its last line is a RunnerReply
//! any refusal: a 4xx or 5xx status with body Refusal { error: one sentence }
//! ```
use serde::{Deserialize, Serialize};

/// The header that carries the judge's fingerprint on every request.
pub const JUDGE_HEADER: &str = "x-course-judge";

/// One exercise's GPU part, sent by a learner's judge: the kernel file and plain data only.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    /// The judge's fingerprint ([`Job`]s are judged by a judge with the same one).
    pub judge: String,
    /// Chosen by the judge, the same for a resent submission: a second POST with the same key
    /// gets the first one's id, and is not judged again.
    pub key: String,
    pub chapter: String,
    pub exercise: String,
    /// The kernel file's name, as under `kernels/`, and its text.
    pub kernel_name: String,
    pub kernel: String,
    /// What the learner's Rust computed on the laptop for these seeds (launch shapes, sizes),
    /// as the exercise's check reads it; `null` where the GPU part has no Rust of the learner's.
    pub plan: serde_json::Value,
    /// Where a TODO is still left in the learner's Rust files for this part, as `file line N`.
    pub todo: Option<String>,
    /// The book's seed and the fresh one, in that order.
    pub seeds: Vec<u64>,
}

/// The server's answer to a submission it took.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Ack {
    pub id: i64,
}

/// Where a submission is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Waiting for its correctness run.
    Queued,
    /// Its correctness run is going on.
    Judging,
    /// Correct, and waiting for (or in) its timed run, which has the GPU alone.
    Timing,
    Done,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Status {
    pub id: i64,
    pub state: State,
    /// Submissions ahead of this one in its queue.
    pub ahead: Option<u32>,
    pub outcome: Option<Outcome>,
}

/// The verdict, in the words of a local run, with the timing and the board.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Outcome {
    /// `passed`, `not yet: ...`, `failed: ...` or `skipped: ...`, as the local judge prints it:
    /// one line.
    pub line: String,
    /// What follows that line in a local run, such as NVRTC's whole log after `did not
    /// compile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    pub timing: Option<Timing>,
    /// This learner's place on the exercise's board, and how many learners are on it.
    pub place: Option<(u32, u32)>,
}

/// A timed run: the median of several launches, each on fresh inputs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    pub median_us: f64,
    /// The rate the time means, in `unit` (GB/s or GFLOP/s).
    pub rate: f64,
    pub unit: String,
    pub launches: u32,
}

/// What the server hands its runner: a submission, without who sent it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Job {
    pub chapter: String,
    pub exercise: String,
    pub kernel_name: String,
    pub kernel: String,
    pub plan: serde_json::Value,
    pub todo: Option<String>,
    pub seeds: Vec<u64>,
    /// A timed run (only for a correct submission, with the GPU alone) instead of a
    /// correctness run.
    pub timed: bool,
}

/// What the runner prints, as its last line of output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunnerReply {
    pub verdict: Verdict,
    /// The whole line, as the local judge prints it after `GPU: `.
    pub line: String,
    pub timing: Option<Timing>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    NotYet,
    Failed,
    /// No GPU (or no NVRTC) where the runner ran: the part was not judged.
    Skipped,
}

/// Any refusal, with a 4xx or 5xx status: one sentence, at most 200 characters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Refusal {
    pub error: String,
}
