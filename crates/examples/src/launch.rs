//! What the typed launchers of [`kernels!`](crate::kernels) take: [`In`] for a buffer a kernel
//! reads (`const T *`), [`Out`] for one it may write (`T *`), and the element types of the CUDA
//! vector types. Only device buffers implement them, so a host slice where a kernel wants a
//! buffer, or a shared borrow where it writes, does not compile. And what they check at run
//! time, a kernel's contract: [`LaunchError`] says which clause a launch broke.
//!
//! A kernel whose contract says `clusters` is launched in thread-block clusters (compute
//! capability 9.0), which cudarc 0.19 cannot launch: its launcher takes a [`ClusterConfig`] and
//! calls [`launch_clustered`], and [`max_active_clusters`] and [`allow_non_portable_clusters`]
//! are for what a program asks of such a kernel itself.

use std::ffi::c_void;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DeviceRepr, DeviceSlice, DriverError, LaunchArgs, LaunchConfig, PushKernelArg, SyncOnDrop,
    ValidAsZeroBits, sys,
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

/// `left - right` in a contract, which computes in unsigned integers: a difference that would be
/// negative refuses the launch.
pub fn difference(kernel: &'static str, left: u128, right: u128) -> Result<u128, LaunchError> {
    left.checked_sub(right).ok_or(LaunchError::Broken {
        kernel,
        clause: "a difference in the contract is not negative".into(),
        left,
        right,
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

/// The shape of a clustered launch: the grid (in blocks, a whole number of clusters along
/// every axis), the blocks and their shared memory, and the blocks per cluster along each axis.
#[derive(Clone, Copy, Debug)]
pub struct ClusterConfig {
    pub launch: LaunchConfig,
    pub cluster_dim: (u32, u32, u32),
}

/// A launch's shape as a contract reads it: a [`LaunchConfig`] (no clusters), or a
/// [`ClusterConfig`].
pub trait LaunchShape {
    fn launch_config(&self) -> &LaunchConfig;
    /// Blocks per cluster along x, y and z: `(1, 1, 1)` without clusters.
    fn cluster_dim(&self) -> (u32, u32, u32);
}

impl LaunchShape for LaunchConfig {
    fn launch_config(&self) -> &LaunchConfig {
        self
    }
    fn cluster_dim(&self) -> (u32, u32, u32) {
        (1, 1, 1)
    }
}

impl LaunchShape for ClusterConfig {
    fn launch_config(&self) -> &LaunchConfig {
        &self.launch
    }
    fn cluster_dim(&self) -> (u32, u32, u32) {
        self.cluster_dim
    }
}

/// The value of a shape term of a contract (`block`, `grid.x`, `threads`, `shared`,
/// `cluster.x`...) for a launch with `config`.
pub fn shape(config: &impl LaunchShape, term: &str) -> u128 {
    let (c, config) = (config.cluster_dim(), config.launch_config());
    let (g, b) = (config.grid_dim, config.block_dim);
    let [gx, gy, gz, bx, by, bz] = [g.0, g.1, g.2, b.0, b.1, b.2].map(u128::from);
    let [cx, cy, cz] = [c.0, c.1, c.2].map(u128::from);
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
        "cluster" => cx * cy * cz,
        "cluster.x" => cx,
        "cluster.y" => cy,
        "cluster.z" => cz,
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
    /// Its address, for a launch on `stream` that reads it, after making `stream` wait for its
    /// last write; the guard records the read when dropped, after the launch.
    fn device_ptr_in<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
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
    /// Its address, for a launch on `stream` that writes it, after making `stream` wait for
    /// its last read and write; the guard records the write when dropped, after the launch.
    fn device_ptr_out<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
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
    fn device_ptr_in<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        DevicePtr::device_ptr(self, stream)
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
    fn device_ptr_in<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        DevicePtr::device_ptr(self, stream)
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
    fn device_ptr_out<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        DevicePtrMut::device_ptr_mut(self, stream)
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
    fn device_ptr_out<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        DevicePtrMut::device_ptr_mut(self, stream)
    }
}

/// A kernel argument as `cuLaunchKernelEx` takes it: the address of its value.
pub fn param<T>(value: &T) -> *mut c_void {
    value as *const T as *mut c_void
}

/// The launch attribute that gives the cluster's shape.
fn cluster_attribute(config: &ClusterConfig) -> sys::CUlaunchAttribute {
    let (x, y, z) = config.cluster_dim;
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue {
            clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x, y, z },
        },
    }
}

/// The driver's description of a launch with `config` on `stream`, whose one attribute is
/// `attribute` (which must outlive the description).
fn cluster_launch(
    config: &ClusterConfig,
    stream: &CudaStream,
    attribute: &mut sys::CUlaunchAttribute,
) -> sys::CUlaunchConfig {
    let LaunchConfig {
        grid_dim: g,
        block_dim: b,
        shared_mem_bytes,
    } = config.launch;
    sys::CUlaunchConfig {
        gridDimX: g.0,
        gridDimY: g.1,
        gridDimZ: g.2,
        blockDimX: b.0,
        blockDimY: b.1,
        blockDimZ: b.2,
        sharedMemBytes: shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: attribute,
        numAttrs: 1,
    }
}

/// Launches `function` on `stream` in clusters of `config.cluster_dim` blocks, with `params`
/// the addresses of its arguments ([`param`]); what a `clusters` launcher calls after its
/// contract holds.
///
/// # Safety
/// `params` holds one address per kernel parameter, in order, each of a live value of that
/// parameter's type; a buffer's address comes from [`In::device_ptr_in`] or
/// [`Out::device_ptr_out`] on `stream`, whose guard is dropped only after this returns, so that
/// the buffer's event is recorded after the launch. The launch must keep to the kernel's
/// contract.
pub unsafe fn launch_clustered(
    function: &CudaFunction,
    stream: &CudaStream,
    config: &ClusterConfig,
    mut params: Vec<*mut c_void>,
) -> Result<(), LaunchError> {
    stream.context().bind_to_thread()?;
    // cudarc keeps, not returns, the error of a stream's wait for a buffer: a launch after a
    // failed wait could race the buffer's last write.
    stream.context().check_err()?;
    let mut attribute = cluster_attribute(config);
    let launch = cluster_launch(config, stream, &mut attribute);
    // SAFETY: `launch` and its attribute are alive and well-formed; the caller vouches for
    // `params`.
    let result = unsafe {
        sys::cuLaunchKernelEx(
            &launch,
            function.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    result.result().map_err(LaunchError::Driver)
}

/// How many clusters of `config.cluster_dim` blocks of `function`, with `config`'s block and
/// shared memory, the GPU of `stream` can run at once (`cuOccupancyMaxActiveClusters`; cudarc's
/// own `occupancy_max_active_clusters` asks without the cluster's shape).
pub fn max_active_clusters(
    function: &CudaFunction,
    config: &ClusterConfig,
    stream: &CudaStream,
) -> Result<u32, DriverError> {
    stream.context().bind_to_thread()?;
    let mut attribute = cluster_attribute(config);
    let launch = cluster_launch(config, stream, &mut attribute);
    let mut clusters: std::ffi::c_int = 0;
    // SAFETY: `clusters` is an int to write, and `launch` and its attribute are alive.
    unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, function.cu_function(), &launch) }
        .result()?;
    Ok(clusters as u32)
}

/// Lets `function` be launched in clusters of more than 8 blocks (up to 16 on an H100), which
/// the driver otherwise refuses: a size that not every GPU of compute capability 9.0 runs.
pub fn allow_non_portable_clusters(function: &CudaFunction) -> Result<(), DriverError> {
    function.set_attribute(
        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
        1,
    )
}

// A device buffer starts on a 256-byte boundary, so a buffer of these, 8 or 16 bytes each, has
// every element on the boundary that CUDA's vector types need.
/// An element type laid out as CUDA's `float2`: two `f32`.
pub trait Float2: DeviceRepr {}
/// An element type laid out as CUDA's `float4`: four `f32`.
pub trait Float4: DeviceRepr {}
/// An element type laid out as CUDA's `double2`: two `f64`.
pub trait Double2: DeviceRepr {}
/// An element type laid out as CUDA's `__nv_bfloat16`: the upper 16 bits of an `f32`.
pub trait Bfloat16: DeviceRepr {}

impl Float2 for [f32; 2] {}
impl Float2 for cudarc::cufft::sys::float2 {}
impl Float4 for [f32; 4] {}
impl Double2 for [f64; 2] {}
impl Double2 for cudarc::cufft::sys::double2 {}
impl Bfloat16 for crate::bf16::Bf16 {}

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
        assert_eq!(difference("k", 7, 7).unwrap(), 0);
        assert!(difference("k", 6, 7).is_err());
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
        let clustered = ClusterConfig {
            launch: config,
            cluster_dim: (2, 3, 1),
        };
        assert_eq!(shape(&clustered, "threads"), 4 * 3 * 32 * 2);
        assert_eq!(shape(&clustered, "cluster"), 6);
        assert_eq!(shape(&clustered, "cluster.y"), 3);
        assert_eq!(shape(&config, "cluster"), 1);
    }
}
