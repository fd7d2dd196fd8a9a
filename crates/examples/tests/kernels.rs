//! Every kernel in `kernels/` compiles with NVRTC for sm_75 (Turing) and sm_90 (Hopper), and its
//! PTX shows what the book says about it. No GPU is needed, only NVRTC's library.
//!
//! The claims are written in each kernel file (see [`claims`]).
//!
//! Without NVRTC these tests are ignored with the reason, except under `CI=true`, where a
//! missing NVRTC is a failure (`.ci/run` installs it).

use std::path::Path;

use course::kernel::{KernelFile, compile, nvrtc_present};
use libtest_mimic::{Arguments, Completion, Trial};

/// What the book says about a kernel, written in the kernel file itself as lines such as
/// `// check: PTX has shfl.sync`, `// check: PTX lacks .f64` and, for a file its program
/// compiles with fast math, `// check: compiled with --use_fast_math`.
struct Claims {
    fast_math: bool,
    has: Vec<String>,
    lacks: Vec<String>,
}

fn claims(source: &str) -> Result<Claims, String> {
    let mut c = Claims {
        fast_math: false,
        has: Vec::new(),
        lacks: Vec::new(),
    };
    for line in source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// check:"))
    {
        let line = line.trim();
        if line == "compiled with --use_fast_math" {
            c.fast_math = true;
        } else if let Some(text) = line.strip_prefix("PTX has ") {
            c.has.push(text.trim().to_string());
        } else if let Some(text) = line.strip_prefix("PTX lacks ") {
            c.lacks.push(text.trim().to_string());
        } else {
            return Err(format!("unknown check `{line}`"));
        }
    }
    Ok(c)
}

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
        .env(
            "COURSE_CUDA_INCLUDE",
            std::env::var("COURSE_CUDA_INCLUDE").unwrap_or(headers),
        )
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
        let source: &'static str = std::fs::read_to_string(dir.join(&file))
            .expect("readable kernel")
            .leak();
        let name: &'static str = file.leak();
        for arch in ARCHS {
            trials.push(Trial::ignorable_test(format!("kernel::{name}::{arch}"), move || {
                let claims = claims(source).map_err(|e| format!("kernels/{name}: {e}"))?;
                if !nvrtc_present() {
                    if std::env::var("CI").is_ok_and(|v| v == "true") {
                        return Err("NVRTC (libnvrtc.so.13) is missing, and CI must check every kernel".into());
                    }
                    return Ok(Completion::ignored_with(
                        "NVRTC (libnvrtc.so.13) not found; run scripts/install-nvrtc.sh to check kernels without a GPU",
                    ));
                }
                let ptx = compile(&KernelFile { name, source }, arch, claims.fast_math)?.to_src();
                if let Some(text) = claims.has.iter().find(|t| !ptx.contains(t.as_str())) {
                    return Err(format!("the PTX of {name} for {arch} lacks `{text}`").into());
                }
                if let Some(text) = claims.lacks.iter().find(|t| ptx.contains(t.as_str())) {
                    return Err(format!("the PTX of {name} for {arch} contains `{text}`").into());
                }
                Ok(Completion::Completed)
            }));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    if conclusion.num_ignored > 0 {
        println!(
            "{} kernel checks were skipped, not passed: NVRTC was not found.",
            conclusion.num_ignored
        );
    }
    conclusion.exit();
}
