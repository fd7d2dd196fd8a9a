//! What the typed launchers of [`kernels!`](crate::kernels) take: [`In`] for a buffer a kernel
//! reads (`const T *`), [`Out`] for one it may write (`T *`), and the element types of the CUDA
//! vector types. Only device buffers implement them, so a host slice where a kernel wants a
//! buffer, or a shared borrow where it writes, does not compile.

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr, LaunchArgs, PushKernelArg};

/// A device buffer of `T` that a kernel reads: a `CudaSlice<T>` or a `CudaView<T>`.
pub trait In<T> {
    /// Add the buffer to the arguments of a launch.
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>);
}

/// A device buffer of `T` that a kernel may write: a `CudaSlice<T>` or a `CudaViewMut<T>`.
pub trait Out<T> {
    /// Add the buffer to the arguments of a launch.
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>);
}

impl<T> In<T> for CudaSlice<T> {
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T> In<T> for CudaView<'_, T> {
    fn push_in<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T> Out<T> for CudaSlice<T> {
    fn push_out<'a>(&'a mut self, args: &mut LaunchArgs<'a>) {
        args.arg(self);
    }
}

impl<T> Out<T> for CudaViewMut<'_, T> {
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
