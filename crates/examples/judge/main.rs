//! The exercises' judge. `cargo run --bin judge -- ch04` judges your answers to chapter 4's
//! exercises; see `--help`. Each part runs in a process of its own, with a time limit; with
//! `--remote`, the GPU parts are judged by the workshop's server (`crates/course-server`),
//! which runs this program too, as its runner.
mod exercise;
mod http;
mod isolate;
mod part;
mod remote;
mod runner;

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
#[path = "../ch09/exercises/mod.rs"]
mod ch09;

use std::time::Duration;

use course::gpu::find_gpu;
use exercise::{Code, Exercise, GpuPart};
use protocol::remote::{Job, RunnerReply, Verdict as Said};

/// A chapter with exercises: its name, the function that lists them, and the text of its
/// checks (for the judge's fingerprint).
type Chapter = (&'static str, fn(Code) -> Vec<Exercise>, &'static str);

const CHAPTERS: [Chapter; 9] = [
    ("ch01", ch01::exercises, ch01::CHECKS),
    ("ch02", ch02::exercises, ch02::CHECKS),
    ("ch03", ch03::exercises, ch03::CHECKS),
    ("ch04", ch04::exercises, ch04::CHECKS),
    ("ch05", ch05::exercises, ch05::CHECKS),
    ("ch06", ch06::exercises, ch06::CHECKS),
    ("ch07", ch07::exercises, ch07::CHECKS),
    ("ch08", ch08::exercises, ch08::CHECKS),
    ("ch09", ch09::exercises, ch09::CHECKS),
];

const USAGE: &str = "\
Usage: judge [CHAPTER [EXERCISE]] [--solutions] [--seed N] [--time-limit S]
             [--remote URL --token T [--ca FILE]]

Judges the exercises of CHAPTER (ch01, ch02, ...; all chapters when none is given), or only
EXERCISE: runs your code on the book's seed and on a fresh one, and prints per exercise
`passed`, `not yet` or `failed: <reason>`, for its CPU part and, where there is one, its GPU part.
Your files: crates/examples/chNN/exercises/*.rs and kernels/chNN-exercise-*.cu. Chapter 10's
kernels are Rust, built by its own workspace, and so is its judge: run
`cd crates/ch10-rust-kernels && cargo run --bin judge -- ch10 plane`.

  --solutions     judge the course's solutions instead of your files
  --seed N        the fresh seed (default: drawn from the clock, and printed)
  --time-limit S  seconds each part may run, in a process of its own (default 120)
  --remote URL    send the GPU parts to the workshop's server at URL, which judges them on its
                  GPU (your laptop needs no GPU and no NVRTC); the CPU parts run here
  --token T       your token for the server, from your instructor
  --ca FILE       trust the server's certificate in FILE (PEM), for an https:// server whose
                  certificate the instructor made (build with `--features https`)
  --help          print this and exit

The workshop server runs this program too, as its runner: --run-submission, --compile ARCH
NAME, --fingerprint, --list-exercises, --gpu-health, --solution-job CHAPTER EXERCISE.";

struct Options {
    chapter: Option<String>,
    exercise: Option<String>,
    code: Code,
    fresh_seed: Option<u64>,
    time_limit: Duration,
    remote: Option<String>,
    token: Option<String>,
    ca: Option<String>,
}

fn usage_error(sentence: &str) -> ! {
    eprintln!("Error: {sentence}; see `judge --help`.");
    std::process::exit(2)
}

fn options(args: &[String]) -> Options {
    let mut o = Options {
        chapter: None,
        exercise: None,
        code: Code::Starter,
        fresh_seed: None,
        time_limit: Duration::from_secs(120),
        remote: None,
        token: None,
        ca: None,
    };
    let mut args = args.iter().cloned();
    let value = |args: &mut dyn Iterator<Item = String>, option: &str, what: &str| {
        args.next()
            .filter(|v| !v.starts_with("--"))
            .unwrap_or_else(|| usage_error(&format!("{option} needs {what}")))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            "--solutions" => o.code = Code::Solution,
            "--seed" => {
                let v = value(&mut args, "--seed", "a whole number");
                let seed = v.parse().unwrap_or_else(|_| {
                    usage_error(&format!("--seed needs a whole number, not `{v}`"))
                });
                o.fresh_seed = Some(seed);
            }
            "--time-limit" => {
                let v = value(&mut args, "--time-limit", "a number of seconds");
                let s: u64 = v.parse().ok().filter(|s| *s > 0).unwrap_or_else(|| {
                    usage_error(&format!(
                        "--time-limit needs whole seconds above 0, not `{v}`"
                    ))
                });
                o.time_limit = Duration::from_secs(s);
            }
            "--remote" => o.remote = Some(value(&mut args, "--remote", "the server's URL")),
            "--token" => o.token = Some(value(&mut args, "--token", "your token")),
            "--ca" => o.ca = Some(value(&mut args, "--ca", "a certificate's PEM file")),
            word if word.starts_with('-') => usage_error(&format!("unknown option `{word}`")),
            _ if o.chapter.is_none() => o.chapter = Some(arg),
            _ if o.exercise.is_none() => o.exercise = Some(arg),
            _ => usage_error(&format!(
                "one chapter and one exercise at most, not also `{arg}`"
            )),
        }
    }
    match (&o.remote, &o.token) {
        (Some(_), None) => {
            usage_error("--remote needs --token too, the token your instructor gave you")
        }
        (None, Some(_)) => usage_error("--token goes with --remote URL"),
        _ if o.ca.is_some() && o.remote.is_none() => usage_error("--ca goes with --remote URL"),
        _ => {}
    }
    o
}

/// Without NVRTC on the loader's path, use the one `scripts/install-nvrtc.sh` put in `.nvrtc/`
/// (the loader reads `LD_LIBRARY_PATH` only when a process starts, so run again).
fn rerun_with_local_nvrtc() {
    let local = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.nvrtc/nvidia/cu13");
    let lib = local.join("lib");
    if course::kernel::nvrtc_present()
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

/// The exercise `name` of `chapter`, in the learner's files or the solutions.
fn find(chapter: &str, name: &str, code: Code) -> Option<Exercise> {
    let (_, list, _) = CHAPTERS.iter().find(|(c, _, _)| *c == chapter)?;
    list(code).into_iter().find(|ex| ex.name == name)
}

/// A GPU part that the server can judge: its check reads the learner's Rust only through the
/// plan. (The check is the same for starters and solutions; only the kernel file differs.)
fn remote_part(chapter: &str, name: &str) -> Option<GpuPart> {
    let part = find(chapter, name, Code::Solution)?.gpu?;
    part.local_only.is_none().then_some(part)
}

/// What identifies the judge's checks: a hash of its own files and of every chapter's checks,
/// so that a laptop's judge and the server's runner agree on what "passed" means.
fn fingerprint() -> String {
    let own = [
        include_str!("main.rs"),
        include_str!("exercise.rs"),
        include_str!("part.rs"),
        include_str!("runner.rs"),
    ];
    let checks = CHAPTERS.iter().map(|(_, _, text)| *text);
    remote::hash_of(own.into_iter().chain(checks))
}

/// `--part CHAPTER EXERCISE SIDE CODE SEEDS`: one part, judged in this (child) process; its
/// last line of output is a `RunnerReply`, or for SIDE `plan` the learner's plan.
fn run_part(args: &[String]) -> ! {
    let [chapter, name, side, code, seeds] = args else {
        usage_error("--part needs CHAPTER EXERCISE SIDE CODE SEEDS")
    };
    let code = if code == "solution" {
        Code::Solution
    } else {
        Code::Starter
    };
    let seeds: Vec<u64> = seeds.split(',').filter_map(|s| s.parse().ok()).collect();
    let Some(ex) = find(chapter, name, code) else {
        usage_error(&format!("no exercise `{name}` in {chapter}"))
    };
    let line = match (side.as_str(), &ex.cpu, &ex.gpu) {
        ("cpu", Some(cpu), _) => json(&part::reply(part::judge_cpu(cpu, &seeds), None)),
        ("gpu", _, Some(gpu)) => match (gpu.plan)(&seeds) {
            Ok(plan) => {
                let todo = exercise::todo_left(&gpu.sources);
                let verdict = part::judge_gpu(gpu, &plan, todo, &seeds);
                json(&part::reply(verdict, None))
            }
            Err(why) => json(&plan_failed(gpu, why)),
        },
        ("plan", _, Some(gpu)) => match (gpu.plan)(&with_timed(&seeds)) {
            Ok(plan) => json(&remote::Plan {
                plan,
                todo: exercise::todo_left(&gpu.sources),
                kernel_name: gpu.kernel.name.to_string(),
                local_only: gpu.local_only.map(String::from),
            }),
            Err(why) => json(&plan_failed(gpu, why)),
        },
        _ => usage_error(&format!("{chapter} {name} has no {side} part")),
    };
    println!("{line}");
    std::process::exit(0)
}

/// The seeds and, after the last, those of its timed run: what a plan must answer for.
fn with_timed(seeds: &[u64]) -> Vec<u64> {
    let fresh = seeds.last().copied().unwrap_or(1);
    seeds
        .iter()
        .copied()
        .chain(part::timed_seeds(fresh))
        .collect()
}

/// The learner's Rust could not make the plan (it panicked): "not yet" while a TODO is left.
fn plan_failed(gpu: &GpuPart, why: String) -> RunnerReply {
    let todo = exercise::todo_left(&gpu.sources);
    let verdict = exercise::judge(&[], todo, &[0], |_| Err(format!("the plan: {why}")));
    part::reply(verdict, None)
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("plain data is JSON")
}

/// `--solution-job CHAPTER EXERCISE`: the course's solution as a timed job, for the server's
/// board (the share of the solution's time).
fn solution_job(args: &[String]) -> ! {
    let [chapter, name] = args else {
        usage_error("--solution-job needs CHAPTER EXERCISE")
    };
    let gpu = remote_part(chapter, name)
        .unwrap_or_else(|| usage_error(&format!("{chapter} {name} has no remote GPU part")));
    let seeds = vec![course::cli::DEFAULT_SEED, 1];
    let plan = (gpu.plan)(&with_timed(&seeds)).unwrap_or_else(|why| usage_error(&why));
    let job = Job {
        chapter: chapter.clone(),
        exercise: name.clone(),
        kernel_name: gpu.kernel.name.into(),
        kernel: gpu.kernel.source.into(),
        plan,
        todo: None,
        seeds,
        timed: true,
    };
    println!("{}", json(&job));
    std::process::exit(0)
}

/// `--gpu-health`: the GPU opens, and takes and gives back memory; exit status 0 if so, and
/// where there is no GPU at all (nothing to be unwell: the runner says `skipped`). The reason
/// goes to standard error, which the server logs.
fn gpu_health() -> ! {
    let check = || -> Result<(), String> {
        let ctx = match find_gpu() {
            Ok(ctx) => ctx,
            Err(why @ course::gpu::NoGpu::Absent(_)) => {
                eprintln!("no GPU here ({why}): nothing to check");
                return Ok(());
            }
            Err(failed) => return Err(failed.sentence()),
        };
        let s = ctx.default_stream();
        let buf = s.clone_htod(&[1u32, 2, 3]).map_err(|e| e.to_string())?;
        let back = s.clone_dtoh(&buf).map_err(|e| e.to_string())?;
        (back == [1, 2, 3])
            .then_some(())
            .ok_or("the GPU gave back other values than it was given".into())
    };
    match check() {
        Ok(()) => std::process::exit(0),
        Err(why) => {
            eprintln!("the GPU is not well: {why}");
            std::process::exit(1)
        }
    }
}

fn main() {
    rerun_with_local_nvrtc();
    // A part that panics is reported as failed; the panic's own message would only repeat it.
    std::panic::set_hook(Box::new(|_| {}));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("--run-submission") => runner::run_submission(remote_part),
        Some("--compile") if rest.len() == 2 => runner::compile_from_stdin(&rest[0], &rest[1]),
        Some("--part") => run_part(rest),
        Some("--fingerprint") => println!("{}", fingerprint()),
        Some("--list-exercises") => {
            for (chapter, list, _) in &CHAPTERS {
                for ex in list(Code::Solution) {
                    if ex.gpu.as_ref().is_some_and(|g| g.local_only.is_none()) {
                        println!("{chapter} {}", ex.name);
                    }
                }
            }
        }
        Some("--gpu-health") => gpu_health(),
        Some("--solution-job") => solution_job(rest),
        _ => judge_all(options(&args)),
    }
}

/// The command that judges chapter 10's challenge: its kernels are Rust that CubeCL compiles,
/// which only its own workspace builds, so its judge lives there.
const CH10_JUDGE: &str = "cd crates/ch10-rust-kernels && cargo run --bin judge -- ch10 plane";

/// The usual run: every part of the exercises asked for, each in a child process.
fn judge_all(o: Options) {
    let ch10 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ch10-rust-kernels");
    if o.chapter.as_deref() == Some("ch10") && ch10.exists() {
        eprintln!(
            "Error: chapter 10 has a judge of its own, in its own workspace: run `{CH10_JUDGE}`."
        );
        std::process::exit(2)
    }
    if CHAPTERS.is_empty() {
        // A project forked from a chapter without exercises.
        println!("No chapter here has exercises.");
        return;
    }
    let chapters: Vec<_> = CHAPTERS
        .iter()
        .filter(|(name, _, _)| o.chapter.as_deref().is_none_or(|c| c == *name))
        .collect();
    if chapters.is_empty() {
        let names: Vec<_> = CHAPTERS.iter().map(|(n, _, _)| *n).collect();
        usage_error(&format!(
            "no chapter `{}` has exercises (these do: {})",
            o.chapter.clone().unwrap_or_default(),
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
    let server = o.remote.as_ref().map(|url| {
        let token = o.token.clone().unwrap_or_default();
        remote::Server::new(url, &token, &fingerprint(), o.ca.as_deref()).unwrap_or_else(|why| {
            eprintln!("Error: {why}");
            std::process::exit(2)
        })
    });
    let child = isolate::Child {
        code: o.code.pick("starter", "solution"),
        seeds: format!("{},{fresh}", seeds[0]),
        limit: o.time_limit,
    };
    let (mut counts, mut any_failed, mut found) = ([0usize; 4], false, false);
    for (chapter, list, _) in chapters {
        for ex in list(o.code) {
            if o.exercise.as_deref().is_some_and(|e| e != ex.name) {
                continue;
            }
            found = true;
            let mut verdicts = Vec::new();
            if ex.cpu.is_some() {
                verdicts.push(("CPU", child.judge(chapter, ex.name, "cpu"), None));
            }
            if let Some(gpu) = &ex.gpu {
                let reply = match (&server, gpu.local_only) {
                    (Some(_), Some(why)) => part::reply(
                        exercise::Verdict::Skipped(format!(
                            "judged on a GPU of your own only: {why}"
                        )),
                        None,
                    ),
                    (Some(server), None) => child.remote(server, chapter, ex.name, &gpu.kernel),
                    (None, _) => child.judge(chapter, ex.name, "gpu"),
                };
                let hint = isolate::sanitizer_hint(&reply, &child, chapter, ex.name);
                verdicts.push(("GPU", reply, hint));
            }
            for (side, reply, hint) in verdicts {
                let slot = match reply.verdict {
                    Said::Passed => 0,
                    Said::NotYet => 1,
                    Said::Failed => 2,
                    Said::Skipped => 3,
                };
                counts[slot] += 1;
                any_failed |= slot == 2;
                println!("{chapter} {:<22} {side}: {}", ex.name, reply.line);
                if let Some(hint) = hint {
                    println!("  {hint}");
                }
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
