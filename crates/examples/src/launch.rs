//! What the typed launchers of [`kernels!`](crate::kernels) take: [`In`] for a buffer a kernel
//! reads (`const T *`), [`Out`] for one it may write (`T *`), and the element types of the CUDA
//! vector types. Only device buffers implement them, so a host slice where a kernel wants a
//! buffer, or a shared borrow where it writes, does not compile. And what they check at run
//! time, a kernel's contract: [`LaunchError`] says which clause a launch broke.

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DeviceRepr, DeviceSlice, DriverError, LaunchArgs, LaunchConfig, PushKernelArg, ValidAsZeroBits,
    sys,
};

/// Why a typed launcher did not launch its kernel.
#[derive(Debug)]
pub enum LaunchError {
    /// A clause of the kernel's contract does not hold: `clause` as the kernel file writes it,
    /// with the values of its two sides.
    Broken {
        kernel: &'static str,
        clause: String,
        left: u128,
        right: u128,
    },
    /// A length does not fit the kernel's parameter, or a size argument is negative.
    Unrepresentable {
        kernel: &'static str,
        param: &'static str,
        value: i128,
    },
    /// A buffer belongs to another CUDA context than the stream's.
    OtherContext {
        kernel: &'static str,
        param: &'static str,
    },
    /// The driver refused the launch.
    Driver(DriverError),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::Broken {
                kernel,
                clause,
                left,
                right,
            } => write!(
                f,
                "the launch breaks {kernel}'s contract: `{clause}` does not hold ({left} against {right})"
            ),
            LaunchError::Unrepresentable {
                kernel,
                param,
                value,
            } => write!(f, "{kernel}'s `{param}` cannot be {value}"),
            LaunchError::OtherContext { kernel, param } => write!(
                f,
                "{kernel}'s `{param}` lives on another GPU (another CUDA context) than the stream"
            ),
            LaunchError::Driver(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LaunchError {}

impl From<DriverError> for LaunchError {
    fn from(e: DriverError) -> Self {
        LaunchError::Driver(e)
    }
}

/// A kernel that [`crate::gpu::OrExit::or_exit_launching`] can name: a `CudaFunction` or a
/// generated launcher.
pub trait Launcher {
    fn function(&self) -> &CudaFunction;
}

impl Launcher for CudaFunction {
    fn function(&self) -> &CudaFunction {
        self
    }
}

/// A scalar argument as a count, refused when negative.
pub fn count(
    kernel: &'static str,
    param: &'static str,
    value: impl Into<i128>,
) -> Result<u128, LaunchError> {
    let value = value.into();
    u128::try_from(value).map_err(|_| LaunchError::Unrepresentable {
        kernel,
        param,
        value,
    })
}

/// A scalar argument computed from a length, refused when it does not fit the parameter.
pub fn derive<T: TryFrom<u128>>(
    kernel: &'static str,
    param: &'static str,
    value: u128,
) -> Result<T, LaunchError> {
    T::try_from(value).map_err(|_| LaunchError::Unrepresentable {
        kernel,
        param,
        value: value as i128,
    })
}

/// One clause of a contract: `left op right`.
pub fn check(
    kernel: &'static str,
    clause: &str,
    left: u128,
    op: &str,
    right: u128,
) -> Result<(), LaunchError> {
    let holds = match op {
        "==" => left == right,
        ">=" => left >= right,
        _ => left <= right,
    };
    if holds {
        Ok(())
    } else {
        Err(LaunchError::Broken {
            kernel,
            clause: clause.to_string(),
            left,
            right,
        })
    }
}

/// `aligned(buffer, bytes)`: the buffer's first element starts on a multiple of `bytes`.
pub fn aligned(
    kernel: &'static str,
    clause: &str,
    address: u64,
    bytes: u64,
) -> Result<(), LaunchError> {
    check(kernel, clause, u128::from(address % bytes), "==", 0)
}

/// A buffer as a contract sees it: its length in elements and the address of its first
/// element (0 where no clause asks for it, so that a launch need not ask the driver).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub len: usize,
    pub address: u64,
}

impl Span {
    /// A buffer of `len` elements whose address no clause needs.
    pub fn of_len(len: usize) -> Span {
        Span { len, address: 0 }
    }
}

/// Refuses a buffer of another context than `stream`'s.
pub fn same_context(
    kernel: &'static str,
    param: &'static str,
    owner: Option<sys::CUcontext>,
    stream: &CudaStream,
) -> Result<(), LaunchError> {
    match owner {
        Some(ctx) if ctx == stream.context().cu_ctx() => Ok(()),
        _ => Err(LaunchError::OtherContext { kernel, param }),
    }
}

/// The value of a shape term of a contract (`block`, `grid.x`, `threads`, `shared`...) for a
/// launch with `config`.
pub fn shape(config: &LaunchConfig, term: &str) -> u128 {
    let (g, b) = (config.grid_dim, config.block_dim);
    let [gx, gy, gz, bx, by, bz] = [g.0, g.1, g.2, b.0, b.1, b.2].map(u128::from);
    match term {
        "block" => bx * by * bz,
        "block.x" => bx,
        "block.y" => by,
        "block.z" => bz,
        "grid" => gx * gy * gz,
        "grid.x" => gx,
        "grid.y" => gy,
        "grid.z" => gz,
        "threads" => gx * gy * gz * bx * by * bz,
        "threads.x" => gx * bx,
        "threads.y" => gy * by,
        "threads.z" => gz * bz,
        "shared" => u128::from(config.shared_mem_bytes),
        _ => unreachable!("the generator knows no shape `{term}`"),
    }
}

/// A device buffer of `T` that a kernel reads: a `CudaSlice<T>` or a `CudaView<T>`.
#[allow(clippy::len_without_is_empty)] // a launcher needs only the length
pub trait In<T> {
    /// Its length in elements.
    fn len(&self) -> usize;
    /// Its length and the address of its first element.
    fn span(&self, stream: &CudaStream) -> Span;
    /// The context its memory belongs to.
    fn context(&self) -> Option<sys::CUcontext>;
    /// Add the buffer to the arguments of a launch.
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>);
}

/// A device buffer of `T` that a kernel may write: a `CudaSlice<T>` or a `CudaViewMut<T>`.
#[allow(clippy::len_without_is_empty)] // a launcher needs only the length
pub trait Out<T> {
    /// Its length in elements.
    fn len(&self) -> usize;
    /// Its length and the address of its first element.
    fn span(&self, stream: &CudaStream) -> Span;
    /// The context its memory belongs to.
    fn context(&self) -> Option<sys::CUcontext>;
    /// Clear it to zero bytes on `stream` (a contract's `zeroed` scratch).
    fn zero(&mut self, stream: &CudaStream) -> Result<(), LaunchError>;
    /// Add the buffer to the arguments of a launch.
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>);
}

/// Clear `buffer` to zero bytes with an asynchronous memset on `stream`.
fn zero_bytes<T>(
    buffer: &mut impl DevicePtrMut<T>,
    stream: &CudaStream,
) -> Result<(), LaunchError> {
    stream.context().bind_to_thread()?;
    let bytes = buffer.num_bytes();
    let (address, _record) = buffer.device_ptr_mut(stream);
    // SAFETY: `address` is the start of `bytes` bytes that `buffer` owns or borrows mutably,
    // and the memset is ordered on `stream` like the launch that follows it.
    unsafe { cudarc::driver::result::memset_d8_async(address, 0, bytes, stream.cu_stream()) }?;
    Ok(())
}

/// The address of a buffer's first element.
fn address_of<T>(buffer: &impl DevicePtr<T>, stream: &CudaStream) -> u64 {
    buffer.device_ptr(stream).0
}

impl<T> In<T> for CudaSlice<T> {
    fn len(&self) -> usize {
        CudaSlice::len(self)
    }
    fn span(&self, stream: &CudaStream) -> Span {
        Span {
            len: CudaSlice::len(self),
            address: address_of(self, stream),
        }
    }
    fn context(&self) -> Option<sys::CUcontext> {
        Some(CudaSlice::context(self).cu_ctx())
    }
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T> In<T> for CudaView<'_, T> {
    fn len(&self) -> usize {
        self.len()
    }
    fn span(&self, stream: &CudaStream) -> Span {
        Span {
            len: self.len(),
            address: address_of(self, stream),
        }
    }
    fn context(&self) -> Option<sys::CUcontext> {
        Some(DeviceSlice::stream(self).context().cu_ctx())
    }
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T: DeviceRepr + ValidAsZeroBits> Out<T> for CudaSlice<T> {
    fn len(&self) -> usize {
        CudaSlice::len(self)
    }
    fn span(&self, stream: &CudaStream) -> Span {
        In::span(self, stream)
    }
    fn context(&self) -> Option<sys::CUcontext> {
        In::context(self)
    }
    fn zero(&mut self, stream: &CudaStream) -> Result<(), LaunchError> {
        zero_bytes(self, stream)
    }
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T: DeviceRepr + ValidAsZeroBits> Out<T> for CudaViewMut<'_, T> {
    fn len(&self) -> usize {
        self.len()
    }
    fn span(&self, stream: &CudaStream) -> Span {
        Span {
            len: self.len(),
            address: address_of(self, stream),
        }
    }
    fn context(&self) -> Option<sys::CUcontext> {
        Some(DeviceSlice::stream(self).context().cu_ctx())
    }
    fn zero(&mut self, stream: &CudaStream) -> Result<(), LaunchError> {
        zero_bytes(self, stream)
    }
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

// A device buffer starts on a 256-byte boundary, so a buffer of these, 8 or 16 bytes each, has
// every element on the boundary that CUDA's vector types need.
/// An element type laid out as CUDA's `float2`: two `f32`.
pub trait Float2: DeviceRepr {}
/// An element type laid out as CUDA's `float4`: four `f32`.
pub trait Float4: DeviceRepr {}
/// An element type laid out as CUDA's `double2`: two `f64`.
pub trait Double2: DeviceRepr {}

impl Float2 for [f32; 2] {}
impl Float2 for cudarc::cufft::sys::float2 {}
impl Float4 for [f32; 4] {}
impl Double2 for [f64; 2] {}
impl Double2 for cudarc::cufft::sys::double2 {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_clause_is_named_with_its_values() {
        let e = check("adder", "n = len(zs)", 1000, "==", 999).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the launch breaks adder's contract: `n = len(zs)` does not hold (1000 against 999)"
        );
        assert!(check("adder", "threads >= n", 1024, ">=", 1000).is_ok());
        assert!(check("k", "block <= 256", 512, "<=", 256).is_err());
        let negative = count("k", "n", -1i32).unwrap_err().to_string();
        assert_eq!(negative, "k's `n` cannot be -1");
        assert!(derive::<i32>("k", "n", 1 << 31).is_err());
        assert_eq!(derive::<i32>("k", "n", 7).unwrap(), 7);
    }

    #[test]
    fn shapes_multiply_over_the_axes() {
        let config = LaunchConfig {
            grid_dim: (4, 3, 1),
            block_dim: (32, 2, 1),
            shared_mem_bytes: 96,
        };
        assert_eq!(shape(&config, "threads"), 4 * 3 * 32 * 2);
        assert_eq!(shape(&config, "threads.x"), 128);
        assert_eq!(shape(&config, "block"), 64);
        assert_eq!(shape(&config, "shared"), 96);
    }
}
