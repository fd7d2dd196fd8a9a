//! The exercises' judge. `cargo run --bin judge -- ch04` judges your answers to chapter 4's
//! exercises; see `--help`.
mod exercise;

#[path = "../ch01/exercises/mod.rs"]
mod ch01;
#[path = "../ch02/exercises/mod.rs"]
mod ch02;
#[path = "../ch03/exercises/mod.rs"]
mod ch03;
#[path = "../ch04/exercises/mod.rs"]
mod ch04;
#[path = "../ch05/exercises/mod.rs"]
mod ch05;
#[path = "../ch06/exercises/mod.rs"]
mod ch06;
#[path = "../ch07/exercises/mod.rs"]
mod ch07;
#[path = "../ch08/exercises/mod.rs"]
mod ch08;

use std::path::Path;
use std::sync::Arc;

use course::gpu::{NoGpu, find_gpu};
use course::kernel::{KernelFile, arch_of, compile, nvrtc_present};
use cudarc::driver::CudaContext;
use exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, Verdict, judge};

/// Each chapter with exercises, and the function that lists them.
const CHAPTERS: [(&str, fn(Code) -> Vec<Exercise>); 8] = [
    ("ch01", ch01::exercises),
    ("ch02", ch02::exercises),
    ("ch03", ch03::exercises),
    ("ch04", ch04::exercises),
    ("ch05", ch05::exercises),
    ("ch06", ch06::exercises),
    ("ch07", ch07::exercises),
    ("ch08", ch08::exercises),
];

const USAGE: &str = "\
Usage: judge [CHAPTER [EXERCISE]] [--solutions] [--seed N]

Judges the exercises of CHAPTER (ch01, ch02, ...; all chapters when none is given), or only
EXERCISE: runs your code on the book's seed and on a fresh one, and prints per exercise
`passed`, `not yet` or `failed: <reason>`, for its CPU part and, where there is one, its GPU part.
Your files: crates/examples/chNN/exercises/*.rs and kernels/chNN-exercise-*.cu.

  --solutions   judge the course's solutions instead of your files
  --seed N      the fresh seed (default: drawn from the clock, and printed)
  --help        print this and exit";

struct Options {
    chapter: Option<String>,
    exercise: Option<String>,
    code: Code,
    fresh_seed: Option<u64>,
}

fn usage_error(sentence: &str) -> ! {
    eprintln!("Error: {sentence}; see `judge --help`.");
    std::process::exit(2)
}

fn options() -> Options {
    let mut o = Options {
        chapter: None,
        exercise: None,
        code: Code::Starter,
        fresh_seed: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            "--solutions" => o.code = Code::Solution,
            "--seed" => {
                let value = args.next().unwrap_or_default();
                let seed = value.parse().unwrap_or_else(|_| {
                    usage_error(&format!("--seed needs a whole number, not `{value}`"))
                });
                o.fresh_seed = Some(seed);
            }
            word if word.starts_with('-') => usage_error(&format!("unknown option `{word}`")),
            _ if o.chapter.is_none() => o.chapter = Some(arg),
            _ if o.exercise.is_none() => o.exercise = Some(arg),
            _ => usage_error(&format!(
                "one chapter and one exercise at most, not also `{arg}`"
            )),
        }
    }
    o
}

/// Without NVRTC on the loader's path, use the one `scripts/install-nvrtc.sh` put in `.nvrtc/`
/// (the loader reads `LD_LIBRARY_PATH` only when a process starts, so run again).
fn rerun_with_local_nvrtc() {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.nvrtc/nvidia/cu13");
    let lib = local.join("lib");
    if nvrtc_present()
        || !lib.join("libnvrtc.so.13").exists()
        || std::env::var_os("COURSE_LOCAL_NVRTC").is_some()
    {
        return;
    }
    let mut search = lib.into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        search.push(":");
        search.push(old);
    }
    let include = local.join("include");
    let headers = format!("{}:{}", include.display(), include.join("cccl").display());
    let Ok(me) = std::env::current_exe() else {
        return;
    };
    let status = std::process::Command::new(me)
        .args(std::env::args_os().skip(1))
        .env("LD_LIBRARY_PATH", search)
        .env("COURSE_LOCAL_NVRTC", "1")
        .env(
            "COURSE_CUDA_INCLUDE",
            std::env::var("COURSE_CUDA_INCLUDE").unwrap_or(headers),
        )
        .status();
    if let Ok(status) = status {
        std::process::exit(status.code().unwrap_or(1));
    }
}

/// The GPU part: compile and load the kernel file, then judge; without a GPU, still say
/// whether the kernel compiles, and that the part was skipped. A GPU that the driver could not
/// open fails the part: it is no machine without a GPU.
fn judge_gpu(part: &GpuPart, gpu: &Result<Arc<CudaContext>, NoGpu>, seeds: &[u64]) -> Verdict {
    let file: &KernelFile = &part.kernel;
    let ctx = match gpu {
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
    let ptx = match compile(file, &arch_of(ctx), false) {
        Ok(ptx) => ptx,
        Err(log) => return Verdict::Failed(log),
    };
    let module = match ctx.load_module(ptx) {
        Ok(m) => m,
        Err(e) => return Verdict::Failed(format!("the GPU refused kernels/{}: {e}", file.name)),
    };
    let gpu = Gpu {
        stream: ctx.default_stream(),
        module,
    };
    let mut sources = vec![(file.name, file.source)];
    sources.extend(part.sources.iter().copied());
    judge(&sources, seeds, |seed| (part.check)(&gpu, seed))
}

/// The CPU part; one that reads a kernel file compiles it with NVRTC, so without NVRTC it is
/// skipped.
fn judge_cpu(part: &CpuPart, seeds: &[u64]) -> Verdict {
    let reads_kernel = part.sources.iter().any(|(path, _)| path.ends_with(".cu"));
    if reads_kernel && !nvrtc_present() {
        return Verdict::Skipped("NVRTC not found".into());
    }
    judge(&part.sources, seeds, &part.check)
}

fn main() {
    rerun_with_local_nvrtc();
    let o = options();
    if CHAPTERS.is_empty() {
        // A project forked from a chapter without exercises.
        println!("No chapter here has exercises.");
        return;
    }
    let chapters: Vec<_> = CHAPTERS
        .iter()
        .filter(|(name, _)| o.chapter.as_deref().is_none_or(|c| c == *name))
        .collect();
    if chapters.is_empty() {
        let names: Vec<_> = CHAPTERS.iter().map(|(n, _)| *n).collect();
        usage_error(&format!(
            "no chapter `{}` has exercises (these do: {})",
            o.chapter.unwrap_or_default(),
            names.join(", ")
        ));
    }
    let fresh = o.fresh_seed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map(|d| d.as_nanos() as u64 % 1_000_000_007)
            .unwrap_or(1)
    });
    let seeds = [course::cli::DEFAULT_SEED, fresh];
    let whose = o.code.pick("your files", "the solutions");
    println!(
        "Judging {whose} on seed {} and fresh seed {fresh} (`--seed {fresh}` repeats it).",
        seeds[0]
    );
    // A part that panics is reported as failed; the panic's own message would only repeat it.
    std::panic::set_hook(Box::new(|_| {}));
    let gpu = find_gpu();
    let (mut counts, mut any_failed) = ([0usize; 4], false);
    let mut found = false;
    for (chapter, list) in chapters {
        for ex in list(o.code) {
            if o.exercise.as_deref().is_some_and(|e| e != ex.name) {
                continue;
            }
            found = true;
            let mut verdicts = Vec::new();
            if let Some(cpu) = &ex.cpu {
                verdicts.push(("CPU", judge_cpu(cpu, &seeds)));
            }
            if let Some(part) = &ex.gpu {
                verdicts.push(("GPU", judge_gpu(part, &gpu, &seeds)));
            }
            for (side, verdict) in verdicts {
                let slot = match verdict {
                    Verdict::Passed => 0,
                    Verdict::NotYet(_) => 1,
                    Verdict::Failed(_) => 2,
                    Verdict::Skipped(_) => 3,
                };
                counts[slot] += 1;
                any_failed |= slot == 2;
                println!("{chapter} {:<22} {side}: {verdict}", ex.name);
            }
        }
    }
    if !found {
        usage_error(&format!(
            "no exercise `{}` in {}",
            o.exercise.unwrap_or_default(),
            o.chapter.unwrap_or_default()
        ));
    }
    println!(
        "{} passed, {} not yet, {} failed, {} skipped (skipped is not passed)",
        counts[0], counts[1], counts[2], counts[3]
    );
    std::process::exit(if any_failed { 1 } else { 0 });
}
