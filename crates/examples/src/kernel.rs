//! Compiling the CUDA C++ files in `kernels/` with NVRTC and loading them on the GPU.
//!
//! The kernel text is embedded in each program when it is built (see [`kernel_file!`]), so a
//! program copied to another machine needs no source tree. With `COURSE_KERNELS=DIR` set, a
//! file of that name in DIR is compiled instead: edit a kernel and run again without a rebuild
//! (the GPU check runs its kernel mutations this way).

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx, compile_ptx_with_opts};

/// A file from `kernels/` and its text.
#[derive(Clone, Copy, Debug)]
pub struct KernelFile {
    pub name: &'static str,
    pub source: &'static str,
}

/// Embeds `kernels/<file>` in the program: `kernel_file!("ch04-adder.cu")`.
#[macro_export]
macro_rules! kernel_file {
    ($file:literal) => {
        $crate::kernel::KernelFile {
            name: $file,
            source: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../kernels/",
                $file
            )),
        }
    };
}

/// Whether NVRTC's library can be loaded (cudarc panics if asked to use it when it cannot).
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to load the library; nothing is called through it.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Extra header folders: `COURSE_CUDA_INCLUDE` (separated by `:`), else the CUDA toolkit's
/// (CUDA 13 keeps libcu++, which `<cooperative_groups.h>` needs, under `include/cccl`).
fn include_paths() -> Vec<String> {
    if let Ok(list) = std::env::var("COURSE_CUDA_INCLUDE") {
        return list
            .split(':')
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
    }
    ["/usr/local/cuda/include", "/usr/local/cuda/include/cccl"]
        .into_iter()
        .filter(|p| std::path::Path::new(p).is_dir())
        .map(String::from)
        .collect()
}

/// Compile `file` to PTX for `arch` (such as `sm_90`). On failure the error holds NVRTC's log.
pub fn compile(file: &KernelFile, arch: &str, fast_math: bool) -> Result<Ptx, String> {
    compile_with(file, arch, fast_math, &[])
}

/// [`compile`] with more NVRTC options after the usual ones, such as `--fmad=false`.
pub fn compile_with(
    file: &KernelFile,
    arch: &str,
    fast_math: bool,
    extra: &[&str],
) -> Result<Ptx, String> {
    if !nvrtc_present() {
        return Err("NVRTC (libnvrtc.so.13) could not be loaded".into());
    }
    let mut options = vec![format!("--gpu-architecture={arch}"), "--std=c++17".into()];
    if fast_math {
        // cudarc's `use_fast_math: Some(true)` only sets --fmad, so pass the real flag.
        options.push("--use_fast_math".into());
    }
    options.extend(extra.iter().map(|o| o.to_string()));
    let opts = CompileOptions {
        options,
        include_paths: include_paths(),
        name: Some(file.name.into()),
        ..Default::default()
    };
    compile_ptx_with_opts(source_of(file)?, opts).map_err(|e| match e {
        CompileError::CompileError { log, .. } => format!(
            "kernels/{} did not compile for {arch}; NVRTC said:\n{}",
            file.name,
            log.to_string_lossy().trim_end()
        ),
        other => format!(
            "kernels/{} could not be compiled for {arch}: {other}",
            file.name
        ),
    })
}

/// The text to compile: `$COURSE_KERNELS/<name>` where that file exists, else the embedded copy.
fn source_of(file: &KernelFile) -> Result<String, String> {
    source_in(file, std::env::var_os(protocol::KERNELS_VAR).as_deref())
}

fn source_in(file: &KernelFile, dir: Option<&std::ffi::OsStr>) -> Result<String, String> {
    let Some(dir) = dir else {
        return Ok(file.source.to_string());
    };
    let path = std::path::Path::new(dir).join(file.name);
    match path.is_file() {
        true => std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display())),
        false => Ok(file.source.to_string()),
    }
}

/// The `sm_XY` architecture of a GPU.
pub fn arch_of(ctx: &CudaContext) -> String {
    let (major, minor) = ctx.compute_capability().unwrap_or((7, 5));
    format!("sm_{major}{minor}")
}

/// What a kernel file's `// requires:` line names (`sm_80`, `sm_90a`), or `None` when it has
/// none: the one reader of that line.
pub fn required_arch(source: &str) -> Option<&str> {
    source
        .lines()
        .find_map(|l| l.trim().strip_prefix("// requires: "))
        .map(str::trim)
}

/// The architecture-specific target (`sm_90a`) a file requires, if it requires one: its
/// instructions (wgmma, `setmaxnreg`) run on that architecture alone.
pub fn specific_arch(source: &str) -> Option<&str> {
    required_arch(source).filter(|arch| arch.ends_with('a'))
}

/// The architecture to compile `source` for on a GPU of compute capability `have`:
/// `sm_XY`, or the file's `sm_XYa` where it requires that one and the GPU is of exactly it.
pub fn arch_for_capability(source: &str, have: (i32, i32)) -> String {
    let arch = format!("sm_{}{}", have.0, have.1);
    match specific_arch(source) {
        Some(specific) if specific == format!("{arch}a") => specific.to_string(),
        _ => arch,
    }
}

/// The architecture to compile `file` for on this GPU ([`arch_for_capability`]).
pub fn arch_for(ctx: &CudaContext, file: &KernelFile) -> String {
    arch_for_capability(file.source, ctx.compute_capability().unwrap_or((7, 5)))
}

/// The compute capability a kernel file says it needs in a line `// requires: sm_XY` (`sm_90a`
/// counts as 9.0), or `None` when it runs on every GPU the course compiles for.
pub fn required_capability(source: &str) -> Option<(i32, i32)> {
    let digits: String = required_arch(source)?
        .strip_prefix("sm_")?
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let number: i32 = digits.parse().ok()?;
    Some((number / 10, number % 10))
}

/// Why this GPU cannot run `file`, where the file's `// requires: sm_XY` asks for a higher
/// compute capability than the GPU's: one sentence that starts `too old a GPU`.
pub fn too_old_for(ctx: &CudaContext, file: &KernelFile) -> Option<String> {
    let needed = required_capability(file.source)?;
    let have = ctx.compute_capability().ok()?;
    (have < needed).then(|| {
        format!(
            "too old a GPU: kernels/{} needs compute capability {}.{} or newer, and this one's is {}.{}",
            file.name, needed.0, needed.1, have.0, have.1
        )
    })
}

/// Why this GPU cannot run `file`, where the file says `// requires: sm_90a` (Hopper's own
/// instructions, which no other architecture runs) and the GPU is not of compute capability
/// 9.0: one sentence that starts `not a Hopper GPU`.
pub fn not_hopper_for(ctx: &CudaContext, file: &KernelFile) -> Option<String> {
    specific_arch(file.source)?;
    let have = ctx.compute_capability().ok()?;
    (required_capability(file.source)? != have).then(|| {
        format!(
            "not a Hopper GPU: kernels/{} uses wgmma, the tensor memory accelerator and \
             setmaxnreg as sm_90a builds them, which run on compute capability 9.0 alone, \
             and this GPU's is {}.{}",
            file.name, have.0, have.1
        )
    })
}

/// Compile `file` for this GPU and load it; on failure print NVRTC's log and exit with status 1.
pub fn load(ctx: &Arc<CudaContext>, file: &KernelFile, fast_math: bool) -> Arc<CudaModule> {
    let ptx = compile(file, &arch_for(ctx, file), fast_math).unwrap_or_else(|log| fail(&log));
    load_ptx(ctx, file, ptx)
}

/// [`load`] with more NVRTC options, such as `-DWAIT_LIMIT_NS=100000000ull`.
pub fn load_with(
    ctx: &Arc<CudaContext>,
    file: &KernelFile,
    fast_math: bool,
    extra: &[&str],
) -> Arc<CudaModule> {
    let ptx =
        compile_with(file, &arch_for(ctx, file), fast_math, extra).unwrap_or_else(|log| fail(&log));
    load_ptx(ctx, file, ptx)
}

/// [`load`], also returning the PTX text, for a program that reads its own kernels' code.
pub fn load_with_ptx(
    ctx: &Arc<CudaContext>,
    file: &KernelFile,
    fast_math: bool,
) -> (Arc<CudaModule>, String) {
    let ptx = compile(file, &arch_for(ctx, file), fast_math).unwrap_or_else(|log| fail(&log));
    let text = ptx.to_src();
    (load_ptx(ctx, file, ptx), text)
}

fn load_ptx(ctx: &Arc<CudaContext>, file: &KernelFile, ptx: Ptx) -> Arc<CudaModule> {
    ctx.load_module(ptx).unwrap_or_else(|e| {
        fail(&format!(
            "the GPU refused the PTX of kernels/{}: {e}.",
            file.name
        ))
    })
}

/// A kernel function from a loaded module; a wrong name prints one sentence and exits.
pub fn function(module: &Arc<CudaModule>, name: &str) -> CudaFunction {
    module.load_function(name).unwrap_or_else(|e| {
        fail(&format!(
            "no kernel named `{name}` in the loaded module ({e})."
        ))
    })
}

/// Exit with one sentence unless `kernel` was compiled for blocks of exactly `threads` threads
/// (its `__launch_bounds__`): a kernel that assumes its block size must be launched with it.
pub fn require_block_size(kernel: &CudaFunction, name: &str, threads: usize) {
    let built_for = kernel
        .max_threads_per_block()
        .unwrap_or_else(|e| fail(&format!("could not read the block size of {name}: {e}.")));
    if built_for as usize != threads {
        fail(&format!(
            "{name} is built for blocks of {built_for} threads, not the {threads} it is launched with."
        ));
    }
}

/// The one way this module stops a program: `Error: ` and the message, exit status 1.
fn fail(message: &str) -> ! {
    crate::exit::fail(crate::exit::EXIT_CUDA_FAILED, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_architecture_specific_file_is_built_for_its_own_architecture_alone() {
        let hopper = "// requires: sm_90a\n";
        assert_eq!(specific_arch(hopper), Some("sm_90a"));
        assert_eq!(arch_for_capability(hopper, (9, 0)), "sm_90a");
        assert_eq!(arch_for_capability(hopper, (10, 0)), "sm_100");
        assert_eq!(specific_arch("// requires: sm_80\n"), None);
        assert_eq!(arch_for_capability("// requires: sm_80\n", (9, 0)), "sm_90");
        assert_eq!(arch_for_capability("", (8, 6)), "sm_86");
    }

    #[test]
    fn a_files_required_capability_is_read_from_its_requires_line() {
        assert_eq!(
            required_capability("// x\n// requires: sm_80\n"),
            Some((8, 0))
        );
        assert_eq!(required_capability("// requires: sm_90a\n"), Some((9, 0)));
        assert_eq!(required_capability("// requires: sm_120\n"), Some((12, 0)));
        assert_eq!(
            required_capability("extern \"C\" __global__ void k() {}\n"),
            None
        );
    }

    #[test]
    fn a_kernel_in_the_override_folder_replaces_the_embedded_one() {
        let file = KernelFile {
            name: "k.cu",
            source: "embedded",
        };
        let dir = std::env::temp_dir().join(format!("course-kernels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(source_in(&file, None).unwrap(), "embedded");
        assert_eq!(source_in(&file, Some(dir.as_os_str())).unwrap(), "embedded");
        std::fs::write(dir.join("k.cu"), "edited").unwrap();
        assert_eq!(source_in(&file, Some(dir.as_os_str())).unwrap(), "edited");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
