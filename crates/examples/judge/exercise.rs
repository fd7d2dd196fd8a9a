//! What an exercise is, and how one part of it is judged.
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use course::kernel::KernelFile;
use cudarc::driver::{CudaFunction, CudaModule, CudaStream};

/// Whose code is judged: the learner's starter files, or the course's solutions.
#[derive(Clone, Copy, PartialEq)]
pub enum Code {
    Starter,
    Solution,
}

impl Code {
    pub fn pick<T>(self, starter: T, solution: T) -> T {
        match self {
            Code::Starter => starter,
            Code::Solution => solution,
        }
    }
}

/// A file the learner edits: its path as the learner sees it, and its text when it was built.
pub type Source = (&'static str, &'static str);

/// One run of a part on the inputs drawn from `seed`: `Err` says which value was wrong.
pub type CpuCheck = Box<dyn Fn(u64) -> Result<(), String>>;
pub type GpuCheck = Box<dyn Fn(&Gpu, u64) -> Result<(), String>>;

pub struct CpuPart {
    pub sources: Vec<Source>,
    pub check: CpuCheck,
}

pub struct GpuPart {
    pub kernel: KernelFile,
    /// Other files whose code the GPU part runs (host code the learner writes).
    pub sources: Vec<Source>,
    pub check: GpuCheck,
}

pub struct Exercise {
    pub name: &'static str,
    pub cpu: Option<CpuPart>,
    pub gpu: Option<GpuPart>,
}

/// The GPU and the exercise's kernel file, compiled and loaded.
pub struct Gpu {
    pub stream: Arc<CudaStream>,
    pub module: Arc<CudaModule>,
}

impl Gpu {
    pub fn function(&self, name: &str) -> Result<CudaFunction, String> {
        self.module
            .load_function(name)
            .map_err(|e| format!("the kernel file has no kernel `{name}` ({e})"))
    }
}

/// Turns a CUDA error into the judge's reason: `cuda(stream.clone_htod(&xs), "copy xs")?`.
pub fn cuda<T, E: std::fmt::Display>(result: Result<T, E>, what: &str) -> Result<T, String> {
    result.map_err(|e| format!("could not {what}: {e}"))
}

pub enum Verdict {
    Passed,
    NotYet(String),
    Failed(String),
    Skipped(String),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Passed => write!(f, "passed"),
            Verdict::NotYet(why) => write!(f, "not yet: {why}"),
            Verdict::Failed(why) => write!(f, "failed: {why}"),
            Verdict::Skipped(why) => write!(f, "skipped: {why}"),
        }
    }
}

/// The first `TODO` left in the learner's files, as `file line N`.
fn todo_left(sources: &[Source]) -> Option<String> {
    sources.iter().find_map(|(path, text)| {
        let line = text.lines().position(|l| l.contains("TODO"))?;
        Some(format!("{path} line {}", line + 1))
    })
}

/// Run `check` on every seed; the first wrong result decides. A wrong result while a TODO is
/// still in the learner's files is "not yet", without one it is "failed". Right results with a
/// TODO still there are "not yet" too: a starter can compute the right answer the slow or plain
/// way (chapter 7's FMA kernel does), and the step the TODO asks for is the exercise.
pub fn judge(
    sources: &[Source],
    seeds: &[u64],
    check: impl Fn(u64) -> Result<(), String>,
) -> Verdict {
    for &seed in seeds {
        let result = catch_unwind(AssertUnwindSafe(|| check(seed)))
            .unwrap_or_else(|panic| Err(format!("it panicked: {}", panic_message(&panic))));
        if let Err(why) = result {
            let why = format!("{why} (seed {seed})");
            return match todo_left(sources) {
                Some(place) => {
                    Verdict::NotYet(format!("the TODO at {place} is still there; {why}"))
                }
                None => Verdict::Failed(why),
            };
        }
    }
    match todo_left(sources) {
        Some(place) => Verdict::NotYet(format!(
            "the results are right, but the TODO at {place} is still there: do what it asks, \
             then delete it"
        )),
        None => Verdict::Passed,
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".into()
    }
}

/// `Ok` when `got` equals `want` element by element, else which element differs.
pub fn same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[T],
    want: &[T],
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what} has {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} is {:?}, expected {:?}",
            got[i], want[i]
        )),
    }
}

/// `Ok` when every `got[i]` is within `bound × max(1, |want[i]|)` of `want[i]`.
pub fn close(what: &str, got: &[f64], want: &[f64], bound: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what} has {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        // Written so that NaN fails.
        if !((g - w).abs() <= bound * w.abs().max(1.0)) {
            return Err(format!(
                "{what}: element {i} is {g:e}, expected {w:e} (tolerance {bound:e} relative)"
            ));
        }
    }
    Ok(())
}
