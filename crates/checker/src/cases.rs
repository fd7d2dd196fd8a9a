//! Finding and reading expected-output files.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One expected-output file: the command it names and what it expects.
#[derive(Clone, Debug)]
pub struct Case {
    /// `ch01/amdahl`: the file's path under the examples crate, without `.txt` / `.gpu.txt`
    /// (`ch01/add_rayon.h200-host` for a host case).
    pub name: String,
    pub path: PathBuf,
    pub bin: String,
    pub args: Vec<String>,
    /// Settings of the environment the command line names before `cargo`
    /// (`$ COURSE_COMPUTE_CAPABILITY=99.0 cargo run ...`): every run of the case has them.
    pub env: Vec<(String, String)>,
    /// Everything after the command line.
    pub expected: String,
    pub gpu: bool,
    /// A CPU program recorded on the GPU machine's host (`*.h200-host.txt`, 16 cores) by the
    /// GPU check, to show what it does on a workstation. `cargo test` compares it with the
    /// recording of the same command beside it (`NAME.txt`), or with a run where there is
    /// none; `BLESS=1` leaves it alone.
    pub host: bool,
}

/// How the file of a case recorded on the GPU machine's host CPU ends.
pub const HOST_SUFFIX: &str = ".h200-host.txt";

impl Case {
    /// Read an expected-output file. An unknown command is an error, never a skip.
    pub fn read(path: &Path, root: &Path) -> Result<Case, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (command, expected) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        let protocol::CaseCommand { env, bin, args } = protocol::parse_case_command(command)
            .map_err(|why| format!("{}: {why}", path.display()))?;
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        let gpu = file.ends_with(".gpu.txt");
        let host = file.ends_with(HOST_SUFFIX);
        let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
        let name = rel
            .trim_end_matches(".txt")
            .trim_end_matches(".gpu")
            .to_string();
        Ok(Case {
            name,
            path: path.into(),
            bin,
            args,
            env,
            expected: expected.to_string(),
            gpu,
            host,
        })
    }

    /// The command line as the book shows it.
    pub fn command_line(&self) -> String {
        protocol::CaseCommand {
            env: self.env.clone(),
            bin: self.bin.clone(),
            args: self.args.clone(),
        }
        .line()
    }

    /// Run the program from `bin_dir` with the case's environment and `env` besides, and render
    /// what it printed in the layout of an expected-output file (without the command line).
    pub fn run(&self, bin_dir: &Path, env: &[(&str, &str)]) -> Result<Run, String> {
        let exe = bin_dir.join(&self.bin);
        let mut cmd = Command::new(&exe);
        cmd.args(&self.args);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        let code = out.status.code().unwrap_or(-1);
        let mut printed = String::from_utf8_lossy(&out.stdout).into_owned();
        printed.push_str(&String::from_utf8_lossy(&out.stderr));
        if code != 0 && code != crate::EXIT_NO_GPU {
            if !printed.is_empty() && !printed.ends_with('\n') {
                printed.push('\n');
            }
            printed.push_str(&format!("[exit status: {code}]\n"));
        }
        Ok(Run { code, printed })
    }

    /// Whether the program takes `--seed` (its `--help` says so).
    pub fn takes_seed(&self, bin_dir: &Path) -> bool {
        Command::new(bin_dir.join(&self.bin))
            .arg("--help")
            .output()
            .is_ok_and(|o| {
                o.status.success() && String::from_utf8_lossy(&o.stdout).contains("--seed")
            })
    }

    /// Run the program as [`Case::run`] does, on the inputs drawn from another seed.
    pub fn run_with_seed(&self, bin_dir: &Path, seed: u64) -> Result<Run, String> {
        let mut case = self.clone();
        case.args.extend(["--seed".to_string(), seed.to_string()]);
        case.run(bin_dir, &[])
    }

    /// For a program that takes `--seed`: run it on a fresh seed, where every verdict the book
    /// shows must hold again. `Ok(None)` for a program without random inputs, else the seed
    /// and how many verdicts held.
    pub fn check_fresh_seed(&self, bin_dir: &Path) -> Result<Option<(u64, usize)>, String> {
        if !self.takes_seed(bin_dir) {
            return Ok(None);
        }
        let seed = crate::fresh_seed();
        let run = self.run_with_seed(bin_dir, seed)?;
        let held = crate::compare_verdicts(&self.expected, &run.printed).map_err(|why| {
            format!(
                "with --seed {seed}: {why}\n--- the run printed ---\n{}",
                run.printed
            )
        })?;
        Ok(Some((seed, held)))
    }

    /// Replace the file's expected output with `printed` (the `BLESS=1` path).
    pub fn bless(&self, printed: &str) -> Result<(), String> {
        let text = format!("{}\n{printed}", self.command_line());
        std::fs::write(&self.path, text)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// What one run of a program printed.
pub struct Run {
    pub code: i32,
    pub printed: String,
}

impl Run {
    pub fn skipped_for_no_gpu(&self) -> bool {
        self.code == crate::EXIT_NO_GPU
    }
}

/// The list of `program tool` pairs that compute-sanitizer must flag (the deliberately racy
/// demos); it sits beside the cases but is not one.
pub const SANITIZER_EXPECTED: &str = "sanitizer-expected.txt";

/// Every expected-output file under `root` (recursively), sorted by path.
pub fn find_cases(root: &Path) -> Vec<PathBuf> {
    let mut found = protocol::files_under(root, "txt");
    found.retain(|path| !path.ends_with(SANITIZER_EXPECTED));
    found
}
