// Two threads, each with its own stream, both writing one buffer: each closure needs the
// buffer mutably, and only one may have it at a time. (One thread queuing the two writes one
// after the other compiles: each borrow ends when its call returns, and cudarc's events order
// the writes on the GPU.)
use cudarc::driver::{CudaContext, DriverError};

fn main() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let (a, b) = (ctx.new_stream()?, ctx.new_stream()?);
    let mut out = a.alloc_zeros::<u32>(1024)?;
    let twos = vec![2u32; 1024];
    std::thread::scope(|s| {
        s.spawn(|| a.memset_zeros(&mut out));
        s.spawn(|| b.memcpy_htod(&twos, &mut out));
    });
    Ok(())
}
