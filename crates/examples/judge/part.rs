//! One part of one exercise, judged in this process: what the judge's child processes and the
//! workshop server's runner do (`--part`, `--run-submission`).
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use course::gpu::{NoGpu, find_gpu};
use course::kernel::{KernelFile, arch_of, compile, nvrtc_present, too_old_for};
use cudarc::driver::CudaContext;
use protocol::remote::{RunnerReply, Timing, Verdict as Said};
use serde_json::Value;

use crate::exercise::{CpuPart, Gpu, GpuPart, Timed, Verdict, Work, judge};

/// The reply that a verdict makes.
pub fn reply(verdict: Verdict, timing: Option<Timing>) -> RunnerReply {
    let said = match verdict {
        Verdict::Passed => Said::Passed,
        Verdict::NotYet(_) => Said::NotYet,
        Verdict::Failed(_) => Said::Failed,
        Verdict::Skipped(_) => Said::Skipped,
    };
    RunnerReply {
        verdict: said,
        line: verdict.to_string(),
        timing,
    }
}

/// The CPU part; one that reads a kernel file compiles it with NVRTC, so without NVRTC it is
/// skipped.
pub fn judge_cpu(part: &CpuPart, seeds: &[u64]) -> Verdict {
    let reads_kernel = part.sources.iter().any(|(path, _)| path.ends_with(".cu"));
    if reads_kernel && !nvrtc_present() {
        return Verdict::Skipped("NVRTC not found".into());
    }
    judge(&part.sources, None, seeds, &part.check)
}

/// The GPU part on the learner's kernel file, with the plan the learner's Rust made; `todo` is
/// the first TODO left in that Rust. Without a GPU, still say whether the kernel compiles, and
/// that the part was skipped. A GPU that the driver could not open fails the part: it is no
/// machine without a GPU. (The server's runner judges a submission in `runner.rs`.)
pub fn judge_gpu(part: &GpuPart, plan: &Value, todo: Option<String>, seeds: &[u64]) -> Verdict {
    let file = &part.kernel;
    let gpu = find_gpu();
    let ctx = match &gpu {
        Ok(ctx) => ctx,
        Err(failed @ NoGpu::Failed { .. }) => return Verdict::Failed(failed.sentence()),
        Err(why) if !nvrtc_present() => {
            return Verdict::Skipped(format!(
                "no GPU here ({why}), and no NVRTC to compile the kernel"
            ));
        }
        Err(why) => {
            return match compile(file, "sm_90", false) {
                Err(log) => Verdict::Failed(log),
                Ok(_) => Verdict::Skipped(format!(
                    "no GPU here ({why}); kernels/{} compiles with NVRTC",
                    file.name
                )),
            };
        }
    };
    if let Some(too_old) = too_old_for(ctx, file) {
        return Verdict::Skipped(format!(
            "{too_old}; judge it on the workshop's server with --remote"
        ));
    }
    let gpu = match load(ctx, file) {
        Ok(gpu) => gpu,
        Err(why) => return Verdict::Failed(why),
    };
    let sources = [(file.name, file.source)];
    judge(&sources, todo, seeds, |seed| {
        (part.check)(&gpu, seed, plan)?;
        match &part.also_here {
            Some(check) => check(&gpu, seed),
            None => Ok(()),
        }
    })
}

/// The kernel file compiled for this GPU and loaded.
fn load(ctx: &Arc<CudaContext>, file: &KernelFile) -> Result<Gpu, String> {
    let ptx = compile(file, &arch_of(ctx), false)?;
    let module = ctx
        .load_module(ptx)
        .map_err(|e| format!("the GPU refused kernels/{}: {e}", file.name))?;
    Ok(Gpu {
        stream: ctx.default_stream(),
        module,
        times: None,
    })
}

/// Launches timed after the warm-up one.
pub const TIMED_RUNS: usize = 10;

/// The seeds of a timed run that follows a correctness run on `fresh`: the warm-up's, then one
/// per timed launch. The learner's plan answers for these too.
pub fn timed_seeds(fresh: u64) -> Vec<u64> {
    let base = fresh.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..=TIMED_RUNS as u64)
        .map(|run| base.wrapping_add(run))
        .collect()
}

/// A timed run: the check on [`timed_seeds`]: one warm-up seed and [`TIMED_RUNS`] more, each drawing fresh
/// inputs into freshly poisoned outputs and checking the result; per run, the time of the
/// largest launch the check marks. `None` where the check marks none.
pub fn time_gpu_part(
    part: &GpuPart,
    gpu: &Gpu,
    plan: &Value,
    seed: u64,
) -> Result<Option<Timing>, String> {
    let mut per_run: Vec<Timed> = Vec::new();
    for (run, seed) in timed_seeds(seed).into_iter().enumerate() {
        let checked = catch_unwind(AssertUnwindSafe(|| (part.check)(gpu, seed, plan)))
            .unwrap_or_else(|_| Err("the check panicked".into()));
        checked.map_err(|why| format!("{why} (seed {seed})"))?;
        let times = gpu.times.as_ref().expect("a timed GPU");
        let largest = times
            .borrow_mut()
            .drain(..)
            .max_by(|a, b| a.work.amount().total_cmp(&b.work.amount()));
        if run > 0 {
            per_run.extend(largest);
        }
    }
    if per_run.is_empty() {
        return Ok(None);
    }
    per_run.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    let middle = per_run[per_run.len() / 2];
    let (amount, unit) = match middle.work {
        Work::Bytes(b) => (b, "GB/s"),
        Work::Flops(f) => (f, "GFLOP/s"),
    };
    Ok(Some(Timing {
        median_us: middle.ms * 1e3,
        rate: amount / (middle.ms * 1e-3) / 1e9,
        unit: unit.into(),
        launches: per_run.len() as u32,
    }))
}
