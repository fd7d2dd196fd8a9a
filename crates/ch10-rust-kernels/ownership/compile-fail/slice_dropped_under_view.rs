// A view of device memory borrows its `CudaSlice`: the memory cannot be freed while a view of
// it is alive. (A kernel that reads the slice holds no such borrow once its launch has
// returned; there, cudarc's drop waits instead.)
use cudarc::driver::{CudaContext, DriverError};

fn main() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let input = stream.clone_htod(&vec![5u32; 1024])?;
    let first_half = input.slice(..512);
    drop(input);
    let back = stream.clone_dtoh(&first_half)?;
    println!("{}", back[0]);
    Ok(())
}
