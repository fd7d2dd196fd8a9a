// A copy into pinned memory runs after `memcpy_dtoh` returns. The host's view of the buffer,
// `as_slice`, borrows it, so no copy can be queued into it while the view is alive: the view
// cannot change under the host's feet.
use cudarc::driver::{CudaContext, DriverError};

fn main() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<u32>(1024)?;
    // SAFETY: u32 is valid for any bits.
    let mut pinned = unsafe { ctx.alloc_pinned::<u32>(1024)? };
    let seen = pinned.as_slice()?;
    stream.memcpy_dtoh(&dev, &mut pinned)?;
    println!("{}", seen[0]);
    Ok(())
}
