//! Tensor maps for Hopper's tensor memory accelerator (TMA): the driver's description of a
//! row-major matrix in a device buffer and of the box a kernel copies out of it at a time,
//! made by `cuTensorMapEncodeTiled` after the checks the driver would make itself, each
//! refusal one sentence.
//!
//! A [`TensorMap`] holds the buffer's address, so it borrows the buffer: it cannot outlive it,
//! and the buffer cannot be written on the host side while a kernel may read through the map.
//! A kernel that copies through a map never reads outside the rows × cols it describes (the
//! hardware fills what lies outside with zeros), so a launcher that takes a map needs no other
//! check of it.

use std::marker::PhantomData;

use cudarc::driver::sys::{
    self, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, SyncOnDrop};

use crate::bf16::Bf16;

/// An element type the tensor memory accelerator copies.
pub trait TmaElement: DeviceRepr {
    /// The driver's name for it.
    const DATA_TYPE: CUtensorMapDataType;
}

impl TmaElement for Bf16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

impl TmaElement for f32 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/// How the rows of a box are laid out in shared memory: as they are, or with their 16-byte
/// chunks permuted within each span of 32, 64 or 128 bytes (XOR with the row's low bits), so
/// that reading a column of chunks touches every bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    None,
    Bytes32,
    Bytes64,
    Bytes128,
}

impl Swizzle {
    fn span(self) -> Option<usize> {
        match self {
            Swizzle::None => None,
            Swizzle::Bytes32 => Some(32),
            Swizzle::Bytes64 => Some(64),
            Swizzle::Bytes128 => Some(128),
        }
    }

    fn driver(self) -> CUtensorMapSwizzle {
        match self {
            Swizzle::None => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            Swizzle::Bytes32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            Swizzle::Bytes64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            Swizzle::Bytes128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }
}

/// A row-major matrix of `rows` × `cols` elements whose rows start `pitch` elements apart, and
/// the `box_rows` × `box_cols` box one copy brings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiled {
    pub rows: usize,
    pub cols: usize,
    pub pitch: usize,
    pub box_rows: usize,
    pub box_cols: usize,
    pub swizzle: Swizzle,
}

/// The most elements along one side of a box.
pub const MAX_BOX_SIDE: usize = 256;

impl Tiled {
    /// Why the driver would refuse this description of a buffer of `len` elements of
    /// `element_bytes` bytes each at `address`, or why it would reach outside the buffer.
    pub fn refusal(&self, len: usize, element_bytes: usize, address: u64) -> Option<String> {
        let t = self;
        let row_bytes = t.pitch.checked_mul(element_bytes);
        let box_bytes = t.box_cols * element_bytes;
        Some(if t.rows == 0 || t.cols == 0 {
            format!(
                "a {}x{} matrix is empty: a tensor map needs at least one element",
                t.rows, t.cols
            )
        } else if t.pitch < t.cols {
            format!(
                "a pitch of {} elements is shorter than a row of {}",
                t.pitch, t.cols
            )
        } else if row_bytes.is_none_or(|b| b % 16 != 0 || b >= 1 << 40) {
            format!(
                "a pitch of {} elements is {} bytes, and the tensor memory accelerator needs a multiple of 16 below 2^40",
                t.pitch,
                t.pitch.saturating_mul(element_bytes)
            )
        } else if t.rows > u32::MAX as usize || t.cols > u32::MAX as usize {
            format!(
                "a {}x{} matrix has a side over 2^32 elements",
                t.rows, t.cols
            )
        } else if (t.rows - 1)
            .checked_mul(t.pitch)
            .and_then(|e| e.checked_add(t.cols))
            .is_none_or(|end| end > len)
        {
            format!(
                "{} rows of {} elements, {} apart, do not fit in a buffer of {len}",
                t.rows, t.cols, t.pitch
            )
        } else if address % 16 != 0 {
            format!("the buffer starts at {address:#x}, not on a 16-byte boundary")
        } else if !(1..=MAX_BOX_SIDE).contains(&t.box_rows)
            || !(1..=MAX_BOX_SIDE).contains(&t.box_cols)
        {
            format!(
                "a box of {}x{} elements: each side must be from 1 to {MAX_BOX_SIDE}",
                t.box_rows, t.box_cols
            )
        } else if box_bytes % 16 != 0 {
            format!(
                "a box row of {} elements is {box_bytes} bytes, not a multiple of 16",
                t.box_cols
            )
        } else if let Some(span) = t.swizzle.span().filter(|&span| box_bytes > span) {
            format!(
                "a box row of {} elements is {box_bytes} bytes, more than the {span}-byte swizzle spans",
                t.box_cols
            )
        } else {
            return None;
        })
    }
}

/// The 128 bytes a kernel takes as a `const __grid_constant__ CUtensorMap` parameter.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct RawMap(pub [u64; 16]);

// SAFETY: plain bytes, passed by value as the kernel's 128-byte parameter.
unsafe impl DeviceRepr for RawMap {}

/// A tensor map of a matrix in `buffer`, which it borrows.
pub struct TensorMap<'a, T> {
    raw: RawMap,
    buffer: &'a CudaSlice<T>,
    shape: Tiled,
    _reads: PhantomData<&'a T>,
}

impl<'a, T: TmaElement> TensorMap<'a, T> {
    /// The map of `shape` in `buffer`, or the sentence that says why not.
    pub fn tiled(
        buffer: &'a CudaSlice<T>,
        stream: &CudaStream,
        shape: Tiled,
    ) -> Result<Self, String> {
        let element_bytes = std::mem::size_of::<T>();
        let (address, _record) = buffer.device_ptr(stream);
        if let Some(why) = shape.refusal(buffer.len(), element_bytes, address) {
            return Err(format!("no tensor map: {why}"));
        }
        let dims = [shape.cols as u64, shape.rows as u64];
        let strides = [(shape.pitch * element_bytes) as u64];
        let boxes = [shape.box_cols as u32, shape.box_rows as u32];
        let steps = [1u32, 1];
        let mut raw = std::mem::MaybeUninit::<sys::CUtensorMap>::uninit();
        // SAFETY: every argument was checked above against the driver's rules and the buffer's
        // length; the driver writes the 128 bytes of `raw` and keeps no pointer to ours.
        let result = unsafe {
            sys::cuTensorMapEncodeTiled(
                raw.as_mut_ptr(),
                T::DATA_TYPE,
                2,
                address as *mut _,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                steps.as_ptr(),
                CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                shape.swizzle.driver(),
                CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if result != sys::CUresult::CUDA_SUCCESS {
            return Err(format!(
                "no tensor map: the driver refused {shape:?} ({result:?})"
            ));
        }
        // SAFETY: the driver succeeded, so it wrote all 128 bytes.
        let bytes = unsafe { raw.assume_init() };
        let raw = RawMap(bytes.opaque);
        Ok(TensorMap {
            raw,
            buffer,
            shape,
            _reads: PhantomData,
        })
    }

    /// What the map describes.
    pub fn shape(&self) -> Tiled {
        self.shape
    }

    /// The buffer it describes.
    pub fn buffer(&self) -> &'a CudaSlice<T> {
        self.buffer
    }

    /// For a launch on `stream` that reads through the map: makes `stream` wait for the
    /// buffer's last write; the guard records the read when dropped, after the launch.
    pub fn hold(&self, stream: &'a CudaStream) -> SyncOnDrop<'a> {
        self.buffer.device_ptr(stream).1
    }

    /// The bytes a kernel takes.
    pub fn raw(&self) -> &RawMap {
        &self.raw
    }
}
