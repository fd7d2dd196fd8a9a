//! Chapter 8's matrix multiplications C = A·B, row-major, A m×k and B k×n: their shape, the
//! check of a result against float64 within a rounding bound, and cuBLAS SGEMM to compare with.

use std::sync::Arc;

use cudarc::cublas::sys::{
    cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cublasSetWorkspace_v2, cudaDataType_t,
};
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, result::gemm_ex};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use crate::bf16::Bf16;

use crate::exit::OrExit;
use crate::random::Rng;

/// The sizes of one product: A is m×k, B is k×n, C is m×n.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub m: usize,
    pub k: usize,
    pub n: usize,
}

impl Shape {
    /// Two operations (a multiply and an add) per term of each of the m·n sums.
    pub fn flops(&self) -> f64 {
        2.0 * (self.m * self.k * self.n) as f64
    }

    /// `n=4096` for a square product, `1000x3000x700` (m×k×n) otherwise.
    pub fn label(&self) -> String {
        match self.m == self.k && self.k == self.n {
            true => format!("n={}", self.m),
            false => format!("{}x{}x{}", self.m, self.k, self.n),
        }
    }
}

// ANCHOR: gamma
/// The unit roundoff of f32 (round to nearest): 2⁻²⁴.
pub const F32_UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;

/// γ_k = k·u / (1 − k·u): a sum of k products computed in f32, in any order, differs from the
/// exact sum by at most γ_k · Σ|a||b| (Higham, *Accuracy and Stability of Numerical
/// Algorithms*, section 3.1).
pub fn gamma(k: usize) -> f64 {
    gamma_with(k, F32_UNIT_ROUNDOFF)
}
// ANCHOR_END: gamma

/// γ_k for a unit roundoff `u`: k·u / (1 − k·u).
pub fn gamma_with(k: usize, u: f64) -> f64 {
    let ku = k as f64 * u;
    ku / (1.0 - ku)
}

// ANCHOR: tensor_unit
/// The unit a tensor core's float sum is held to: 2⁻²², four times f32's unit roundoff. A
/// tensor core adds several exact products to its running sum in one step, aligned to the
/// largest of them, and cuts off the bits that fall past the end instead of rounding them:
/// each step may lose up to one unit in the last place for the cut (2⁻²³, twice a rounding's
/// 2⁻²⁴) and as much again for the products added with it.
pub const TENSOR_CORE_UNIT: f64 = 1.0 / 4_194_304.0;
// ANCHOR_END: tensor_unit

/// `len` whole numbers in [-8, 8], as f32: every product of two is at most 64, so a sum of up
/// to 2¹⁸ of them is a whole number below 2²⁴, exact in f32 (and in bf16 inputs) in any order.
pub fn whole_numbers(len: usize, rng: &mut Rng) -> Vec<f32> {
    (0..len).map(|_| rng.below(17) as f32 - 8.0).collect()
}

/// C = A·B of whole numbers, summed exactly in i64: what every order of f32 sums must equal.
pub fn integer_product(a: &[f32], b: &[f32], shape: Shape) -> Vec<f32> {
    let Shape { m, k, n } = shape;
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let sum: i64 = (0..k)
                .map(|p| a[i * k + p] as i64 * b[p * n + j] as i64)
                .sum();
            c[i * n + j] = sum as f32;
        }
    }
    c
}

/// Entries of C drawn at random, each with its value computed in f64 and its rounding bound.
pub struct Samples {
    at: Vec<(usize, usize)>,
    want: Vec<f64>,
    bound: Vec<f64>,
}

impl Samples {
    /// `count` entries (every entry when C has no more), with the same inputs as the GPU's,
    /// each bounded by γ_k · Σ|a||b| for f32 sums.
    pub fn new(a: &[f32], b: &[f32], shape: Shape, count: usize, rng: &mut Rng) -> Samples {
        Samples::with_unit(a, b, shape, count, rng, F32_UNIT_ROUNDOFF)
    }

    /// As [`Samples::new`], with γ_k computed for the unit roundoff `unit`.
    pub fn with_unit(
        a: &[f32],
        b: &[f32],
        shape: Shape,
        count: usize,
        rng: &mut Rng,
        unit: f64,
    ) -> Samples {
        let Shape { m, k, n } = shape;
        let at: Vec<(usize, usize)> = match m * n <= count {
            true => (0..m * n).map(|e| (e / n, e % n)).collect(),
            false => (0..count)
                .map(|_| (rng.below(m as u64) as usize, rng.below(n as u64) as usize))
                .collect(),
        };
        let (mut want, mut bound) = (Vec::new(), Vec::new());
        for &(i, j) in &at {
            let (mut sum, mut size) = (0.0f64, 0.0f64);
            for p in 0..k {
                let term = a[i * k + p] as f64 * b[p * n + j] as f64;
                sum += term;
                size += term.abs();
            }
            want.push(sum);
            bound.push(gamma_with(k, unit) * size);
        }
        Samples { at, want, bound }
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// The largest |error| / bound over the sampled entries of `c` (m×n, row-major): at most 1
    /// when every entry is within its bound. A NaN entry gives infinity.
    pub fn worst_ratio(&self, c: &[f32], n: usize) -> f64 {
        let mut worst = 0.0f64;
        for ((&(i, j), &want), &bound) in self.at.iter().zip(&self.want).zip(&self.bound) {
            let got = c[i * n + j] as f64;
            let ratio = match got.is_nan() {
                true => f64::INFINITY,
                false => (got - want).abs() / bound.max(f64::MIN_POSITIVE),
            };
            worst = worst.max(ratio);
        }
        worst
    }
}

/// C = A·B by cuBLAS SGEMM (its default math: FP32 on the CUDA cores, no TF32). cuBLAS is
/// column-major, and a row-major C = A·B is the column-major Cᵀ = Bᵀ·Aᵀ: the operands go in
/// swapped.
pub fn cublas_sgemm(
    blas: &CudaBlas,
    shape: Shape,
    a: &CudaSlice<f32>,
    b: &CudaSlice<f32>,
    c: &mut CudaSlice<f32>,
) {
    let Shape { m, k, n } = shape;
    assert!(a.len() == m * k && b.len() == k * n && c.len() == m * n);
    let cfg = GemmConfig {
        transa: cublasOperation_t::CUBLAS_OP_N,
        transb: cublasOperation_t::CUBLAS_OP_N,
        m: n as i32,
        n: m as i32,
        k: k as i32,
        alpha: 1.0f32,
        lda: n as i32,
        ldb: k as i32,
        beta: 0.0f32,
        ldc: n as i32,
    };
    // SAFETY: cfg reads b as n×k (leading dimension n), a as k×m (k) and writes c as n×m (n),
    // column-major: k·n, m·k and m·n elements, the lengths asserted above.
    unsafe { blas.gemm(cfg, b, a, c) }.or_exit("run cuBLAS SGEMM");
}

/// Start cuBLAS on `stream`.
pub fn cublas(stream: &Arc<CudaStream>) -> CudaBlas {
    CudaBlas::new(stream.clone()).or_exit("start cuBLAS")
}

/// cuBLAS for chapter 9, with the workspace its tensor-core kernels may use (32 MiB, what NVIDIA
/// advises for Hopper); the handle is dropped before the workspace it points to.
pub struct Blas16 {
    blas: CudaBlas,
    stream: Arc<CudaStream>,
    _workspace: CudaSlice<u8>,
}

/// The workspace [`Blas16`] gives cuBLAS.
pub const CUBLAS_WORKSPACE_BYTES: usize = 32 << 20;

// ANCHOR: blas16
impl Blas16 {
    /// Start cuBLAS on `stream` with its workspace.
    pub fn new(stream: &Arc<CudaStream>) -> Blas16 {
        let blas = cublas(stream);
        let mut workspace = stream
            .alloc_zeros::<u8>(CUBLAS_WORKSPACE_BYTES)
            .or_exit("allocate cuBLAS's workspace");
        {
            let (at, _record) = workspace.device_ptr_mut(stream);
            // SAFETY: the workspace is CUBLAS_WORKSPACE_BYTES long and outlives the handle.
            unsafe { cublasSetWorkspace_v2(*blas.handle(), at as _, CUBLAS_WORKSPACE_BYTES) }
                .result()
                .or_exit("give cuBLAS its workspace");
        }
        Blas16 {
            blas,
            stream: stream.clone(),
            _workspace: workspace,
        }
    }

    /// C = A·B with A and B in bfloat16 and C in f32, the products summed in f32 on the tensor
    /// cores: `cublasGemmEx` with `CUBLAS_COMPUTE_32F` and its default algorithm, row-major
    /// operands passed swapped as in [`cublas_sgemm`].
    pub fn gemm_bf16(
        &self,
        shape: Shape,
        a: &CudaSlice<Bf16>,
        b: &CudaSlice<Bf16>,
        c: &mut CudaSlice<f32>,
    ) {
        self.gemm_bf16_pitched(shape, (a, shape.k), (b, shape.n), c)
    }

    /// [`Blas16::gemm_bf16`] with the rows of A starting `lda` elements apart and those of B
    /// `ldb` apart (C's `n`): what a kernel that reads through tensor maps needs, whose rows
    /// must start on 16-byte boundaries.
    pub fn gemm_bf16_pitched(
        &self,
        shape: Shape,
        (a, lda): (&CudaSlice<Bf16>, usize),
        (b, ldb): (&CudaSlice<Bf16>, usize),
        c: &mut CudaSlice<f32>,
    ) {
        let Shape { m, k, n } = shape;
        let fits = |len: usize, rows: usize, cols: usize, pitch: usize| {
            pitch >= cols && (rows == 0 || (rows - 1) * pitch + cols <= len)
        };
        assert!(fits(a.len(), m, k, lda) && fits(b.len(), k, n, ldb) && c.len() == m * n);
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (a, _record_a) = a.device_ptr(&self.stream);
        let (b, _record_b) = b.device_ptr(&self.stream);
        let (c, _record_c) = c.device_ptr_mut(&self.stream);
        // SAFETY: as in cublas_sgemm, b is read as n×k, a as k×m and c written as n×m,
        // column-major with leading dimensions ldb, lda and n: the lengths asserted above.
        unsafe {
            gemm_ex(
                *self.blas.handle(),
                cublasOperation_t::CUBLAS_OP_N,
                cublasOperation_t::CUBLAS_OP_N,
                n as i32,
                m as i32,
                k as i32,
                (&alpha) as *const f32 as *const _,
                b as *const _,
                cudaDataType_t::CUDA_R_16BF,
                ldb as i32,
                a as *const _,
                cudaDataType_t::CUDA_R_16BF,
                lda as i32,
                (&beta) as *const f32 as *const _,
                c as *mut _,
                cudaDataType_t::CUDA_R_32F,
                n as i32,
                cublasComputeType_t::CUBLAS_COMPUTE_32F,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .or_exit("run cuBLAS's bf16 GEMM");
    }
}
// ANCHOR_END: blas16

/// cuBLAS's rate beside NVIDIA's datasheet figure for this GPU's dense bf16 tensor-core peak,
/// where the program knows it: a cuBLAS far below it would be a weak yardstick.
pub fn against_datasheet(ctx: &Arc<CudaContext>, tflops: f64) -> String {
    let name = ctx.name().unwrap_or_default();
    let peak = match name.as_str() {
        n if n.contains("H100") && (n.contains("SXM") || n.contains("HBM3")) => Some(989.4),
        n if n.contains("H100") && n.contains("PCIe") => Some(756.5),
        n if n.contains("H200") => Some(989.4),
        n if n.contains("A100") => Some(312.0),
        _ => None,
    };
    match peak {
        Some(peak) => format!(
            "cuBLAS BF16 at {tflops:.0} TFLOP/s is {:.0}% of the datasheet's {peak} TFLOP/s \
             (dense BF16, {name})",
            100.0 * tflops / peak
        ),
        None => format!("no datasheet figure for the {name} in this program"),
    }
}
