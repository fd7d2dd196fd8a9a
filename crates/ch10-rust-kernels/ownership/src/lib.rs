//! What the ownership programs share: finding the GPU (or saying in one sentence that there is
//! none), compiling their two kernels with NVRTC, the command line (`--help` and nothing
//! else), and printing a time and a verdict the way the course's other programs do.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaFunction, DriverError, LaunchConfig, sys};
pub use protocol::{EXIT_BAD_ARGUMENT, EXIT_CUDA_FAILED, EXIT_NO_GPU};

/// The kernels, compiled at run time.
pub const KERNELS: &str = include_str!("../kernels/ownership.cu");

/// Every buffer's length: 4 MiB of `u32`, enough that a copy of it takes a visible time.
pub const N: usize = 1 << 20;

/// How long a kernel keeps its stream busy before it writes or reads: far longer than any call
/// the programs time on the host, so that a wait and a call that did not wait differ plainly.
pub const BUSY_NS: i64 = 20_000_000;

/// Print `Error: ` and one sentence on stderr, and exit with `status`.
pub fn fail(status: i32, message: &str) -> ! {
    eprintln!("Error: {message}");
    std::process::exit(status)
}

/// Exit with one sentence when a CUDA call fails.
pub trait OrExit<T> {
    fn or_exit(self, what: &str) -> T;
}

impl<T, E: std::fmt::Debug> OrExit<T> for Result<T, E> {
    fn or_exit(self, what: &str) -> T {
        self.unwrap_or_else(|e| fail(EXIT_CUDA_FAILED, &format!("could not {what}: {e:?}.")))
    }
}

/// Reads the command line: `--help` prints `about` and exits 0; any other argument is refused.
pub fn parse_args(about: &str) {
    let program = std::env::args().next().unwrap_or_default();
    let name = std::path::Path::new(&program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().into_owned());
    match std::env::args().nth(1).as_deref() {
        None => {}
        Some("--help" | "-h") => {
            println!("Usage: {name}\n\n{about}\nIt takes no arguments.");
            std::process::exit(0)
        }
        Some(other) => fail(
            EXIT_BAD_ARGUMENT,
            &format!("this program takes no arguments, not `{other}`; `--help` says what it does"),
        ),
    }
}

/// The first GPU. Without one, one sentence and the course's skip status, 77.
pub fn gpu_or_exit() -> Arc<CudaContext> {
    // cudarc panics when it cannot load libcuda, so look for the library first.
    // SAFETY: only tries to load the library; nothing is called through it.
    if !unsafe { sys::is_culib_present() } {
        fail(
            EXIT_NO_GPU,
            "this program needs an NVIDIA GPU, but no NVIDIA driver (libcuda) is installed.",
        );
    }
    CudaContext::new(0).unwrap_or_else(|e: DriverError| match e.0 {
        sys::CUresult::CUDA_ERROR_NO_DEVICE | sys::CUresult::CUDA_ERROR_STUB_LIBRARY => fail(
            EXIT_NO_GPU,
            &format!(
                "this program needs an NVIDIA GPU, but the driver found none ({:?}).",
                e.0
            ),
        ),
        other => fail(
            EXIT_CUDA_FAILED,
            &format!("the NVIDIA driver could not open GPU 0 ({other:?})."),
        ),
    })
}

/// `GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)`, as the course's programs print it.
pub fn describe(ctx: &CudaContext) -> String {
    let name = ctx.name().or_exit("read the GPU's name");
    let (major, minor) = ctx
        .compute_capability()
        .or_exit("read the compute capability");
    let sms = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .or_exit("read the number of SMs");
    format!("GPU: {name} (compute capability {major}.{minor}, {sms} SMs)")
}

/// The two kernels of `kernels/ownership.cu`.
pub struct Kernels {
    /// `(out, n, value, wait_ns)`: waits, then writes `value` to `out[0..n]`.
    pub wait_then_fill: CudaFunction,
    /// `(in, out, n, wait_ns)`: waits, then copies `in[0..n]` to `out[0..n]`.
    pub wait_then_copy: CudaFunction,
}

/// Compile the kernels for this GPU with NVRTC and load them.
pub fn load_kernels(ctx: &Arc<CudaContext>) -> Kernels {
    // SAFETY: only tries to load the library; nothing is called through it.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        fail(
            EXIT_CUDA_FAILED,
            "NVRTC (libnvrtc), which compiles the kernels, was not found.",
        );
    }
    let (major, minor) = ctx
        .compute_capability()
        .or_exit("read the compute capability");
    // NVRTC's option wants a `&'static str`; the program compiles once.
    let arch: &'static str = format!("sm_{major}{minor}").leak();
    let options = cudarc::nvrtc::CompileOptions {
        arch: Some(arch),
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(KERNELS, options).unwrap_or_else(|e| {
        fail(
            EXIT_CUDA_FAILED,
            &format!("the kernels did not compile: {e}"),
        )
    });
    let module = ctx.load_module(ptx).or_exit("load the kernels");
    Kernels {
        wait_then_fill: module
            .load_function("wait_then_fill")
            .or_exit("find wait_then_fill"),
        wait_then_copy: module
            .load_function("wait_then_copy")
            .or_exit("find wait_then_copy"),
    }
}

/// A small grid that loops over its array: a waiting kernel occupies a few SMs, not the GPU,
/// so that a kernel on another stream can run beside it.
pub fn small_grid() -> LaunchConfig {
    LaunchConfig {
        grid_dim: (32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Milliseconds since `start`, by the host's clock.
pub fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// A duration with three significant digits and a unit: `812 ns`, `4.31 µs`, `20.1 ms`.
pub fn fmt_ms(ms: f64) -> String {
    let (value, unit) = match ms {
        ms if ms >= 1e3 => (ms / 1e3, "s"),
        ms if ms >= 1.0 => (ms, "ms"),
        ms if ms >= 1e-3 => (ms * 1e3, "µs"),
        ms => (ms * 1e6, "ns"),
    };
    let digits = match value {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{value:.digits$} {unit}")
}

/// `"yes"` or `"NO"`, for lines such as `the GPU holds the 1s: yes`.
pub fn verdict(ok: bool) -> &'static str {
    if ok { "yes" } else { "NO" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_three_digits_and_a_unit() {
        assert_eq!(fmt_ms(20.08), "20.1 ms");
        assert_eq!(fmt_ms(0.00431), "4.31 µs");
        assert_eq!(fmt_ms(0.000812), "812 ns");
        assert_eq!(fmt_ms(1520.0), "1.52 s");
    }
}
