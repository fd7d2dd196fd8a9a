//! Finding the GPU without panicking when there is none. A GPU program imports what it needs
//! from here; the other helpers live in their own modules and are re-exported:
//! [`crate::exit`] (stopping with one sentence), [`crate::sanitizer`] (compute-sanitizer runs),
//! [`crate::poison`] (poisoned buffers), [`crate::machine`] (naming the GPU) and
//! [`crate::memory`] (refusing a problem too large for the card).

use std::sync::Arc;

use cudarc::driver::{CudaContext, DriverError, sys};

pub use crate::exit::OrExit;
pub use crate::machine::describe_gpu as describe;
pub use crate::memory::ensure_memory;
pub use crate::poison::alloc_poisoned;
pub use crate::sanitizer::{problem_size, sanitizing};
pub use protocol::{
    EXIT_CUDA_FAILED, EXIT_NO_CLUSTERS, EXIT_NO_GPU, EXIT_NOT_HOPPER, EXIT_OLDER_GPU,
};

/// Why the first GPU cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum NoGpu {
    /// This machine has none: no NVIDIA driver, or a driver that finds no device. The words
    /// complete `this program needs an NVIDIA GPU, but ...`. A program is skipped
    /// ([`EXIT_NO_GPU`]).
    Absent(String),
    /// A GPU and its driver are here, but the driver could not open the GPU (a driver too old,
    /// a device busy in exclusive-process mode, ...). A failure ([`EXIT_CUDA_FAILED`]), never a
    /// skip.
    Failed {
        /// The driver's error, `CUDA_ERROR_DEVICE_UNAVAILABLE`.
        error: String,
        /// The driver's description of it.
        description: String,
    },
}

impl NoGpu {
    /// The sentence a program stops with, without `Error: `.
    pub fn sentence(&self) -> String {
        match self {
            NoGpu::Absent(why) => format!("this program needs an NVIDIA GPU, but {why}."),
            NoGpu::Failed { .. } => format!("{self}."),
        }
    }

    /// The exit status a program stops with.
    pub fn exit_status(&self) -> i32 {
        match self {
            NoGpu::Absent(_) => EXIT_NO_GPU,
            NoGpu::Failed { .. } => EXIT_CUDA_FAILED,
        }
    }
}

impl std::fmt::Display for NoGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoGpu::Absent(why) => f.write_str(why),
            NoGpu::Failed { error, description } => write!(
                f,
                "the NVIDIA driver could not open GPU 0 ({error}): {description}"
            ),
        }
    }
}

/// What an error of the driver while opening GPU 0 means. Only two mean that this machine has
/// no GPU: a driver that finds no device (`CUDA_ERROR_NO_DEVICE`), and the CUDA toolkit's stub
/// of libcuda in place of a driver (`CUDA_ERROR_STUB_LIBRARY`, a machine without one). Every
/// other error is a GPU that failed: a device busy in exclusive-process mode
/// (`CUDA_ERROR_DEVICE_UNAVAILABLE`), a driver that does not match the kernel module
/// (`CUDA_ERROR_SYSTEM_DRIVER_MISMATCH`), ... `description` is the driver's text for the error.
pub fn classify_open_error(error: sys::CUresult, description: &str) -> NoGpu {
    use sys::CUresult::*;
    let name = format!("{error:?}");
    match error {
        CUDA_ERROR_NO_DEVICE => NoGpu::Absent(format!("the NVIDIA driver found no GPU ({name})")),
        CUDA_ERROR_STUB_LIBRARY => NoGpu::Absent(format!(
            "the libcuda found is the CUDA toolkit's stub, not an NVIDIA driver ({name})"
        )),
        _ => NoGpu::Failed {
            error: name,
            description: description.trim().trim_end_matches('.').to_string(),
        },
    }
}

fn open_error(e: DriverError) -> NoGpu {
    let description = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "the driver gives no description".into());
    classify_open_error(e.0, &description)
}

/// The first GPU, or why there is none to use.
pub fn find_gpu() -> Result<Arc<CudaContext>, NoGpu> {
    // cudarc panics when it cannot load libcuda, so look for the library first.
    // SAFETY: only tries to load the library; nothing is called through it.
    if !unsafe { sys::is_culib_present() } {
        return Err(NoGpu::Absent(
            "no NVIDIA driver (libcuda) is installed".into(),
        ));
    }
    CudaContext::new(0).map_err(open_error)
}

/// The first GPU. Without one, print one sentence and exit with [`EXIT_NO_GPU`]; when the
/// driver cannot open it, with [`EXIT_CUDA_FAILED`], naming the driver's error.
pub fn gpu_or_exit() -> Arc<CudaContext> {
    find_gpu().unwrap_or_else(|why| crate::exit::fail(why.exit_status(), &why.sentence()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sys::CUresult::*;

    #[test]
    fn only_a_machine_without_a_gpu_is_skipped() {
        let absent = classify_open_error(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device");
        assert_eq!(absent.exit_status(), EXIT_NO_GPU);
        assert_eq!(
            absent.sentence(),
            "this program needs an NVIDIA GPU, but the NVIDIA driver found no GPU \
             (CUDA_ERROR_NO_DEVICE)."
        );
        let stub = classify_open_error(CUDA_ERROR_STUB_LIBRARY, "stub");
        assert_eq!(stub.exit_status(), EXIT_NO_GPU);
        for error in [
            CUDA_ERROR_DEVICE_UNAVAILABLE,
            CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
            CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
            CUDA_ERROR_SYSTEM_NOT_READY,
            CUDA_ERROR_INVALID_DEVICE,
            CUDA_ERROR_OUT_OF_MEMORY,
            CUDA_ERROR_NOT_INITIALIZED,
            CUDA_ERROR_UNKNOWN,
        ] {
            let failed = classify_open_error(error, "what the driver says.");
            assert_eq!(failed.exit_status(), EXIT_CUDA_FAILED, "{error:?}");
            assert_eq!(
                failed.sentence(),
                format!(
                    "the NVIDIA driver could not open GPU 0 ({error:?}): what the driver says."
                )
            );
        }
    }

    #[test]
    fn a_busy_device_is_named_in_one_sentence() {
        let busy = classify_open_error(
            CUDA_ERROR_DEVICE_UNAVAILABLE,
            "CUDA-capable device(s) is/are busy or unavailable",
        );
        assert_eq!(
            busy.sentence(),
            "the NVIDIA driver could not open GPU 0 (CUDA_ERROR_DEVICE_UNAVAILABLE): \
             CUDA-capable device(s) is/are busy or unavailable."
        );
    }
}

/// Stop with one sentence and the skip status [`EXIT_OLDER_GPU`] where `file` says it needs a
/// newer GPU than this one (its `// requires: sm_XY` line).
/// A file built for `sm_90a` stops with [`EXIT_NOT_HOPPER`] on any GPU but a Hopper.
pub fn require_gpu_for(ctx: &CudaContext, file: &crate::kernel::KernelFile) {
    if let Some(not_hopper) = crate::kernel::not_hopper_for(ctx, file) {
        crate::exit::fail(EXIT_NOT_HOPPER, &format!("{not_hopper}."));
    }
    if let Some(too_old) = crate::kernel::too_old_for(ctx, file) {
        crate::exit::fail(EXIT_OLDER_GPU, &format!("{too_old}."));
    }
}

/// Stop, unless the GPU launches thread-block clusters: on compute capability below 9.0 with
/// one sentence and the skip status [`EXIT_NO_CLUSTERS`]; on 9.0 or newer, where clusters must
/// work, a GPU that says it has none is a failure.
pub fn require_clusters(ctx: &CudaContext) {
    let (major, minor) = ctx
        .compute_capability()
        .or_exit("read the compute capability");
    let launches = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
        .or_exit("ask whether the GPU launches clusters");
    match (major >= 9, launches != 0) {
        (_, true) => {}
        (false, false) => crate::exit::fail(
            EXIT_NO_CLUSTERS,
            &format!(
                "no clusters: thread-block clusters need a GPU of compute capability 9.0 or newer, and this one's is {major}.{minor}."
            ),
        ),
        (true, false) => crate::exit::fail(
            EXIT_CUDA_FAILED,
            &format!(
                "this GPU of compute capability {major}.{minor} says it cannot launch clusters."
            ),
        ),
    }
}
