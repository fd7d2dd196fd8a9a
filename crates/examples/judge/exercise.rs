//! What an exercise is, and how one part of it is judged.
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use course::kernel::KernelFile;
use cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use cudarc::driver::{CudaFunction, CudaModule, CudaStream, LaunchConfig};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

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
/// A GPU part's check reads the learner's Rust only through the plan that [`PlanFn`] made
/// from it, so that it can run on another machine than the learner's.
pub type GpuCheck = Box<dyn Fn(&Gpu, u64, &Value) -> Result<(), String>>;
/// What the learner's Rust answers for the seeds given, as plain data.
pub type PlanFn = Box<dyn Fn(&[u64]) -> Result<Value, String>>;

pub struct CpuPart {
    pub sources: Vec<Source>,
    pub check: CpuCheck,
}

pub struct GpuPart {
    pub kernel: KernelFile,
    /// The learner's Rust files that the plan comes from.
    pub sources: Vec<Source>,
    pub plan: PlanFn,
    pub check: GpuCheck,
    /// Why the part can only be judged on the learner's own GPU, where its answer is Rust that
    /// runs on the GPU's side (cuBLAS calls, copies, the driver's device count).
    pub local_only: Option<&'static str>,
    /// A check of more of the learner's Rust, run where the learner has a GPU of their own:
    /// judged remotely, the part is its kernel and plan only.
    pub also_here: Option<Box<dyn Fn(&Gpu, u64) -> Result<(), String>>>,
}

impl GpuPart {
    /// A part whose answer is the kernel file alone.
    pub fn kernel(kernel: KernelFile, check: fn(&Gpu, u64) -> Result<(), String>) -> GpuPart {
        GpuPart {
            kernel,
            sources: vec![],
            plan: Box::new(|_| Ok(Value::Null)),
            check: Box::new(move |gpu, seed, _| check(gpu, seed)),
            local_only: None,
            also_here: None,
        }
    }

    /// A part whose answer is the kernel file alone, where the starter's kernel and the
    /// solution's are named apart: `check` gets the name of the one in the file judged. (Not by
    /// trying names: a name the module lacks is a failed driver call, which compute-sanitizer
    /// reports as an error.)
    pub fn named_kernel(
        code: Code,
        starter: (KernelFile, &'static str),
        solution: (KernelFile, &'static str),
        check: fn(&Gpu, &'static str, u64) -> Result<(), String>,
    ) -> GpuPart {
        let (kernel, name) = code.pick(starter, solution);
        GpuPart {
            check: Box::new(move |gpu, seed, _| check(gpu, name, seed)),
            ..GpuPart::kernel(kernel, |_, _| Ok(()))
        }
    }

    /// A part whose answer is the kernel file and what the learner's function `answer` says
    /// for the arguments `asked(seed)`; `check` reads those answers through its third
    /// argument (which panics, a failed check, on an argument the plan has no answer for).
    pub fn planned<A, R>(
        kernel: KernelFile,
        source: Source,
        asked: fn(u64) -> Vec<A>,
        answer: impl Fn(A) -> R + 'static,
        check: impl Fn(&Gpu, u64, &dyn Fn(A) -> R) -> Result<(), String> + 'static,
    ) -> GpuPart
    where
        A: Serialize + DeserializeOwned + Clone + PartialEq + std::fmt::Debug + 'static,
        R: Serialize + DeserializeOwned + Clone + 'static,
    {
        GpuPart {
            kernel,
            sources: vec![source],
            plan: Box::new(move |seeds| {
                let mut asked_all: Vec<A> = Vec::new();
                for &seed in seeds {
                    for a in asked(seed) {
                        if !asked_all.contains(&a) {
                            asked_all.push(a);
                        }
                    }
                }
                let answers = catch_unwind(AssertUnwindSafe(|| {
                    asked_all
                        .into_iter()
                        .map(|a| (a.clone(), answer(a)))
                        .collect::<Vec<_>>()
                }))
                .map_err(|panic| format!("it panicked: {}", panic_message(&panic)))?;
                serde_json::to_value(answers).map_err(|e| format!("could not write the plan: {e}"))
            }),
            check: Box::new(move |gpu, seed, plan| {
                let answers: Vec<(A, R)> = serde_json::from_value(plan.clone())
                    .map_err(|e| format!("the plan sent is not this exercise's ({e})"))?;
                let lookup = |a: A| -> R {
                    match answers.iter().find(|(asked, _)| *asked == a) {
                        Some((_, r)) => r.clone(),
                        None => panic!("the plan sent has no answer for {a:?}"),
                    }
                };
                check(gpu, seed, &lookup)
            }),
            local_only: None,
            also_here: None,
        }
    }

    /// With a check of more of the learner's Rust, run on a GPU of the learner's own.
    pub fn also_here(self, check: impl Fn(&Gpu, u64) -> Result<(), String> + 'static) -> GpuPart {
        GpuPart {
            also_here: Some(Box::new(check)),
            ..self
        }
    }

    /// A part whose answer is Rust code on the GPU's side: judged where the learner has a GPU.
    pub fn local_only(
        kernel: KernelFile,
        source: Source,
        why: &'static str,
        check: GpuCheck,
    ) -> GpuPart {
        GpuPart {
            kernel,
            sources: vec![source],
            plan: Box::new(|_| Ok(Value::Null)),
            check,
            local_only: Some(why),
            also_here: None,
        }
    }
}

/// A launch configuration as plain data: grid, block and dynamic shared memory in bytes.
pub type Shape = ((u32, u32, u32), (u32, u32, u32), u32);

pub fn shape(c: LaunchConfig) -> Shape {
    (c.grid_dim, c.block_dim, c.shared_mem_bytes)
}

pub fn config((grid_dim, block_dim, shared_mem_bytes): Shape) -> LaunchConfig {
    LaunchConfig {
        grid_dim,
        block_dim,
        shared_mem_bytes,
    }
}

pub struct Exercise {
    pub name: &'static str,
    pub cpu: Option<CpuPart>,
    pub gpu: Option<GpuPart>,
}

/// The GPU and the exercise's kernel file, compiled and loaded; in a timed run, the times of
/// the launches that the check marks with [`Gpu::timed`].
pub struct Gpu {
    pub stream: Arc<CudaStream>,
    pub module: Arc<CudaModule>,
    pub times: Option<RefCell<Vec<Timed>>>,
}

/// One timed launch: milliseconds, and the bytes moved or the floating-point operations done.
#[derive(Clone, Copy)]
pub struct Timed {
    pub ms: f64,
    pub work: Work,
}

#[derive(Clone, Copy)]
pub enum Work {
    Bytes(f64),
    Flops(f64),
}

impl Work {
    pub fn amount(self) -> f64 {
        match self {
            Work::Bytes(x) | Work::Flops(x) => x,
        }
    }
}

impl Gpu {
    pub fn function(&self, name: &str) -> Result<CudaFunction, String> {
        self.module
            .load_function(name)
            .map_err(|e| format!("the kernel file has no kernel `{name}` ({e})"))
    }

    /// Runs `launch`; in a timed run, between two CUDA events, and keeps the time.
    pub fn timed<T>(
        &self,
        work: Work,
        launch: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        let Some(times) = &self.times else {
            return launch();
        };
        let s = &self.stream;
        // `None` would make events without timing.
        let flags = Some(CU_EVENT_DEFAULT);
        let start = cuda(s.record_event(flags), "record an event")?;
        let result = launch()?;
        let end = cuda(s.record_event(flags), "record an event")?;
        cuda(end.synchronize(), "wait for the launch")?;
        let ms = cuda(start.elapsed_ms(&end), "read the events")? as f64;
        times.borrow_mut().push(Timed { ms, work });
        Ok(result)
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
pub fn todo_left(sources: &[Source]) -> Option<String> {
    sources.iter().find_map(|(path, text)| {
        let line = text.lines().position(|l| l.contains("TODO"))?;
        Some(format!("{path} line {}", line + 1))
    })
}

/// Run `check` on every seed; the first wrong result decides. A wrong result while a TODO is
/// still in the learner's files (or in the Rust that made a GPU part's plan: `todo`, where
/// the files are elsewhere) is "not yet", without one it is "failed". Right results with a TODO
/// still there are "not yet" too: a starter can compute the right answer the slow or plain way
/// (chapter 7's FMA kernel does), and the step the TODO asks for is the exercise.
pub fn judge(
    sources: &[Source],
    todo: Option<String>,
    seeds: &[u64],
    check: impl Fn(u64) -> Result<(), String>,
) -> Verdict {
    let todo = todo_left(sources).or(todo);
    for &seed in seeds {
        let result = catch_unwind(AssertUnwindSafe(|| check(seed)))
            .unwrap_or_else(|panic| Err(format!("it panicked: {}", panic_message(&panic))));
        if let Err(why) = result {
            let why = format!("{why} (seed {seed})");
            return match todo {
                Some(place) => {
                    Verdict::NotYet(format!("the TODO at {place} is still there; {why}"))
                }
                None => Verdict::Failed(why),
            };
        }
    }
    match todo {
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
