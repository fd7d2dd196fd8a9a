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
        hash: 0x3920f4cfd0073240,
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

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        sgemm_128(),
        scan_lookback(),
        select_lookback(),
        radix_histogram(),
        radix_pass(),
    ]
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
