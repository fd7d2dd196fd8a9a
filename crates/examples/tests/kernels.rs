//! Every kernel in `kernels/` compiles with NVRTC for sm_75 (Turing) and sm_90 (Hopper), and its
//! PTX shows what the book says about it. No GPU is needed, only NVRTC's library.
//!
//! Without NVRTC these tests are ignored with the reason, except under `CI=true`, where a
//! missing NVRTC is a failure (`.ci/run` installs it).

use std::path::Path;

use course::kernel::{KernelFile, compile, nvrtc_present};
use libtest_mimic::{Arguments, Completion, Trial};

/// Something the book claims about a kernel's PTX.
#[derive(Clone, Copy)]
enum Claim {
    /// This instruction (or text) appears: e.g. `shfl.sync` in a shuffle kernel.
    Has(&'static str),
    /// This never appears: e.g. `.f64` in an FP32 kernel.
    Lacks(&'static str),
}
use Claim::{Has, Lacks};

struct Kernel {
    file: &'static str,
    fast_math: bool,
    claims: &'static [Claim],
}

/// Every file in `kernels/` must be listed here.
const KERNELS: &[Kernel] = &[
    Kernel { file: "occupancy.cu", fast_math: false, claims: &[Has(".entry add_one"), Lacks(".f64")] },
];

const ARCHS: [&str; 2] = ["sm_75", "sm_90"];

/// When `scripts/install-nvrtc.sh` has put NVRTC in `.nvrtc/`, run this test again with the
/// loader pointed there: the loader reads `LD_LIBRARY_PATH` only when a process starts.
fn rerun_with_local_nvrtc() {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.nvrtc/nvidia/cu13");
    let lib = local.join("lib");
    if !lib.join("libnvrtc.so.13").exists() || std::env::var_os("COURSE_LOCAL_NVRTC").is_some() {
        return;
    }
    let mut search = lib.into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        search.push(":");
        search.push(old);
    }
    let include = local.join("include");
    let headers = format!("{}:{}", include.display(), include.join("cccl").display());
    let status = std::process::Command::new(std::env::current_exe().expect("own path"))
        .args(std::env::args_os().skip(1))
        .env("LD_LIBRARY_PATH", search)
        .env("COURSE_LOCAL_NVRTC", "1")
        .env("COURSE_CUDA_INCLUDE", std::env::var("COURSE_CUDA_INCLUDE").unwrap_or(headers))
        .status()
        .expect("the kernel test can run itself again");
    std::process::exit(status.code().unwrap_or(1));
}

fn main() {
    rerun_with_local_nvrtc();
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("kernels/ exists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".cu"))
        .collect();
    files.sort();

    let mut trials = Vec::new();
    for file in files {
        let Some(kernel) = KERNELS.iter().find(|k| k.file == file) else {
            trials.push(Trial::test(format!("kernel::{file}"), move || {
                Err(format!("kernels/{file} is not listed in tests/kernels.rs with what the book claims about it").into())
            }));
            continue;
        };
        let source: &'static str = std::fs::read_to_string(dir.join(&file)).expect("readable kernel").leak();
        for arch in ARCHS {
            let name = format!("kernel::{file}::{arch}");
            trials.push(Trial::ignorable_test(name, move || {
                if !nvrtc_present() {
                    if std::env::var("CI").is_ok_and(|v| v == "true") {
                        return Err("NVRTC (libnvrtc.so.13) is missing, and CI must check every kernel".into());
                    }
                    return Ok(Completion::ignored_with(
                        "NVRTC (libnvrtc.so.13) not found; .ci/run shows how to install it without a GPU",
                    ));
                }
                let file = KernelFile { name: kernel.file, source };
                let ptx = compile(&file, arch, kernel.fast_math)?.to_src();
                for claim in kernel.claims {
                    match *claim {
                        Has(text) if !ptx.contains(text) => {
                            return Err(format!("the PTX of {} for {arch} lacks `{text}`", kernel.file).into());
                        }
                        Lacks(text) if ptx.contains(text) => {
                            return Err(format!("the PTX of {} for {arch} contains `{text}`", kernel.file).into());
                        }
                        _ => {}
                    }
                }
                Ok(Completion::Completed)
            }));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    if conclusion.num_ignored > 0 {
        println!("{} kernel checks were skipped, not passed: NVRTC was not found.", conclusion.num_ignored);
    }
    conclusion.exit();
}
