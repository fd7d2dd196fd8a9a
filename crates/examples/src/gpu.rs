//! Finding the GPU without panicking when there is none.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr, sys};

pub use protocol::EXIT_NO_GPU;

/// The first GPU, or the reason there is none.
pub fn find_gpu() -> Result<Arc<CudaContext>, String> {
    // cudarc panics when it cannot load libcuda, so look for the library first.
    if !unsafe { sys::is_culib_present() } {
        return Err("no NVIDIA driver (libcuda) is installed".into());
    }
    CudaContext::new(0).map_err(|e| format!("the NVIDIA driver found no usable GPU ({e})"))
}

/// The first GPU; without one, print one sentence and exit with [`EXIT_NO_GPU`].
pub fn gpu_or_exit() -> Arc<CudaContext> {
    find_gpu().unwrap_or_else(|why| {
        eprintln!("This program needs an NVIDIA GPU, but {why}; skipping it.");
        std::process::exit(EXIT_NO_GPU)
    })
}

/// Whether the program runs under the GPU check's `--sanitize` mode (compute-sanitizer), where
/// every kernel runs 10-100 times slower and timings mean nothing. The timing helpers then run
/// the work once, and a program may shrink a problem whose size is not what its kernels test.
pub fn sanitizing() -> bool {
    std::env::var_os(protocol::SANITIZE_VAR).is_some()
}

/// `full`, or `under_sanitizer` when [`sanitizing`]: for a problem whose size is not what its
/// kernels test, so that compute-sanitizer, which checks every access, finishes in seconds.
pub fn problem_size(full: usize, under_sanitizer: usize) -> usize {
    if sanitizing() { under_sanitizer } else { full }
}

/// One line naming the GPU, e.g. `GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)`.
pub fn describe(ctx: &CudaContext) -> String {
    let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
    let (major, minor) = ctx.compute_capability().unwrap_or((0, 0));
    let sms = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .unwrap_or(0);
    format!("GPU: {name} (compute capability {major}.{minor}, {sms} SMs)")
}

/// Exit with one sentence when a CUDA call fails: readers should never see a backtrace.
pub trait OrExit<T> {
    fn or_exit(self, what: &str) -> T;
}

impl<T, E: std::fmt::Display> OrExit<T> for Result<T, E> {
    fn or_exit(self, what: &str) -> T {
        self.unwrap_or_else(|e| {
            eprintln!("Could not {what}: {e}.");
            std::process::exit(protocol::EXIT_CUDA_FAILED)
        })
    }
}

/// A device buffer of `len` elements with every byte set to `0xFF`: NaN for floats, −1 for
/// signed integers, the maximum for unsigned ones. An element a kernel forgot to write then
/// cannot pass for a result.
pub fn alloc_poisoned<T: DeviceRepr>(stream: &Arc<CudaStream>, len: usize) -> CudaSlice<T> {
    let mut buf = unsafe { stream.alloc::<T>(len) }.or_exit("allocate GPU memory");
    let bytes = buf.num_bytes();
    let (ptr, record) = buf.device_ptr_mut(stream);
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, stream.cu_stream()) }
        .or_exit("poison a GPU buffer");
    drop(record);
    buf
}
