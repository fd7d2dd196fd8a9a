//! Property tests of the launch contracts: no launch that a safe launcher accepts can make its
//! kernel leave its buffers.
//!
//! For each launcher modelled here, proptest draws launches (lengths, grids, blocks, view
//! offsets and scalars, the extremes among them: 0, 1, 2^30, 2^31 - 1, one past...) and asks the
//! launcher's pure `contract` function, the very check `launch` runs, whether it accepts each.
//! For every accepted launch a hand-written model of the kernel says how far it reaches into
//! each buffer, which buffers it loads or stores 16 bytes at a time, and the largest value each
//! of its 32-bit index expressions takes; the test fails if any reach passes a length, any
//! vector access is misaligned, or any index overflows an `int`. A model mirrors the lines of
//! its `.cu` file between the anchors it names, and records a hash of them: when those lines
//! change, `every_model_mirrors_its_kernel_as_it_is` fails until the model is read again.
//!
//! The draws come from a fixed seed, printed; `COURSE_PROPTEST_SEED=N` draws others. A failing
//! launch is shrunk to a small one, which belongs at the end of this file as a plain test once
//! the contract refuses it; the findings of issue 34 are there too.

use std::cell::Cell;

use course::launch::{LaunchError, Span};
use cudarc::driver::LaunchConfig;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}
mod ch04_grids {
    course::kernels!("ch04-grids.cu");
}
mod ch04_reduce {
    course::kernels!("ch04-reduce.cu");
}
mod ch05_histogram {
    course::kernels!("ch05-histogram.cu");
}
mod ch06_scan {
    course::kernels!("ch06-scan.cu");
}
mod ch06_cooperative {
    course::kernels!("ch06-cooperative.cu");
}
mod ch08_sgemm {
    course::kernels!("ch08-sgemm.cu");
}
mod ch08_scan {
    course::kernels!("ch08-scan.cu");
}
mod ch08_sort {
    course::kernels!("ch08-sort.cu");
}

/// The seed of the draws: fixed, or `COURSE_PROPTEST_SEED`.
const SEED: u64 = 34;
/// Launches drawn per launcher.
const CASES: u32 = 3000;
const INT_MAX: i128 = i32::MAX as i128;
const UINT_MAX: i128 = u32::MAX as i128;

/// One launch, as a contract sees it.
#[derive(Clone, Debug)]
struct Launch {
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    /// Each buffer's length in elements, in the kernel's parameter order.
    lens: Vec<u64>,
    /// Each buffer's address modulo 256 (a view at an offset starts off the boundary).
    offsets: Vec<u64>,
    /// The scalar arguments the caller passes (not the derived ones), in order.
    args: Vec<i64>,
}

impl Launch {
    fn config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.grid[0], self.grid[1], self.grid[2]),
            block_dim: (self.block[0], self.block[1], self.block[2]),
            shared_mem_bytes: self.shared,
        }
    }

    fn span(&self, i: usize) -> Span {
        Span {
            len: self.lens[i] as usize,
            address: 0x7f00_0000_0000 + self.offsets[i],
        }
    }

    /// Scalar argument `i` as the kernel's type, or refused like a value that does not fit.
    fn arg<T: TryFrom<i64>>(&self, i: usize) -> Result<T, LaunchError> {
        T::try_from(self.args[i]).map_err(|_| LaunchError::Unrepresentable {
            kernel: "test",
            param: "argument",
            value: self.args[i] as i128,
        })
    }

    /// `gridDim.x * blockDim.x`.
    fn tx(&self) -> u64 {
        u64::from(self.grid[0]) * u64::from(self.block[0])
    }

    fn threads(&self) -> u64 {
        self.grid
            .iter()
            .chain(&self.block)
            .map(|&d| u64::from(d))
            .product()
    }

    /// What the driver launches at all: blocks of at most 1024 threads (z at most 64), grids
    /// of at most 2^31 - 1 by 65535 by 65535, no dimension 0.
    fn driver_accepts(&self) -> bool {
        let [bx, by, bz] = self.block.map(u64::from);
        self.grid.iter().chain(&self.block).all(|&d| d >= 1)
            && bx * by * bz <= 1024
            && bz <= 64
            && self.grid[0] <= i32::MAX as u32
            && self.grid[1] <= 65535
            && self.grid[2] <= 65535
    }
}

/// How far a kernel reaches under one launch.
#[derive(Debug, Default)]
struct Reach {
    /// Per buffer: one past the largest element it may touch (0: none).
    extents: Vec<u64>,
    /// Per buffer: whether it is loaded or stored 16 bytes at a time.
    vectors: Vec<bool>,
    /// Each 32-bit index expression: what it is, its largest value, and the largest its type
    /// holds (`INT_MAX`, or `UINT_MAX` for an unsigned product).
    ints: Vec<(&'static str, i128, i128)>,
}

/// A kernel as the test models it.
struct Model {
    /// The launcher's kernels.
    kernels: &'static str,
    buffers: &'static [&'static str],
    /// The lines it mirrors: (kernel file, anchor), and the hash of their text.
    mirrors: &'static [(&'static str, &'static str)],
    hash: u64,
    /// Launches around the sizes that work, perturbed.
    draw: fn() -> BoxedStrategy<Launch>,
    /// The launcher's contract: the derived scalars, in the kernel's order.
    contract: fn(&Launch) -> Result<Vec<i64>, LaunchError>,
    /// Where the kernel reaches, given the derived scalars.
    reach: fn(&Launch, &[i64]) -> Reach,
}

// ---- drawing launches ----

/// A size: small, at a boundary, or anything up to 2^34.
fn size() -> BoxedStrategy<u64> {
    prop_oneof![
        6 => 0u64..=5000,
        1 => Just(0u64),
        1 => Just(1u64),
        3 => prop::sample::select(vec![
            (1 << 20) + 1,
            (1 << 30) - 1,
            1 << 30,
            (1 << 31) - 1024,
            (1 << 31) - 1,
            1 << 31,
            (1 << 31) + 1,
            (1 << 32) - 1,
            1 << 32,
        ]),
        1 => 0u64..(1 << 34),
    ]
    .boxed()
}

/// `v` most of the time, else one less, one more, or any size.
fn near(v: u64) -> BoxedStrategy<u64> {
    prop_oneof![
        30 => Just(v),
        1 => Just(v.saturating_sub(1)),
        1 => Just(v + 1),
        2 => size(),
    ]
    .boxed()
}

fn near_i64(v: i64) -> BoxedStrategy<i64> {
    prop_oneof![
        30 => Just(v),
        1 => Just(v - 1),
        1 => Just(v + 1),
        1 => Just(-1i64),
        1 => Just(i64::from(i32::MAX)),
        2 => size().prop_map(|s| s as i64),
    ]
    .boxed()
}

/// A grid dimension near `v`, or one of the sizes that overflow 32-bit indices.
fn grid_near(v: u64) -> BoxedStrategy<u32> {
    prop_oneof![
        12 => near(v.max(1)),
        1 => prop::sample::select(vec![(1u64 << 21) + 1, (1 << 22) + 1, (1 << 24) + 1, (1 << 31) - 1]),
    ]
    .prop_map(|g| g.min(u64::from(u32::MAX)) as u32)
    .boxed()
}

fn block_near(v: u32) -> BoxedStrategy<u32> {
    prop_oneof![
        12 => Just(v),
        1 => prop::sample::select(vec![1u32, 2, 31, 32, 33, 64, 128, 255, 256, 257, 512, 1024]),
    ]
    .boxed()
}

/// A view's start: on the buffer's boundary, or some elements in.
fn offset() -> BoxedStrategy<u64> {
    prop_oneof![30 => Just(0u64), 1 => Just(4u64), 1 => Just(8u64), 1 => Just(12u64), 1 => Just(16u64)]
        .boxed()
}

/// Launches around a natural one: every field kept, nudged or replaced, independently.
fn around(
    grid: [u64; 3],
    block: [u32; 3],
    lens: Vec<u64>,
    args: Vec<i64>,
) -> BoxedStrategy<Launch> {
    let buffers = lens.len();
    (
        (grid_near(grid[0]), grid_near(grid[1]), grid_near(grid[2])),
        (
            block_near(block[0]),
            block_near(block[1]),
            block_near(block[2]),
        ),
        prop_oneof![4 => Just(0u32), 1 => 0u32..=100_000],
        lens.into_iter().map(near).collect::<Vec<_>>(),
        prop::collection::vec(offset(), buffers),
        args.into_iter().map(near_i64).collect::<Vec<_>>(),
    )
        .prop_map(|(g, b, shared, lens, offsets, args)| Launch {
            grid: [g.0, g.1, g.2],
            block: [b.0, b.1, b.2],
            shared,
            lens,
            offsets,
            args,
        })
        .boxed()
}

/// A one-dimensional launch over `n` elements, `per_thread` each, in blocks of `block`.
fn one_d(
    block: u32,
    per_thread: u64,
    lens: fn(u64) -> Vec<u64>,
    args: fn(u64) -> Vec<i64>,
) -> BoxedStrategy<Launch> {
    size()
        .prop_flat_map(move |n| {
            let blocks = n.div_ceil(u64::from(block) * per_thread);
            around([blocks, 1, 1], [block, 1, 1], lens(n), args(n))
        })
        .boxed()
}

fn ceil(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

fn derived(r: Result<(i32,), LaunchError>) -> Result<Vec<i64>, LaunchError> {
    r.map(|(n,)| vec![i64::from(n)])
}

// ---- the models ----

/// `i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) touch [i]`: the reach of a kernel
/// with one element per thread along x, for each of `buffers` buffers.
fn one_per_thread(l: &Launch, n: i64, buffers: usize) -> Reach {
    let t = l.tx();
    let n = n.max(0) as u64;
    Reach {
        extents: vec![t.min(n); buffers],
        vectors: vec![false; buffers],
        ints: vec![(
            "blockIdx.x * blockDim.x + threadIdx.x",
            i128::from(t) - 1,
            INT_MAX,
        )],
    }
}

/// A grid-stride loop `for (int i = first; i < n; i += stride)` over `threads` threads: it
/// touches `[0, n)`, and its last `i` is one stride past the last element.
fn grid_stride(threads: u64, n: i64) -> (u64, i128) {
    let n = n.max(0);
    let last = match n {
        0 => i128::from(threads) - 1,
        n => i128::from(n - 1) + i128::from(threads),
    };
    (n as u64, last)
}

fn adder() -> Model {
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

fn adder_grid_stride() -> Model {
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

fn reduce_sum() -> Model {
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

fn hist_shared() -> Model {
    Model {
        kernels: "hist_shared, hist_shared_wide",
        buffers: &["bytes", "bins"],
        mirrors: &[
            ("ch05-histogram.cu", "hist_shared"),
            ("ch05-histogram.cu", "hist_shared_wide"),
        ],
        hash: 0x7c940c7776a9b9d7,
        draw: || one_d(256, 16, |n| vec![n, 256], |_| vec![]),
        contract: |l| {
            derived(ch05_histogram::HistShared::contract(
                "hist_shared",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            // The start and stride are unsigned 32-bit products widened afterwards: a stride
            // of 2^32 threads would be 0, and the loop would never end.
            let t = i128::from(l.tx());
            Reach {
                extents: vec![n, u64::from(l.block[0])],
                vectors: vec![true, false],
                ints: vec![
                    ("blockIdx.x * blockDim.x + t (unsigned)", t - 1, UINT_MAX),
                    ("gridDim.x * blockDim.x, not 0 (unsigned)", t, UINT_MAX),
                ],
            }
        },
    }
}

fn scan_warps() -> Model {
    Model {
        kernels: "scan_warps",
        buffers: &["in", "out"],
        mirrors: &[("ch06-scan.cu", "warp_scan")],
        hash: 0xf5199b11049237ab,
        draw: || one_d(256, 1, |n| vec![n, n], |_| vec![]),
        contract: |l| {
            derived(ch06_scan::ScanWarps::contract(
                "scan_warps",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

fn block_partials() -> Model {
    Model {
        kernels: "block_partials",
        buffers: &["x", "partials"],
        mirrors: &[
            ("ch06-cooperative.cu", "block_sum"),
            ("ch06-cooperative.cu", "two_kernels"),
        ],
        hash: 0x587713407062fa7b,
        draw: || one_d(256, 8, |n| vec![n, ceil(n, 2048).max(1)], |_| vec![]),
        contract: |l| {
            derived(ch06_cooperative::BlockPartials::contract(
                "block_partials",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let threads = l.threads();
            let (extent, last) = grid_stride(threads, d[0]);
            Reach {
                extents: vec![extent, u64::from(l.grid[0])],
                vectors: vec![false; 2],
                ints: vec![
                    ("(int)grid.thread_rank()", i128::from(threads) - 1, INT_MAX),
                    ("i += (int)grid.num_threads()", last, INT_MAX),
                ],
            }
        },
    }
}

/// The 128 x 128 rungs: 2-D blocking, vectorised, conflict-free, double-buffered and the
/// 128x128 warp tiles share one launcher (the same parameters and contract).
fn sgemm_128() -> Model {
    Model {
        kernels: "sgemm_2d_blocking, sgemm_vectorised, sgemm_conflict_free, sgemm_double_buffered, sgemm_warp_tiles_128x128x*",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch08-sgemm.cu", "edges"),
            ("ch08-sgemm.cu", "blocking_2d"),
            ("ch08-sgemm.cu", "vectorised"),
            ("ch08-sgemm.cu", "conflict_free"),
            ("ch08-sgemm.cu", "double_buffered"),
            ("ch08-sgemm.cu", "warp_tiles"),
            ("ch08-sgemm.cu", "shapes"),
        ],
        hash: 0x3920f4cfd0073240,
        draw: || {
            let k = prop_oneof![3 => 0u64..9000, 1 => size()];
            (size(), size(), k)
                .prop_map(|(m, n, k)| (m % 9000, n % 9000, k))
                .prop_flat_map(|(m, n, k)| {
                    around(
                        [ceil(n, 128), ceil(m, 128), 1],
                        [256, 1, 1],
                        vec![m * k, k * n, m * n],
                        vec![m as i64, n as i64, k as i64],
                    )
                })
                .boxed()
        },
        contract: |l| {
            ch08_sgemm::Sgemm2dBlocking::contract(
                "sgemm_2d_blocking",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.arg(1)?,
                l.arg(2)?,
            )
            .map(|()| vec![])
        },
        reach: |l, _| {
            let [m, n, k] = [l.args[0], l.args[1], l.args[2]].map(|v| v.max(0) as u64);
            let touched = |rows: u64, cols: u64| {
                if rows == 0 || cols == 0 {
                    0
                } else {
                    rows * cols
                }
            };
            let last = |e: u64| i128::from(e) - 1;
            Reach {
                // Every load and store is guarded by row < rows && col < cols.
                extents: vec![touched(m, k), touched(k, n), touched(m, n)],
                vectors: vec![true; 3],
                ints: vec![
                    (
                        "row0 + 127 (blockIdx.y * 128)",
                        i128::from(l.grid[1]) * 128 + 127,
                        INT_MAX,
                    ),
                    (
                        "col0 + 127 (blockIdx.x * 128)",
                        i128::from(l.grid[0]) * 128 + 127,
                        INT_MAX,
                    ),
                    (
                        "k0 + BK + 16 (the next tile's loads)",
                        i128::from(k) + 31,
                        INT_MAX,
                    ),
                    ("row * k + col, inside A", last(touched(m, k)), INT_MAX),
                    ("row * n + col, inside B", last(touched(k, n)), INT_MAX),
                    ("row * n + col, inside C", last(touched(m, n)), INT_MAX),
                ],
            }
        },
    }
}

const SCAN_TILE: u64 = 128 * 40;

fn scan_lookback() -> Model {
    Model {
        kernels: "scan_lookback, scan_lookback_backwards",
        buffers: &["in", "out", "status", "next_tile", "stalled"],
        mirrors: &[
            ("ch08-scan.cu", "status"),
            ("ch08-scan.cu", "tile_scan"),
            ("ch08-scan.cu", "look_back"),
            ("ch08-scan.cu", "items"),
            ("ch08-scan.cu", "take_tile"),
            ("ch08-scan.cu", "scan"),
            ("ch08-scan.cu", "wrong_order"),
        ],
        hash: 0x2a347db865cb4ee7,
        draw: || {
            one_d(
                128,
                40,
                |n| vec![n, n, ceil(n, SCAN_TILE).max(1), 1, 1],
                |_| vec![],
            )
        },
        contract: |l| {
            derived(ch08_scan::ScanLookback::contract(
                "scan_lookback",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.span(3),
                l.span(4),
            ))
        },
        reach: |l, d| {
            // The launcher zeroes the tile counter, so the tiles are 0..grid.x; each reads and
            // writes only below n (64-bit indices), and its status word and those before it.
            let n = d[0].max(0) as u64;
            let tiles = u64::from(l.grid[0]);
            Reach {
                extents: vec![n, n, tiles, 1, 1],
                vectors: vec![true, true, false, false, false],
                ints: vec![("tile + 1", i128::from(tiles), INT_MAX)],
            }
        },
    }
}

fn select_lookback() -> Model {
    Model {
        kernels: "select_lookback",
        buffers: &["in", "out", "status", "next_tile", "stalled", "count"],
        mirrors: &[
            ("ch08-scan.cu", "status"),
            ("ch08-scan.cu", "tile_scan"),
            ("ch08-scan.cu", "look_back"),
            ("ch08-scan.cu", "items"),
            ("ch08-scan.cu", "take_tile"),
            ("ch08-scan.cu", "select"),
        ],
        hash: 0x063b5c694014036b,
        draw: || {
            one_d(
                256,
                16,
                |n| vec![n, n, ceil(n, 4096).max(1), 1, 1, 1],
                |_| vec![],
            )
        },
        contract: |l| {
            derived(ch08_scan::SelectLookback::contract(
                "select_lookback",
                &l.config(),
                l.span(0),
                l.span(1),
                0.5,
                l.span(2),
                l.span(3),
                l.span(4),
                l.span(5),
            ))
        },
        reach: |l, d| {
            // Kept elements go to their place among the kept ones: below n.
            let n = d[0].max(0) as u64;
            let tiles = u64::from(l.grid[0]);
            Reach {
                extents: vec![n, n, tiles, 1, 1, 1],
                vectors: vec![true, false, false, false, false, false],
                ints: vec![("tile + 1", i128::from(tiles), INT_MAX)],
            }
        },
    }
}

fn radix_histogram() -> Model {
    Model {
        kernels: "radix_histogram",
        buffers: &["keys", "counts"],
        mirrors: &[("ch08-sort.cu", "histogram")],
        hash: 0x3da387ec054dba03,
        draw: || one_d(256, 64, |n| vec![n, 1024], |_| vec![]),
        contract: |l| {
            derived(ch08_sort::RadixHistogram::contract(
                "radix_histogram",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            // blockIdx.x * THREADS is an unsigned 32-bit product, widened afterwards.
            let first = i128::from(l.grid[0] - 1) * 256 + i128::from(l.block[0]) - 1;
            Reach {
                extents: vec![n, 1024],
                vectors: vec![false; 2],
                ints: vec![(
                    "blockIdx.x * THREADS + threadIdx.x (unsigned)",
                    first,
                    UINT_MAX,
                )],
            }
        },
    }
}

/// The sort's pass, assuming what its `unsafe` launcher asks: `counts` are the keys' own.
fn radix_pass() -> Model {
    Model {
        kernels: "radix_pass",
        buffers: &[
            "keys_in",
            "keys_out",
            "counts",
            "status",
            "next_tile",
            "stalled",
        ],
        mirrors: &[
            ("ch08-sort.cu", "status"),
            ("ch08-sort.cu", "rank"),
            ("ch08-sort.cu", "look_back"),
            ("ch08-sort.cu", "pass"),
        ],
        hash: 0xbc2aaf0546927480,
        draw: || {
            one_d(
                256,
                16,
                |n| vec![n, n, 256, ceil(n, 4096).max(1) * 256, 1, 1],
                |_| vec![8],
            )
        },
        contract: |l| {
            derived(ch08_sort::RadixPass::contract(
                "radix_pass",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
                l.span(2),
                l.span(3),
                l.span(4),
                l.span(5),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            let tiles = u64::from(l.grid[0]);
            Reach {
                extents: vec![n, n, 256, tiles * 256, 1, 1],
                vectors: vec![false; 6],
                ints: vec![
                    (
                        "mine + 32 * i (tile * TILE + ...)",
                        i128::from(tiles) * 4096 - 1,
                        INT_MAX,
                    ),
                    (
                        "a count in the status word's 30 bits",
                        i128::from(n),
                        (1 << 30) - 1,
                    ),
                    (
                        "shift + 7, the digit's top bit",
                        i128::from(l.args[0]) + 7,
                        31,
                    ),
                    ("-shift", -i128::from(l.args[0]), 0),
                ],
            }
        },
    }
}

fn models() -> Vec<Model> {
    vec![
        adder(),
        adder_grid_stride(),
        reduce_sum(),
        hist_shared(),
        scan_warps(),
        block_partials(),
        sgemm_128(),
        scan_lookback(),
        select_lookback(),
        radix_histogram(),
        radix_pass(),
    ]
}

// ---- the property ----

fn seed() -> u64 {
    match std::env::var("COURSE_PROPTEST_SEED") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("COURSE_PROPTEST_SEED={s} is not a number")),
        Err(_) => SEED,
    }
}

/// What is wrong with an accepted launch, or `None`.
fn leaves_its_buffers(model: &Model, l: &Launch, derived: &[i64]) -> Option<String> {
    let reach = (model.reach)(l, derived);
    for (i, name) in model.buffers.iter().enumerate() {
        if reach.extents[i] > l.lens[i] {
            return Some(format!(
                "it reaches element {} of `{name}`, whose length is {}",
                reach.extents[i] - 1,
                l.lens[i]
            ));
        }
        if reach.vectors[i] && reach.extents[i] > 0 && l.offsets[i] % 16 != 0 {
            return Some(format!(
                "it loads or stores `{name}` 16 bytes at a time, but `{name}` starts {} bytes past a 16-byte boundary",
                l.offsets[i] % 16
            ));
        }
    }
    reach
        .ints
        .iter()
        .find(|(_, v, limit)| v > limit)
        .map(|(what, v, limit)| format!("`{what}` reaches {v}, past {limit}"))
}

fn prove(model: Model) {
    let seed = seed();
    println!(
        "{}: {CASES} launches from seed {seed} (COURSE_PROPTEST_SEED=N draws others)",
        model.kernels
    );
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        max_shrink_iters: 10_000,
        ..Config::default()
    };
    let mut bytes = [0u8; 32];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (seed >> (8 * (i % 8))) as u8 ^ (i as u8);
    }
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let accepted = Cell::new(0u32);
    let result = runner.run(&(model.draw)(), |l| {
        if !l.driver_accepts() {
            return Ok(());
        }
        let Ok(derived) = (model.contract)(&l) else {
            return Ok(());
        };
        accepted.set(accepted.get() + 1);
        match leaves_its_buffers(&model, &l, &derived) {
            None => Ok(()),
            Some(why) => Err(TestCaseError::fail(why)),
        }
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, l)) => panic!(
            "{}: the contract accepts a launch under which {why}.\nThe smallest such launch \
             (make it a test at the end of contracts.rs once the contract refuses it):\n{l:#?}",
            model.kernels
        ),
        Err(e) => panic!("{}: {e}", model.kernels),
    }
    // A property that holds because nothing is accepted proves nothing.
    assert!(
        accepted.get() >= CASES / 20,
        "{}: only {} of {CASES} launches were accepted: draw launches closer to the contract",
        model.kernels,
        accepted.get()
    );
}

/// The text of `file` between `// ANCHOR: name` and `// ANCHOR_END: name`, marker lines out.
fn anchored(file: &str, name: &str) -> String {
    let path = format!("{}/../../kernels/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut inside = false;
    let mut out = String::new();
    let mut found = false;
    for line in text.lines() {
        let marker = |m: &str| {
            line.trim()
                .strip_prefix("// ")
                .and_then(|l| l.strip_prefix(m))
                .map(str::trim)
        };
        if marker("ANCHOR:") == Some(name) {
            inside = true;
            found = true;
        } else if marker("ANCHOR_END:") == Some(name) {
            inside = false;
        } else if inside && marker("ANCHOR:").is_none() && marker("ANCHOR_END:").is_none() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    assert!(found, "kernels/{file} has no anchor `{name}`");
    out
}

/// FNV-1a, 64 bits.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn mirrored_hash(model: &Model) -> u64 {
    let text: String = model.mirrors.iter().map(|(f, a)| anchored(f, a)).collect();
    hash(&text)
}

#[test]
fn every_model_mirrors_its_kernel_as_it_is() {
    let stale: Vec<String> = models()
        .iter()
        .filter(|m| mirrored_hash(m) != m.hash)
        .map(|m| {
            format!(
                "{} (its lines now hash to {:#018x})",
                m.kernels,
                mirrored_hash(m)
            )
        })
        .collect();
    assert!(
        stale.is_empty(),
        "the lines these models mirror have changed: read them again, correct the model, then \
         record the new hash: {stale:?}"
    );
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
fn hist_shared_stays_inside() {
    prove(hist_shared());
}

#[test]
fn scan_warps_stays_inside() {
    prove(scan_warps());
}

#[test]
fn block_partials_stays_inside() {
    prove(block_partials());
}

#[test]
fn sgemm_128_stays_inside() {
    prove(sgemm_128());
}

#[test]
fn scan_lookback_stays_inside() {
    prove(scan_lookback());
}

#[test]
fn select_lookback_stays_inside() {
    prove(select_lookback());
}

#[test]
fn radix_histogram_stays_inside() {
    prove(radix_histogram());
}

#[test]
fn radix_pass_stays_inside() {
    prove(radix_pass());
}

// ---- launches that were accepted once, and are refused now ----

fn shape(grid: (u32, u32, u32), block: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: grid,
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn at(len: usize) -> Span {
    Span::of_len(len)
}

/// The refusal's sentence, which must name `clause`.
fn refused<T: std::fmt::Debug>(result: Result<T, LaunchError>, clause: &str) {
    match result {
        Ok(v) => panic!("accepted ({v:?}); expected a refusal naming `{clause}`"),
        Err(e) => {
            let said = e.to_string();
            assert!(
                said.contains(clause),
                "refused, but for another reason: {said}"
            );
        }
    }
}

/// Keys of length 1000 with values of length 2000 derived n twice, and the second won.
#[test]
fn sort_pairs_of_unequal_lengths_are_refused() {
    refused(
        ch08_sort::RadixPassPairs::contract(
            "radix_pass_pairs",
            &shape((1, 1, 1), 256),
            at(1000),
            at(1000),
            at(2000),
            at(2000),
            0,
            at(256),
            at(256),
            at(1),
            at(1),
        ),
        "len(values_in) = len(keys_in)",
    );
}

/// n = 1, blocks of 1024, 2^21 + 1 blocks: the last thread's index passes 2^31.
#[test]
fn scan_warps_with_more_threads_than_an_int_counts_is_refused() {
    refused(
        ch06_scan::ScanWarps::contract(
            "scan_warps",
            &shape(((1 << 21) + 1, 1, 1), 1024),
            at(1),
            at(1),
        ),
        "threads + len(in) <= 2147483648 (32-bit indices)",
    );
}

/// m = n = k = 8 and 2^24 + 1 blocks along x: blockIdx.x * 128 passes 2^31.
#[test]
fn sgemm_with_a_grid_past_32_bit_indices_is_refused() {
    refused(
        ch08_sgemm::Sgemm2dBlocking::contract(
            "sgemm_2d_blocking",
            &shape(((1 << 24) + 1, 1, 1), 256),
            at(64),
            at(64),
            at(64),
            8,
            8,
            8,
        ),
        "(32-bit indices)",
    );
}

/// Shrunk by the property test: m = n = 0 and k = 2^31 - 1, where k0 += BK overflows.
#[test]
fn sgemm_with_k_near_2_to_the_31_is_refused() {
    refused(
        ch08_sgemm::Sgemm2dBlocking::contract(
            "sgemm_2d_blocking",
            &shape((1, 1, 1), 256),
            at(0),
            at(0),
            at(0),
            0,
            0,
            i32::MAX,
        ),
        "k + 32 <= 2147483648",
    );
}

/// The status word holds a count in 30 bits: 2^30 keys would be sorted wrongly.
#[test]
fn a_sort_of_2_to_the_30_keys_is_refused() {
    let n = 1 << 30;
    refused(
        ch08_sort::RadixPass::contract(
            "radix_pass",
            &shape(((n / 4096) as u32, 1, 1), 256),
            at(n),
            at(n),
            0,
            at(256),
            at(n / 16),
            at(1),
            at(1),
        ),
        "n <= 1073741823",
    );
}

/// 2^24 blocks of 256 threads: the histogram's unsigned stride, 2^32, is 0, and its loop would
/// never end.
#[test]
fn a_histogram_whose_stride_wraps_to_zero_is_refused() {
    refused(
        ch05_histogram::HistShared::contract(
            "hist_shared",
            &shape((1 << 24, 1, 1), 256),
            at(1000),
            at(256),
        ),
        "(32-bit indices)",
    );
}

/// Shrunk by the property test: blocks of one thread, while the kernel strides by 256.
#[test]
fn a_digit_count_with_blocks_of_one_thread_is_refused() {
    refused(
        ch08_sort::RadixHistogram::contract(
            "radix_histogram",
            &shape(((1 << 24) + 1, 1, 1), 1),
            at(2442),
            at(1024),
        ),
        "block.x = 256",
    );
}

/// `&x.slice(1..)`: a view one `u32` in, which the scan's 16-byte loads would fault on.
#[test]
fn a_view_off_the_16_byte_boundary_is_refused_where_the_kernel_loads_vectors() {
    let inside = Span {
        len: 1000,
        address: 0x7f00_0000_0004,
    };
    refused(
        ch08_scan::ScanLookback::contract(
            "scan_lookback",
            &shape((1, 1, 1), 128),
            inside,
            at(1000),
            at(1),
            at(1),
            at(1),
        ),
        "aligned(in, 16)",
    );
}

/// The tile counter is reset by the tile numbered gridDim.x - 1: a second row of blocks would
/// take numbers past the grid.
#[test]
fn a_look_back_scan_on_a_2d_grid_is_refused() {
    refused(
        ch08_scan::ScanLookback::contract(
            "scan_lookback",
            &shape((1, 2, 1), 128),
            at(1000),
            at(1000),
            at(2),
            at(1),
            at(1),
        ),
        "grid.y = 1",
    );
}
