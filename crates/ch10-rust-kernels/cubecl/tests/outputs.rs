//! Every output of the chapter's CubeCL program: run it, compare with the recording.
//!
//! `outputs/NAME.wgpu.txt` is a run on wgpu, recorded on lavapipe (Mesa's Vulkan driver on the
//! CPU, what CI has); `outputs/NAME.gpu.txt` a run on CUDA, recorded on the GPU machine. Both
//! are compared by the course's rules (`checker`): results exactly or within the bound their line
//! states, timings, rates and lines marked `(this machine)` (the plane size, grids sized by the
//! SM count) masked and counted. Where there is no device for a case (no NVIDIA GPU; no Vulkan
//! driver) the program says so and exits 77, and the case is reported as skipped with that
//! sentence, never as passed. `BLESS=1` rewrites the wgpu cases from a fresh run.
//!
//! Each wgpu case runs again on a fresh seed, where every verdict must hold; each mutant
//! (`COURSE_MUTANT`, see `src/mutant.rs`) must turn a verdict of its case to `NO`; and the
//! program answers `--help` and refuses a bad argument with one sentence.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use checker::{Case, compare, compare_verdicts, find_cases};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use protocol::{EXIT_BAD_ARGUMENT, Missing};

const PROGRAM: &str = env!("CARGO_BIN_EXE_cubecl_kernels");

/// Each mutant and the cases that must catch it, on wgpu and on CUDA (whose default size of
/// the histogram has no tail).
const MUTANTS: [(&str, &str, &str); 2] = [
    ("reduce-half-plane", "reduce.wgpu", "reduce.gpu"),
    ("histogram-no-tail", "histogram.wgpu", "histogram-tail.gpu"),
];

/// Numbers the comparisons masked, over all cases.
static MASKED: AtomicUsize = AtomicUsize::new(0);

fn bin_dir() -> PathBuf {
    Path::new(PROGRAM).parent().expect("a folder").to_path_buf()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("outputs")
}

/// wgpu wants a runtime folder (it prints two errors without one): give the runs one.
fn environment() -> Vec<(&'static str, String)> {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return Vec::new();
    }
    let dir = std::env::temp_dir().join(format!("ch10-cubecl-xdg-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    }
    vec![("XDG_RUNTIME_DIR", dir.to_string_lossy().into_owned())]
}

/// Run `case` with `extra` settings; `Err(reason)` when the machine lacks its device. Under
/// `CI=true` a wgpu case without a device fails instead: CI installs lavapipe to run them
/// (`scripts/ch10-check`).
fn run_case(case: &Case, extra: &[(&str, &str)]) -> Result<Result<String, String>, Failed> {
    let env = environment();
    let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(extra);
    let run = case.run(&bin_dir(), &all)?;
    if let Some(missing) = run.skip() {
        let why = missing.skip(run.last_sentence())?;
        if !case.gpu && std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err(format!("CI=true requires a wgpu device (lavapipe), but {why}").into());
        }
        return Ok(Err(why));
    }
    Ok(Ok(run.printed))
}

/// `adder.wgpu`, `adder.gpu`: the file's name without `.txt`.
fn name_of(path: &Path) -> String {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    file.trim_end_matches(".txt").to_string()
}

fn output_trial(path: PathBuf, root: &Path) -> Trial {
    let case = match Case::read(&path, root) {
        Ok(case) => case,
        Err(e) => return Trial::test(format!("output::{}", path.display()), move || Err(e.into())),
    };
    Trial::ignorable_test(format!("output::{}", name_of(&path)), move || {
        if case.gpu && case.expected.trim().is_empty() {
            let why = format!(
                "{} holds only its command line; the GPU machine records it",
                case.name
            );
            return Ok(Completion::ignored_with(Missing::Recording.skip(&why)?));
        }
        let printed = match run_case(&case, &[])? {
            Ok(printed) => printed,
            Err(why) => return Ok(Completion::ignored_with(why)),
        };
        if std::env::var_os("BLESS").is_some() && !case.gpu {
            case.bless(&printed)?;
            return Ok(Completion::Completed);
        }
        let compared = compare(&case.expected, &printed).map_err(|why| {
            format!(
                "{} ({}): {why}\n--- the run printed ---\n{printed}",
                case.name,
                case.command_line()
            )
        })?;
        MASKED.fetch_add(compared.masked, Ordering::Relaxed);
        print!(
            "{} masked, {} within a bound: ",
            compared.masked, compared.within_bound
        );
        Ok(Completion::Completed)
    })
}

/// The wgpu case again on a fresh seed: every verdict it shows must hold.
fn fresh_seed_trial(path: PathBuf, root: &Path) -> Option<Trial> {
    let case = Case::read(&path, root).ok().filter(|c| !c.gpu)?;
    Some(Trial::ignorable_test(
        format!("fresh-seed::{}", name_of(&path)),
        move || {
            let seed = checker::fresh_seed();
            let mut fresh = case.clone();
            fresh.args.extend(["--seed".into(), seed.to_string()]);
            let printed = match run_case(&fresh, &[])? {
                Ok(printed) => printed,
                Err(why) => return Ok(Completion::ignored_with(why)),
            };
            let held = compare_verdicts(&case.expected, &printed)
                .map_err(|why| format!("with --seed {seed}: {why}\n{printed}"))?;
            print!("seed {seed}, verdicts held: {held}: ");
            Ok(Completion::Completed)
        },
    ))
}

/// A mutant must fail its case: a verdict of the run turns to `NO`.
fn mutant_trial(mutant: &'static str, case_name: &str, root: &Path) -> Trial {
    let path = root.join(format!("{case_name}.txt"));
    let root = root.to_path_buf();
    Trial::ignorable_test(format!("mutant::{mutant}::{case_name}"), move || {
        let case = Case::read(&path, &root)?;
        if case.expected.trim().is_empty() {
            let why = format!("{} is not recorded yet", case.name);
            return Ok(Completion::ignored_with(Missing::Recording.skip(&why)?));
        }
        let printed = match run_case(&case, &[("COURSE_MUTANT", mutant)])? {
            Ok(printed) => printed,
            Err(why) => return Ok(Completion::ignored_with(why)),
        };
        match compare_verdicts(&case.expected, &printed) {
            Err(caught) => {
                let run = caught.lines().nth(2).unwrap_or_default().trim().to_string();
                print!("caught, {run}: ");
                Ok(Completion::Completed)
            }
            Ok(_) => Err(format!(
                "COURSE_MUTANT={mutant} left every verdict of {} standing:\n{printed}",
                case.name
            )
            .into()),
        }
    })
}

/// `generated/sum_planes.cu.txt` is what `cubecl_kernels cuda-source` prints: CubeCL's CUDA C++
/// for `reduce`'s kernel, made without a GPU. `BLESS=1` rewrites it.
fn generated_source_trial() -> Trial {
    Trial::test("generated::sum_planes.cu.txt", || {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/sum_planes.cu.txt");
        let out = Command::new(PROGRAM).arg("cuda-source").output()?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
        }
        let fresh = String::from_utf8_lossy(&out.stdout).into_owned();
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&path, &fresh)?;
            return Ok(());
        }
        let kept = std::fs::read_to_string(&path)?;
        match kept == fresh {
            true => Ok(()),
            false => Err(format!(
                "{} differs from what `cubecl_kernels cuda-source` prints now:\n{fresh}",
                path.display()
            )
            .into()),
        }
    })
}

/// `--help` prints a usage; a bad argument gets one sentence and status 2, never a panic.
fn command_line_trials() -> Vec<Trial> {
    let help = Trial::test("command-line::help", || {
        let out = Command::new(PROGRAM).arg("--help").output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        match out.status.success() && text.starts_with("Usage: cubecl_kernels") {
            true => Ok(()),
            false => Err(format!("--help printed:\n{text}").into()),
        }
    });
    let refusals = [
        vec![],
        vec!["scan"],
        vec!["adder", "0"],
        vec!["adder", "--runtime", "hip"],
        vec!["tiles", "--fast"],
        vec!["reduce", "--seed", "x"],
        vec!["cuda-source", "4"],
    ];
    let bad = Trial::test("command-line::bad-arguments-get-one-sentence", move || {
        for words in &refusals {
            let out = Command::new(PROGRAM).args(words).output()?;
            let said = String::from_utf8_lossy(&out.stderr);
            let one_sentence = said.lines().count() == 1 && said.starts_with("Error: ");
            if out.status.code() != Some(EXIT_BAD_ARGUMENT) || !one_sentence {
                return Err(format!(
                    "`cubecl_kernels {}` exited with {:?} and said:\n{said}",
                    words.join(" "),
                    out.status.code()
                )
                .into());
            }
        }
        Ok(())
    });
    vec![help, bad]
}

fn main() {
    let mut args = Arguments::from_args();
    // The programs time themselves, and lavapipe uses every core: one at a time.
    args.test_threads.get_or_insert(1);
    let root = root();
    let mut trials: Vec<Trial> = find_cases(&root)
        .into_iter()
        .map(|p| output_trial(p, &root))
        .collect();
    trials.extend(
        find_cases(&root)
            .into_iter()
            .filter_map(|p| fresh_seed_trial(p, &root)),
    );
    for (mutant, on_wgpu, on_cuda) in MUTANTS {
        trials.push(mutant_trial(mutant, on_wgpu, &root));
        trials.push(mutant_trial(mutant, on_cuda, &root));
    }
    trials.push(generated_source_trial());
    trials.extend(command_line_trials());
    let conclusion = libtest_mimic::run(&args, trials);
    println!(
        "The output comparisons masked {} numbers (times, rates, and lines marked `(this machine)`); every other number was compared.",
        MASKED.load(Ordering::Relaxed)
    );
    protocol::report_skipped(conclusion.num_ignored, "output tests");
    conclusion.exit();
}
