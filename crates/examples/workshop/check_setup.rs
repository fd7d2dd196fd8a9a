//! The workshop's first command, `cargo run --bin check_setup`: is this machine ready for the
//! course? It looks at the Rust compiler, the NVIDIA driver and GPU, and NVRTC, then compiles
//! and runs the course's first kernel. Each line ends in a verdict, and a line that is not `ok`
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
use course::gpu::{NoGpu, OrExit, alloc_poisoned, find_gpu};
use course::kernel::{arch_of, compile, nvrtc_present};
use course::kernel_file;
use cudarc::driver::LaunchConfig;

mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

/// The toolchain the course is tested with, as `rust-toolchain.toml` pins it.
const TOOLCHAIN_FILE: &str = include_str!("../../../rust-toolchain.toml");

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

fn nvrtc_check() -> Check {
    let (found, verdict) = if nvrtc_present() {
        ("libnvrtc.so.13 loads", Verdict::Ok)
    } else {
        ("libnvrtc.so.13 not found", Verdict::Missing)
    };
    Check {
        what: "NVRTC",
        found: found.into(),
        verdict,
        detail: Vec::new(),
        todo: "The GPU programs compile their kernels with it: install the CUDA toolkit 13.0, \
               or run scripts/install-nvrtc.sh and add .nvrtc/nvidia/cu13/lib to \
               LD_LIBRARY_PATH",
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
            let driver = driver_version()
                .map(|v| format!("driver for CUDA {}.{}", v / 1000, (v % 1000) / 10))
                .unwrap_or_else(|| "driver version not known".into());
            Check {
                what: "GPU",
                found: "GPU 0 opened by the NVIDIA driver".into(),
                verdict: Verdict::Ok,
                detail: vec![describe(ctx), format!("{memory}; {driver} (this machine)")],
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

    let nvrtc = nvrtc_check();
    println!("{}", nvrtc.line());

    let kernel = match (&gpu, nvrtc.verdict) {
        (Ok(ctx), Verdict::Ok) => first_kernel(ctx),
        _ => Check {
            what: "first kernel",
            found: "ch04-adder.cu needs a GPU and NVRTC".into(),
            verdict: Verdict::NotTried,
            detail: Vec::new(),
            todo: "",
        },
    };
    println!("{}", kernel.line());

    let (verdict, status) = overall(gpu_check.verdict, nvrtc.verdict, kernel.verdict);
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
    let module = ctx.load_module(ptx).or_exit("load the compiled kernel");
    let stream = ctx.default_stream();
    let n = 1000;
    let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let ys: Vec<f64> = (0..n).map(|i| (2 * i) as f64).collect();
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let ys_dev = stream.clone_htod(&ys).or_exit("copy ys to the GPU");
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
        .or_exit_launching(&k.adder);
    let zs = stream.clone_dtoh(&zs_dev).or_exit("copy zs back");
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
    fn long_advice_wraps_within_the_width() {
        let text = wrap(&"word ".repeat(60), INDENT);
        assert!(text.lines().count() > 1);
        for line in text.lines() {
            assert!(line.len() <= WIDTH, "{line}");
            assert!(line.starts_with(&" ".repeat(INDENT)), "{line}");
        }
    }
}
