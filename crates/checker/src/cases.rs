//! Finding and reading expected-output files.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use protocol::Missing;

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

    /// How long a run of this case may take, in seconds (see [`crate::limits`]).
    pub fn limit_s(&self) -> u64 {
        crate::limits::run_limit_s(&self.name)
    }

    /// Run the program from `bin_dir` with the case's environment and `env` besides, and render
    /// what it printed in the layout of an expected-output file (without the command line).
    /// A run still going after the case's limit ([`Case::limit_s`]) is stopped, and is an error
    /// that says so.
    pub fn run(&self, bin_dir: &Path, env: &[(&str, &str)]) -> Result<Run, String> {
        self.run_limited(bin_dir, env, self.limit_s())
    }

    /// [`Case::run`] with a limit of `limit` seconds.
    pub fn run_limited(
        &self,
        bin_dir: &Path,
        env: &[(&str, &str)],
        limit: u64,
    ) -> Result<Run, String> {
        let exe = bin_dir.join(&self.bin);
        let mut cmd = Command::new(&exe);
        cmd.args(&self.args);
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = output_within(&mut cmd, Duration::from_secs(limit))
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        let mut printed = String::from_utf8_lossy(&out.stdout).into_owned();
        printed.push_str(&String::from_utf8_lossy(&out.stderr));
        let Some(status) = out.status else {
            let mut why = format!("still running after {limit} s (the limit for this case)");
            if !printed.trim().is_empty() {
                why.push_str(&format!("; it had printed:\n{printed}"));
            }
            return Err(why);
        };
        let code = status.code().unwrap_or(-1);
        if code != 0 && code != crate::EXIT_NO_GPU {
            if !printed.is_empty() && !printed.ends_with('\n') {
                printed.push('\n');
            }
            printed.push_str(&format!("[exit status: {code}]\n"));
        }
        Ok(Run { code, printed })
    }

    /// The usage that the program's `--help` prints (`Usage: NAME ...`, status 0), run with the
    /// case's environment and limit; a failure to print it is an error that says how it failed.
    pub fn usage(&self, bin_dir: &Path) -> Result<String, String> {
        let exe = bin_dir.join(&self.bin);
        let mut cmd = Command::new(&exe);
        cmd.arg("--help");
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        let limit = self.limit_s();
        let help = format!("`{} --help`", self.bin);
        let out = output_within(&mut cmd, Duration::from_secs(limit))
            .map_err(|e| format!("{help} cannot run: {e}"))?;
        let usage = String::from_utf8_lossy(&out.stdout).into_owned();
        let said = || {
            let mut text = usage.clone();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            text
        };
        match out.status.map(|s| s.code()) {
            None => Err(format!(
                "{help} is still running after {limit} s (the limit for this case)"
            )),
            Some(Some(0)) if usage.starts_with(&format!("Usage: {}", self.bin)) => Ok(usage),
            Some(Some(0)) => Err(format!("{help} printed no usage:\n{}", said())),
            Some(code) => Err(format!(
                "{help} failed (exit status {}):\n{}",
                code.map_or("none: killed by a signal".into(), |c| c.to_string()),
                said()
            )),
        }
    }

    /// Whether the program takes `--seed` (its `--help` says so); a `--help` that fails is an
    /// error, never a program without a seed.
    pub fn takes_seed(&self, bin_dir: &Path) -> Result<bool, String> {
        Ok(self.usage(bin_dir)?.contains("--seed"))
    }

    /// Run the program as [`Case::run`] does, on the inputs drawn from another seed.
    pub fn run_with_seed(&self, bin_dir: &Path, seed: u64) -> Result<Run, String> {
        let mut case = self.clone();
        case.args.extend(["--seed".to_string(), seed.to_string()]);
        case.run(bin_dir, &[])
    }

    /// For a program that takes `--seed`: run it on a fresh seed, where every verdict the book
    /// shows must hold again. `Ok(None)` for a program without random inputs, else the seed
    /// and how many verdicts held. A `--help` that fails, or a run past the case's limit, is
    /// an error.
    pub fn check_fresh_seed(&self, bin_dir: &Path) -> Result<Option<(u64, usize)>, String> {
        if !self.takes_seed(bin_dir)? {
            return Ok(None);
        }
        let seed = crate::fresh_seed();
        let run = self
            .run_with_seed(bin_dir, seed)
            .map_err(|why| format!("with --seed {seed}: {why}"))?;
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
    /// What the program lacked, when its exit status is one of the skips
    /// ([`Missing::from_exit_status`]: no GPU, too little GPU memory, too few GPUs).
    pub fn skip(&self) -> Option<Missing> {
        Missing::from_exit_status(self.code)
    }

    /// The program's last line, without `Error: ` and the `[exit status: N]` line: the
    /// sentence of a program that stopped.
    pub fn last_sentence(&self) -> &str {
        let line = self
            .printed
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with("[exit status: "))
            .unwrap_or_default();
        line.trim().trim_start_matches("Error: ")
    }
}

impl Case {
    /// What this run of the case lacked, when it stopped with one of the skips' exit statuses,
    /// unless the case's recording ends with that very status (a case that shows the refusal,
    /// such as a card pretended small).
    pub fn skip(&self, run: &Run) -> Option<Missing> {
        let shown = format!("[exit status: {}]", run.code);
        run.skip()
            .filter(|_| self.expected.trim_end().lines().last() != Some(shown.as_str()))
    }
}

/// The processes below `pid` (its children, theirs, ...), as Linux's `/proc` lists them; none
/// where there is no `/proc`.
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `PID (NAME) STATE PPID ...`: the name may hold spaces and parentheses.
            let after_name = &stat[stat.rfind(')')? + 1..];
            let ppid = after_name.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|&&(_, pp)| pp == parent)
                .map(|&(p, _)| p),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// What a run that had a time limit printed, and its exit status (`None`: still running at the
/// limit, and stopped).
pub struct Limited {
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// `cmd.spawn()`, tried again while the program is "text file busy" (ETXTBSY): a file just
/// written (the tests' own scripts) stays busy while another thread's fork still holds it open.
fn spawn(cmd: &mut Command) -> std::io::Result<std::process::Child> {
    const ETXTBSY: i32 = 26;
    for _ in 0..50 {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => return other,
        }
    }
    cmd.spawn()
}

/// Run `cmd` as [`Command::output`] does (standard input empty, both outputs captured), but stop
/// it with SIGKILL when it is still running after `limit`: a hung kernel fails its case, and
/// the check goes on.
pub fn output_within(cmd: &mut Command, limit: Duration) -> std::io::Result<Limited> {
    let deadline = Instant::now() + limit;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn(cmd)?;
    fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = tx.send(bytes);
        });
        rx
    }
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let left = || deadline.saturating_duration_since(Instant::now());
    // The pipes close when the program ends: no polling while it runs.
    let stdout_done = stdout.recv_timeout(left());
    let stderr_done = stderr.recv_timeout(left());
    if let (Ok(stdout), Ok(stderr)) = (&stdout_done, &stderr_done) {
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(Limited {
                    status: Some(status),
                    stdout: stdout.clone(),
                    stderr: stderr.clone(),
                });
            }
            if left().is_zero() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5).min(left()));
        }
    }
    // The processes it started too (the CUB reference), or they would go on with its pipes.
    let started = descendants(child.id());
    let _ = child.kill();
    if !started.is_empty() {
        let _ = Command::new("kill")
            .arg("-KILL")
            .args(started.iter().map(u32::to_string))
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.wait();
    // What it printed before it was stopped (a process that escaped may hold a pipe open: wait
    // for that a moment only).
    let grace = Duration::from_secs(2);
    Ok(Limited {
        status: None,
        stdout: stdout_done
            .or_else(|_| stdout.recv_timeout(grace))
            .unwrap_or_default(),
        stderr: stderr_done
            .or_else(|_| stderr.recv_timeout(grace))
            .unwrap_or_default(),
    })
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A folder holding one program, `prog`, a shell script with `body`.
    fn program(body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!(
            "checker-cases-{}-{}",
            std::process::id(),
            crate::fresh_seed()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("prog");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        dir
    }

    fn case(expected: &str) -> Case {
        Case {
            name: "ch99/prog".into(),
            path: "ch99/prog.gpu.txt".into(),
            bin: "prog".into(),
            args: Vec::new(),
            env: Vec::new(),
            expected: expected.into(),
            gpu: true,
            host: false,
        }
    }

    #[test]
    fn a_run_past_its_limit_is_stopped_and_fails_its_case() {
        let dir = program("echo started; sleep 30");
        let start = Instant::now();
        let why = case("").run_limited(&dir, &[], 1).err().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        assert!(
            why.starts_with("still running after 1 s (the limit for this case)"),
            "{why}"
        );
        assert!(why.contains("started"), "{why}");
    }

    #[test]
    fn a_run_within_its_limit_gives_what_it_printed_and_its_status() {
        let dir = program("echo out; echo 'Error: no.' >&2; exit 3");
        let run = case("").run_limited(&dir, &[], 60).unwrap();
        assert_eq!(run.code, 3);
        assert_eq!(run.printed, "out\nError: no.\n[exit status: 3]\n");
        assert_eq!(run.last_sentence(), "no.");
        assert_eq!(run.skip(), None);
    }

    #[test]
    fn a_failing_help_fails_the_fresh_seed_check() {
        let fails = program("exit 1");
        let why = case("").check_fresh_seed(&fails).unwrap_err();
        assert!(
            why.starts_with("`prog --help` failed (exit status 1)"),
            "{why}"
        );
        let no_usage = program("echo hello");
        let why = case("").check_fresh_seed(&no_usage).unwrap_err();
        assert!(why.starts_with("`prog --help` printed no usage"), "{why}");
        let no_seed = program("echo 'Usage: prog [N]'");
        assert_eq!(case("").check_fresh_seed(&no_seed), Ok(None));
    }

    #[test]
    fn skips_are_named_unless_the_case_shows_that_status() {
        let run = |code| Run {
            code,
            printed: "Error: too little GPU memory: x needs 4 GiB.\n".into(),
        };
        assert_eq!(
            case("a\n").skip(&run(protocol::EXIT_NO_GPU)),
            Some(Missing::Gpu)
        );
        assert_eq!(
            case("a\n").skip(&run(protocol::EXIT_TOO_LITTLE_MEMORY)),
            Some(Missing::GpuMemory)
        );
        let shown = case("Error: too little GPU memory: x needs 4 GiB.\n[exit status: 78]\n");
        assert_eq!(shown.skip(&run(protocol::EXIT_TOO_LITTLE_MEMORY)), None);
        assert_eq!(shown.skip(&run(protocol::EXIT_NO_GPU)), Some(Missing::Gpu));
        assert_eq!(case("a\n").skip(&run(1)), None);
    }
}
