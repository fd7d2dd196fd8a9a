//! Chapter 8's matrix multiplications C = A·B, row-major, A m×k and B k×n: their shape, the
//! check of a result against float64 within a rounding bound, and cuBLAS SGEMM to compare with.

use std::sync::Arc;

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
use cudarc::driver::{CudaSlice, CudaStream};

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
    let ku = k as f64 * F32_UNIT_ROUNDOFF;
    ku / (1.0 - ku)
}
// ANCHOR_END: gamma

/// Entries of C drawn at random, each with its value computed in f64 and its rounding bound.
pub struct Samples {
    at: Vec<(usize, usize)>,
    want: Vec<f64>,
    bound: Vec<f64>,
}

impl Samples {
    /// `count` entries (every entry when C has no more), with the same inputs as the GPU's.
    pub fn new(a: &[f32], b: &[f32], shape: Shape, count: usize, rng: &mut Rng) -> Samples {
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
            bound.push(gamma(k) * size);
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
