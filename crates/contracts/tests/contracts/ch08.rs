//! The models of chapter 8: matching the libraries's kernels.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

const SCAN_TILE: u64 = 128 * 40;

/// The 128 x 128 rungs: 2-D blocking, vectorised, conflict-free, double-buffered and the
/// 128x128 warp tiles share one launcher (the same parameters and contract).
pub fn sgemm_128() -> Model {
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
        hash: 0xce37da76fc08d2e9,
        draw: || {
            // Empty and single rows and columns, and k up to its largest: where the loop over k
            // could overflow.
            let side = || prop_oneof![1 => Just(0u64), 1 => Just(1u64), 4 => 0u64..9000];
            let k = prop_oneof![
                2 => 0u64..9000,
                1 => size(),
                1 => prop::sample::select(vec![(1u64 << 31) - 1, (1 << 31) - 16, (1 << 31) - 33]),
            ];
            (side(), side(), k)
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

pub fn scan_lookback() -> Model {
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
        hash: 0x064ec953cd2cca8d,
        draw: || one_d_grid(128, 40, |n, g| vec![n, n, g, 1, 1], |_| vec![]),
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

pub fn select_lookback() -> Model {
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
        hash: 0xaf7455f8fb1259d5,
        draw: || one_d_grid(256, 16, |n, g| vec![n, n, g, 1, 1, 1], |_| vec![]),
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

pub fn radix_histogram() -> Model {
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
pub fn radix_pass() -> Model {
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
        hash: 0xc9a2d5797569af4c,
        draw: || one_d_grid(256, 16, |n, g| vec![n, n, 256, g * 256, 1, 1], |_| vec![8]),
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

/// The sort's pass with values, which land where their keys do: as [`radix_pass`], with the
/// values read and written at the keys' places.
pub fn radix_pass_pairs() -> Model {
    Model {
        kernels: "radix_pass_pairs",
        buffers: &[
            "keys_in",
            "keys_out",
            "values_in",
            "values_out",
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
        hash: 0xc9a2d5797569af4c,
        draw: || {
            one_d_grid(
                256,
                16,
                |n, g| vec![n, n, n, n, 256, g * 256, 1, 1],
                |_| vec![16],
            )
        },
        contract: |l| {
            derived(ch08_sort::RadixPassPairs::contract(
                "radix_pass_pairs",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.span(3),
                l.arg(0)?,
                l.span(4),
                l.span(5),
                l.span(6),
                l.span(7),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            let tiles = u64::from(l.grid[0]);
            Reach {
                extents: vec![n, n, n, n, 256, tiles * 256, 1, 1],
                vectors: vec![false; 8],
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

// ---- the other rungs, the copies by cp.async, the exercises and the scan's pitfalls ----

/// One past the largest element of each matrix that a GEMM kernel touches, when its blocks
/// cover `rows` rows of C (and of A) and `cols` columns of C (and of B), and every access is
/// guarded by `row < rows && col < cols` of its matrix. A's and B's tiles are loaded whatever
/// the other's size, along all of k.
fn gemm_extents(rows: u64, cols: u64, m: u64, n: u64, k: u64) -> [u64; 3] {
    let (r, c) = (rows.min(m), cols.min(n));
    let a = if r > 0 && k > 0 { r * k } else { 0 };
    let b = if c > 0 && k > 0 { (k - 1) * n + c } else { 0 };
    let cc = if r > 0 && c > 0 { (r - 1) * n + c } else { 0 };
    [a, b, cc]
}

fn mnk(l: &Launch) -> [u64; 3] {
    [l.args[0], l.args[1], l.args[2]].map(|v| v.max(0) as u64)
}

/// The reach of a tiled GEMM kernel: blocks of `bm` rows by `bn` columns of C, tiles `bk`
/// wide along k for each `bk` of its members (`k0 += BK`, and the next tile's loads at most
/// `k0 + BK - 1` with `k0 < k`).
fn tiled_gemm_reach(l: &Launch, bm: u64, bn: u64, bks: &[i128], vectors: [bool; 3]) -> Reach {
    let [m, n, k] = mnk(l);
    let (gx, gy) = (u64::from(l.grid[0]), u64::from(l.grid[1]));
    let e = gemm_extents(gy * bm, gx * bn, m, n, k);
    let kk = i128::from(k);
    // The loop's last k0 (the first past k) and the largest column of A or row of B computed.
    let k_step = bks
        .iter()
        .map(|&bk| if kk > 0 { (kk + bk - 1) / bk * bk } else { 0 })
        .max()
        .unwrap_or(0);
    let last = |e: u64| i128::from(e) - 1;
    Reach {
        extents: e.to_vec(),
        vectors: vectors.to_vec(),
        ints: vec![
            (
                "row0 + BM - 1 (blockIdx.y * BM)",
                i128::from(gy * bm) - 1,
                INT_MAX,
            ),
            (
                "col0 + BN - 1 (blockIdx.x * BN)",
                i128::from(gx * bn) - 1,
                INT_MAX,
            ),
            ("k0 += BK, and k0 + BK < k", k_step, INT_MAX),
            (
                "k0 + BK - 1 (a tile's last column of A, row of B)",
                k_step - 1,
                INT_MAX,
            ),
            ("row * k + col, inside A", last(e[0]), INT_MAX),
            ("row * n + col, inside B", last(e[1]), INT_MAX),
            ("row * n + col, inside C", last(e[2]), INT_MAX),
        ],
    }
}

/// Launches of a tiled GEMM: blocks of `threads` covering C with `bm` x `bn` tiles, m, n and k
/// drawn as for `sgemm_128`.
fn gemm_draw(bm: u64, bn: u64, block: [u32; 3]) -> BoxedStrategy<Launch> {
    let side = || prop_oneof![1 => Just(0u64), 1 => Just(1u64), 4 => 0u64..9000];
    let k = prop_oneof![
        2 => 0u64..9000,
        1 => size(),
        1 => prop::sample::select(vec![(1u64 << 31) - 1, (1 << 31) - 16, (1 << 31) - 33]),
    ];
    (side(), side(), k)
        .prop_flat_map(move |(m, n, k)| {
            around(
                [ceil(n, bn), ceil(m, bm), 1],
                block,
                vec![m * k, k * n, m * n],
                vec![m as i64, n as i64, k as i64],
            )
        })
        .boxed()
}

/// Chapter 4's kernel with x down the rows: row = blockIdx.x * blockDim.x + threadIdx.x, col
/// the same along y; thread (row, col) inside C reads row `row` of A and column `col` of B.
pub fn sgemm_rows_across_warp() -> Model {
    Model {
        kernels: "sgemm_rows_across_warp",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch08-sgemm.cu", "rows_across_warp")],
        hash: 0xe3625e0dee252658,
        draw: || {
            let side = || prop_oneof![1 => Just(0u64), 1 => Just(1u64), 4 => 0u64..9000];
            (side(), side(), prop_oneof![3 => 0u64..9000, 1 => size()])
                .prop_flat_map(|(m, n, k)| {
                    around(
                        [ceil(m, 16), ceil(n, 16), 1],
                        [16, 16, 1],
                        vec![m * k, k * n, m * n],
                        vec![m as i64, n as i64, k as i64],
                    )
                })
                .boxed()
        },
        contract: |l| {
            ch08_sgemm::SgemmRowsAcrossWarp::contract(
                "sgemm_rows_across_warp",
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
            let [m, n, k] = mnk(l);
            let tx = l.tx();
            let ty = u64::from(l.grid[1]) * u64::from(l.block[1]);
            let (rows, cols) = (tx.min(m), ty.min(n));
            // Only threads inside C read anything.
            let e = if rows > 0 && cols > 0 {
                gemm_extents(rows, cols, m, n, k)
            } else {
                [0; 3]
            };
            let last = |e: u64| i128::from(e) - 1;
            Reach {
                extents: e.to_vec(),
                vectors: vec![false; 3],
                ints: vec![
                    (
                        "row = blockIdx.x * blockDim.x + threadIdx.x",
                        i128::from(tx) - 1,
                        INT_MAX,
                    ),
                    (
                        "col = blockIdx.y * blockDim.y + threadIdx.y",
                        i128::from(ty) - 1,
                        INT_MAX,
                    ),
                    ("row * k + i", last(e[0]), INT_MAX),
                    ("i * n + col", last(e[1]), INT_MAX),
                    ("row * n + col", last(e[2]), INT_MAX),
                    ("++i", i128::from(k), INT_MAX),
                ],
            }
        },
    }
}

/// TILE x TILE blocks (32 x 32): row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
/// each thread loads A[row][k0 + tx] and B[k0 + ty][col], guarded by load1.
pub fn sgemm_shared_tiles() -> Model {
    Model {
        kernels: "sgemm_shared_tiles",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch08-sgemm.cu", "edges"),
            ("ch08-sgemm.cu", "shared_tiles"),
        ],
        hash: 0x7c50950b210b2a0d,
        draw: || gemm_draw(32, 32, [32, 32, 1]),
        contract: |l| {
            ch08_sgemm::SgemmSharedTiles::contract(
                "sgemm_shared_tiles",
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
            // __launch_bounds__(1024) is the most a block has anyway; the contract fixes 32 x 32.
            let mut r = tiled_gemm_reach(l, 32, 32, &[32], [false; 3]);
            let [bx, by] = [l.block[0], l.block[1]].map(i128::from);
            // Blocks of other than 32 x 32 would index the 32 x 32 shared tiles outside.
            r.ints
                .push(("threadIdx.x, a column of the shared tiles", bx - 1, 31));
            r.ints
                .push(("threadIdx.y, a row of the shared tiles", by - 1, 31));
            r
        },
    }
}

/// 64 x 64 blocks of C, 512 threads, tiles 8 wide along k.
pub fn sgemm_1d_blocking() -> Model {
    Model {
        kernels: "sgemm_1d_blocking",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch08-sgemm.cu", "edges"), ("ch08-sgemm.cu", "blocking_1d")],
        hash: 0xf972b207c4696e3b,
        draw: || gemm_draw(64, 64, [512, 1, 1]),
        contract: |l| {
            ch08_sgemm::Sgemm1dBlocking::contract(
                "sgemm_1d_blocking",
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
        reach: |l, _| tiled_gemm_reach(l, 64, 64, &[8], [false; 3]),
    }
}

/// The warp-tiled kernels of 128 x 64 blocks (128 threads; BK 8 or 16), through load4 and
/// store4: 16 bytes at a time where a row is whole and aligned.
pub fn sgemm_warp_tiles_128x64() -> Model {
    Model {
        kernels: "sgemm_warp_tiles_128x64x*",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch08-sgemm.cu", "edges"),
            ("ch08-sgemm.cu", "warp_tiles"),
            ("ch08-sgemm.cu", "shapes"),
        ],
        hash: 0x5b77a7f3e796af19,
        draw: || gemm_draw(128, 64, [128, 1, 1]),
        contract: |l| {
            ch08_sgemm::SgemmWarpTiles128x64x8_64x32_1::contract(
                "sgemm_warp_tiles_128x64x8_64x32_1",
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
        reach: |l, _| tiled_gemm_reach(l, 128, 64, &[8, 16], [true; 3]),
    }
}

/// The warp-tiled kernels of 64 x 128 blocks (128 threads; BK 8 or 16).
pub fn sgemm_warp_tiles_64x128() -> Model {
    Model {
        kernels: "sgemm_warp_tiles_64x128x*",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch08-sgemm.cu", "edges"),
            ("ch08-sgemm.cu", "warp_tiles"),
            ("ch08-sgemm.cu", "shapes"),
        ],
        hash: 0x5b77a7f3e796af19,
        draw: || gemm_draw(64, 128, [128, 1, 1]),
        contract: |l| {
            ch08_sgemm::SgemmWarpTiles64x128x8_32x64_1::contract(
                "sgemm_warp_tiles_64x128x8_32x64_1",
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
        reach: |l, _| tiled_gemm_reach(l, 64, 128, &[8, 16], [true; 3]),
    }
}

/// The copies by cp.async: A one float at a time (4-byte copies), B 16 bytes at a time when
/// n % 4 == 0, C stored 16 bytes at a time where whole. `tiles = (k + BK - 1) / BK`, tile
/// `tile` at k0 = tile * BK; a copy outside the matrix reads nothing (src-size 0).
fn async_reach(l: &Launch, bm: u64, bn: u64, bks: &[i128]) -> Reach {
    let mut r = tiled_gemm_reach(l, bm, bn, bks, [false, true, true]);
    let k = i128::from(mnk(l)[2]);
    for &bk in bks {
        r.ints.push(("k + BK - 1 (tiles)", k + bk - 1, INT_MAX));
        // tile + STAGES - 1 < tiles, STAGES <= 4.
        r.ints
            .push(("tile + STAGES - 1", (k + bk - 1) / bk + 3, INT_MAX));
    }
    r
}

pub fn sgemm_async_128x128() -> Model {
    Model {
        kernels: "sgemm_async_128x128x*",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch08-sgemm-async.cu", "copies"),
            ("ch08-sgemm-async.cu", "async"),
            ("ch08-sgemm-async.cu", "shapes"),
        ],
        hash: 0xfdb78cce91297343,
        draw: || gemm_draw(128, 128, [256, 1, 1]),
        contract: |l| {
            ch08_sgemm_async::SgemmAsync128x128x8_64x32_2_1::contract(
                "sgemm_async_128x128x8_64x32_2_1",
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
        reach: |l, _| async_reach(l, 128, 128, &[8, 16]),
    }
}

pub fn sgemm_async_128x256() -> Model {
    Model {
        kernels: "sgemm_async_128x256x8_64x32_3_1",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch08-sgemm-async.cu", "copies"),
            ("ch08-sgemm-async.cu", "async"),
            ("ch08-sgemm-async.cu", "shapes"),
        ],
        hash: 0xfdb78cce91297343,
        draw: || gemm_draw(128, 256, [512, 1, 1]),
        contract: |l| {
            ch08_sgemm_async::SgemmAsync128x256x8_64x32_3_1::contract(
                "sgemm_async_128x256x8_64x32_3_1",
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
        reach: |l, _| async_reach(l, 128, 256, &[8]),
    }
}

/// The exercise's 2-D blocking: sgemm_2d_blocking's loads and stores, all through load1 and
/// guarded stores (no vectors, and no aligned clauses).
pub fn sgemm_2d_blocking_exercise() -> Model {
    Model {
        kernels: "sgemm_2d_blocking_exercise",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch08-exercise-blocking.cu", "exercise")],
        hash: 0xa9eb78567878f58b,
        draw: || gemm_draw(128, 128, [256, 1, 1]),
        contract: |l| {
            ch08_exercise_blocking::Sgemm2dBlockingExercise::contract(
                "sgemm_2d_blocking_exercise",
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
        reach: |l, _| tiled_gemm_reach(l, 128, 128, &[8], [false; 3]),
    }
}

/// The look-back exercise as a solution completes it: the look-back of ch08-scan.cu reads and
/// writes the status words of tiles 0..=tile and may set stalled[0] (the stub touches
/// neither); the tiles are 0..grid.x, the counter being zeroed; the items are loaded and
/// stored 16 bytes at a time below n.
pub fn scan_lookback_exercise() -> Model {
    Model {
        kernels: "scan_lookback_exercise",
        buffers: &["in", "out", "status", "next_tile", "stalled"],
        mirrors: &[("ch08-exercise-lookback.cu", "exercise")],
        hash: 0x0d12abbfb65a34a9,
        draw: || {
            one_d(
                128,
                40,
                |n| vec![n, n, ceil(n, SCAN_TILE).max(1), 1, 1],
                |_| vec![],
            )
        },
        contract: |l| {
            derived(ch08_exercise_lookback::ScanLookbackExercise::contract(
                "scan_lookback_exercise",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.span(3),
                l.span(4),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            let tiles = u64::from(l.grid[0]);
            Reach {
                extents: vec![
                    n.min(tiles * SCAN_TILE),
                    n.min(tiles * SCAN_TILE),
                    tiles,
                    1,
                    1,
                ],
                vectors: vec![true, true, false, false, false],
                ints: vec![("tile + 1", i128::from(tiles), INT_MAX)],
            }
        },
    }
}

/// The four pitfalls: tile t from the zeroed counter (0..grid), element i = t * 256 +
/// threadIdx.x in 64 bits, guarded by i < n; thread 0 publishes in aggregates[t] (or
/// prefixes[t]) and flags[t] and walks back over the tiles below t.
pub fn scan_pitfalls() -> Model {
    Model {
        kernels: "scan_plain_loads, scan_split_reordered, scan_one_word, scan_split_fenced",
        buffers: &[
            "in",
            "out",
            "aggregates",
            "prefixes",
            "flags",
            "next_tile",
            "stalled",
        ],
        mirrors: &[
            ("ch08-scan-pitfalls.cu", "block_scan"),
            ("ch08-scan-pitfalls.cu", "plain"),
            ("ch08-scan-pitfalls.cu", "split"),
            ("ch08-scan-pitfalls.cu", "one_word"),
            ("ch08-scan-pitfalls.cu", "pitfall_kernel"),
        ],
        hash: 0xee947692923b144f,
        draw: || {
            one_d(
                256,
                1,
                |n| {
                    let tiles = ceil(n, 256).max(1);
                    vec![n, n, tiles, tiles, tiles, 1, 1]
                },
                |_| vec![],
            )
        },
        contract: |l| {
            derived(ch08_scan_pitfalls::ScanPlainLoads::contract(
                "scan_plain_loads",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.span(3),
                l.span(4),
                l.span(5),
                l.span(6),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            let tiles = u64::from(l.grid[0]);
            // The block scan's shared array has THREADS = 256 entries, one per thread.
            let block = i128::from(l.block[0]);
            Reach {
                extents: vec![
                    n.min(tiles * 256),
                    n.min(tiles * 256),
                    tiles,
                    tiles,
                    tiles,
                    1,
                    1,
                ],
                vectors: vec![false; 7],
                ints: vec![
                    ("tile", i128::from(tiles) - 1, INT_MAX),
                    ("threadIdx.x in sums[THREADS]", block - 1, 255),
                ],
            }
        },
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        sgemm_128(),
        scan_lookback(),
        select_lookback(),
        radix_histogram(),
        radix_pass(),
        radix_pass_pairs(),
        sgemm_rows_across_warp(),
        sgemm_shared_tiles(),
        sgemm_1d_blocking(),
        sgemm_warp_tiles_128x64(),
        sgemm_warp_tiles_64x128(),
        sgemm_async_128x128(),
        sgemm_async_128x256(),
        sgemm_2d_blocking_exercise(),
        scan_lookback_exercise(),
        scan_pitfalls(),
    ]
}

#[test]
fn radix_pass_pairs_stays_inside() {
    prove(radix_pass_pairs());
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

#[test]
fn sgemm_rows_across_warp_stays_inside() {
    prove(sgemm_rows_across_warp());
}

#[test]
fn sgemm_shared_tiles_stays_inside() {
    prove(sgemm_shared_tiles());
}

#[test]
fn sgemm_1d_blocking_stays_inside() {
    prove(sgemm_1d_blocking());
}

#[test]
fn sgemm_warp_tiles_128x64_stays_inside() {
    prove(sgemm_warp_tiles_128x64());
}

#[test]
fn sgemm_warp_tiles_64x128_stays_inside() {
    prove(sgemm_warp_tiles_64x128());
}

#[test]
fn sgemm_async_128x128_stays_inside() {
    prove(sgemm_async_128x128());
}

#[test]
fn sgemm_async_128x256_stays_inside() {
    prove(sgemm_async_128x256());
}

#[test]
fn sgemm_2d_blocking_exercise_stays_inside() {
    prove(sgemm_2d_blocking_exercise());
}

#[test]
fn scan_lookback_exercise_stays_inside() {
    prove(scan_lookback_exercise());
}

#[test]
fn scan_pitfalls_stays_inside() {
    prove(scan_pitfalls());
}
