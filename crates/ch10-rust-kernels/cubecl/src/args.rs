//! The command line: `cubecl_kernels KERNEL [N] [--runtime cuda|wgpu] [--seed N]`. The course's
//! `course::cli` reads positional arguments and `--seed` only, so this reads the one option more
//! in the same manner: `--help` prints a usage, anything wrong gets one sentence and status 2.

use course::cli::{DEFAULT_SEED, fail, parse_usize};

/// Where the CubeCL kernels run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Runtime {
    Cuda,
    Wgpu,
}

/// What `N` means for one kernel, its range, and its default on each runtime: large enough on
/// CUDA to measure bandwidth, small enough on a software Vulkan driver to test in seconds.
#[derive(Clone, Copy, Debug)]
pub struct ProblemSize {
    pub what: &'static str,
    pub min: usize,
    pub max: usize,
    pub cuda: usize,
    pub wgpu: usize,
}

/// One kernel's program: its name on the command line, what it does, and its size (none for a
/// program that runs no kernel).
pub struct Program {
    pub name: &'static str,
    pub about: &'static str,
    pub size: Option<ProblemSize>,
}

/// A command line, read.
#[derive(Clone, Debug)]
pub struct Args {
    pub program: usize,
    pub n: Option<usize>,
    pub runtime: Option<Runtime>,
    pub seed: u64,
}

impl Args {
    /// `N`, or the default of the runtime the kernel runs on.
    pub fn n_for(&self, size: &ProblemSize, runtime: Runtime) -> usize {
        self.n.unwrap_or(match runtime {
            Runtime::Cuda => size.cuda,
            Runtime::Wgpu => size.wgpu,
        })
    }
}

/// Read the command line, or print the usage and exit 0 (`--help`), or exit 2 with a sentence.
pub fn parse(programs: &[Program]) -> Args {
    let words: Vec<String> = std::env::args().skip(1).collect();
    if words.iter().any(|w| w == "--help" || w == "-h") {
        print_usage(programs);
        std::process::exit(0);
    }
    match read(programs, &words) {
        Ok(args) => args,
        Err(sentence) => fail(&sentence),
    }
}

fn read(programs: &[Program], words: &[String]) -> Result<Args, String> {
    let names: Vec<&str> = programs.iter().map(|p| p.name).collect();
    let mut positional = Vec::new();
    let (mut runtime, mut seed) = (None, None);
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let (option, inline) = match word.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| words.next().cloned())
                .ok_or_else(|| format!("`{option}` needs a value"))
        };
        match option {
            "--runtime" => runtime = Some(value()?),
            "--seed" => seed = Some(value()?),
            _ if option.starts_with("--") => {
                return Err(format!(
                    "there is no option `{word}`; `--help` lists the arguments"
                ));
            }
            _ => positional.push(word.clone()),
        }
    }
    let Some(name) = positional.first() else {
        return Err(format!(
            "name the kernel to run, one of {}",
            names.join(", ")
        ));
    };
    let program = names.iter().position(|n| n == name).ok_or_else(|| {
        format!(
            "the kernel must be one of {}, not `{name}`",
            names.join(", ")
        )
    })?;
    let n = match (positional.get(1), &programs[program].size) {
        (None, _) => None,
        (Some(text), None) => {
            return Err(format!(
                "`{text}` is one argument too many: {name} takes no size"
            ));
        }
        (Some(text), Some(size)) => match parse_usize(text) {
            Some(v) if (size.min..=size.max).contains(&v) => Some(v),
            _ => {
                return Err(format!(
                    "{} must be a whole number from {} to {}, not `{text}`",
                    size.what, size.min, size.max
                ));
            }
        },
    };
    if let Some(extra) = positional.get(2) {
        return Err(format!(
            "`{extra}` is one argument too many: give the kernel and at most one size; `--help` lists them"
        ));
    }
    let runtime = match runtime.as_deref() {
        None => None,
        Some("cuda") => Some(Runtime::Cuda),
        Some("wgpu") => Some(Runtime::Wgpu),
        Some(other) => return Err(format!("the runtime must be cuda or wgpu, not `{other}`")),
    };
    let seed = match seed {
        None => DEFAULT_SEED,
        Some(text) => parse_usize(&text)
            .map(|s| s as u64)
            .ok_or_else(|| format!("the seed must be a whole number, not `{text}`"))?,
    };
    Ok(Args {
        program,
        n,
        runtime,
        seed,
    })
}

fn print_usage(programs: &[Program]) {
    println!(
        "Usage: {} KERNEL [N] [--runtime cuda|wgpu] [--seed N]",
        course::cli::program_name()
    );
    println!(
        "Runs one of the course's kernels written in Rust with CubeCL, checks it against the CPU, \
         and on CUDA times it against its C++ twin."
    );
    for p in programs {
        println!("  {:<14} {}", p.name, p.about);
        if let Some(s) = &p.size {
            println!(
                "  {:<14}   N: {}, {} to {} (default {} on CUDA, {} on wgpu)",
                "", s.what, s.min, s.max, s.cuda, s.wgpu
            );
        }
    }
    println!(
        "  {:<14} where the kernel runs (default: cuda where there is an NVIDIA GPU, else wgpu)",
        "--runtime R"
    );
    println!(
        "  {:<14} seed of the random inputs (default {DEFAULT_SEED})",
        "--seed N"
    );
    println!("  {:<14} print this help", "--help");
}
