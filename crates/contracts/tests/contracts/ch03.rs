//! The models of chapter 3's kernels, and the helpers chapter 4's models share with them.

use super::launchers::*;
use super::model::*;
use course::launch::LaunchError;
use proptest::prelude::*;

/// The largest value a `long long` holds: the limit of the kernels' 64-bit index arithmetic.
pub const LLONG_MAX: i128 = i64::MAX as i128;

/// A contract that derives one `long long` scalar.
pub fn derived64(r: Result<(i64,), LaunchError>) -> Result<Vec<i64>, LaunchError> {
    r.map(|(n,)| vec![n])
}

/// A contract that derives two `int` scalars.
pub fn derived2(r: Result<(i32, i32), LaunchError>) -> Result<Vec<i64>, LaunchError> {
    r.map(|(a, b)| vec![i64::from(a), i64::from(b)])
}

/// A contract that derives nothing.
pub fn nothing(r: Result<(), LaunchError>) -> Result<Vec<i64>, LaunchError> {
    r.map(|()| vec![])
}

/// Launches whose views start where a view of each buffer's element type can start: a view of
/// `float4`, `double2` or `float2` elements (`bytes[i]` = 16, 16 or 8) starts a whole number of
/// elements into a buffer, itself on a 256-byte boundary.
pub fn views_of(draw: BoxedStrategy<Launch>, bytes: &'static [u64]) -> BoxedStrategy<Launch> {
    draw.prop_map(move |mut l| {
        for (o, b) in l.offsets.iter_mut().zip(bytes) {
            *o -= *o % b;
        }
        l
    })
    .boxed()
}

/// `long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) touch [i]`:
/// one element per thread along x, indexed in 64 bits.
pub fn one_per_thread_64(l: &Launch, n: i64, buffers: usize, vectors: bool) -> Reach {
    let n = n.max(0) as u64;
    Reach {
        extents: vec![l.tx().min(n); buffers],
        vectors: vec![vectors; buffers],
        ints: vec![(
            "(long long)blockIdx.x * blockDim.x + threadIdx.x",
            i128::from(l.tx()) - 1,
            LLONG_MAX,
        )],
    }
}

/// `for (long long i = first; i < n; i += (long long)gridDim.x * blockDim.x) touch [i]`.
pub fn grid_stride_64(l: &Launch, n: i64, buffers: usize) -> Reach {
    let (extent, last) = grid_stride(l.tx(), n);
    Reach {
        extents: vec![extent; buffers],
        vectors: vec![false; buffers],
        ints: vec![("i += (long long)gridDim.x * blockDim.x", last, LLONG_MAX)],
    }
}

/// Three nonnegative sizes, mostly small (products of them stay countable), sometimes any.
pub fn dims3() -> BoxedStrategy<(u64, u64, u64)> {
    let dim = || prop_oneof![4 => 0u64..70, 1 => 0u64..2000, 1 => size()].boxed();
    (dim(), dim(), dim()).boxed()
}

pub fn dims2() -> BoxedStrategy<(u64, u64)> {
    let dim = || prop_oneof![4 => 0u64..300, 1 => 0u64..50_000, 1 => size()].boxed();
    (dim(), dim()).boxed()
}

/// How many threads pass the guard `idx < total` (64-bit): they are the first ones.
pub fn passing(l: &Launch, total: i128) -> i128 {
    i128::from(l.tx()).min(total.max(0))
}

/// A product of sizes for a draw, kept below 2^40 (drawn lengths are nudged by one).
pub fn times(sizes: &[u64]) -> u64 {
    sizes
        .iter()
        .fold(1u64, |a, &b| a.saturating_mul(b))
        .min(1 << 40)
}

pub fn extent(e: i128) -> u64 {
    e.clamp(0, i128::from(u64::MAX)) as u64
}

pub fn broadcast_multiply() -> Model {
    Model {
        kernels: "broadcast_multiply",
        buffers: &["a", "b", "prod"],
        mirrors: &[("ch03-broadcast.cu", "matmul")],
        hash: 0x6d5607825e6f778a,
        draw: || {
            dims3()
                .prop_flat_map(|(m, n, p)| {
                    around(
                        [ceil(times(&[m, n, p]), 256), 1, 1],
                        [256, 1, 1],
                        vec![times(&[m, n]), times(&[n, p]), times(&[m, n, p])],
                        vec![m as i64, n as i64, p as i64],
                    )
                })
                .boxed()
        },
        contract: |l| {
            nothing(ch03_broadcast::BroadcastMultiply::contract(
                "broadcast_multiply",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.arg(1)?,
                l.arg(2)?,
            ))
        },
        reach: |l, _| {
            let [m, n, p] = [0, 1, 2].map(|i| i128::from(l.args[i]));
            // idx < (long long)m * n * p, a 64-bit product.
            let mnp = m * n * p;
            let t = passing(l, mnp);
            if t == 0 {
                return Reach {
                    extents: vec![0; 3],
                    vectors: vec![false; 3],
                    ints: vec![("(long long)m * n * p", mnp, LLONG_MAX)],
                };
            }
            let last = t - 1;
            // j = idx % p, k = (idx / p) % n, i = idx / (n * p): i * n + k is idx / p, and
            // k * p + j is idx % (n * p).
            let i = last / (n * p);
            Reach {
                extents: vec![extent(last / p + 1), extent(t.min(n * p)), extent(t)],
                vectors: vec![false; 3],
                ints: vec![
                    ("(long long)m * n * p", mnp, LLONG_MAX),
                    ("int i = idx / ((long long)n * p)", i, INT_MAX),
                    ("int k = (idx / p) % n", (n - 1).max(0), INT_MAX),
                    ("int j = idx % p", (p - 1).max(0), INT_MAX),
                ],
            }
        },
    }
}

pub fn sum_middle_axis() -> Model {
    Model {
        kernels: "sum_middle_axis",
        buffers: &["prod", "c"],
        mirrors: &[("ch03-broadcast.cu", "matmul")],
        hash: 0x6d5607825e6f778a,
        draw: || {
            dims3()
                .prop_flat_map(|(m, n, p)| {
                    around(
                        [ceil(times(&[m, p]), 256), 1, 1],
                        [256, 1, 1],
                        vec![times(&[m, n, p]), times(&[m, p])],
                        vec![m as i64, n as i64, p as i64],
                    )
                })
                .boxed()
        },
        contract: |l| {
            nothing(ch03_broadcast::SumMiddleAxis::contract(
                "sum_middle_axis",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
                l.arg(1)?,
                l.arg(2)?,
            ))
        },
        reach: |l, _| {
            let [m, n, p] = [0, 1, 2].map(|i| i128::from(l.args[i]));
            let t = passing(l, m * p);
            if t == 0 {
                return Reach {
                    extents: vec![0; 2],
                    vectors: vec![false; 2],
                    ints: vec![("(long long)m * p", m * p, LLONG_MAX)],
                };
            }
            // The thread idx = i * p + j reads ((i * n + k) * p + j for k < n: the largest,
            // k = n - 1, grows with idx.
            let (i, j) = ((t - 1) / p, (t - 1) % p);
            let prod = if n > 0 {
                (i * n + n - 1) * p + j + 1
            } else {
                0
            };
            Reach {
                extents: vec![extent(prod), extent(t)],
                vectors: vec![false; 2],
                ints: vec![
                    ("(long long)m * p", m * p, LLONG_MAX),
                    ("int i = idx / p", i, INT_MAX),
                    ("k++ up to n", n, INT_MAX),
                    ("((long long)i * n + k) * p + j", prod - 1, LLONG_MAX),
                ],
            }
        },
    }
}

pub fn dft_terms() -> Model {
    Model {
        kernels: "dft_terms",
        buffers: &["x", "terms"],
        mirrors: &[("ch03-broadcast.cu", "dft")],
        hash: 0xe30e4c6ef0e4b551,
        draw: || {
            let n = prop_oneof![4 => 0u64..3000, 1 => size()];
            views_of(
                n.prop_flat_map(|n| {
                    let nn = times(&[n, n]);
                    around([ceil(nn, 256), 1, 1], [256, 1, 1], vec![n, nn], vec![])
                })
                .boxed(),
                &[16, 16],
            )
        },
        contract: |l| {
            derived(ch03_broadcast::DftTerms::contract(
                "dft_terms",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = i128::from(d[0]);
            let t = passing(l, n * n);
            let x = if t > 0 { (t - 1) / n + 1 } else { 0 };
            Reach {
                // double2: 16 bytes a load and a store.
                extents: vec![extent(x), extent(t)],
                vectors: vec![true; 2],
                ints: vec![
                    ("(long long)N * N", n * n, LLONG_MAX),
                    ("int t = idx / N", x - 1, INT_MAX),
                    ("(long long)k * t", (n - 1).max(0).pow(2), LLONG_MAX),
                ],
            }
        },
    }
}

pub fn sum_terms() -> Model {
    Model {
        kernels: "sum_terms",
        buffers: &["terms", "X"],
        mirrors: &[("ch03-broadcast.cu", "dft")],
        hash: 0xe30e4c6ef0e4b551,
        draw: || {
            let n = prop_oneof![4 => 0u64..3000, 1 => size()];
            views_of(
                n.prop_flat_map(|n| {
                    around(
                        [ceil(n, 256), 1, 1],
                        [256, 1, 1],
                        vec![times(&[n, n]), n],
                        vec![],
                    )
                })
                .boxed(),
                &[16, 16],
            )
        },
        contract: |l| {
            derived(ch03_broadcast::SumTerms::contract(
                "sum_terms",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = i128::from(d[0]);
            // int k = blockIdx.x * blockDim.x + threadIdx.x: an unsigned product made an int.
            let k_last = i128::from(l.tx()) - 1;
            let t = passing(l, n);
            // Thread k reads terms[t * N + k] for t < N.
            let terms = if t > 0 { (n - 1) * n + t } else { 0 };
            Reach {
                extents: vec![extent(terms), extent(t)],
                vectors: vec![true; 2],
                ints: vec![
                    (
                        "int k = blockIdx.x * blockDim.x + threadIdx.x",
                        k_last,
                        INT_MAX,
                    ),
                    ("t++ up to N", n, INT_MAX),
                    ("(long long)t * N + k", terms - 1, LLONG_MAX),
                ],
            }
        },
    }
}

pub fn outer_product() -> Model {
    Model {
        kernels: "outer_product",
        buffers: &["x", "y", "out"],
        mirrors: &[("ch03-broadcast.cu", "outer")],
        hash: 0x98985f447c4c2eff,
        draw: || {
            dims2()
                .prop_flat_map(|(m, n)| {
                    around(
                        [ceil(times(&[m, n]), 256), 1, 1],
                        [256, 1, 1],
                        vec![m, n, times(&[m, n])],
                        vec![],
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived2(ch03_broadcast::OuterProduct::contract(
                "outer_product",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            let (m, n) = (i128::from(d[0]), i128::from(d[1]));
            let t = passing(l, m * n);
            // out[idx], x[idx / n], y[idx % n] for idx < (long long)m * n.
            let x = if t > 0 { (t - 1) / n + 1 } else { 0 };
            Reach {
                extents: vec![extent(x), extent(t.min(n)), extent(t)],
                vectors: vec![false; 3],
                ints: vec![("(long long)m * n", m * n, LLONG_MAX)],
            }
        },
    }
}

pub fn add_in_place() -> Model {
    Model {
        kernels: "add_in_place",
        buffers: &["a", "b"],
        mirrors: &[("ch03-elementwise.cu", "add_in_place")],
        hash: 0x109d1915808fb49e,
        draw: || one_d(256, 1, |n| vec![n; 2], |_| vec![]),
        contract: |l| {
            derived64(ch03_elementwise::AddInPlace::contract(
                "add_in_place",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, false),
    }
}

pub fn add_taylor_term() -> Model {
    Model {
        kernels: "add_taylor_term",
        buffers: &["xs", "ys"],
        mirrors: &[("ch03-elementwise.cu", "add_taylor_term")],
        hash: 0xec8671d35598b7d4,
        // The power is any int: it is an exponent, never an index.
        draw: || one_d(256, 1, |n| vec![n; 2], |_| vec![3]),
        contract: |l| {
            derived64(ch03_elementwise::AddTaylorTerm::contract(
                "add_taylor_term",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
                6.0,
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, false),
    }
}

pub fn add_arrays() -> Model {
    Model {
        kernels: "add_arrays",
        buffers: &["tmp", "x", "y"],
        mirrors: &[("ch03-exercise-fusion-solution.cu", "add_arrays")],
        hash: 0x67675b761d1f27be,
        draw: || views_of(one_d(256, 1, |n| vec![n; 3], |_| vec![]), &[16; 3]),
        contract: |l| {
            derived64(ch03_exercise_fusion_solution::AddArrays::contract(
                "add_arrays",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        // float4: 16 bytes a load and a store.
        reach: |l, d| one_per_thread_64(l, d[0], 3, true),
    }
}

pub fn cos_fused_plus_x() -> Model {
    Model {
        kernels: "cos_fused_plus_x",
        buffers: &["x", "y"],
        mirrors: &[("ch03-exercise-fusion-solution.cu", "cos_fused_plus_x")],
        hash: 0xbdf83284f4a8058a,
        draw: || views_of(one_d(256, 1, |n| vec![n; 2], |_| vec![]), &[16; 2]),
        contract: |l| {
            derived64(ch03_exercise_fusion_solution::CosFusedPlusX::contract(
                "cos_fused_plus_x",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, true),
    }
}

pub fn subtract_scalar() -> Model {
    Model {
        kernels: "subtract_scalar, multiply_scalar",
        buffers: &["x", "out"],
        mirrors: &[("ch03-fusion.cu", "unfused")],
        hash: 0x2ab2b116e75ca683,
        draw: || views_of(one_d(256, 1, |n| vec![n; 2], |_| vec![]), &[16; 2]),
        contract: |l| {
            derived64(ch03_fusion::SubtractScalar::contract(
                "subtract_scalar",
                &l.config(),
                l.span(0),
                1.0,
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, true),
    }
}

pub fn cos_each() -> Model {
    Model {
        kernels: "cos_each",
        buffers: &["x", "out"],
        mirrors: &[("ch03-fusion.cu", "unfused")],
        hash: 0x2ab2b116e75ca683,
        draw: || views_of(one_d(256, 1, |n| vec![n; 2], |_| vec![]), &[16; 2]),
        contract: |l| {
            derived64(ch03_fusion::CosEach::contract(
                "cos_each",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, true),
    }
}

pub fn cos_fused() -> Model {
    Model {
        kernels: "cos_fused",
        buffers: &["x", "y"],
        mirrors: &[("ch03-fusion.cu", "fused")],
        hash: 0xde03ed779f935a31,
        draw: || views_of(one_d(256, 1, |n| vec![n; 2], |_| vec![]), &[16; 2]),
        contract: |l| {
            derived64(ch03_fusion::CosFused::contract(
                "cos_fused",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, true),
    }
}

/// The streams' kernels take any grid: draw a small one over any length.
fn streams_draw() -> BoxedStrategy<Launch> {
    (size(), 1u64..200)
        .prop_flat_map(|(n, blocks)| around([blocks, 1, 1], [256, 1, 1], vec![n; 2], vec![]))
        .boxed()
}

pub fn times_two() -> Model {
    Model {
        kernels: "times_two",
        buffers: &["a", "out"],
        mirrors: &[("ch03-streams.cu", "three")],
        hash: 0x5552f210a0ff8348,
        draw: streams_draw,
        contract: |l| {
            derived64(ch03_streams::TimesTwo::contract(
                "times_two",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| grid_stride_64(l, d[0], 2),
    }
}

pub fn square() -> Model {
    Model {
        kernels: "square",
        buffers: &["b", "out"],
        mirrors: &[("ch03-streams.cu", "three")],
        hash: 0x5552f210a0ff8348,
        draw: streams_draw,
        contract: |l| {
            derived64(ch03_streams::Square::contract(
                "square",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| grid_stride_64(l, d[0], 2),
    }
}

pub fn sine() -> Model {
    Model {
        kernels: "sine",
        buffers: &["c", "out"],
        mirrors: &[("ch03-streams.cu", "three")],
        hash: 0x5552f210a0ff8348,
        draw: streams_draw,
        contract: |l| {
            derived64(ch03_streams::Sine::contract(
                "sine",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| grid_stride_64(l, d[0], 2),
    }
}

pub fn polish() -> Model {
    Model {
        kernels: "polish",
        buffers: &["x"],
        mirrors: &[("ch03-streams.cu", "polish")],
        hash: 0x310f83bc8f7d4f19,
        // rounds is a count of steps, never an index: any int.
        draw: || one_d(256, 1, |n| vec![n], |_| vec![10]),
        contract: |l| {
            derived64(ch03_streams::Polish::contract(
                "polish",
                &l.config(),
                l.span(0),
                l.arg(0)?,
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 1, false),
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        broadcast_multiply(),
        sum_middle_axis(),
        dft_terms(),
        sum_terms(),
        outer_product(),
        add_in_place(),
        add_taylor_term(),
        add_arrays(),
        cos_fused_plus_x(),
        subtract_scalar(),
        cos_each(),
        cos_fused(),
        times_two(),
        square(),
        sine(),
        polish(),
    ]
}

#[test]
fn broadcast_multiply_stays_inside() {
    prove(broadcast_multiply());
}

#[test]
fn sum_middle_axis_stays_inside() {
    prove(sum_middle_axis());
}

#[test]
fn dft_terms_stays_inside() {
    prove(dft_terms());
}

#[test]
fn sum_terms_stays_inside() {
    prove(sum_terms());
}

#[test]
fn outer_product_stays_inside() {
    prove(outer_product());
}

#[test]
fn add_in_place_stays_inside() {
    prove(add_in_place());
}

#[test]
fn add_taylor_term_stays_inside() {
    prove(add_taylor_term());
}

#[test]
fn add_arrays_stays_inside() {
    prove(add_arrays());
}

#[test]
fn cos_fused_plus_x_stays_inside() {
    prove(cos_fused_plus_x());
}

#[test]
fn subtract_scalar_stays_inside() {
    prove(subtract_scalar());
}

#[test]
fn cos_each_stays_inside() {
    prove(cos_each());
}

#[test]
fn cos_fused_stays_inside() {
    prove(cos_fused());
}

#[test]
fn times_two_stays_inside() {
    prove(times_two());
}

#[test]
fn square_stays_inside() {
    prove(square());
}

#[test]
fn sine_stays_inside() {
    prove(sine());
}

#[test]
fn polish_stays_inside() {
    prove(polish());
}
