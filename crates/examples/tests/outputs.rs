//! Every program output that the book shows: run the program, compare with the book.
//!
//! Each `*.txt` beside a program is a case (see the `checker` crate for the format and for what
//! the comparison ignores). GPU programs on a machine without a GPU are reported as ignored,
//! with the reason, and counted in the summary; they are never reported as passed. So is a
//! GPU program whose problem needs more memory than the GPU has free (`too little GPU
//! memory: ...`, exit status 78) and a run that asks for more GPUs than there are.
//! `BLESS=1 cargo test -p course --test outputs` rewrites the CPU cases from a fresh run.
//!
//! Each CPU program that takes `--seed` is run a second time on a fresh seed, and every verdict
//! the book shows must hold again. Every program answers `--help` with a usage and refuses an
//! unknown option with one sentence.
//!
//! The figures in `src/` are checked the same way: each SVG's first line names the program
//! that draws it, which is run, and its drawing must equal the committed file.

use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicUsize, Ordering};

use checker::{Case, compare, find_cases};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use protocol::Missing;

/// Programs whose output counts something over the whole course.
const COURSE_WIDE: [&str; 1] = ["unsafe_count"];

/// Programs of the book that are crates of their own, with the package of each. `cargo test -p
/// course` builds only this crate's programs, so their case builds them first.
const OWN_CRATES: [(&str, &str); 1] = [("cudarc_alone", "cudarc-alone")];

/// Build the program `bin` of another package into this test's target folder, when cargo runs
/// this test (a test binary run alone, as on the GPU machine, uses what is there). Nothing
/// happens for the course's own programs.
fn build_own_crate(bin: &str) -> Result<(), String> {
    let Some((_, package)) = OWN_CRATES.iter().find(|(b, _)| *b == bin) else {
        return Ok(());
    };
    let Ok(cargo) = std::env::var("CARGO") else {
        return Ok(());
    };
    let release = bin_dir().file_name().is_some_and(|d| d == "release");
    let mut cmd = std::process::Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", package, "--bin", bin]);
    if release {
        cmd.arg("--release");
    }
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "`cargo build -p {package} --bin {bin}` failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

fn bin_dir() -> PathBuf {
    // This test runs from target/<profile>/deps; cargo builds the programs one folder up.
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf()
}

/// Numbers the output comparisons masked, over all cases.
static MASKED: AtomicUsize = AtomicUsize::new(0);
/// Lines accepted as not known (no floor known for this GPU), over all cases.
static NOT_KNOWN: AtomicUsize = AtomicUsize::new(0);

fn output_trial(path: PathBuf, root: &Path) -> Trial {
    let case = match Case::read(&path, root) {
        Ok(case) => case,
        Err(e) => {
            let name = format!("output::{}", path.display());
            return Trial::test(name, move || Err(e.into()));
        }
    };
    Trial::ignorable_test(format!("output::{}", case.name), move || {
        // A count over every chapter cannot match its recording in a chapter forked alone (a
        // fork has no mutations/).
        let fork = !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../mutations")
            .is_dir();
        if fork && COURSE_WIDE.contains(&case.bin.as_str()) {
            let why = format!(
                "{} counts over every chapter, and this is a fork of one",
                case.bin
            );
            return Ok(Completion::ignored_with(Missing::WholeCourse.skip(&why)?));
        }
        // A GPU or host case whose file holds only its command line (an edge size, say) waits
        // for the GPU check to record it: skipped, never passed.
        if (case.gpu || case.host) && case.expected.trim().is_empty() {
            let why = format!(
                "{} holds only its command line; the GPU check records it",
                case.name
            );
            return Ok(Completion::ignored_with(Missing::Recording.skip(&why)?));
        }
        // A host recording beside a CPU case of the same command is compared with that case's
        // recording, which the CPU case's own trial compares with a fresh run: running the
        // program a second time here would check nothing more.
        if let Some(sibling) = host_sibling(&case, root_for_siblings()) {
            let compared = compare(&case.expected, &sibling.expected).map_err(|why| {
                format!(
                    "{} against {} (the same command, recorded on this kind of machine): {why}",
                    case.name, sibling.name
                )
            })?;
            MASKED.fetch_add(compared.masked, Ordering::Relaxed);
            print!("{} masked, against {}: ", compared.masked, sibling.name);
            return Ok(Completion::Completed);
        }
        build_own_crate(&case.bin)?;
        let run = case.run(&bin_dir(), &[])?;
        // No GPU (77), too little GPU memory (78), too few GPUs (79): a skip with its name,
        // unless the case's recording shows that very refusal.
        if let Some(missing) = case.skip(&run) {
            if !case.gpu {
                return Err(format!(
                    "{} is not a GPU case but its program asked for a GPU ({})",
                    case.name,
                    missing.label()
                )
                .into());
            }
            // The program's last line says why (`Error: this program needs an NVIDIA GPU, ...`).
            let why = missing.skip(run.last_sentence())?;
            return Ok(Completion::ignored_with(why));
        }
        if std::env::var_os("BLESS").is_some() && !case.gpu && !case.host {
            case.bless(&run.printed)?;
            return Ok(Completion::Completed);
        }
        let compared = compare(&case.expected, &run.printed).map_err(|why| {
            Failed::from(format!(
                "{} ({}): {why}\n--- the run printed ---\n{}",
                case.name,
                case.command_line(),
                run.printed
            ))
        })?;
        MASKED.fetch_add(compared.masked, Ordering::Relaxed);
        NOT_KNOWN.fetch_add(compared.not_known, Ordering::Relaxed);
        // One test at a time, so this lands on the test's own line, before its `ok`.
        print!(
            "{} masked, {} within a bound{}: ",
            compared.masked,
            compared.within_bound,
            not_known_note(compared.not_known)
        );
        Ok(Completion::Completed)
    })
}

/// `, N not known (no floor for this GPU)` when a comparison accepted such lines, else nothing.
fn not_known_note(lines: usize) -> String {
    match lines {
        0 => String::new(),
        n => format!(", {n} not known (no floor for this GPU)"),
    }
}

/// A case recorded with the floors pretending a GPU that their table lacks
/// (`NAME-unknown-gpu.gpu.txt`, whose command sets `COURSE_COMPUTE_CAPABILITY`) must pass
/// against the book's recording of `NAME.gpu.txt` by the checker's rules, with its floor lines
/// counted as not known: what a learner's GPU prints where no floor is known is accepted, but
/// never as a pass. Until the GPU check has recorded it, the file holds only its command line,
/// and the trial is skipped, not passed.
fn unknown_gpu_trial(path: PathBuf, root: &Path) -> Option<Trial> {
    let case = Case::read(&path, root).ok().filter(|c| c.gpu)?;
    let book_name = case.name.strip_suffix("-unknown-gpu")?.to_string();
    let book_path = root.join(format!("{book_name}.gpu.txt"));
    let root = root.to_path_buf();
    Some(Trial::ignorable_test(
        format!("unknown-gpu::{}", case.name),
        move || {
            if case.expected.trim().is_empty() {
                let why = format!(
                    "{} holds only its command line; the GPU check records it",
                    case.name
                );
                return Ok(Completion::ignored_with(Missing::Recording.skip(&why)?));
            }
            let book = Case::read(&book_path, &root)?;
            let compared = compare(&book.expected, &case.expected)
                .map_err(|why| format!("{} against {book_name}: {why}", case.name))?;
            let said = case
                .expected
                .lines()
                .filter(|l| l.contains(checker::compare::NO_FLOOR))
                .count();
            if said == 0 || compared.not_known < said {
                return Err(format!(
                    "{}: {said} lines say `{}`, and {} were counted as not known; \
                     the recording must be of a GPU without a floor",
                    case.name,
                    checker::compare::NO_FLOOR,
                    compared.not_known
                )
                .into());
            }
            print!("{} not known: ", compared.not_known);
            Ok(Completion::Completed)
        },
    ))
}

/// The same program on a fresh seed: the book's verdicts must hold on any input.
fn fresh_seed_trial(path: PathBuf, root: &Path) -> Option<Trial> {
    // A host case's fresh seed is its CPU sibling's (the same command), when it has one.
    let case = Case::read(&path, root)
        .ok()
        .filter(|c| !c.gpu && host_sibling(c, root).is_none())?;
    Some(Trial::test(
        format!("fresh-seed::{}", case.name),
        move || {
            case.check_fresh_seed(&bin_dir())
                .map_err(|why| format!("{} {why}", case.name))?;
            Ok(())
        },
    ))
}

/// The examples crate, where the cases are.
fn root_for_siblings() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// For a host case (`NAME.h200-host.txt`), the CPU case `NAME.txt` with the same command.
fn host_sibling(case: &Case, root: &Path) -> Option<Case> {
    if !case.host {
        return None;
    }
    let file = case.path.file_name()?.to_string_lossy().into_owned();
    let stem = file.strip_suffix(checker::cases::HOST_SUFFIX)?;
    let sibling = Case::read(&case.path.with_file_name(format!("{stem}.txt")), root).ok()?;
    (sibling.command_line() == case.command_line()).then_some(sibling)
}

/// `--help` prints a usage and exits 0; an unknown option gets one sentence and status 2.
fn command_line_trial(bin: String) -> Trial {
    Trial::test(format!("command-line::{bin}"), move || {
        let exe = bin_dir().join(&bin);
        let help = std::process::Command::new(&exe)
            .arg("--help")
            .output()
            .map_err(|e| format!("cannot run {bin}: {e}"))?;
        let usage = String::from_utf8_lossy(&help.stdout);
        if !help.status.success() || !usage.starts_with(&format!("Usage: {bin}")) {
            return Err(format!("`{bin} --help` printed no usage:\n{usage}").into());
        }
        let bad = std::process::Command::new(&exe)
            .arg("--no-such-option")
            .output()
            .map_err(|e| format!("cannot run {bin}: {e}"))?;
        let said = String::from_utf8_lossy(&bad.stderr);
        if bad.status.code() != Some(2) || said.lines().count() != 1 || !said.starts_with("Error: ")
        {
            return Err(format!(
                "`{bin} --no-such-option` should exit 2 with one sentence, got {:?}:\n{said}",
                bad.status.code()
            )
            .into());
        }
        Ok(())
    })
}

/// Every program of the book: the `chNN/*.rs` files, which must all be binaries.
fn programs(root: &Path) -> Result<Vec<String>, String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    let mut found = Vec::new();
    for dir in std::fs::read_dir(root)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let name = dir.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("ch") && dir.path().is_dir()) {
            continue;
        }
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let file = file.file_name().to_string_lossy().into_owned();
            if let Some(stem) = file.strip_suffix(".rs") {
                // A chapter's figures are drawn by one program, chNN/figures.rs, named
                // figures_chNN so that the chapters' programs do not share one name.
                let stem = if stem == "figures" {
                    format!("figures_{name}")
                } else {
                    stem.to_string()
                };
                let entry = format!("name = \"{stem}\"\npath = \"{name}/{file}\"");
                if !manifest.contains(&entry) {
                    return Err(format!(
                        "{name}/{file} has no [[bin]] entry `{entry}` in crates/examples/Cargo.toml"
                    ));
                }
                found.push(stem);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// `<!-- drawn by `amdahl svg` -->` on the first line of a figure (no `--` inside: XML forbids it
/// in a comment).
fn figure_trial(svg: PathBuf) -> Trial {
    let name = format!(
        "figure::{}",
        svg.file_name().unwrap_or_default().to_string_lossy()
    );
    Trial::test(name, move || {
        let text = std::fs::read_to_string(&svg).map_err(|e| format!("{}: {e}", svg.display()))?;
        let first = text.lines().next().unwrap_or_default();
        let command = first
            .split('`')
            .nth(1)
            .ok_or_else(|| format!("{}: the first line must name the program: <!-- drawn by `NAME ARGS` --> (ARGS without `--`)", svg.display()))?;
        let mut words = command.split_whitespace();
        let bin = words.next().unwrap_or_default();
        let out = std::process::Command::new(bin_dir().join(bin))
            .args(words)
            .output()
            .map_err(|e| format!("cannot run {bin}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`{command}` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        let drawn = String::from_utf8_lossy(&out.stdout);
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&svg, drawn.as_bytes()).map_err(|e| e.to_string())?;
        } else if drawn != text {
            return Err(format!(
                "{} is not what `{command}` draws now; rerun with BLESS=1",
                svg.display()
            )
            .into());
        }
        Ok(())
    })
}

/// A PNG figure says what drew it in its note (`course::png`). `drawn by `NAME ARGS``: a CPU
/// program that prints it, run again and compared byte for byte. `written by `NAME ARGS``: a GPU
/// program's picture, which the GPU check brings back; it cannot be redrawn here, so the trial
/// is reported as ignored, and only if NAME is a GPU program (one with a `.gpu.txt` case).
fn png_trial(png: PathBuf, root: &Path) -> Trial {
    let name = format!(
        "figure::{}",
        png.file_name().unwrap_or_default().to_string_lossy()
    );
    let gpu_bins: Vec<String> = find_cases(root)
        .iter()
        .filter_map(|path| Case::read(path, root).ok())
        .filter(|case| case.gpu)
        .map(|case| case.bin)
        .collect();
    Trial::ignorable_test(name, move || {
        let file = std::fs::read(&png).map_err(|e| format!("{}: {e}", png.display()))?;
        let note = course::png::note(&file).unwrap_or_default();
        let quoted = |prefix: &str| note.strip_prefix(prefix)?.strip_suffix('`');
        if let Some(command) = quoted("written by `") {
            let bin = command.split_whitespace().next().unwrap_or_default();
            if !gpu_bins.iter().any(|b| b == bin) {
                let why = "is no GPU program: it must print its picture, `drawn by ...`";
                return Err(format!("{}: `{bin}` {why}", png.display()).into());
            }
            let why = format!("drawn by the GPU program `{command}`, which the GPU check runs");
            return Ok(Completion::ignored_with(Missing::GpuCheck.skip(&why)?));
        }
        let command = quoted("drawn by `").ok_or_else(|| {
            format!(
                "{}: its note must say `drawn by `NAME ARGS`` (course::png::encode)",
                png.display()
            )
        })?;
        let mut words = command.split_whitespace();
        let bin = words.next().unwrap_or_default();
        let out = std::process::Command::new(bin_dir().join(bin))
            .args(words)
            .output()
            .map_err(|e| format!("cannot run {bin}: {e}"))?;
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr);
            return Err(format!("`{command}` failed: {why}").into());
        }
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&png, &out.stdout).map_err(|e| e.to_string())?;
        } else if out.stdout != file {
            return Err(format!(
                "{} is not what `{command}` draws now; rerun with BLESS=1",
                png.display()
            )
            .into());
        }
        Ok(Completion::Completed)
    })
}

/// A kernel mutation of `mutations/gpu/` (run on the GPU by `gpu-check --mutations`) names a GPU
/// case of this crate and a line of its recorded output that the mutant must fail: both must
/// exist, so that a case recorded again cannot leave the mutant aiming at nothing.
fn gpu_mutant_trial(patch: PathBuf, root: &Path) -> Trial {
    let name = patch
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let root = root.to_path_buf();
    Trial::ignorable_test(format!("gpu-mutant::{name}"), move || {
        let text = std::fs::read_to_string(&patch).map_err(|e| e.to_string())?;
        let m = checker::mutants::parse(&name, &text, Path::new(""))?;
        let case = find_cases(&root)
            .iter()
            .filter_map(|p| Case::read(p, &root).ok())
            .find(|c| c.name == m.case && c.gpu)
            .ok_or_else(|| format!("{name}: no GPU case `{}`", m.case))?;
        if case.expected.trim().is_empty() {
            let why = format!(
                "{name} aims at {}, which holds only its command line",
                m.case
            );
            return Ok(Completion::ignored_with(Missing::Recording.skip(&why)?));
        }
        if !case.expected.lines().any(|l| l.contains(&m.expect)) {
            return Err(format!("{name}: no line of {} holds `{}`", m.case, m.expect).into());
        }
        Ok(Completion::Completed)
    })
}

fn main() {
    let mut args = Arguments::from_args();
    // Many programs time themselves: running them side by side would time the contention.
    args.test_threads.get_or_insert(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut trials: Vec<Trial> = find_cases(root)
        .into_iter()
        .map(|p| output_trial(p, root))
        .collect();
    let paths = find_cases(root);
    trials.extend(paths.into_iter().filter_map(|p| fresh_seed_trial(p, root)));
    let paths = find_cases(root);
    trials.extend(paths.into_iter().filter_map(|p| unknown_gpu_trial(p, root)));
    match programs(root) {
        Ok(bins) => trials.extend(bins.into_iter().map(command_line_trial)),
        Err(e) => trials.push(Trial::test(
            "command-line::every-program-is-a-binary",
            move || Err(e.into()),
        )),
    }
    let figures = protocol::files_under(&root.join("../../src"), "svg");
    trials.extend(figures.into_iter().map(figure_trial));
    let mutants = protocol::files_under(&root.join("../../mutations/gpu"), "patch");
    trials.extend(mutants.into_iter().map(|p| gpu_mutant_trial(p, root)));
    let pictures = protocol::files_under(&root.join("../../src"), "png");
    trials.extend(pictures.into_iter().map(|png| png_trial(png, root)));
    let conclusion = libtest_mimic::run(&args, trials);
    println!(
        "The output comparisons masked {} numbers (times, rates, and lines marked `(varies)` or `(this machine)`); every other number was compared.",
        MASKED.load(Ordering::Relaxed)
    );
    let not_known = NOT_KNOWN.load(Ordering::Relaxed);
    if not_known > 0 {
        println!(
            "{not_known} lines were accepted as not known, not passed: this GPU has no floor in course::floor's table."
        );
    }
    protocol::report_skipped(conclusion.num_ignored, "output tests");
    conclusion.exit();
}
