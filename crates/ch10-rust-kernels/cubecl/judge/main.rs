//! Chapter 10's judge: `cargo run --bin judge -- ch10 plane`, in `crates/ch10-rust-kernels`.
//! The course's judge (`crates/examples/judge`) builds in the course's workspace, which cannot
//! build CubeCL code; this one judges the chapter's challenge the same way: your answer on the
//! book's seed and on a fresh one, then `ch10 plane: passed`, `not yet: <reason>` while the
//! file's TODO is still there, or `failed: <reason>`. Exit status 0 on `passed`, 1 otherwise;
//! 2 for a bad argument; 77 where there is no device to run on. See `--help`.
//!
//! The judge's tests (`tests/judge.rs`) make it judge a wrong answer from `tests/wrong_steps/`
//! with `COURSE_MUTANT=NAME` (`exercises/mod.rs` lists them).

#[path = "../exercises/mod.rs"]
mod exercises;

use std::panic::{AssertUnwindSafe, catch_unwind};

use ch10_cubecl::args::Runtime as Which;
use ch10_cubecl::device::{self, Device, Gpu};
use course::cli::{DEFAULT_SEED, fail};
use cubecl::Runtime;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::wgpu::{WgpuDevice, WgpuRuntime};
use exercises::{Answer, EXERCISES, MUTANTS};

const USAGE: &str = "\
Usage: judge [ch10 [EXERCISE]] [--solutions] [--seed N] [--runtime cuda|wgpu]

Judges your answer to chapter 10's challenge on the book's seed and on a fresh one, and prints
`passed`, `not yet: <reason>` (the file's TODO is still there) or `failed: <reason>`.
Exercises:";

const OPTIONS: &str = "
  --solutions     judge the course's solution instead of your file
  --seed N        the fresh seed (default: drawn from the clock, and printed)
  --runtime R     where the kernels run (default: cuda where there is an NVIDIA GPU, else wgpu)
  --help          print this and exit

Chapters 1 to 9 have their own judge: `cargo run --bin judge -- chNN` from the repository's root.";

struct Options {
    answer: Answer,
    seed: Option<u64>,
    runtime: Option<Which>,
}

fn options(args: &[String]) -> Options {
    let mut o = Options {
        answer: Answer::Learner,
        seed: None,
        runtime: None,
    };
    let mut positional = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |what: &str| {
            args.next()
                .filter(|v| !v.starts_with("--"))
                .unwrap_or_else(|| fail(&format!("{arg} needs {what}")))
        };
        match arg.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                for ex in &EXERCISES {
                    println!("  ch10 {:<9} {}", ex.name, ex.about);
                }
                println!("{OPTIONS}");
                std::process::exit(0)
            }
            "--solutions" => o.answer = Answer::Solution,
            "--seed" => {
                let v = value("a whole number");
                let seed = v
                    .parse()
                    .unwrap_or_else(|_| fail(&format!("--seed needs a whole number, not `{v}`")));
                o.seed = Some(seed);
            }
            "--runtime" => {
                o.runtime = match value("cuda or wgpu").as_str() {
                    "cuda" => Some(Which::Cuda),
                    "wgpu" => Some(Which::Wgpu),
                    other => fail(&format!("the runtime must be cuda or wgpu, not `{other}`")),
                }
            }
            word if word.starts_with('-') => {
                fail(&format!("there is no option `{word}`; `--help` lists them"))
            }
            _ => positional.push(arg.as_str()),
        }
    }
    let names: Vec<&str> = EXERCISES.iter().map(|ex| ex.name).collect();
    match positional[..] {
        [] | ["ch10"] => {}
        ["ch10", name] if names.contains(&name) => {}
        ["ch10", name] => fail(&format!(
            "chapter 10 has no exercise `{name}`; its exercises: {}",
            names.join(", ")
        )),
        ["ch10", _, extra, ..] => fail(&format!(
            "one chapter and one exercise at most, not also `{extra}`"
        )),
        [chapter, ..] => fail(&format!(
            "this judge is chapter 10's, not {chapter}'s: judge chapters 1 to 9 from the \
             repository's root with `cargo run --bin judge -- {chapter}`"
        )),
    }
    if let Ok(name) = std::env::var("COURSE_MUTANT") {
        o.answer = match MUTANTS.iter().find(|(m, _)| *m == name) {
            Some((_, answer)) => *answer,
            None => fail(&format!(
                "COURSE_MUTANT must name one of the judge's wrong answers, {}, not `{name}`",
                MUTANTS.map(|(m, _)| m).join(", ")
            )),
        };
    }
    o
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = options(&args);
    let device = device::open(o.runtime);
    let passed = match &device {
        Device::Cuda(ctx) => {
            let client = CudaRuntime::client(&CudaDevice::new(0));
            let gpu = Gpu {
                client,
                cuda: Some(ctx.clone()),
            };
            judge(&o, &device, &gpu)
        }
        Device::Wgpu(_) => {
            let client = WgpuRuntime::client(&WgpuDevice::DefaultDevice);
            let gpu = Gpu { client, cuda: None };
            judge(&o, &device, &gpu)
        }
    };
    std::process::exit(if passed { 0 } else { 1 })
}

/// Judge the answer on both seeds, print the verdict, and say whether it passed.
fn judge<R: Runtime>(o: &Options, device: &Device, gpu: &Gpu<R>) -> bool {
    gpu.describe(device);
    let fresh = o.seed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map(|d| d.as_nanos() as u64 % 1_000_000_007)
            .unwrap_or(1)
    });
    let (path, text) = o.answer.source();
    println!(
        "Judging {path} on seed {DEFAULT_SEED} and fresh seed {fresh} (`--seed {fresh}` \
         repeats it)."
    );
    // A panic is reported in the verdict; its own message would only repeat it.
    std::panic::set_hook(Box::new(|_| {}));
    let todo = text
        .lines()
        .position(|l| l.contains("TODO"))
        .map(|line| format!("{path} line {}", line + 1));
    let mut wrong = None;
    for seed in [DEFAULT_SEED, fresh] {
        let result = catch_unwind(AssertUnwindSafe(|| exercises::check(gpu, o.answer, seed)))
            .unwrap_or_else(|panic| Err(format!("it panicked: {}", panic_message(&panic))));
        if let Err(why) = result {
            wrong = Some(format!("{why} (seed {seed})"));
            break;
        }
    }
    let verdict = match (wrong, todo) {
        (None, None) => "passed".to_string(),
        (Some(why), Some(place)) => format!("not yet: the TODO at {place} is still there; {why}"),
        (Some(why), None) => format!("failed: {why}"),
        (None, Some(place)) => format!(
            "not yet: the results are right, but the TODO at {place} is still there: do what it \
             asks, then delete it"
        ),
    };
    println!("ch10 {}: {verdict}", EXERCISES[0].name);
    verdict == "passed"
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
