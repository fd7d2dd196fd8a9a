//! The models of chapter 4: first kernels's kernels.

use super::ch03::{
    derived64, dims2, dims3, extent, nothing, one_per_thread_64, passing, times, views_of,
};
use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

pub fn adder() -> Model {
    Model {
        kernels: "adder",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[("ch04-adder.cu", "adder")],
        hash: 0x9e11b27bc3c5397d,
        draw: || one_d(256, 1, |n| vec![n; 3], |_| vec![]),
        contract: |l| {
            derived(ch04_adder::Adder::contract(
                "adder",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 3),
    }
}

pub fn adder_grid_stride() -> Model {
    Model {
        kernels: "adder_grid_stride, adder_grid_stride_raw",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[
            ("ch04-grids.cu", "helpers"),
            ("ch04-grids.cu", "grid_stride"),
            ("ch04-grids.cu", "grid_stride_raw"),
        ],
        hash: 0x85350c74e147eae7,
        draw: || one_d(256, 4, |n| vec![n; 3], |_| vec![]),
        contract: |l| {
            derived(ch04_grids::AdderGridStride::contract(
                "adder_grid_stride",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            let (extent, last) = grid_stride(l.tx(), d[0]);
            Reach {
                extents: vec![extent; 3],
                vectors: vec![false; 3],
                ints: vec![
                    ("i += gridDim.x * blockDim.x", last, INT_MAX),
                    ("the stride", i128::from(l.tx()), INT_MAX),
                ],
            }
        },
    }
}

pub fn reduce_sum() -> Model {
    Model {
        kernels: "sum_racy, sum_atomic_per_thread",
        buffers: &["xs", "total"],
        mirrors: &[
            ("ch04-reduce.cu", "partial"),
            ("ch04-reduce.cu", "racy"),
            ("ch04-reduce.cu", "atomic"),
        ],
        hash: 0x8fef8cb5bdbe207f,
        draw: || one_d(256, 8, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch04_reduce::SumRacy::contract(
                "sum_racy",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0);
            let s = i128::from(l.tx());
            Reach {
                extents: vec![n as u64, 1],
                vectors: vec![false; 2],
                // The unrolled loop tests i + 3 * stride < n; its i can end one stride past n.
                ints: vec![
                    ("i + 3 * stride", i128::from(n) + 4 * s - 1, INT_MAX),
                    ("4 * stride", 4 * s, INT_MAX),
                ],
            }
        },
    }
}

pub fn square_wide() -> Model {
    Model {
        kernels: "square_wide",
        buffers: &["xs", "squares"],
        mirrors: &[("ch04-cpp-tour.cu", "square_wide")],
        hash: 0x6ee91af302fbfdd2,
        draw: || one_d(256, 1, |n| vec![n; 2], |_| vec![]),
        contract: |l| {
            derived64(ch04_cpp_tour::SquareWide::contract(
                "square_wide",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_64(l, d[0], 2, false),
    }
}

pub fn lengths() -> Model {
    Model {
        kernels: "lengths",
        buffers: &["points", "out"],
        mirrors: &[
            ("ch04-cpp-tour.cu", "helper"),
            ("ch04-cpp-tour.cu", "lengths"),
        ],
        hash: 0x8498c8d3e269da39,
        // A view of float2s starts on an 8-byte boundary, all that the kernel's 8-byte loads
        // of `points` need.
        draw: || views_of(one_d(256, 1, |n| vec![n; 2], |_| vec![]), &[8, 4]),
        contract: |l| {
            derived(ch04_cpp_tour::Lengths::contract(
                "lengths",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        // int i = blockIdx.x * blockDim.x + threadIdx.x: an unsigned sum made an int.
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

pub fn twice_int() -> Model {
    Model {
        kernels: "twice_int",
        buffers: &["xs", "ys"],
        mirrors: &[
            ("ch04-cpp-tour.cu", "template"),
            ("ch04-cpp-tour.cu", "macro"),
        ],
        hash: 0x89b0c8190f47d9ba,
        draw: || one_d(256, 1, |n| vec![n; 2], |_| vec![]),
        contract: |l| {
            derived(ch04_cpp_tour::TwiceInt::contract(
                "twice_int",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

pub fn twice_float() -> Model {
    Model {
        kernels: "twice_float",
        buffers: &["xs", "ys"],
        mirrors: &[
            ("ch04-cpp-tour.cu", "template"),
            ("ch04-cpp-tour.cu", "macro"),
        ],
        hash: 0x89b0c8190f47d9ba,
        draw: || one_d(256, 1, |n| vec![n; 2], |_| vec![]),
        contract: |l| {
            derived(ch04_cpp_tour::TwiceFloat::contract(
                "twice_float",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

/// Blocks of 256 over `blocks * 256` values, one sum per block.
fn block_sums_draw() -> BoxedStrategy<Launch> {
    prop_oneof![4 => 1u64..5000, 1 => size()]
        .prop_flat_map(|g| around([g, 1, 1], [256, 1, 1], vec![times(&[g, 256]), g], vec![]))
        .boxed()
}

pub fn block_sums() -> Model {
    Model {
        kernels: "block_sums",
        buffers: &["xs", "sums"],
        mirrors: &[("ch04-cpp-tour.cu", "block_sums")],
        hash: 0xe4bbd2e196c7cec7,
        draw: block_sums_draw,
        contract: |l| {
            nothing(ch04_cpp_tour::BlockSums::contract(
                "block_sums",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, _| {
            let (g, b) = (i128::from(l.grid[0]), i128::from(l.block[0]));
            // xs[blockIdx.x * BLOCK + t] with t = threadIdx.x: the kernel strides by BLOCK,
            // whatever the block's size; partial[t] and partial[t + half] (t < half <= 128).
            let last = (g - 1) * 256 + b - 1;
            Reach {
                extents: vec![extent(last + 1), extent(g)],
                vectors: vec![false; 2],
                ints: vec![
                    ("blockIdx.x * BLOCK + t (unsigned)", last, UINT_MAX),
                    ("t, in partial[BLOCK]", b - 1, 255),
                ],
            }
        },
    }
}

pub fn block_sums_dynamic() -> Model {
    Model {
        kernels: "block_sums_dynamic",
        buffers: &["xs", "sums"],
        mirrors: &[
            ("ch04-cpp-tour.cu", "block_sums_dynamic"),
            ("ch04-cpp-tour.cu", "block_sums_dynamic_rest"),
        ],
        hash: 0xab2d0f00f5654129,
        draw: || {
            block_sums_draw()
                .prop_flat_map(|l| {
                    let bytes = 4 * l.block[0];
                    let shared = prop_oneof![
                        8 => Just(bytes),
                        1 => Just(bytes - 4),
                        1 => Just(bytes + 4),
                        1 => 0u32..8192,
                    ];
                    (Just(l), shared)
                })
                .prop_map(|(mut l, shared)| {
                    l.shared = shared;
                    l
                })
                .boxed()
        },
        contract: |l| {
            nothing(ch04_cpp_tour::BlockSumsDynamic::contract(
                "block_sums_dynamic",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, _| {
            let (g, b) = (i128::from(l.grid[0]), i128::from(l.block[0]));
            // partial[t] for t < blockDim.x, and partial[t + half] for t < half, half at most
            // blockDim.x / 2: the highest is blockDim.x - 1, its last byte 4 * blockDim.x.
            let last = (g - 1) * b + b - 1;
            Reach {
                extents: vec![extent(last + 1), extent(g)],
                vectors: vec![false; 2],
                ints: vec![
                    ("blockIdx.x * blockDim.x + t (unsigned)", last, UINT_MAX),
                    (
                        "4 * (t + 1), the bytes of partial[] reached",
                        4 * b,
                        i128::from(l.shared),
                    ),
                ],
            }
        },
    }
}

pub fn squares_report() -> Model {
    Model {
        kernels: "squares_report",
        buffers: &["out"],
        mirrors: &[("ch04-debugging.cu", "report")],
        hash: 0x7d99092ae169792a,
        draw: || one_d(256, 1, |n| vec![n], |_| vec![]),
        contract: |l| {
            derived(ch04_debugging::SquaresReport::contract(
                "squares_report",
                &l.config(),
                l.span(0),
            ))
        },
        // i <= n, then i >= n returns: out[i] only for i < n. (The value i * i wraps past
        // 46340, an int overflow of a value, not of an index.)
        reach: |l, d| one_per_thread(l, d[0], 1),
    }
}

pub fn dft_phase() -> Model {
    Model {
        kernels: "dft_naive_phase, dft_reduced_phase",
        buffers: &["xs", "out"],
        mirrors: &[("ch04-dft.cu", "naive"), ("ch04-dft.cu", "reduced")],
        hash: 0x65fc0cc690d37109,
        draw: || views_of(one_d(256, 1, |n| vec![n; 2], |_| vec![]), &[8, 8]),
        contract: |l| {
            derived(ch04_dft::DftNaivePhase::contract(
                "dft_naive_phase",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = i128::from(d[0]);
            let k = passing(l, n);
            // Every thread with k < n reads all of xs (8 bytes a load, float2s) and writes
            // out[k].
            Reach {
                extents: vec![extent(if k > 0 { n } else { 0 }), extent(k)],
                vectors: vec![false; 2],
                ints: vec![
                    (
                        "int k = blockIdx.x * blockDim.x + threadIdx.x",
                        i128::from(l.tx()) - 1,
                        INT_MAX,
                    ),
                    ("++j up to n", n, INT_MAX),
                ],
            }
        },
    }
}

pub fn split_every_warp() -> Model {
    Model {
        kernels: "split_every_warp, split_no_warp",
        buffers: &["in", "out"],
        mirrors: &[
            ("ch04-divergence.cu", "paths"),
            ("ch04-divergence.cu", "kernels"),
        ],
        hash: 0x23241e0ddb8fa34a,
        // steps counts iterations of a path, never an index: any int.
        draw: || one_d(256, 1, |n| vec![n; 2], |_| vec![100]),
        contract: |l| {
            derived(ch04_divergence::SplitEveryWarp::contract(
                "split_every_warp",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

/// A row-major `rows x cols` sum by one thread per element, `x_rows` saying whether x walks
/// the rows (else the columns): the reach of `i = row * cols + col` under `row < rows && col <
/// cols`.
fn matrix_add_reach(l: &Launch, x_rows: bool) -> Reach {
    let (rows, cols) = (i128::from(l.args[0]), i128::from(l.args[1]));
    let tx = i128::from(l.tx());
    let ty = i128::from(l.grid[1]) * i128::from(l.block[1]);
    let (row_threads, col_threads) = if x_rows { (tx, ty) } else { (ty, tx) };
    let (r, c) = (row_threads.min(rows), col_threads.min(cols));
    let i = if r > 0 && c > 0 {
        (r - 1) * cols + c
    } else {
        0
    };
    Reach {
        extents: vec![extent(i); 3],
        vectors: vec![false; 3],
        ints: vec![
            ("the index along x, an int", tx - 1, INT_MAX),
            ("the index along y, an int", ty - 1, INT_MAX),
            ("i = row * cols + col", i - 1, INT_MAX),
        ],
    }
}

fn matrix_add_draw(x_rows: bool) -> BoxedStrategy<Launch> {
    dims2()
        .prop_flat_map(move |(rows, cols)| {
            let (x, y) = if x_rows { (rows, cols) } else { (cols, rows) };
            around(
                [ceil(x, 32), ceil(y, 32), 1],
                [32, 32, 1],
                vec![times(&[rows, cols]); 3],
                vec![rows as i64, cols as i64],
            )
        })
        .boxed()
}

pub fn matrix_add_2d() -> Model {
    Model {
        kernels: "matrix_add_2d",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[("ch04-grids.cu", "matrix_add_2d")],
        hash: 0x39f1b8d2e899ce66,
        draw: || matrix_add_draw(false),
        contract: |l| {
            nothing(ch04_grids::MatrixAdd2d::contract(
                "matrix_add_2d",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.arg(1)?,
            ))
        },
        reach: |l, _| matrix_add_reach(l, false),
    }
}

pub fn matrix_add_row_from_x() -> Model {
    Model {
        kernels: "matrix_add_row_from_x",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[("ch04-grids.cu", "matrix_add_row_from_x")],
        hash: 0x6ab5391b19c6b806,
        draw: || matrix_add_draw(true),
        contract: |l| {
            nothing(ch04_grids::MatrixAddRowFromX::contract(
                "matrix_add_row_from_x",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.arg(1)?,
            ))
        },
        reach: |l, _| matrix_add_reach(l, true),
    }
}

/// m x n times n x p around a launch of `grid(m, n, p)` blocks of `block`.
fn matmul_draw(grid: fn(u64, u64, u64) -> [u64; 3], block: [u32; 3]) -> BoxedStrategy<Launch> {
    dims3()
        .prop_flat_map(move |(m, n, p)| {
            around(
                grid(m, n, p),
                block,
                vec![times(&[m, n]), times(&[n, p]), times(&[m, p])],
                vec![m as i64, n as i64, p as i64],
            )
        })
        .boxed()
}

/// The threads along each axis: x, y, z.
fn threads_along(l: &Launch) -> [i128; 3] {
    [0, 1, 2].map(|a| i128::from(l.grid[a]) * i128::from(l.block[a]))
}

/// The reach of `c[i * p + j]`, `a[i * n + k]` and `b[k * p + j]` (int products) over
/// `i < is`, `k < ks`, `j < js`, each range empty or starting at 0.
fn matmul_reach(
    n: i128,
    p: i128,
    is: i128,
    ks: i128,
    js: i128,
    ints: &mut Vec<(&'static str, i128, i128)>,
) -> Vec<u64> {
    let any = is > 0 && ks > 0 && js > 0;
    let [c, a, b] = if any {
        [(is - 1) * p + js, (is - 1) * n + ks, (ks - 1) * p + js]
    } else {
        [0; 3]
    };
    ints.extend([
        ("i * p + j", c - 1, INT_MAX),
        ("i * n + k", a - 1, INT_MAX),
        ("k * p + j", b - 1, INT_MAX),
    ]);
    vec![extent(a), extent(b), extent(c)]
}

fn matmul_args(l: &Launch) -> [i128; 3] {
    [0, 1, 2].map(|i| i128::from(l.args[i]))
}

pub fn matmul_racy_ijk() -> Model {
    Model {
        kernels: "matmul_racy_ijk",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch04-matmul.cu", "racy_ijk")],
        hash: 0xe56d298530a8216d,
        draw: || matmul_draw(|m, n, p| [ceil(n, 32), ceil(p, 8), m], [32, 8, 1]),
        contract: |l| {
            nothing(ch04_matmul::MatmulRacyIjk::contract(
                "matmul_racy_ijk",
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
            let [m, n, p] = matmul_args(l);
            // k along x, j along y, i along z; one product each, under i < m && j < p && k < n.
            let [tx, ty, tz] = threads_along(l);
            let mut ints = vec![
                ("k, along x", tx - 1, INT_MAX),
                ("j, along y", ty - 1, INT_MAX),
                ("i, along z", tz - 1, INT_MAX),
            ];
            let extents = matmul_reach(n, p, tz.min(m), tx.min(n), ty.min(p), &mut ints);
            Reach {
                extents,
                vectors: vec![false; 3],
                ints,
            }
        },
    }
}

pub fn matmul_racy_ik() -> Model {
    Model {
        kernels: "matmul_racy_ik",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch04-matmul.cu", "racy_ik")],
        hash: 0x7cac344452cf2d19,
        draw: || matmul_draw(|m, n, _| [ceil(n, 32), ceil(m, 8), 1], [32, 8, 1]),
        contract: |l| {
            nothing(ch04_matmul::MatmulRacyIk::contract(
                "matmul_racy_ik",
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
            let [m, n, p] = matmul_args(l);
            // k along x, i along y, under i < m && k < n; each thread loops over j < p.
            let [tx, ty, _] = threads_along(l);
            let mut ints = vec![
                ("k, along x", tx - 1, INT_MAX),
                ("i, along y", ty - 1, INT_MAX),
                ("++j up to p", p, INT_MAX),
            ];
            let extents = matmul_reach(n, p, ty.min(m), tx.min(n), p, &mut ints);
            Reach {
                extents,
                vectors: vec![false; 3],
                ints,
            }
        },
    }
}

pub fn matmul_sum_in_global() -> Model {
    Model {
        kernels: "matmul_sum_in_global, matmul_sum_in_register",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch04-matmul.cu", "sum_in_global"),
            ("ch04-matmul.cu", "sum_in_register"),
        ],
        hash: 0x5f5a8a93b8ec3ef6,
        draw: || matmul_draw(|m, _, p| [ceil(p, 16), ceil(m, 16), 1], [16, 16, 1]),
        contract: |l| {
            nothing(ch04_matmul::MatmulSumInGlobal::contract(
                "matmul_sum_in_global",
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
            let [m, n, p] = matmul_args(l);
            // j along x, i along y, under i < m && j < p; c[i * p + j] is written even when
            // n = 0, a and b only inside the loop over k < n.
            let [tx, ty, _] = threads_along(l);
            let (is, js) = (ty.min(m), tx.min(p));
            let mut ints = vec![
                ("j, along x", tx - 1, INT_MAX),
                ("i, along y", ty - 1, INT_MAX),
                ("++k up to n", n, INT_MAX),
            ];
            let mut extents = matmul_reach(n, p, is, n, js, &mut ints);
            let c = if is > 0 && js > 0 {
                (is - 1) * p + js
            } else {
                0
            };
            ints.push(("i * p + j, written before the loop", c - 1, INT_MAX));
            extents[2] = extent(c);
            Reach {
                extents,
                vectors: vec![false; 3],
                ints,
            }
        },
    }
}

pub fn matmul_1d() -> Model {
    Model {
        kernels: "matmul_1d",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch04-matmul.cu", "matmul_1d")],
        hash: 0xbe1954492ab41186,
        draw: || matmul_draw(|m, _, p| [ceil(times(&[m, p]), 256), 1, 1], [256, 1, 1]),
        contract: |l| {
            nothing(ch04_matmul::Matmul1d::contract(
                "matmul_1d",
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
            let [m, n, p] = matmul_args(l);
            // ij < m * p (an int product); i = ij / p grows with ij, j = ij % p takes every
            // value below p once ij reaches p.
            let t = passing(l, m * p);
            let mut ints = vec![
                (
                    "int ij = blockIdx.x * blockDim.x + threadIdx.x",
                    i128::from(l.tx()) - 1,
                    INT_MAX,
                ),
                ("m * p", m * p, INT_MAX),
                ("++k up to n", n, INT_MAX),
            ];
            let (is, js) = if t > 0 {
                ((t - 1) / p + 1, t.min(p))
            } else {
                (0, 0)
            };
            let mut extents = matmul_reach(n, p, is, n, js, &mut ints);
            extents[2] = extent(t);
            Reach {
                extents,
                vectors: vec![false; 3],
                ints,
            }
        },
    }
}

pub fn multiplier() -> Model {
    Model {
        kernels: "multiplier",
        buffers: &["xs", "ys", "zs"],
        mirrors: &[("ch04-multiplier.cu", "multiplier")],
        hash: 0x6a80942256d8c1e3,
        draw: || one_d(256, 4, |n| vec![n; 3], |_| vec![]),
        contract: |l| {
            derived(ch04_multiplier::Multiplier::contract(
                "multiplier",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            let (extent, last) = grid_stride(l.tx(), d[0]);
            let t = i128::from(l.tx());
            // int step = gridDim.x * blockDim.x is added to i only when the loop runs, n > 0.
            let step = if d[0] > 0 { t } else { 0 };
            Reach {
                extents: vec![extent; 3],
                vectors: vec![false; 3],
                ints: vec![
                    (
                        "int first = blockIdx.x * blockDim.x + threadIdx.x",
                        t - 1,
                        INT_MAX,
                    ),
                    (
                        "int step = gridDim.x * blockDim.x, when the loop runs",
                        step,
                        INT_MAX,
                    ),
                    ("i += step", last, INT_MAX),
                ],
            }
        },
    }
}

pub fn sum_block_tree() -> Model {
    Model {
        kernels: "sum_block_tree",
        buffers: &["xs", "total"],
        mirrors: &[("ch04-reduce.cu", "partial"), ("ch04-reduce.cu", "tree")],
        hash: 0x42a02f0c8ca08ec3,
        draw: || one_d(256, 8, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch04_reduce::SumBlockTree::contract(
                "sum_block_tree",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0);
            let s = i128::from(l.tx());
            // thread_partial_sum as in reduce_sum; then partials[t] and partials[t + half]
            // (t < half <= 128) of THREADS_PER_BLOCK, with t = threadIdx.x.
            Reach {
                extents: vec![n as u64, 1],
                vectors: vec![false; 2],
                ints: vec![
                    ("int stride = gridDim.x * blockDim.x", s, INT_MAX),
                    ("i + 3 * stride", i128::from(n) + 4 * s - 1, INT_MAX),
                    ("4 * stride", 4 * s, INT_MAX),
                    (
                        "t, in partials[THREADS_PER_BLOCK]",
                        i128::from(l.block[0]) - 1,
                        255,
                    ),
                ],
            }
        },
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        adder(),
        adder_grid_stride(),
        reduce_sum(),
        square_wide(),
        lengths(),
        twice_int(),
        twice_float(),
        block_sums(),
        block_sums_dynamic(),
        squares_report(),
        dft_phase(),
        split_every_warp(),
        matrix_add_2d(),
        matrix_add_row_from_x(),
        matmul_racy_ijk(),
        matmul_racy_ik(),
        matmul_sum_in_global(),
        matmul_1d(),
        multiplier(),
        sum_block_tree(),
    ]
}

#[test]
fn adder_stays_inside() {
    prove(adder());
}

#[test]
fn adder_grid_stride_stays_inside() {
    prove(adder_grid_stride());
}

#[test]
fn reduce_sum_stays_inside() {
    prove(reduce_sum());
}

#[test]
fn square_wide_stays_inside() {
    prove(square_wide());
}

#[test]
fn lengths_stays_inside() {
    prove(lengths());
}

#[test]
fn twice_int_stays_inside() {
    prove(twice_int());
}

#[test]
fn twice_float_stays_inside() {
    prove(twice_float());
}

#[test]
fn block_sums_stays_inside() {
    prove(block_sums());
}

#[test]
fn block_sums_dynamic_stays_inside() {
    prove(block_sums_dynamic());
}

#[test]
fn squares_report_stays_inside() {
    prove(squares_report());
}

#[test]
fn dft_phase_stays_inside() {
    prove(dft_phase());
}

#[test]
fn split_every_warp_stays_inside() {
    prove(split_every_warp());
}

#[test]
fn matrix_add_2d_stays_inside() {
    prove(matrix_add_2d());
}

#[test]
fn matrix_add_row_from_x_stays_inside() {
    prove(matrix_add_row_from_x());
}

#[test]
fn matmul_racy_ijk_stays_inside() {
    prove(matmul_racy_ijk());
}

#[test]
fn matmul_racy_ik_stays_inside() {
    prove(matmul_racy_ik());
}

#[test]
fn matmul_sum_in_global_stays_inside() {
    prove(matmul_sum_in_global());
}

#[test]
fn matmul_1d_stays_inside() {
    prove(matmul_1d());
}

#[test]
fn multiplier_stays_inside() {
    prove(multiplier());
}

#[test]
fn sum_block_tree_stays_inside() {
    prove(sum_block_tree());
}
