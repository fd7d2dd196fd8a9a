//! Every kernel in `kernels/` compiles with NVRTC for sm_75 (Turing) and sm_90 (Hopper), and its
//! PTX shows what the book says about it. No GPU is needed, only NVRTC's library. A file that
//! needs a newer GPU says so in a line `// requires: sm_80`: it is compiled for that
//! architecture and for those of the two above it, instead of for sm_75.
//!
//! The claims are written in each kernel file, one per line, each about one kernel:
//!
//! ```text
//! // check: image_fma has fma.rn.f32                  the PTX of kernel image_fma holds the text
//! // check: image_fma lacks .f64                      ... does not hold it
//! // check: image_fma has explicit fma.rn.f32         ... holds it when compiled with --fmad=false
//! // check: image_coarse_4 lacks explicit fma.rn.f32  ... does not hold it then
//! // check: image_tables_4 loop has 4 sin.approx.f32  the kernel's hot loop holds it 4 times
//! // check: image_tables_4 loop lacks cvt.rni.f32     ... does not hold it
//! // check: every kernel lacks .f64                   the claim holds for each kernel of the file
//! // check: compiled with --use_fast_math             the file's program compiles it so
//! ```
//!
//! A kernel's PTX runs from its `.entry NAME(` to the brace that closes its body. NVRTC turns
//! `a*b + c` into an `fma.rn.f32` unless `--fmad=false`, so only an `explicit` claim tells an
//! `fmaf()` or `__fmaf_rn()` in the source from a multiply-add the compiler contracted. The hot
//! loop is the innermost loop that reads shared memory and writes none
//! (`course::ptx::hot_loop`). A claim about a kernel that is not in the PTX fails.
//!
//! Without NVRTC these tests are ignored with the reason, except under `CI=true`, where a
//! missing NVRTC is a failure (`.ci/run` installs it).
//!
//! The typed launchers (`course::kernels!`, generated from each file's signatures) cannot drift
//! from what NVRTC compiles: for every file, the set of its launchers equals the set of the
//! PTX's `.entry` names, and each launcher's arguments have the kinds of the entry's `.param`
//! list (`launchers::FILES`, which must name every file of `kernels/`).

mod launchers {
    course::all_kernels!();
}

use std::path::Path;

use course::kernel::{KernelFile, compile_with, nvrtc_present, required_capability, specific_arch};
use course::ptx::{hot_loop, kernel_body, kernel_names, occurrences};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use protocol::Missing;

/// One `// check:` line: `kernel` is `None` for `every kernel`.
struct Claim {
    line: String,
    kernel: Option<String>,
    has: bool,
    explicit: bool,
    /// `loop has N TEXT`: exactly N times in the kernel's hot loop; `loop lacks TEXT`: none
    /// there (`Some(0)`).
    in_loop: Option<usize>,
    text: String,
}

struct Claims {
    fast_math: bool,
    list: Vec<Claim>,
}

fn claims(source: &str) -> Result<Claims, String> {
    let mut c = Claims {
        fast_math: false,
        list: Vec::new(),
    };
    for line in source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// check:"))
    {
        let line = line.trim();
        if line == "compiled with --use_fast_math" {
            c.fast_math = true;
            continue;
        }
        let unknown = || format!("unknown check `{line}`: see crates/examples/tests/kernels.rs");
        let (kernel, rest) = match line.strip_prefix("every kernel ") {
            Some(rest) => (None, rest),
            None => line
                .split_once(' ')
                .filter(|(k, _)| *k != "PTX") // the old file-wide form
                .map(|(k, rest)| (Some(k.to_string()), rest))
                .ok_or_else(unknown)?,
        };
        if let Some(rest) = rest.strip_prefix("loop ") {
            let (count, text) = if let Some(text) = rest.strip_prefix("lacks ") {
                (0, text)
            } else {
                rest.strip_prefix("has ")
                    .and_then(|r| r.split_once(' '))
                    .and_then(|(n, text)| Some((n.parse().ok()?, text)))
                    .ok_or_else(unknown)?
            };
            c.list.push(Claim {
                line: line.to_string(),
                kernel,
                has: count > 0,
                explicit: false,
                in_loop: Some(count),
                text: text.trim().to_string(),
            });
            continue;
        }
        let (has, rest) = if let Some(rest) = rest.strip_prefix("has ") {
            (true, rest)
        } else if let Some(rest) = rest.strip_prefix("lacks ") {
            (false, rest)
        } else {
            return Err(unknown());
        };
        let (explicit, text) = match rest.strip_prefix("explicit ") {
            Some(text) => (true, text),
            None => (false, rest),
        };
        c.list.push(Claim {
            line: line.to_string(),
            kernel,
            has,
            explicit,
            in_loop: None,
            text: text.trim().to_string(),
        });
    }
    Ok(c)
}

/// Check every claim on the PTX compiled as usual (`ptx`) and with --fmad=false (`exact`);
/// return one line for each claim that is false.
fn check(claims: &Claims, ptx: &str, exact: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for claim in &claims.list {
        let (ptx, how) = match claim.explicit {
            true => (exact, " compiled with --fmad=false"),
            false => (ptx, ""),
        };
        let kernels = match &claim.kernel {
            Some(name) => vec![name.as_str()],
            None => kernel_names(ptx),
        };
        for name in kernels {
            let body = kernel_body(ptx, name);
            if let (Some(want), Some(body)) = (claim.in_loop, body) {
                let verdict = match hot_loop(body).map(|hot| occurrences(hot, &claim.text)) {
                    Some(n) if n == want => continue,
                    Some(n) => format!("the hot loop of {name} holds `{}` {n} times", claim.text),
                    None => format!("{name} has no single hot loop (see course::ptx::hot_loop)"),
                };
                failures.push(format!("`{}`: {verdict}", claim.line));
                continue;
            }
            let verdict = match body {
                None => format!("the PTX has no kernel `{name}`"),
                Some(body) if body.contains(claim.text.as_str()) == claim.has => continue,
                Some(_) if claim.has => format!("the PTX of {name}{how} lacks `{}`", claim.text),
                Some(_) => format!("the PTX of {name}{how} contains `{}`", claim.text),
            };
            failures.push(format!("`{}`: {verdict}", claim.line));
        }
    }
    failures
}

/// Compile `file` for `arch` and check the claims written in it.
fn check_file(file: KernelFile, arch: &str) -> Result<Completion, Failed> {
    let name = file.name;
    let claims = claims(file.source).map_err(|e| format!("kernels/{name}: {e}"))?;
    if !nvrtc_present() {
        let why = Missing::Nvrtc.skip(
            "libnvrtc.so.13 not found; scripts/install-nvrtc.sh installs it to check kernels without a GPU",
        )?;
        return Ok(Completion::ignored_with(why));
    }
    let ptx = compile_with(&file, arch, claims.fast_math, &[])?.to_src();
    let exact = match claims.list.iter().any(|c| c.explicit) {
        true => compile_with(&file, arch, claims.fast_math, &["--fmad=false"])?.to_src(),
        false => String::new(),
    };
    let failures = check(&claims, &ptx, &exact);
    if failures.is_empty() {
        return Ok(Completion::Completed);
    }
    Err(format!("kernels/{name} for {arch}:\n  {}", failures.join("\n  ")).into())
}

const ARCHS: [&str; 2] = ["sm_75", "sm_90"];

/// The architectures a file is compiled for: those of `ARCHS` at or above its
/// `// requires: sm_XY`, and that architecture itself where it lies above the oldest of them
/// (NVRTC 13 compiles nothing older than sm_75); only `sm_90a` for a file that requires the
/// architecture-specific `sm_90a` (its wgmma runs on no other).
fn archs_for(source: &str) -> Vec<&'static str> {
    if let Some(specific) = specific_arch(source) {
        return vec![specific.to_string().leak()];
    }
    let number = |arch: &str| arch[3..].parse::<u32>().unwrap_or(0);
    let required = required_capability(source).map(|(major, minor)| (major * 10 + minor) as u32);
    let Some(min) = required else {
        return ARCHS.to_vec();
    };
    let mut archs: Vec<&'static str> = ARCHS.iter().copied().filter(|a| number(a) >= min).collect();
    if min > number(ARCHS[0]) && !archs.iter().any(|a| number(a) == min) {
        archs.insert(0, format!("sm_{min}").leak());
    }
    archs
}

/// The launchers of one file against its PTX: the same entry points, each with the same kinds
/// of parameters in the same order.
fn check_launchers(
    file: KernelFile,
    names: &[&str],
    kinds: &[&[&str]],
    vector_align: &[u32],
) -> Result<Completion, Failed> {
    if !nvrtc_present() {
        let why = Missing::Nvrtc
            .skip("libnvrtc.so.13 not found; the launchers are compared with the PTX")?;
        return Ok(Completion::ignored_with(why));
    }
    let fast_math = claims(file.source)?.fast_math;
    let arch = specific_arch(file.source).unwrap_or("sm_90");
    let ptx = compile_with(&file, arch, fast_math, &[])?.to_src();
    let mut entries: Vec<(&str, Vec<&str>)> = kernel_names(&ptx)
        .into_iter()
        .map(|name| (name, ptx_params(&ptx, name)))
        .collect();
    let mut launchers: Vec<(&str, Vec<&str>)> = names
        .iter()
        .zip(kinds)
        .map(|(n, k)| (*n, k.to_vec()))
        .collect();
    entries.sort();
    launchers.sort();
    if entries == launchers {
        return vectors_aligned(file.name, &ptx, names, vector_align);
    }
    Err(format!(
        "kernels/{}: the launchers {launchers:?} differ from the PTX's entries {entries:?}",
        file.name
    )
    .into())
}

/// A kernel whose PTX loads or stores global memory 8 or 16 bytes at a time (`ld.global.v4.u32`,
/// `st.global.v2.f32`, `cp.async` of 16 bytes...) faults on a buffer that does not start on such
/// a boundary, which a view at an odd offset does not. Each access must be no wider than what
/// the launcher guarantees: its contract's `aligned(buffer, bytes)` clauses, or its buffers'
/// CUDA vector types (a `float2` buffer's elements lie on 8-byte boundaries).
fn vectors_aligned(
    file: &str,
    ptx: &str,
    names: &[&str],
    vector_align: &[u32],
) -> Result<Completion, Failed> {
    let mut unsound = Vec::new();
    for (name, &align) in names.iter().zip(vector_align) {
        let widest = entry_body(ptx, name).map_or(0, |body| {
            body.lines().filter_map(vector_width).max().unwrap_or(0)
        });
        if widest > align {
            unsound.push(format!(
                "{name} ({widest}-byte accesses, {align} guaranteed)"
            ));
        }
    }
    match unsound.is_empty() {
        true => Ok(Completion::Completed),
        false => Err(format!(
            "kernels/{file}: {} load or store global memory as vectors wider than their \
             buffers are known to be aligned: give their contracts `aligned(buffer, bytes)`",
            unsound.join(", ")
        )
        .into()),
    }
}

/// The width in bytes of a global vector load or store (`ld.global.nc.v4.u32` is 16), or of a
/// `cp.async` from global memory, on one line of PTX.
fn vector_width(line: &str) -> Option<u32> {
    let line = line.trim();
    if line.starts_with("cp.async.") && line.contains(".shared.global") {
        let size = line.trim_end_matches(';').rsplit(',').next()?.trim();
        return size.parse().ok();
    }
    if !(line.starts_with("ld.global") || line.starts_with("st.global")) {
        return None;
    }
    let op = line.split_whitespace().next()?;
    let mut parts = op.split('.');
    let lanes: u32 = parts.find_map(|p| p.strip_prefix('v')?.parse().ok())?;
    let bits: u32 = op.rsplit('.').next()?[1..].parse().ok()?;
    Some(lanes * bits / 8)
}

/// The PTX of entry `name`, from its `.entry` to the next one.
fn entry_body<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let start = ptx.find(&format!(".entry {name}("))?;
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1);
    Some(&rest[..end])
}

/// The kinds of an entry's `.param`s: `.u64`, `.s64` and `.b64` are `b64`, and so on down to
/// `b8`; `.f32` and `.f64` stay.
fn ptx_params<'a>(ptx: &'a str, name: &str) -> Vec<&'a str> {
    let Some(start) = ptx.find(&format!(".entry {name}(")) else {
        return Vec::new();
    };
    let list = &ptx[start..];
    let list = &list[..list.find(')').unwrap_or(list.len())];
    list.lines()
        .filter_map(|l| l.trim().strip_prefix(".param ."))
        .map(|rest| match rest.split_whitespace().next().unwrap_or("") {
            // `.param .align 64 .b8 name[128]`: a tensor map's bytes
            "align" if rest.contains(".b8 ") && rest.trim_end_matches(',').ends_with("[128]") => {
                "b8[128]"
            }
            "f32" => "f32",
            "f64" => "f64",
            t if t.ends_with("64") => "b64",
            t if t.ends_with("32") => "b32",
            t if t.ends_with('8') => "b8",
            _ => "?",
        })
        .collect()
}

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

    let files_listed = files.clone();
    let mut trials = Vec::new();
    for file in files {
        let source: &'static str = std::fs::read_to_string(dir.join(&file))
            .expect("readable kernel")
            .leak();
        let name: &'static str = file.leak();
        for arch in archs_for(source) {
            trials.push(Trial::ignorable_test(
                format!("kernel::{name}::{arch}"),
                move || check_file(KernelFile { name, source }, arch),
            ));
        }
    }
    let listed: Vec<&str> = launchers::FILES.iter().map(|f| f.0).collect();
    let every_file = files_listed.clone();
    trials.push(Trial::test(
        "launchers::every-kernel-file-has-them",
        move || match listed == every_file.iter().map(String::as_str).collect::<Vec<_>>() {
            true => Ok(()),
            false => Err(format!(
                "the launchers were generated for {listed:?}, but kernels/ holds {every_file:?}: \
                 a file added since this test was built appears after `touch crates/examples/tests/kernels.rs`"
            )
            .into()),
        },
    ));
    for &(file, names, kinds, vector_align, _) in launchers::FILES {
        let source: &'static str = std::fs::read_to_string(dir.join(file))
            .expect("readable kernel")
            .leak();
        trials.push(Trial::ignorable_test(
            format!("launchers::{file}::match-the-ptx"),
            move || {
                check_launchers(
                    KernelFile { name: file, source },
                    names,
                    kinds,
                    vector_align,
                )
            },
        ));
    }
    // A fork of another chapter than 4 has neither the program nor the kernel file.
    if let Some(ptx) = option_env!("CARGO_BIN_EXE_ptx") {
        trials.push(Trial::ignorable_test("ptx::prints-one-kernel", move || {
            ptx_program_prints_a_kernel(ptx)
        }));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    protocol::report_skipped(conclusion.num_ignored, "kernel checks");
    conclusion.exit();
}

/// `cargo run --bin ptx -- ch04-cpp-tour.cu lengths`, the command chapter 4 gives, prints that
/// kernel's PTX, which holds the vector load the page points at; without NVRTC it says so in
/// one sentence with the skip status.
fn ptx_program_prints_a_kernel(program: &str) -> Result<Completion, Failed> {
    let out = std::process::Command::new(program)
        .args(["ch04-cpp-tour.cu", "lengths"])
        .output()
        .map_err(|e| format!("cannot run ptx: {e}"))?;
    let (printed, said) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    if !nvrtc_present() {
        if out.status.code() != Some(protocol::EXIT_NO_GPU) || said.lines().count() != 1 {
            return Err(format!("without NVRTC, ptx should say so in one line: {said}").into());
        }
        let why = Missing::Nvrtc.skip("libnvrtc.so.13 not found; the ptx program says so")?;
        return Ok(Completion::ignored_with(why));
    }
    let body = printed.trim();
    if !out.status.success()
        || !body.starts_with(".entry lengths(")
        || !body.ends_with('}')
        || !body.contains("ld.global.v2.f32")
        || body.contains(".entry square_wide(")
    {
        return Err(format!("ptx printed, for lengths alone:\n{printed}{said}").into());
    }
    Ok(Completion::Completed)
}
