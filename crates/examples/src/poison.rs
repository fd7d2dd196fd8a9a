//! Device buffers that start out wrong on purpose.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut, DeviceRepr};

use crate::exit::OrExit;

/// A device buffer of `len` elements with every byte set to `0xFF`: NaN for floats, −1 for
/// signed integers, the maximum for unsigned ones. An element a kernel forgot to write then
/// cannot pass for a result.
pub fn alloc_poisoned<T: DeviceRepr>(stream: &Arc<CudaStream>, len: usize) -> CudaSlice<T> {
    // SAFETY: the memory is uninitialised only until the memset below, queued on the same
    // stream before anything else can read it.
    let mut buf = unsafe { stream.alloc::<T>(len) }.or_exit("allocate GPU memory");
    let bytes = buf.num_bytes();
    let (ptr, record) = buf.device_ptr_mut(stream);
    // SAFETY: `ptr` and `bytes` are the buffer's own, and `record` keeps it alive until the
    // stream has run the memset.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, stream.cu_stream()) }
        .or_exit("poison a GPU buffer");
    drop(record);
    buf
}
