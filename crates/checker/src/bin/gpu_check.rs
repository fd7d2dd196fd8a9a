//! The GPU check: runs every GPU program of the book on this machine, compares each output
//! with the book's, and writes the results table that the book's results page shows.
//!
//! It runs from the bundle that `scripts/gpu-bundle.sh` makes:
//!
//! ```text
//! gpu-bundle/gpu-check [--sanitize] [--out DIR]
//! gpu-bundle/gpu-check --mutations [--out DIR]
//! gpu-bundle/gpu-check --results-from DIR
//! ```
//!
//! `--mutations` runs each kernel mutation of the bundle (`checker::mutants`) instead, and
//! writes `mutations.txt`: every mutant must be caught.
//!
//! Without options it checks outputs and timings; `--sanitize` runs every GPU program under
//! compute-sanitizer's memcheck, racecheck, synccheck and initcheck instead (several at once:
//! run it after the output check, never beside it, or it disturbs the timings). Everything it
//! writes goes to `DIR` (default `gpu-check-out`): `results.md`, `metrics.tsv`, and under
//! `outputs/` what each program printed, in the book's expected-output layout, under
//! `figures/` the pictures programs draw of their GPU results; with
//! `--sanitize`, `sanitizer.txt`. `--results-from DIR` only rewrites `DIR/results.md` from the
//! metrics of an earlier run.
//!
//! Every run has a time limit (`checker::limits`: 300 s for a program, 150 s under a sanitizer
//! tool, longer for the cases listed there); a run still going at its limit is stopped and fails
//! its case, and the check goes on. The GPU check runs only where there is a GPU, so a program
//! that says it found none (exit status 77) fails its case; the one skip with a name that it
//! allows is a problem too large for this card (`too little GPU memory`, 78), and a run that
//! asks for more GPUs than there are (`too few GPUs`, 79), for thread-block clusters on a GPU
//! without them (`no clusters`, 80), or for a newer GPU than this one (`too old a GPU`, 81), or
//! for a Hopper GPU (`not a Hopper GPU`, 82).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use checker::limits;
use checker::{Case, compare, find_cases};
use protocol::Missing;

/// The program that measures the ceilings (copy bandwidth, SGEMM rate) every share is of.
const CEILINGS: &str = "ceilings";
const SANITIZER_TOOLS: [&str; 4] = ["memcheck", "racecheck", "synccheck", "initcheck"];
/// Sanitizer runs at once (`GPU_CHECK_JOBS` overrides).
const SANITIZER_JOBS: usize = 12;

fn setting(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: Vec<String>,
    /// Of the failed, those whose program said it found no GPU (exit status 77).
    no_gpu: usize,
    /// The skips allowed, each with what it lacked: too little GPU memory, too few GPUs, no
    /// clusters, too old a GPU, not a Hopper GPU.
    skipped: Vec<(Missing, String)>,
}

impl Tally {
    /// The last lines: the skips by reason, the failures, and the counts.
    fn summary(&self) -> String {
        let mut lines = Vec::new();
        for missing in [
            Missing::GpuMemory,
            Missing::MoreGpus,
            Missing::Clusters,
            Missing::NewerGpu,
            Missing::Hopper,
        ] {
            let names: Vec<&str> = self
                .skipped
                .iter()
                .filter(|(m, _)| *m == missing)
                .map(|(_, name)| name.as_str())
                .collect();
            if !names.is_empty() {
                lines.push(format!(
                    "skipped ({}): {}",
                    missing.label(),
                    names.join(", ")
                ));
            }
        }
        if !self.failed.is_empty() {
            lines.push(format!("failed: {}", self.failed.join(", ")));
        }
        let no_gpu = match self.no_gpu {
            0 => String::new(),
            n => format!(
                " ({n} of them found no GPU: on the GPU machine, a skip for want of a GPU is a failure)"
            ),
        };
        let skipped = match self.skipped.len() {
            0 => String::new(),
            _ => " (named above; skipped is not passed)".into(),
        };
        lines.push(format!(
            "{} passed, {} failed{no_gpu}, {} skipped{skipped}",
            self.passed,
            self.failed.len(),
            self.skipped.len()
        ));
        lines.join("\n")
    }
}

/// What a run does with a case.
#[derive(Debug, PartialEq)]
enum Pick {
    Check,
    /// Leave it out, saying why (`limits::NOT_SANITIZED`).
    LeaveOut(&'static str),
    /// Not this run's kind of case, silently.
    PassOver,
}

/// Every run checks the GPU cases, except that `--sanitize` leaves out the programs
/// `limits::NOT_SANITIZED` lists; the host cases (CPU programs recorded on this machine's CPU)
/// only in the output check: they launch no kernel to sanitize or mutate.
fn pick(case: &Case, sanitize: bool, mutations: bool) -> Pick {
    match limits::not_sanitized(&case.bin) {
        Some(why) if sanitize => Pick::LeaveOut(why),
        _ if case.gpu || (case.host && !sanitize && !mutations) => Pick::Check,
        _ => Pick::PassOver,
    }
}

/// The line for a case whose program stopped with a skip's exit status: a failure when it
/// found no GPU (the GPU check runs only where there is one), else a skip with its name.
fn skipped_or_failed(tally: &mut Tally, missing: Missing, name: &str, sentence: &str) -> String {
    if missing == Missing::Gpu {
        tally.failed.push(name.to_string());
        tally.no_gpu += 1;
        format!("FAILED {name}: the program found no GPU on the GPU machine: {sentence}")
    } else {
        tally.skipped.push((missing, name.to_string()));
        format!("skipped ({}) {name}: {sentence}", missing.label())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sanitize = args.iter().any(|a| a == "--sanitize");
    let mutations = args.iter().any(|a| a == "--mutations");
    // `--results-from DIR`: write DIR/results.md again from that run's metrics, run nothing.
    if let Some(dir) = args
        .iter()
        .position(|a| a == "--results-from")
        .and_then(|i| args.get(i + 1))
    {
        write_results(Path::new(dir));
        return;
    }
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("gpu-check-out"));
    if let Err(why) = limits::check_settings() {
        eprintln!("Error: {why}.");
        std::process::exit(2);
    }
    if let Some(bad) = args.iter().find(|a| {
        a.starts_with("--") && !["--sanitize", "--mutations", "--out"].contains(&a.as_str())
    }) {
        eprintln!(
            "Error: unknown option `{bad}`; use --sanitize, --mutations, --out DIR or --results-from DIR."
        );
        std::process::exit(2);
    }
    let here = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    let (bin_dir, case_dir) = (here.join("bin"), here.join("cases"));
    let mut cases: Vec<Case> = Vec::new();
    let mut left_out: Vec<(String, &str)> = Vec::new();
    for path in find_cases(&case_dir) {
        match Case::read(&path, &case_dir) {
            Ok(case) => match pick(&case, sanitize, mutations) {
                Pick::Check => cases.push(case),
                Pick::LeaveOut(why) => left_out.push((case.name, why)),
                Pick::PassOver => {}
            },
            Err(e) => {
                eprintln!("Error: {e}");
                std::process::exit(1);
            }
        }
    }
    if cases.is_empty() {
        eprintln!("Error: no GPU programs found under {}.", case_dir.display());
        std::process::exit(1);
    }
    // The ceilings go first: the rest of the table is measured against them.
    cases.sort_by_key(|c| (c.bin != CEILINGS, c.name.clone()));
    std::fs::create_dir_all(out.join("outputs")).unwrap_or_else(|e| {
        eprintln!("Error: cannot create {}: {e}.", out.display());
        std::process::exit(1)
    });

    let tally = if mutations {
        run_mutants(&cases, &bin_dir, &here.join("mutants"), &out)
    } else if sanitize {
        let expected = read_expected_findings(&case_dir.join(checker::cases::SANITIZER_EXPECTED))
            .unwrap_or_else(|e| {
                eprintln!("Error: {e}.");
                std::process::exit(1)
            });
        let (tally, mut lines) = run_sanitizer(&cases, &bin_dir, &expected);
        for (name, why) in &left_out {
            let line = format!("left out {name}: {why}");
            println!("{line}");
            lines.push(line);
        }
        let summary = format!("{}\n{}\n", lines.join("\n"), tally.summary());
        if let Err(e) = std::fs::write(out.join("sanitizer.txt"), summary) {
            eprintln!("Error: cannot write sanitizer.txt: {e}.");
        }
        tally
    } else {
        let tally = run_outputs(&cases, &bin_dir, &out);
        write_results(&out);
        tally
    };
    println!("{}", tally.summary());
    std::process::exit(if tally.failed.is_empty() { 0 } else { 1 });
}

/// Cases named `NAME-edge`, `NAME-one`, `NAME-tail` or `NAME-unknown-gpu` check a program at
/// an awkward size or setting (a length past a tile, a single element, no floor known); their
/// timings say nothing about the GPU, so the results table leaves them out.
fn correctness_only(case: &str) -> bool {
    ["-edge", "-one", "-tail", "-unknown-gpu"]
        .iter()
        .any(|suffix| case.ends_with(suffix))
}

fn run_outputs(cases: &[Case], bin_dir: &Path, out: &Path) -> Tally {
    let metrics = out.join("metrics.tsv");
    let _ = std::fs::remove_file(&metrics);
    let metrics_env = metrics.to_string_lossy().into_owned();
    let figures = out.join("figures");
    let _ = std::fs::create_dir_all(&figures);
    let figures_env = figures.to_string_lossy().into_owned();
    let mut tally = Tally::default();
    for case in cases {
        // A correctness-only case times awkward sizes: its rows stay out of the results table.
        let mut env = vec![(protocol::FIGURES_VAR, figures_env.as_str())];
        if !correctness_only(&case.name) {
            env.push((protocol::METRICS_VAR, metrics_env.as_str()));
        }
        let run = match case.run(bin_dir, &env) {
            Ok(run) => run,
            Err(e) => {
                println!("FAILED {}: {e}", case.name);
                tally.failed.push(case.name.clone());
                continue;
            }
        };
        let file = match case.gpu {
            true => format!("{}.gpu.txt", case.name),
            false => format!("{}.txt", case.name),
        };
        let saved = out.join("outputs").join(file);
        if let Some(dir) = saved.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(&saved, format!("{}\n{}", case.command_line(), run.printed));
        // A case file that holds only its command line: this run is its first recording.
        if case.expected.trim().is_empty() {
            println!(
                "FAILED {}: not recorded yet; what it printed is in {}",
                case.name,
                saved.display()
            );
            tally.failed.push(case.name.clone());
            continue;
        }
        if let Some(missing) = case.skip(&run) {
            let line = skipped_or_failed(&mut tally, missing, &case.name, run.last_sentence());
            println!("{line}");
            continue;
        }
        // The verdicts must also hold on fresh inputs, not only on the book's.
        let checked = compare(&case.expected, &run.printed).and_then(|c| {
            let masked = match c.not_known {
                0 => format!("{} numbers masked", c.masked),
                n => format!(
                    "{} numbers masked, {n} lines not known (no floor)",
                    c.masked
                ),
            };
            Ok(match case.check_fresh_seed(bin_dir)? {
                None => masked,
                Some((seed, held)) => format!("{masked}; {held} verdicts held with --seed {seed}"),
            })
        });
        match checked {
            Ok(said) => {
                println!("ok     {} ({said})", case.name);
                tally.passed += 1;
            }
            Err(why) => {
                println!("FAILED {}: {why}", case.name);
                tally.failed.push(case.name.clone());
            }
        }
    }
    tally
}

/// The settings of the environment that a case's command line names, for a run built by hand.
fn case_env(case: &Case) -> Vec<(&str, String)> {
    case.env
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect()
}

/// Runs `command` with `env`, killed after `limit` seconds: its exit status (124 when the
/// time-out stopped it, 137 when it had to kill it, -1 when it could not start) and what it
/// printed, standard output then standard error. `timeout` stops the processes it started too
/// (compute-sanitizer's target).
fn run_timed(command: &[String], env: &[(&str, String)], limit: u64) -> (i32, String) {
    let mut cmd = Command::new("timeout");
    cmd.args(["--kill-after=10", &limit.to_string()])
        .args(command);
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(o) => {
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            (o.status.code().unwrap_or(-1), text)
        }
        Err(e) => (-1, format!("cannot start {}: {e}", command[0])),
    }
}

/// `command` under compute-sanitizer's `tool`, with `env` and the programs' sanitizer setting:
/// its exit status (99 when the tool found errors), its text and its summary line.
fn run_under_sanitizer(
    tool: &str,
    command: &[String],
    env: &[(&str, String)],
    limit: u64,
) -> (i32, String, String) {
    let mut under: Vec<String> = [
        "compute-sanitizer",
        "--tool",
        tool,
        "--error-exitcode",
        "99",
    ]
    .map(String::from)
    .to_vec();
    under.extend(command.iter().cloned());
    // The programs then time each step once: see course::gpu::sanitizing.
    let mut env = env.to_vec();
    env.push((protocol::SANITIZE_VAR, "1".into()));
    let (code, text) = run_timed(&under, &env, limit);
    let summary = text
        .lines()
        .rfind(|l| l.contains("SUMMARY"))
        .map(|l| l.trim_start_matches("========= ").trim().to_string())
        .unwrap_or_else(|| "no summary".into());
    (code, text, summary)
}

/// Every kernel mutation of the bundle, on the case it names: see `checker::mutants`.
fn run_mutants(cases: &[Case], bin_dir: &Path, mutants_dir: &Path, out: &Path) -> Tally {
    let mut tally = Tally::default();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(mutants_dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    if dirs.is_empty() {
        println!("FAILED: no mutants under {}", mutants_dir.display());
        tally.failed.push("mutants".into());
    }
    let mut report = Vec::new();
    for dir in dirs {
        let verdict = (|| {
            let m = checker::mutants::read_mutant(&dir)?;
            let case = cases
                .iter()
                .find(|c| c.name == m.case)
                .ok_or_else(|| format!("{}: no GPU case `{}` in the bundle", m.name, m.case))?;
            let mut command = vec![bin_dir.join(&case.bin).to_string_lossy().into_owned()];
            command.extend(case.args.iter().cloned());
            let mut env = case_env(case);
            env.push((protocol::KERNELS_VAR, m.dir.to_string_lossy().into_owned()));
            let limit = case.limit_s();
            let (code, printed) = run_timed(&command, &env, limit);
            if [124, 137].contains(&code) {
                return Err(format!(
                    "{} on {}: still running after {limit} s (the limit for this case)",
                    m.name, m.case
                ));
            }
            let finished = Some(code).filter(|c| *c != -1);
            let mut said = checker::mutants::caught(
                &case.expected,
                &printed,
                finished,
                &m.expect,
                m.fault.as_deref(),
            )
            .map_err(|why| format!("{} on {}: {why}", m.name, m.case))?;
            if let Some(tool) = &m.sanitizer {
                let limit = limits::sanitizer_limit_s(&case.name, tool);
                let (code, _, summary) = run_under_sanitizer(tool, &command, &env, limit);
                if code != 99 || errors_counted(&summary).is_none_or(|n| n == 0) {
                    return Err(format!(
                        "{} on {}: {tool} reported nothing ({summary})",
                        m.name, m.case
                    ));
                }
                said.push_str(&format!("; {tool}: {summary}"));
            }
            Ok(format!("{} on {}: {said}", m.name, m.case))
        })();
        let line = match verdict {
            Ok(said) => {
                tally.passed += 1;
                format!("caught {said}")
            }
            Err(why) => {
                tally.failed.push(
                    dir.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                );
                format!("MISSED {why}")
            }
        };
        println!("{line}");
        report.push(line);
    }
    let summary = format!(
        "{}\n{} caught, {} missed\n",
        report.join("\n"),
        tally.passed,
        tally.failed.len()
    );
    if let Err(e) = std::fs::write(out.join("mutations.txt"), summary) {
        eprintln!("Error: cannot write mutations.txt: {e}.");
    }
    tally
}

/// A finding compute-sanitizer must report: one of the book's deliberate mistakes.
struct Finding {
    program: String,
    tool: String,
    /// The errors its summary must count, exactly.
    errors: usize,
    /// Text that the report must hold: the kind of the finding.
    kind: String,
}

impl Finding {
    /// Whether a report (its summary line, and its whole text) is this finding, exactly.
    fn matches(&self, summary: &str, report: &str) -> bool {
        errors_counted(summary) == Some(self.errors) && report.contains(&self.kind)
    }
}

/// Lines `program tool N errors: TEXT` (`# comments` ignored); a malformed line is an error.
fn read_expected_findings(path: &Path) -> Result<Vec<Finding>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut found = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || {
            format!(
                "`{line}` in {} is not `program tool N errors: TEXT`",
                path.display()
            )
        };
        let (head, kind) = line.split_once(':').ok_or_else(bad)?;
        let words: Vec<&str> = head.split_whitespace().collect();
        let [program, tool, errors, "error" | "errors"] = words[..] else {
            return Err(bad());
        };
        found.push(Finding {
            program: program.into(),
            tool: tool.into(),
            errors: errors.parse().map_err(|_| bad())?,
            kind: kind.trim().into(),
        });
    }
    Ok(found)
}

/// The errors a sanitizer report counts: `ERROR SUMMARY: 1 error` (memcheck, synccheck,
/// initcheck) or `RACECHECK SUMMARY: 9 hazards displayed (8 errors, 1 warning)`.
fn errors_counted(summary: &str) -> Option<usize> {
    let counted = summary.rsplit_once(" error")?.0;
    let digits = counted.rsplit(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// Every case under every tool, so that every code path a case reaches is checked (problems a
/// program shrinks under the sanitizer: see `course::gpu::problem_size`). The runs are
/// independent and mostly wait on the sanitizer's host side, so several go at once.
/// Returns the tally and one line per run (its first line), sorted, for `sanitizer.txt`.
fn run_sanitizer(cases: &[Case], bin_dir: &Path, expected: &[Finding]) -> (Tally, Vec<String>) {
    let jobs: Vec<(&Case, &str)> = cases
        .iter()
        .flat_map(|c| SANITIZER_TOOLS.map(|t| (c, t)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        let jobs_at_once: usize = setting("GPU_CHECK_JOBS", &SANITIZER_JOBS.to_string())
            .parse()
            .unwrap_or(SANITIZER_JOBS);
        for _ in 0..jobs_at_once {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(case, tool)) = jobs.get(i) else {
                        break;
                    };
                    let outcome = sanitize_one(case, tool, bin_dir, expected);
                    println!("{}", outcome.1);
                    std::io::Write::flush(&mut std::io::stdout()).ok();
                    results.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let mut tally = Tally::default();
    let mut lines = Vec::new();
    for (outcome, text) in results.into_inner().unwrap() {
        lines.push(text.lines().next().unwrap_or_default().to_string());
        match outcome {
            Outcome::Passed => tally.passed += 1,
            Outcome::Failed(label) => tally.failed.push(label),
            Outcome::NoGpu(label) => {
                tally.failed.push(label);
                tally.no_gpu += 1;
            }
            Outcome::Skipped(missing, label) => tally.skipped.push((missing, label)),
        }
    }
    tally.failed.sort();
    tally.skipped.sort_by(|a, b| a.1.cmp(&b.1));
    lines.sort_by(|a, b| a.get(7..).cmp(&b.get(7..)));
    (tally, lines)
}

enum Outcome {
    Passed,
    Failed(String),
    /// A failure: the program found no GPU on the GPU machine.
    NoGpu(String),
    /// A skip with its name: too little GPU memory, too few GPUs.
    Skipped(Missing, String),
}

fn sanitize_one(
    case: &Case,
    tool: &str,
    bin_dir: &Path,
    expected: &[Finding],
) -> (Outcome, String) {
    let label = format!("{} under {tool}", case.name);
    let mut command = vec![bin_dir.join(&case.bin).to_string_lossy().into_owned()];
    command.extend(case.args.iter().cloned());
    let limit = limits::sanitizer_limit_s(&case.name, tool);
    let (code, text, summary) = run_under_sanitizer(tool, &command, &case_env(case), limit);
    let wanted = expected
        .iter()
        .find(|f| f.program == case.bin && f.tool == tool);
    if let (99, Some(f)) = (code, wanted)
        && !f.matches(&summary, &text)
    {
        return (
            Outcome::Failed(label.clone()),
            format!(
                "FAILED {label}: expected {} error(s) reporting `{}`, found {summary}",
                f.errors, f.kind
            ),
        );
    }
    // The program's own sentence, when it stopped with one of the skips' statuses.
    let sentence = || {
        let run = checker::cases::Run {
            code,
            printed: text.clone(),
        };
        run.last_sentence().to_string()
    };
    match (code, wanted.is_some()) {
        (checker::EXIT_NO_GPU, _) => (
            Outcome::NoGpu(label.clone()),
            format!(
                "FAILED {label}: the program found no GPU on the GPU machine: {}",
                sentence()
            ),
        ),
        (code, _) if Missing::from_exit_status(code).is_some() => {
            let missing = Missing::from_exit_status(code).unwrap();
            (
                Outcome::Skipped(missing, label.clone()),
                format!("skipped ({}) {label}: {}", missing.label(), sentence()),
            )
        }
        (0, false) => (Outcome::Passed, format!("clean  {label} ({summary})")),
        (99, true) => (
            Outcome::Passed,
            format!("found  {label}, as expected ({summary})"),
        ),
        (0, true) => (
            Outcome::Failed(label.clone()),
            format!("FAILED {label}: the hazard this demo shows was not found"),
        ),
        (124 | 137, _) => (
            Outcome::Failed(label.clone()),
            format!(
                "FAILED {label}: still running after {limit} s (the limit for this case under {tool})"
            ),
        ),
        (code, _) => {
            let lines: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(16)
                .collect();
            (
                Outcome::Failed(label.clone()),
                format!("FAILED {label} (exit status {code}):\n{}", lines.join("\n")),
            )
        }
    }
}

/// `results.md`: each measurement with its rate and its share of the ceiling measured in the
/// same run (device-to-device copy for bytes, cuBLAS SGEMM for FP32 operations).
fn write_results(out: &Path) {
    use protocol::{Metric, Work};
    let text = std::fs::read_to_string(out.join("metrics.tsv")).unwrap_or_default();
    let rows: Vec<Metric> = text.lines().filter_map(|l| Metric::parse(l).ok()).collect();
    let kind = |m: &Metric| match m.work {
        Work::Bytes(_) => "bytes",
        Work::Flops(_) => "flops",
    };
    // The ceilings program measures the copy (bytes) and SGEMM (flops) that the shares use.
    let mut ceilings: BTreeMap<&str, f64> = BTreeMap::new();
    for m in rows.iter().filter(|m| m.program == CEILINGS) {
        ceilings.insert(kind(m), m.rate());
    }
    let gpu = std::fs::read_to_string(out.join("outputs/ch02/ceilings.gpu.txt"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("GPU: "))
                .map(|l| l[5..].to_string())
        })
        .unwrap_or_else(|| "unknown GPU".into());
    let mut md = format!(
        "Measured on **{gpu}** by `gpu-check`. Ceilings measured in the same run: \
         device-to-device copy {}, cuBLAS SGEMM {}.\n\n\
         | program | measurement | median time | rate | share of ceiling |\n\
         | --- | --- | ---: | ---: | ---: |\n",
        ceilings
            .get("bytes")
            .map_or("not measured".into(), |r| format!("{:.0} GB/s", r / 1e9)),
        ceilings
            .get("flops")
            .map_or("not measured".into(), |r| format!(
                "{:.1} TFLOP/s",
                r / 1e12
            )),
    );
    for m in &rows {
        let unit = if kind(m) == "bytes" {
            "GB/s"
        } else {
            "GFLOP/s"
        };
        // The only arithmetic ceiling measured is FP32 SGEMM: FP64 work gets no share.
        let fp64 = m.label.contains("FP64") || m.label.contains("f64");
        let share = match ceilings.get(kind(m)) {
            Some(c) if !(kind(m) == "flops" && fp64) => format!("{:.0}%", 100.0 * m.rate() / c),
            _ => "–".into(),
        };
        md.push_str(&format!(
            "| `{}` | {} | {:.3} ms | {:.0} {unit} | {share} |\n",
            m.program,
            m.label,
            m.median_ms,
            m.rate() / 1e9
        ));
    }
    if let Err(e) = std::fs::write(out.join("results.md"), md) {
        eprintln!("Error: cannot write results.md: {e}.");
    }
}

#[cfg(test)]
mod tests {
    use super::correctness_only;

    #[test]
    fn edge_cases_stay_out_of_the_results_table() {
        for case in [
            "ch04/matmul_gpu-edge",
            "ch06/scan-one",
            "ch07/dft_coarsening-unknown-gpu",
        ] {
            assert!(correctness_only(case), "{case}");
        }
        for case in [
            "ch04/matmul_gpu",
            "ch05/histogram_three_ways-256mib",
            "ch03/multi_gpu-two",
        ] {
            assert!(!correctness_only(case), "{case}");
        }
    }

    use super::*;

    #[test]
    fn only_the_sanitizer_run_leaves_out_the_listed_programs_and_says_why() {
        let case = |bin: &str, gpu: bool, host: bool| Case {
            name: format!("chNN/{bin}"),
            path: PathBuf::new(),
            bin: bin.into(),
            args: Vec::new(),
            env: Vec::new(),
            expected: String::new(),
            gpu,
            host,
        };
        let listed = case(limits::NOT_SANITIZED[0].0, true, false);
        let why = limits::NOT_SANITIZED[0].1;
        assert_eq!(pick(&listed, true, false), Pick::LeaveOut(why));
        assert_eq!(pick(&listed, false, false), Pick::Check);
        assert_eq!(pick(&listed, false, true), Pick::Check);
        let other = case("adder_gpu", true, false);
        assert_eq!(pick(&other, true, false), Pick::Check);
        let host = case("add_rayon", false, true);
        assert_eq!(pick(&host, false, false), Pick::Check);
        assert_eq!(pick(&host, true, false), Pick::PassOver);
        assert_eq!(pick(&host, false, true), Pick::PassOver);
    }

    #[test]
    fn no_gpu_on_the_gpu_machine_fails_and_too_little_memory_is_a_named_skip() {
        let mut tally = Tally {
            passed: 3,
            ..Tally::default()
        };
        let said = skipped_or_failed(
            &mut tally,
            Missing::Gpu,
            "ch04/adder_gpu",
            "this program needs an NVIDIA GPU, but the NVIDIA driver found no GPU (CUDA_ERROR_NO_DEVICE).",
        );
        assert_eq!(
            said,
            "FAILED ch04/adder_gpu: the program found no GPU on the GPU machine: this program \
             needs an NVIDIA GPU, but the NVIDIA driver found no GPU (CUDA_ERROR_NO_DEVICE)."
        );
        let said = skipped_or_failed(
            &mut tally,
            Missing::GpuMemory,
            "ch08/radix_sort",
            "too little GPU memory: radix_sort on n=2^28 keys needs 4.25 GiB, the GPU has 1.00 GiB free.",
        );
        assert!(
            said.starts_with("skipped (too little GPU memory) ch08/radix_sort: "),
            "{said}"
        );
        assert_eq!(tally.failed, ["ch04/adder_gpu"]);
        assert_eq!(
            tally.summary(),
            "skipped (too little GPU memory): ch08/radix_sort\n\
             failed: ch04/adder_gpu\n\
             3 passed, 1 failed (1 of them found no GPU: on the GPU machine, a skip for want \
             of a GPU is a failure), 1 skipped (named above; skipped is not passed)"
        );
    }

    #[test]
    fn summaries_count_errors() {
        assert_eq!(errors_counted("ERROR SUMMARY: 1 error"), Some(1));
        assert_eq!(errors_counted("ERROR SUMMARY: 12 errors"), Some(12));
        let race = "RACECHECK SUMMARY: 9 hazards displayed (8 errors, 1 warning)";
        assert_eq!(errors_counted(race), Some(8));
        assert_eq!(errors_counted("no summary"), None);
    }

    #[test]
    fn a_finding_must_have_its_count_and_kind() {
        let race = Finding {
            program: "tile_reverse_no_barrier".into(),
            tool: "racecheck".into(),
            errors: 3,
            kind: "Race reported".into(),
        };
        let summary = "RACECHECK SUMMARY: 4 hazards displayed (3 errors, 1 warning)";
        assert!(race.matches(summary, "Error: Race reported between ..."));
        let more = "RACECHECK SUMMARY: 5 hazards displayed (4 errors, 1 warning)";
        assert!(!race.matches(more, "Error: Race reported between ..."));
        assert!(!race.matches(summary, "Program hit CUDA_ERROR_INVALID_VALUE"));
    }

    #[test]
    fn the_expected_findings_parse() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples")
            .join(checker::cases::SANITIZER_EXPECTED);
        let found = read_expected_findings(&path).unwrap();
        assert!(
            found
                .iter()
                .any(|f| f.program == "grid_sync" && f.errors == 1)
        );
        assert!(
            found
                .iter()
                .all(|f| SANITIZER_TOOLS.contains(&f.tool.as_str()))
        );
    }
}
