//! Finding the GPU without panicking when there is none. A GPU program imports what it needs
//! from here; the other helpers live in their own modules and are re-exported:
//! [`crate::exit`] (stopping with one sentence), [`crate::sanitizer`] (compute-sanitizer runs),
//! [`crate::poison`] (poisoned buffers) and [`crate::machine`] (naming the GPU).

use std::sync::Arc;

use cudarc::driver::{CudaContext, sys};

pub use crate::exit::OrExit;
pub use crate::machine::describe_gpu as describe;
pub use crate::poison::alloc_poisoned;
pub use crate::sanitizer::{problem_size, sanitizing};
pub use protocol::EXIT_NO_GPU;

/// The first GPU, or the reason there is none.
pub fn find_gpu() -> Result<Arc<CudaContext>, String> {
    // cudarc panics when it cannot load libcuda, so look for the library first.
    // SAFETY: only tries to load the library; nothing is called through it.
    if !unsafe { sys::is_culib_present() } {
        return Err("no NVIDIA driver (libcuda) is installed".into());
    }
    CudaContext::new(0).map_err(|e| format!("the NVIDIA driver found no usable GPU ({e})"))
}

/// The first GPU; without one, print one sentence and exit with [`EXIT_NO_GPU`].
pub fn gpu_or_exit() -> Arc<CudaContext> {
    find_gpu().unwrap_or_else(|why| {
        crate::exit::fail(
            EXIT_NO_GPU,
            &format!("this program needs an NVIDIA GPU, but {why}."),
        )
    })
}
