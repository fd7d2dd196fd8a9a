//! How a program stops when it cannot go on: one line on stderr, `Error: ` and a sentence, and
//! an exit status that tells the tests what happened. The numbers live in the `protocol` crate,
//! which the checker reads too:
//!
//! | status | meaning | who exits with it |
//! | ---: | --- | --- |
//! | 0 | the program ran; its verdict lines say whether its results are right | |
//! | 1 ([`EXIT_CUDA_FAILED`]) | a CUDA call failed, a kernel did not compile, or the driver could not open the GPU | [`OrExit`], [`crate::kernel`], [`crate::gpu::gpu_or_exit`] |
//! | 2 ([`EXIT_BAD_ARGUMENT`]) | a bad argument | [`crate::cli`] |
//! | 77 ([`EXIT_NO_GPU`]) | no GPU on this machine (no libcuda, or `CUDA_ERROR_NO_DEVICE`): the tests count the program as skipped, the GPU check as failed | [`crate::gpu::gpu_or_exit`] |
//! | 78 ([`EXIT_TOO_LITTLE_MEMORY`]) | the problem needs more GPU memory than is free: a skip named `too little GPU memory` | [`crate::memory::ensure_memory`] |
//! | 79 ([`EXIT_TOO_FEW_GPUS`]) | the run asks for more GPUs than there are: a skip named `too few GPUs` | `multi_gpu` |
//! | 80 ([`EXIT_NO_CLUSTERS`]) | the GPU has no thread-block clusters (compute capability below 9.0): a skip named `no clusters` | [`crate::gpu::require_clusters`] |
//! | 81 ([`EXIT_OLDER_GPU`]) | the GPU's compute capability is below what the program needs: a skip named `too old a GPU` | [`crate::gpu::require_gpu_for`] |
//! | 82 ([`EXIT_NOT_HOPPER`]) | the kernels are built for `sm_90a`, which only compute capability 9.0 runs: a skip named `not a Hopper GPU` | [`crate::gpu::require_gpu_for`] |
//!
//! A GPU that is there but that the driver cannot open (a driver too old, a device busy in
//! exclusive-process mode) is status 1, with the driver's error named, never a skip.
//!
//! A kernel that faults (an illegal address, a failed `assert`) does not fail its launch: the
//! fault surfaces at the next copy or synchronisation and leaves the context unusable. So
//! [`OrExit::or_exit_launching`] records the name of each kernel it launches, and a later call
//! that fails with such an error names that kernel and the compute-sanitizer command that finds
//! the faulting access.

use std::sync::Mutex;

use cudarc::driver::{CudaFunction, sys};
pub use protocol::{
    EXIT_BAD_ARGUMENT, EXIT_CUDA_FAILED, EXIT_NO_CLUSTERS, EXIT_NO_GPU, EXIT_NOT_HOPPER,
    EXIT_OLDER_GPU, EXIT_TOO_FEW_GPUS, EXIT_TOO_LITTLE_MEMORY,
};

/// Print `Error: ` and `message` (one sentence) on stderr and exit with `status`.
pub fn fail(status: i32, message: &str) -> ! {
    eprintln!("Error: {message}");
    std::process::exit(status)
}

/// Exit with one sentence when a CUDA call fails: readers should never see a backtrace.
pub trait OrExit<T> {
    /// The value, or exit with [`EXIT_CUDA_FAILED`] saying that the program could not `what`.
    fn or_exit(self, what: &str) -> T;

    /// [`OrExit::or_exit`] for the result of launching `kernel`, which it remembers as the
    /// last kernel launched.
    fn or_exit_launching(self, kernel: &impl crate::launch::Launcher) -> T;
}

impl<T, E: std::fmt::Display> OrExit<T> for Result<T, E> {
    fn or_exit(self, what: &str) -> T {
        self.unwrap_or_else(|e| fail_cuda(&format!("could not {what}"), &e.to_string()))
    }

    fn or_exit_launching(self, kernel: &impl crate::launch::Launcher) -> T {
        let name = kernel_name(kernel.function());
        match self {
            Ok(value) => {
                *LAST_KERNEL.lock().unwrap_or_else(|e| e.into_inner()) = Some(name);
                value
            }
            Err(e) => fail_cuda(&format!("could not launch {name}"), &e.to_string()),
        }
    }
}

/// The name of the last kernel launched through [`OrExit::or_exit_launching`].
static LAST_KERNEL: Mutex<Option<String>> = Mutex::new(None);

fn kernel_name(kernel: &CudaFunction) -> String {
    let mut name = std::ptr::null();
    // SAFETY: the driver writes a pointer to a name it owns as long as the module is loaded,
    // which `kernel` keeps; the name is copied at once.
    let found = unsafe { sys::cuFuncGetName(&mut name, kernel.cu_function()) };
    if found != sys::CUresult::CUDA_SUCCESS || name.is_null() {
        return "a kernel whose name the driver did not give".into();
    }
    // SAFETY: checked non-null above; the driver's name is a NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

fn fail_cuda(failed: &str, error: &str) -> ! {
    let last = LAST_KERNEL
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let rerun = std::env::args().collect::<Vec<_>>().join(" ");
    let under_sanitizer = crate::sanitizer::sanitizing();
    fail(
        EXIT_CUDA_FAILED,
        &cuda_failure(failed, error, last.as_deref(), &rerun, under_sanitizer),
    )
}

/// Driver errors that mean a kernel faulted while it ran (rather than that this call was
/// wrong): after one of them every later call on the context fails with it too.
const KERNEL_FAULTS: [&str; 9] = [
    "CUDA_ERROR_ILLEGAL_ADDRESS",
    "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_ASSERT",
    "CUDA_ERROR_LAUNCH_TIMEOUT",
];

/// The sentence for a failed CUDA call: `failed` (`could not copy from the GPU`) and the
/// error; for a kernel fault, also the last kernel launched and how to find the fault.
fn cuda_failure(
    failed: &str,
    error: &str,
    last_kernel: Option<&str>,
    rerun: &str,
    under_sanitizer: bool,
) -> String {
    let is_fault = error
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| KERNEL_FAULTS.contains(&word));
    if !is_fault {
        return format!("{failed}: {error}.");
    }
    let kernel = match last_kernel {
        Some(name) => format!("the last kernel launched, {name},"),
        None => "a kernel".into(),
    };
    let next = if under_sanitizer {
        "compute-sanitizer's report above names the faulting access".to_string()
    } else {
        format!("to find the faulting access, run `compute-sanitizer {rerun}`")
    };
    format!("{failed}: {error}, because {kernel} faulted on the GPU; {next}.")
}

#[cfg(test)]
mod tests {
    use super::cuda_failure;

    // How cudarc displays a driver error (displaying a real one needs libcuda).
    const FAULT: &str =
        r#"DriverError(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")"#;

    #[test]
    fn a_kernel_fault_names_the_last_kernel_and_the_sanitizer_command() {
        let rerun = "target/release/adder_gpu 1000";
        let said = cuda_failure(
            "could not copy from the GPU",
            FAULT,
            Some("adder"),
            rerun,
            false,
        );
        assert_eq!(
            said,
            format!(
                "could not copy from the GPU: {FAULT}, because the last kernel launched, adder, \
                 faulted on the GPU; to find the faulting access, run \
                 `compute-sanitizer target/release/adder_gpu 1000`."
            )
        );
        let unnamed = cuda_failure("could not wait for the GPU", FAULT, None, rerun, true);
        assert!(unnamed.contains("because a kernel faulted"), "{unnamed}");
        assert!(unnamed.ends_with("compute-sanitizer's report above names the faulting access."));
    }

    #[test]
    fn other_failures_are_one_plain_sentence() {
        let oom = r#"DriverError(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")"#;
        let said = cuda_failure(
            "could not allocate GPU memory",
            oom,
            Some("adder"),
            "x",
            false,
        );
        assert_eq!(said, format!("could not allocate GPU memory: {oom}."));
        // A name that merely contains a fault's name is not that fault.
        let other = "CUDA_ERROR_LAUNCH_FAILED_TOO_SOON";
        assert_eq!(
            cuda_failure("could not x", other, None, "x", false),
            "could not x: CUDA_ERROR_LAUNCH_FAILED_TOO_SOON."
        );
    }
}
