//! What the book's programs (the `course` crate) and the checker (`checker`, `gpu-check`) agree
//! on, in one place, so that neither side spells it alone; and the two helpers every side needs
//! (finding files under a folder, reading back a printed time).
//!
//! | exit status | meaning |
//! | ---: | --- |
//! | 0 | the program ran (its verdict lines say whether its results are right) |
//! | [`EXIT_CUDA_FAILED`] = 1 | a CUDA call failed; the message names it |
//! | [`EXIT_BAD_ARGUMENT`] = 2 | a bad argument; one sentence says which |
//! | [`EXIT_NO_GPU`] = 77 | the program needs a GPU and this machine has none (no libcuda, or a driver that sees no device): the tests count it as skipped, the GPU check as failed |
//! | [`EXIT_TOO_LITTLE_MEMORY`] = 78 | the GPU has too little free memory for the problem's size: a skip with its name, in the tests and the GPU check |
//! | [`EXIT_TOO_FEW_GPUS`] = 79 | the run asks for more GPUs than the machine has: a skip with its name, in the tests and the GPU check |
//! | [`EXIT_NO_CLUSTERS`] = 80 | the GPU cannot launch thread-block clusters (compute capability below 9.0): a skip with its name, in the tests and the GPU check |
//! | [`EXIT_OLDER_GPU`] = 81 | the program needs a newer GPU (a higher compute capability, such as 8.0 for bfloat16 tensor cores): a skip with its name, in the tests and the GPU check |
//! | [`EXIT_NOT_HOPPER`] = 82 | the program's kernels use Hopper's own instructions (`sm_90a`: wgmma, `setmaxnreg`), which run on compute capability 9.0 alone, newer GPUs included: a skip with its name, in the tests and the GPU check |
//!
//! Any other failure to open a GPU (a driver too old, a device busy in exclusive-process mode)
//! is [`EXIT_CUDA_FAILED`], never a skip. [`Missing::from_exit_status`] names the skips.

pub mod remote;

/// Exit status of a program whose CUDA call failed.
pub const EXIT_CUDA_FAILED: i32 = 1;
/// Exit status of a program given a bad argument.
pub const EXIT_BAD_ARGUMENT: i32 = 2;
/// Exit status of a program that needs a GPU on a machine that has none: no NVIDIA driver
/// (libcuda), or one that finds no device (`CUDA_ERROR_NO_DEVICE`). The automake convention for
/// a skipped test; the GPU check, which runs only where there is a GPU, counts it as failed.
pub const EXIT_NO_GPU: i32 = 77;
/// Exit status of a program whose problem needs more GPU memory than the GPU has free
/// (`course::gpu::ensure_memory`): a skip with its name, `too little GPU memory`.
pub const EXIT_TOO_LITTLE_MEMORY: i32 = 78;
/// Exit status of a run that asks for more GPUs than the machine has: a skip with its name,
/// `too few GPUs`.
pub const EXIT_TOO_FEW_GPUS: i32 = 79;
/// Exit status of a program that needs thread-block clusters on a GPU without them (compute
/// capability below 9.0): a skip with its name, `no clusters`. A GPU of 9.0 or newer that
/// refuses clusters is a failure instead ([`EXIT_CUDA_FAILED`]).
pub const EXIT_NO_CLUSTERS: i32 = 80;
/// Exit status of a program that needs a GPU of a higher compute capability than this one's
/// (bfloat16 tensor cores need 8.0): a skip with its name, `too old a GPU`.
pub const EXIT_OLDER_GPU: i32 = 81;
/// Exit status of a program whose kernels are built for `sm_90a` (wgmma, `setmaxnreg`), on a
/// GPU whose compute capability is not 9.0: a skip with its name, `not a Hopper GPU`.
pub const EXIT_NOT_HOPPER: i32 = 82;

/// Set (to a file's path) by the GPU check: programs append a [`Metric`] line for each timed
/// measurement with a rate.
pub const METRICS_VAR: &str = "COURSE_METRICS";
/// Set by the GPU check's `--sanitize` runs: timing helpers run the work once, and programs may
/// shrink problems whose size is not what their kernels test.
pub const SANITIZE_VAR: &str = "COURSE_SANITIZE";

/// Set (to a directory) by the GPU check: a program that draws a picture of its GPU result,
/// such as chapter 7's image, writes it there, so the run brings it back beside the outputs.
pub const FIGURES_VAR: &str = "COURSE_FIGURES";

/// Set (to a directory) by the GPU check's `--mutations` runs, or by a learner: a kernel file
/// found there is compiled instead of the copy embedded in the program (`course::kernel`).
pub const KERNELS_VAR: &str = "COURSE_KERNELS";

/// Set (to `MAJOR.MINOR`) by a case or a learner: the floors of `course::floor` are looked up
/// for that compute capability instead of the device's (`99.0`: a GPU their table lacks).
pub const COMPUTE_CAPABILITY_VAR: &str = "COURSE_COMPUTE_CAPABILITY";

/// Set (to a number of GiB, such as `1` or `0.5`) by a case or a learner: the GPU's free memory
/// counts as at most that much (`course::gpu::ensure_memory`), to show what a program does on
/// a smaller card.
pub const PRETEND_GPU_MEMORY_VAR: &str = "COURSE_PRETEND_GPU_MEMORY_GIB";

/// What a floor line says, after its label and `: `, on a GPU that `course::floor`'s table does
/// not list; the checker accepts such a line as not known (`checker::compare::not_known`).
pub const NO_FLOOR: &str = "no floor known for this GPU";

/// What a line about CUB says, after its label and `: `, where the program found no
/// `cub_reference` beside it (`course::cub`); the checker accepts such a line as not known too.
pub const NO_REFERENCE: &str = "no CUB reference beside this program";

/// The first line of an expected-output file starts with this, then `NAME [-- ARGS]`; settings
/// of the environment, `NAME=VALUE` words, may come between the `$ ` and `cargo`.
pub const COMMAND_PREFIX: &str = "$ cargo run --release --bin ";

/// An expected-output file's command line, read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaseCommand {
    /// The environment the program runs with, in the line's order:
    /// `$ COURSE_COMPUTE_CAPABILITY=99.0 cargo run ...` sets one variable.
    pub env: Vec<(String, String)>,
    pub bin: String,
    pub args: Vec<String>,
}

impl CaseCommand {
    /// The line as the book shows it: `$ [NAME=VALUE ...] cargo run --release --bin BIN [-- ARGS]`.
    pub fn line(&self) -> String {
        let env: String = self
            .env
            .iter()
            .map(|(name, value)| format!("{name}={value} "))
            .collect();
        let mut line = format!("$ {env}{}{}", &COMMAND_PREFIX[2..], self.bin);
        if !self.args.is_empty() {
            line.push_str(" -- ");
            line.push_str(&self.args.join(" "));
        }
        line
    }
}

/// An expected-output file's command line: `$ [NAME=VALUE ...] cargo run --release --bin BIN
/// [-- ARGS]`. NAME is a variable's name (letters, digits and `_`, not starting with a digit)
/// and VALUE holds no space.
pub fn parse_case_command(line: &str) -> Result<CaseCommand, String> {
    let wrong = || format!("the first line must be `{COMMAND_PREFIX}NAME [-- ARGS]`, not `{line}`");
    let mut rest = line.strip_prefix("$ ").ok_or_else(wrong)?;
    let mut env = Vec::new();
    while !rest.starts_with("cargo ") {
        let (word, after) = rest.split_once(' ').ok_or_else(wrong)?;
        let (name, value) = word.split_once('=').ok_or_else(wrong)?;
        let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name {
            return Err(format!("`{word}` in `{line}` is not a setting NAME=VALUE"));
        }
        env.push((name.to_string(), value.to_string()));
        rest = after.trim_start();
    }
    let rest = rest.strip_prefix(&COMMAND_PREFIX[2..]).ok_or_else(wrong)?;
    let mut words = rest.split_whitespace();
    let bin = words.next().unwrap_or_default().to_string();
    let args = match words.next() {
        None => Vec::new(),
        Some("--") => words.map(String::from).collect(),
        Some(other) => return Err(format!("unknown word `{other}` in the command")),
    };
    Ok(CaseCommand { env, bin, args })
}

/// The program and arguments of an expected-output file's command line (the settings of the
/// environment it may name are in [`parse_case_command`]'s answer).
pub fn parse_command(line: &str) -> Result<(String, Vec<String>), String> {
    parse_case_command(line).map(|c| (c.bin, c.args))
}

/// Every file under `root` (in every folder below it) whose name ends in `.extension`, sorted:
/// how the checker finds expected outputs and the tests find figures and built pages. A folder
/// that cannot be read is skipped.
pub fn files_under(root: &std::path::Path, extension: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The units of time the programs print (`course::timing::fmt_ms`), `us` as well as `µs`, and
/// how many milliseconds each is.
pub const TIME_UNITS: [(&str, f64); 5] = [
    ("ns", 1e-6),
    ("µs", 1e-3),
    ("us", 1e-3),
    ("ms", 1.0),
    ("s", 1e3),
];

/// A time printed as a number and a unit, such as `4.31` `µs`, in milliseconds.
pub fn parse_duration_ms(value: &str, unit: &str) -> Option<f64> {
    let (_, ms) = TIME_UNITS.iter().find(|(name, _)| *name == unit)?;
    Some(value.parse::<f64>().ok()? * ms)
}

/// What a timed piece of work did, so that the results table can give a rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// Bytes read plus bytes written in device memory.
    Bytes(f64),
    /// Floating-point operations (FP32 unless the label says otherwise).
    Flops(f64),
}

/// One measurement, as a program reports it to the GPU check: one tab-separated line.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub program: String,
    /// Names the measurement within the program, e.g. `adder n=1e8`.
    pub label: String,
    pub median_ms: f64,
    pub work: Work,
}

impl Metric {
    /// The line, newline included.
    pub fn line(&self) -> String {
        let (kind, amount) = match self.work {
            Work::Bytes(b) => ("bytes", b),
            Work::Flops(f) => ("flops", f),
        };
        format!(
            "{}\t{}\t{}\t{kind}\t{amount}\n",
            self.program, self.label, self.median_ms
        )
    }

    /// Reads a line that [`Metric::line`] wrote.
    pub fn parse(line: &str) -> Result<Metric, String> {
        let bad = || format!("`{line}` is not a metrics line");
        let fields: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
        let [program, label, ms, kind, amount] = fields[..] else {
            return Err(bad());
        };
        let amount: f64 = amount.parse().map_err(|_| bad())?;
        let work = match kind {
            "bytes" => Work::Bytes(amount),
            "flops" => Work::Flops(amount),
            _ => return Err(bad()),
        };
        Ok(Metric {
            program: program.into(),
            label: label.into(),
            median_ms: ms.parse().map_err(|_| bad())?,
            work,
        })
    }

    /// Bytes or operations per second.
    pub fn rate(&self) -> f64 {
        let amount = match self.work {
            Work::Bytes(b) | Work::Flops(b) => b,
        };
        amount / (self.median_ms * 1e-3)
    }
}

/// What a test was skipped for want of. A skipped test's reason starts with its [`label`]
/// (`ignored (no NVRTC: ...)`), so that `scripts/skip-summary` can total the skips of a whole
/// `cargo test` by reason.
///
/// [`label`]: Missing::label
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// An NVIDIA GPU with its driver.
    Gpu,
    /// More GPUs than this machine has (a program that spreads its work over two).
    MoreGpus,
    /// More free GPU memory than the GPU has (a problem too large for this card).
    GpuMemory,
    /// Thread-block clusters, which GPUs of compute capability 9.0 and newer launch.
    Clusters,
    /// A GPU of a higher compute capability (the instructions a program uses are newer).
    NewerGpu,
    /// A Hopper GPU (compute capability 9.0): `sm_90a`'s instructions run on no other.
    Hopper,
    /// NVRTC, CUDA's run-time compiler (`scripts/install-nvrtc.sh` puts it in `.nvrtc/`).
    Nvrtc,
    /// The compiler that `rust-toolchain.toml` pins: another prints its errors its own way.
    PinnedRustc,
    /// The GPU check: what a GPU program drew is recorded there (`gpu-check`), never by
    /// `cargo test`, so it is skipped on every machine.
    GpuCheck,
    /// A recording of a GPU case: its file holds only the command line until the GPU check
    /// records what the program prints.
    Recording,
    /// The whole course: a program that counts something over every chapter (`unsafe_count`),
    /// in a chapter forked on its own.
    WholeCourse,
}

impl Missing {
    /// The words a skip reason starts with.
    pub fn label(self) -> &'static str {
        match self {
            Missing::Gpu => "no GPU",
            Missing::MoreGpus => "too few GPUs",
            Missing::GpuMemory => "too little GPU memory",
            Missing::Clusters => "no clusters",
            Missing::NewerGpu => "too old a GPU",
            Missing::Hopper => "not a Hopper GPU",
            Missing::Nvrtc => "no NVRTC",
            Missing::PinnedRustc => "not the pinned rustc",
            Missing::GpuCheck => "GPU check only",
            Missing::Recording => "not recorded yet",
            Missing::WholeCourse => "not the whole course",
        }
    }

    /// What a program's exit status says it lacked, when the status is one of the skips:
    /// [`EXIT_NO_GPU`], [`EXIT_TOO_LITTLE_MEMORY`], [`EXIT_TOO_FEW_GPUS`], [`EXIT_NO_CLUSTERS`]
    /// [`EXIT_OLDER_GPU`] or [`EXIT_NOT_HOPPER`].
    pub fn from_exit_status(code: i32) -> Option<Missing> {
        match code {
            EXIT_NO_GPU => Some(Missing::Gpu),
            EXIT_TOO_LITTLE_MEMORY => Some(Missing::GpuMemory),
            EXIT_TOO_FEW_GPUS => Some(Missing::MoreGpus),
            EXIT_NO_CLUSTERS => Some(Missing::Clusters),
            EXIT_OLDER_GPU => Some(Missing::NewerGpu),
            EXIT_NOT_HOPPER => Some(Missing::Hopper),
            _ => None,
        }
    }

    /// The reason a skipped test prints: `no NVRTC: <detail>`. Under `CI=true` a missing NVRTC
    /// is an error instead, since CI installs it to check every kernel.
    pub fn skip(self, detail: &str) -> Result<String, String> {
        let reason = format!("{}: {detail}", self.label());
        if self == Missing::Nvrtc && std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err(format!("CI=true requires NVRTC, but {reason}"));
        }
        Ok(reason)
    }
}

/// The last line of a test binary that skipped `count` of its tests (`what`: "output tests"),
/// so that a skip is never read as a pass; nothing when it skipped none.
pub fn report_skipped(count: u64, what: &str) {
    if count > 0 {
        println!(
            "{count} {what} were skipped, not passed (listed above as ignored, each with its reason)."
        );
    }
}
