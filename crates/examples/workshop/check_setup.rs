//! The workshop's first command, `cargo run --bin check_setup`: is this machine ready for the
//! course? It looks at the Rust compiler, the NVIDIA GPU and its driver's CUDA version (at least
//! the 13.0 the course needs), NVRTC (on the loader's path, or in `.nvrtc/` where
//! `scripts/install-nvrtc.sh` puts it), then compiles, loads and runs the course's first
//! kernel, and finally looks for compute-sanitizer and the release build the workshop runs.
//! Each line ends in a verdict, and a line that is not `ok`
//! says what to do. The exit status says how far the machine can go: 0 for every program, 77
//! ([`EXIT_NO_GPU`]) for the CPU programs and the tests only, 1 when a GPU is there but its
//! programs cannot run (the driver could not open it, say).
//!
//! The GPU found is described below its check, on a line that names the machine, `GPU: NAME
//! (compute capability X.Y, N SMs)`, and a line of its memory and driver marked `(this
//! machine)`: facts of the machine, which the checker masks, so that the book's recording
//! matches a run on any GPU.
use course::compare::count_mismatches;
use course::exit::{EXIT_CUDA_FAILED, EXIT_NO_GPU};
use course::gpu::describe;
use course::gpu::{NoGpu, alloc_poisoned, find_gpu};
use course::kernel::{arch_of, compile, nvrtc_present};
use course::kernel_file;
use cudarc::driver::LaunchConfig;

mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

/// The toolchain the course is tested with, as `rust-toolchain.toml` pins it.
const TOOLCHAIN_FILE: &str = include_str!("../../../rust-toolchain.toml");
/// The course's programs, one `[[bin]]` each.
const CARGO_TOML: &str = include_str!("../Cargo.toml");
/// The CUDA version the course's kernels and NVRTC are built for, as the driver reports it.
const CUDA_NEEDED: i32 = 13000;
/// Where `scripts/install-nvrtc.sh` puts NVRTC, from the clone's root.
const LOCAL_NVRTC: &str = ".nvrtc/nvidia/cu13/lib/libnvrtc.so.13";

/// How one check came out.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    Ok,
    /// Works, but not as the course was tested.
    Differs,
    /// Not there: the programs that need it cannot run.
    Missing,
    /// Not tried, because something it needs is missing.
    NotTried,
    /// Tried, and the result was wrong.
    Wrong,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Differs => "differs",
            Verdict::Missing => "missing",
            Verdict::NotTried => "not tried",
            Verdict::Wrong => "wrong",
        }
    }
}

/// One line of the report: what was checked, what was found, the verdict, and what to do.
struct Check {
    what: &'static str,
    found: String,
    verdict: Verdict,
    /// More about what was found, one line each below it (the GPU's description, the driver's
    /// error).
    detail: Vec<String>,
    todo: &'static str,
}

impl Check {
    /// `WHAT  FOUND: VERDICT`, and below it, indented, the detail, and what to do when the
    /// verdict is not ok.
    fn line(&self) -> String {
        let mut lines = vec![format!(
            "{:<13} {}: {}",
            self.what,
            self.found,
            self.verdict.word()
        )];
        lines.extend(self.detail.iter().map(|line| wrap(line, INDENT)));
        if self.verdict != Verdict::Ok && !self.todo.is_empty() {
            lines.push(wrap(&format!("{}.", self.todo), INDENT));
        }
        lines.join("\n")
    }
}

/// Where the text of a check starts, after its name.
const INDENT: usize = 14;
/// The widest line the report prints (the book shows it in a code block).
const WIDTH: usize = 96;

/// `text` in lines of at most [`WIDTH`] characters, each indented by `indent` spaces.
fn wrap(text: &str, indent: usize) -> String {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent + line.len() + 1 + word.len() > WIDTH {
            lines.push(format!("{:indent$}{line}", ""));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(format!("{:indent$}{line}", ""));
    lines.join("\n")
}

/// The compiler the course pins: the `channel` of `rust-toolchain.toml`.
fn pinned_version(toolchain: &str) -> Option<&str> {
    toolchain
        .lines()
        .find_map(|l| l.trim().strip_prefix("channel"))
        .and_then(|rest| rest.split('"').nth(1))
}

fn rust_check() -> Check {
    let pinned = pinned_version(TOOLCHAIN_FILE).unwrap_or("?");
    let found = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let (found, verdict) = match found {
        Some(v) if v.starts_with(&format!("rustc {pinned} ")) => (v, Verdict::Ok),
        Some(v) => (v, Verdict::Differs),
        None => ("no rustc on the PATH".to_string(), Verdict::Missing),
    };
    Check {
        what: "Rust",
        found: format!("{found} (the course pins {pinned})"),
        verdict,
        detail: Vec::new(),
        todo: "Run the course's commands inside the clone, where rustup installs the pinned \
               compiler by itself; another version runs every program, and the compile-fail \
               checks then compare only the first line of each error",
    }
}

/// The clone's root: where `cargo run` was started from, or the one this program was built in.
fn clone_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// NVRTC on the loader's path; else whether `.nvrtc/` holds the one `install-nvrtc.sh` fetches.
fn nvrtc_check(loads: bool, local: bool) -> Check {
    let (found, verdict, todo) = match (loads, local) {
        (true, _) => ("libnvrtc.so.13 loads".to_string(), Verdict::Ok, ""),
        (false, true) => (
            "libnvrtc.so.13 only in .nvrtc/nvidia/cu13/lib, not on the loader's path".into(),
            Verdict::Differs,
            "The judge and `cargo test` use .nvrtc/ by themselves; for the programs, run \
             `export LD_LIBRARY_PATH=$PWD/.nvrtc/nvidia/cu13/lib` in the clone, then run this \
             check again",
        ),
        (false, false) => (
            format!("libnvrtc.so.13 not found, nor {LOCAL_NVRTC}"),
            Verdict::Missing,
            "The GPU programs compile their kernels with it: install the CUDA toolkit 13.0, \
             or run scripts/install-nvrtc.sh and add .nvrtc/nvidia/cu13/lib to \
             LD_LIBRARY_PATH",
        ),
    };
    Check {
        what: "NVRTC",
        found,
        verdict,
        detail: Vec::new(),
        todo,
    }
}

/// The driver's CUDA version against the one the course needs; `None` when no driver answered.
fn driver_check(version: Option<i32>) -> Check {
    let shown = |v: i32| format!("{}.{}", v / 1000, (v % 1000) / 10);
    let needed = shown(CUDA_NEEDED);
    let (found, verdict) = match version {
        Some(v) if v >= CUDA_NEEDED => (format!("CUDA {}", shown(v)), Verdict::Ok),
        Some(v) => (format!("CUDA {}", shown(v)), Verdict::Wrong),
        None => ("no NVIDIA driver answered".to_string(), Verdict::NotTried),
    };
    Check {
        what: "driver",
        found: format!("{found}, bound CUDA {needed} or newer"),
        verdict,
        detail: Vec::new(),
        todo: match verdict {
            Verdict::Wrong => {
                "The course's kernels are compiled for CUDA 13.0: install an NVIDIA driver \
                 for CUDA 13.0 or newer (`nvidia-smi` shows the version it supports)"
            }
            _ => "",
        },
    }
}

/// compute-sanitizer, which the failures page and `gpu-check --sanitize` run: on the PATH, or
/// where the CUDA toolkit installs it.
fn sanitizer_check(path: Option<&std::ffi::OsStr>) -> Check {
    let on_path = path
        .map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("compute-sanitizer"))
        .find(|f| f.is_file());
    let toolkit = std::path::Path::new("/usr/local/cuda/bin/compute-sanitizer");
    let (found, verdict) = match (on_path, toolkit.is_file()) {
        (Some(_), _) => ("compute-sanitizer on the PATH", Verdict::Ok),
        (None, true) => (
            "compute-sanitizer in /usr/local/cuda/bin, not on the PATH",
            Verdict::Differs,
        ),
        (None, false) => (
            "no compute-sanitizer on the PATH or in /usr/local/cuda/bin",
            Verdict::Missing,
        ),
    };
    Check {
        what: "sanitizer",
        found: found.into(),
        verdict,
        detail: Vec::new(),
        todo: "The pages on failures run it to name a bad access; it comes with the CUDA \
               toolkit (add its bin folder to the PATH); every other program runs without it",
    }
}

/// The names of the course's programs, the `name` of each `[[bin]]`.
fn program_names(cargo_toml: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in cargo_toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(rest) = line.strip_prefix("name").filter(|_| in_bin) {
            if let Some(name) = rest.split('"').nth(1) {
                names.push(name);
            }
        }
    }
    names
}

/// The release build `cargo run --release` uses: how many of the course's programs are built in
/// `dir` (where this program runs from when it is a release build, else `target/release`).
fn release_check(dir: &std::path::Path, names: &[&str]) -> Check {
    let built = names.iter().filter(|n| dir.join(n).is_file()).count();
    let verdict = match built {
        b if b == names.len() => Verdict::Ok,
        0 => Verdict::Missing,
        _ => Verdict::Differs,
    };
    Check {
        what: "release build",
        found: format!(
            "{built} of the course's {} programs built, bound all {}",
            names.len(),
            names.len()
        ),
        verdict,
        detail: Vec::new(),
        todo: "Run `cargo build --release` in the clone before the workshop (it takes minutes \
               once); the course's commands are `cargo run --release`, which then start at once",
    }
}

/// Where the release build is: beside this program when it is one, else the clone's
/// `target/release` (or `$CARGO_TARGET_DIR/release`).
fn release_dir() -> std::path::PathBuf {
    let me = std::env::current_exe().ok();
    let beside = me.as_deref().and_then(std::path::Path::parent);
    match beside {
        Some(dir) if !cfg!(debug_assertions) => dir.to_path_buf(),
        _ => std::env::var_os("CARGO_TARGET_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| clone_root().join("target"))
            .join("release"),
    }
}

/// The CUDA version the driver supports, as `cuDriverGetVersion` gives it (13000 for 13.0).
fn driver_version() -> Option<i32> {
    let mut version = 0;
    // SAFETY: the driver is loaded (a context exists) and writes one int through the pointer.
    let status = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
    (status == cudarc::driver::sys::CUresult::CUDA_SUCCESS).then_some(version)
}

/// The GPU check: found and opened (described on the line below, as the machine's facts), not
/// here, or here but not opened by the driver.
fn gpu_check(gpu: &Result<std::sync::Arc<cudarc::driver::CudaContext>, NoGpu>) -> Check {
    match gpu {
        Ok(ctx) => {
            let memory = ctx
                .total_mem()
                .map(|b| format!("{:.1} GiB of memory", b as f64 / (1u64 << 30) as f64))
                .unwrap_or_else(|_| "memory not known".into());
            Check {
                what: "GPU",
                found: "GPU 0 opened by the NVIDIA driver".into(),
                verdict: Verdict::Ok,
                detail: vec![describe(ctx), format!("{memory} (this machine)")],
                todo: "",
            }
        }
        Err(NoGpu::Absent(why)) => Check {
            what: "GPU",
            found: why.clone(),
            verdict: Verdict::Missing,
            detail: Vec::new(),
            todo: "The CPU programs and `cargo test` work without one; for the GPU programs, \
                   use a machine with an NVIDIA GPU and its driver",
        },
        Err(NoGpu::Failed { error, description }) => Check {
            what: "GPU",
            found: format!("the NVIDIA driver could not open GPU 0 ({error})"),
            verdict: Verdict::Wrong,
            detail: vec![format!("The driver says: {description}.")],
            todo: "A GPU is here but cannot be used: a driver older than CUDA 13.0 cannot run \
                   the course's kernels, and a GPU in exclusive-process mode serves one program \
                   at a time (`nvidia-smi` shows its mode and who holds it)",
        },
    }
}

/// The verdict of the whole check: the last line, and the exit status.
/// compute-sanitizer and the release build are advice: they do not change it.
fn overall(gpu: Verdict, nvrtc: Verdict, kernel: Verdict) -> (&'static str, i32) {
    match (gpu, nvrtc, kernel) {
        (Verdict::Ok, Verdict::Ok, Verdict::Ok) => ("ready for every program of the course", 0),
        (Verdict::Missing, _, _) => (
            "ready for the CPU programs and `cargo test`; the GPU programs need an NVIDIA GPU \
             (see the Setup page for sharing one)",
            EXIT_NO_GPU,
        ),
        _ => (
            "a GPU is here but its programs cannot run yet: fix the lines above that are not ok",
            EXIT_CUDA_FAILED,
        ),
    }
}

fn main() {
    course::cli::no_args(
        "Checks that this machine is ready for the course: Rust, the NVIDIA driver and GPU, \
         NVRTC, and one kernel compiled and run.",
    );
    let rust = rust_check();
    println!("{}", rust.line());

    let gpu = find_gpu();
    let gpu_check = gpu_check(&gpu);
    println!("{}", gpu_check.line());

    // The driver is loaded when a GPU was found, or found but not opened; never asked without.
    let version = match &gpu {
        Err(NoGpu::Absent(_)) => None,
        _ => driver_version(),
    };
    let driver = driver_check(version);
    println!("{}", driver.line());

    let local = clone_root().join(LOCAL_NVRTC).is_file();
    let nvrtc = nvrtc_check(nvrtc_present(), local);
    println!("{}", nvrtc.line());

    let kernel = match (&gpu, nvrtc.verdict, driver.verdict) {
        (Ok(ctx), Verdict::Ok, Verdict::Ok) => first_kernel(ctx),
        _ => Check {
            what: "first kernel",
            found: "ch04-adder.cu needs a GPU, a CUDA 13.0 driver and NVRTC".into(),
            verdict: Verdict::NotTried,
            detail: Vec::new(),
            todo: "",
        },
    };
    println!("{}", kernel.line());

    println!(
        "{}",
        sanitizer_check(std::env::var_os("PATH").as_deref()).line()
    );
    println!(
        "{}",
        release_check(&release_dir(), &program_names(CARGO_TOML)).line()
    );

    // A driver too old fails the GPU side as a kernel that does not run would.
    let kernel_verdict = match driver.verdict {
        Verdict::Wrong => Verdict::Wrong,
        _ => kernel.verdict,
    };
    let (verdict, status) = overall(gpu_check.verdict, nvrtc.verdict, kernel_verdict);
    println!("verdict: {}", wrap(verdict, 9).trim_start());
    std::process::exit(status);
}

/// Compile chapter 4's adder with NVRTC, add two arrays of 1000 on the GPU, compare with the CPU.
fn first_kernel(ctx: &std::sync::Arc<cudarc::driver::CudaContext>) -> Check {
    let file = kernel_file!("ch04-adder.cu");
    let ptx = match compile(&file, &arch_of(ctx), false) {
        Ok(ptx) => ptx,
        Err(log) => {
            return Check {
                what: "first kernel",
                found: format!("NVRTC could not compile ch04-adder.cu: {log}"),
                verdict: Verdict::Wrong,
                detail: Vec::new(),
                todo: "NVRTC's log says why; check that its version is 13.0",
            };
        }
    };
    let n = 1000;
    let zs = match add_on_gpu(ctx, ptx, n) {
        Ok(zs) => zs,
        Err(failure) => return failure,
    };
    let want: Vec<f64> = (0..n).map(|i| (3 * i) as f64).collect();
    let wrong = count_mismatches(&zs, &want);
    Check {
        what: "first kernel",
        found: format!("adder on {n} elements, {wrong} of {n} sums differ from i + 2i"),
        verdict: if wrong == 0 {
            Verdict::Ok
        } else {
            Verdict::Wrong
        },
        detail: Vec::new(),
        todo: "the GPU computed wrong sums: report this machine to the instructor",
    }
}

/// A failed step of the first kernel, as its check: loading, copying or launching.
fn kernel_failed(step: &str, error: impl std::fmt::Display) -> Check {
    Check {
        what: "first kernel",
        found: format!("ch04-adder.cu compiled, but {step} failed ({error})"),
        verdict: Verdict::Wrong,
        detail: Vec::new(),
        todo: "The driver refused the kernel NVRTC made: check that the driver supports CUDA \
               13.0 (the driver line above) and that NVRTC is 13.0, not newer",
    }
}

/// Load the compiled adder, add 0..n and twice that on the GPU, and return the sums.
fn add_on_gpu(
    ctx: &std::sync::Arc<cudarc::driver::CudaContext>,
    ptx: cudarc::nvrtc::Ptx,
    n: usize,
) -> Result<Vec<f64>, Check> {
    let module = ctx
        .load_module(ptx)
        .map_err(|e| kernel_failed("loading it", e))?;
    let stream = ctx.default_stream();
    let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let ys: Vec<f64> = (0..n).map(|i| (2 * i) as f64).collect();
    let copy = |e| kernel_failed("copying to the GPU", e);
    let xs_dev = stream.clone_htod(&xs).map_err(copy)?;
    let ys_dev = stream.clone_htod(&ys).map_err(copy)?;
    let mut zs_dev = alloc_poisoned::<f64>(&stream, n);
    let k = ch04_adder::Kernels::load(&module);
    k.adder
        .launch(
            &stream,
            LaunchConfig::for_num_elems(n as u32),
            &xs_dev,
            &ys_dev,
            &mut zs_dev,
        )
        .map_err(|e| kernel_failed("launching it", e))?;
    stream
        .clone_dtoh(&zs_dev)
        .map_err(|e| kernel_failed("copying the sums back", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_compiler_is_read_from_the_toolchain_file() {
        assert_eq!(
            pinned_version("[toolchain]\nchannel = \"1.95.0\"\n"),
            Some("1.95.0")
        );
        assert!(pinned_version(TOOLCHAIN_FILE).is_some());
    }

    #[test]
    fn the_status_says_how_far_the_machine_can_go() {
        use Verdict::*;
        assert_eq!(overall(Ok, Ok, Ok).1, 0);
        assert_eq!(overall(Missing, Missing, NotTried).1, EXIT_NO_GPU);
        assert_eq!(overall(Missing, Ok, NotTried).1, EXIT_NO_GPU);
        assert_eq!(overall(Ok, Missing, NotTried).1, EXIT_CUDA_FAILED);
        assert_eq!(overall(Ok, Ok, Wrong).1, EXIT_CUDA_FAILED);
    }

    #[test]
    fn a_gpu_the_driver_cannot_open_is_wrong_not_missing() {
        let failed = gpu_check(&Err(NoGpu::Failed {
            error: "CUDA_ERROR_DEVICE_UNAVAILABLE".into(),
            description: "CUDA-capable device(s) is/are busy or unavailable".into(),
        }));
        assert_eq!(failed.verdict, Verdict::Wrong);
        let text = failed.line();
        assert!(
            text.starts_with(
                "GPU           the NVIDIA driver could not open GPU 0 \
                 (CUDA_ERROR_DEVICE_UNAVAILABLE): wrong\n              The driver says: \
                 CUDA-capable device(s) is/are busy or unavailable.\n"
            ),
            "{text}"
        );
        assert!(text.lines().all(|l| l.len() <= WIDTH), "{text}");
        assert_eq!(
            overall(failed.verdict, Verdict::Ok, Verdict::NotTried).1,
            EXIT_CUDA_FAILED
        );
        let absent = gpu_check(&Err(NoGpu::Absent(
            "no NVIDIA driver (libcuda) is installed".into(),
        )));
        assert_eq!(absent.verdict, Verdict::Missing);
        assert_eq!(
            overall(absent.verdict, Verdict::Ok, Verdict::NotTried).1,
            EXIT_NO_GPU
        );
    }

    #[test]
    fn a_line_that_is_not_ok_says_what_to_do_below_it() {
        let check = Check {
            what: "NVRTC",
            found: "libnvrtc.so.13 not found".into(),
            verdict: Verdict::Missing,
            detail: Vec::new(),
            todo: "install it",
        };
        assert_eq!(
            check.line(),
            "NVRTC         libnvrtc.so.13 not found: missing\n              install it."
        );
        let ok = Check {
            verdict: Verdict::Ok,
            ..check
        };
        assert_eq!(ok.line(), "NVRTC         libnvrtc.so.13 not found: ok");
    }

    #[test]
    fn the_driver_is_judged_against_cuda_13() {
        let ok = driver_check(Some(13000));
        assert_eq!(
            ok.line(),
            "driver        CUDA 13.0, bound CUDA 13.0 or newer: ok"
        );
        assert_eq!(driver_check(Some(13020)).verdict, Verdict::Ok);
        let old = driver_check(Some(12040));
        assert_eq!(old.verdict, Verdict::Wrong);
        assert!(
            old.line()
                .starts_with("driver        CUDA 12.4, bound CUDA 13.0 or newer: wrong\n"),
            "{}",
            old.line()
        );
        assert_eq!(driver_check(None).verdict, Verdict::NotTried);
        // A driver too old is no missing GPU: the status says the GPU programs cannot run.
        assert_eq!(
            overall(Verdict::Ok, Verdict::Ok, Verdict::Wrong).1,
            EXIT_CUDA_FAILED
        );
    }

    #[test]
    fn nvrtc_in_the_clone_is_named_when_the_loader_misses_it() {
        assert_eq!(nvrtc_check(true, false).verdict, Verdict::Ok);
        let local = nvrtc_check(false, true);
        assert_eq!(local.verdict, Verdict::Differs);
        assert!(
            local.line().contains(".nvrtc/nvidia/cu13/lib"),
            "{}",
            local.line()
        );
        let none = nvrtc_check(false, false);
        assert_eq!(none.verdict, Verdict::Missing);
        assert!(
            none.line().contains("scripts/install-nvrtc.sh"),
            "{}",
            none.line()
        );
        for check in [local, none] {
            assert!(
                check.line().lines().all(|l| l.len() <= WIDTH),
                "{}",
                check.line()
            );
        }
    }

    #[test]
    fn the_sanitizer_is_found_on_the_path() {
        let dir = std::env::temp_dir().join(format!("check-setup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("compute-sanitizer"), "").unwrap();
        let found = sanitizer_check(Some(dir.as_os_str()));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.verdict, Verdict::Ok);
        let empty = std::ffi::OsString::new();
        let none = sanitizer_check(Some(&empty));
        assert_ne!(none.verdict, Verdict::Ok);
    }

    #[test]
    fn the_release_build_counts_the_course_programs() {
        let names = program_names(CARGO_TOML);
        // Not adder_gpu by name: a fork of another chapter has check_setup and its own programs.
        assert!(names.contains(&"check_setup") && names.len() > 1);
        assert_eq!(
            program_names("[package]\nname = \"course\"\n[[bin]]\nname = \"a\"\npath = \"a.rs\"\n"),
            ["a"]
        );
        let nowhere = release_check(std::path::Path::new("/no/such/folder"), &names);
        assert_eq!(nowhere.verdict, Verdict::Missing);
        assert!(nowhere.line().starts_with(&format!(
            "release build 0 of the course's {n} programs built, bound all {n}: missing",
            n = names.len()
        )));
    }

    #[test]
    fn long_advice_wraps_within_the_width() {
        let text = wrap(&"word ".repeat(60), INDENT);
        assert!(text.lines().count() > 1);
        for line in text.lines() {
            assert!(line.len() <= WIDTH, "{line}");
            assert!(line.starts_with(&" ".repeat(INDENT)), "{line}");
        }
    }
}
