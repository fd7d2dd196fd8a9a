//! The models of chapter 6: warps and synchronisation's kernels.

use super::clusters::cluster_axis;
use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

/// The largest value of `blockIdx.x * blockDim.x + threadIdx.x`, an `int`.
fn thread_index(l: &Launch) -> (&'static str, i128, i128) {
    (
        "blockIdx.x * blockDim.x + threadIdx.x",
        i128::from(l.tx()) - 1,
        INT_MAX,
    )
}

/// `threadIdx.x / 32`, the warp, as the index of a `__shared__` array of 32 slots.
fn warp_slot(l: &Launch, what: &'static str) -> (&'static str, i128, i128) {
    (what, (i128::from(l.block[0]) - 1) / 32, 31)
}

/// `i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) touch [i]` for `per_thread` buffers,
/// then `singles` buffers of which the kernel touches word 0 only, under `touched`.
fn one_per_thread_then(l: &Launch, n: i64, per_thread: usize, singles: &[bool]) -> Reach {
    let mut reach = one_per_thread(l, n, per_thread);
    reach.extents.extend(singles.iter().map(|&t| u64::from(t)));
    reach.vectors.extend(singles.iter().map(|_| false));
    reach
}

/// What `block_inclusive_scan` indexes: `warp_totals[warp]`, and `warp_totals[warps - 1]` with
/// warps = blockDim.x / 32, which needs a whole warp.
fn block_scan_slots(l: &Launch) -> [(&'static str, i128, i128); 2] {
    [
        warp_slot(l, "threadIdx.x / 32, in warp_totals[32]"),
        (
            "1 - blockDim.x / 32 (warp_totals[warps - 1] needs warps >= 1)",
            1 - i128::from(l.block[0] / 32),
            0,
        ),
    ]
}

pub fn scan_warps() -> Model {
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

pub fn block_partials() -> Model {
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

pub fn smooth_tiles() -> Model {
    Model {
        kernels: "smooth_tiles",
        buffers: &["x", "out"],
        mirrors: &[("ch06-barriers.cu", "smooth_tiles")],
        hash: 0x32cef83085d6db58,
        draw: || one_d(256, 1, |n| vec![n, n], |_| vec![10]),
        contract: |l| {
            derived(ch06_barriers::SmoothTiles::contract(
                "smooth_tiles",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
            ))
        },
        reach: |l, d| {
            // Block b's tile starts at b * TILE; thread t loads and stores start + t only when
            // t < len = min(TILE, n - start), and reads tile[t - 1 ..= t + 1] clamped to it.
            let n = d[0].max(0) as u64;
            let last_start = u64::from(l.grid[0] - 1) * 256;
            let per_block = u64::from(l.block[0]).min(256);
            let extent = match n {
                0 => 0,
                n => {
                    let block = u64::from(l.grid[0] - 1).min((n - 1) / 256);
                    (block * 256 + per_block).min(n)
                }
            };
            Reach {
                extents: vec![extent; 2],
                vectors: vec![false; 2],
                ints: vec![
                    ("start = blockIdx.x * TILE", i128::from(last_start), INT_MAX),
                    (
                        "t (and right), in tile[TILE], when t < len",
                        i128::from(per_block) - 1,
                        255,
                    ),
                ],
            }
        },
    }
}

/// `thread_partial`: an `int` grid-stride loop over [0, n).
fn thread_partial(l: &Launch, n: i64) -> (u64, [(&'static str, i128, i128); 2]) {
    let (extent, last) = grid_stride(l.tx(), n);
    (
        extent,
        [
            thread_index(l),
            ("i += gridDim.x * blockDim.x", last, INT_MAX),
        ],
    )
}

pub fn sum_tree() -> Model {
    Model {
        kernels: "sum_tree",
        buffers: &["x", "total"],
        mirrors: &[
            ("ch06-block-reduce.cu", "partial"),
            ("ch06-block-reduce.cu", "tree"),
        ],
        hash: 0xe6c022fcee040c44,
        draw: || one_d(256, 8, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch06_block_reduce::SumTree::contract(
                "sum_tree",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let (extent, loop_ints) = thread_partial(l, d[0]);
            let b = i128::from(l.block[0]);
            let mut ints = loop_ints.to_vec();
            ints.push(("t, in s[THREADS]", b - 1, 255));
            // s[t + stride] for t < stride <= THREADS / 2.
            ints.push(("t + stride, in s[THREADS]", b.min(128) - 1 + 128, 255));
            Reach {
                // Thread 0 of every block adds to *total, whatever n is.
                extents: vec![extent, 1],
                vectors: vec![false; 2],
                ints,
            }
        },
    }
}

pub fn sum_shuffle() -> Model {
    Model {
        kernels: "sum_shuffle",
        buffers: &["x", "total"],
        mirrors: &[
            ("ch06-block-reduce.cu", "partial"),
            ("ch06-block-reduce.cu", "block_sum"),
            ("ch06-block-reduce.cu", "shuffle"),
        ],
        hash: 0x04319f1f8bb6264e,
        draw: || one_d(256, 8, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch06_block_reduce::SumShuffle::contract(
                "sum_shuffle",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let (extent, loop_ints) = thread_partial(l, d[0]);
            let mut ints = loop_ints.to_vec();
            // warp_sums[warp]; warp 0 reads warp_sums[lane] for lane < blockDim.x / 32 <= 32.
            ints.push(warp_slot(l, "threadIdx.x / 32, in warp_sums[32]"));
            Reach {
                extents: vec![extent, 1],
                vectors: vec![false; 2],
                ints,
            }
        },
    }
}

pub fn max_per_thread() -> Model {
    Model {
        kernels: "max_per_thread, max_warp_first",
        buffers: &["values", "result", "attempts"],
        mirrors: &[
            ("ch06-challenges.cu", "max_per_thread"),
            ("ch06-challenges.cu", "max_warp_first"),
        ],
        hash: 0x55c0f97b7949a4c7,
        draw: || one_d(256, 1, |n| vec![n, 1, 1], |_| vec![]),
        contract: |l| {
            derived(ch06_challenges::MaxPerThread::contract(
                "max_per_thread",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        // max_warp_first's lane 0 of every warp reads *result, and may count in *attempts,
        // even in a warp wholly past n (it offers -infinity).
        reach: |l, d| {
            let mut reach = one_per_thread_then(l, d[0], 1, &[true, true]);
            reach.ints = vec![thread_index(l)];
            reach
        },
    }
}

pub fn exclusive_scan_warps() -> Model {
    Model {
        kernels: "exclusive_scan_warps",
        buffers: &["in", "out"],
        mirrors: &[("ch06-challenges.cu", "warp_exclusive_scan")],
        hash: 0xd850701cd15d1022,
        draw: || one_d(256, 1, |n| vec![n, n], |_| vec![]),
        contract: |l| {
            derived(ch06_challenges::ExclusiveScanWarps::contract(
                "exclusive_scan_warps",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

pub fn positions_two_ways() -> Model {
    Model {
        kernels: "positions_two_ways",
        buffers: &["in", "by_scan", "by_ballot"],
        mirrors: &[
            ("ch06-challenges.cu", "warp_exclusive_scan"),
            ("ch06-challenges.cu", "positions_two_ways"),
        ],
        hash: 0x5cf90b6b7195a1a3,
        draw: || one_d(256, 1, |n| vec![n, n, n], |_| vec![]),
        contract: |l| {
            derived(ch06_challenges::PositionsTwoWays::contract(
                "positions_two_ways",
                &l.config(),
                l.span(0),
                0.5,
                l.span(1),
                l.span(2),
            ))
        },
        // `1u << lane` with lane = threadIdx.x % 32: at most 31.
        reach: |l, d| one_per_thread(l, d[0], 3),
    }
}

pub fn sum_atomic_each() -> Model {
    Model {
        kernels: "sum_atomic_each, sum_atomic_warp, sum_atomic_block",
        buffers: &["x", "total"],
        mirrors: &[
            ("ch06-contention.cu", "each"),
            ("ch06-contention.cu", "warp_sum"),
            ("ch06-contention.cu", "warp"),
            ("ch06-contention.cu", "block_sum"),
            ("ch06-contention.cu", "block"),
        ],
        hash: 0x8cae2fbda47f2d97,
        draw: || one_d(256, 1, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch06_contention::SumAtomicEach::contract(
                "sum_atomic_each",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        // The warp and block sums add to *total from lane 0 or thread 0, whatever n is.
        reach: |l, d| {
            let mut reach = one_per_thread_then(l, d[0], 1, &[true]);
            reach
                .ints
                .push(warp_slot(l, "threadIdx.x / 32, in warp_sums[32]"));
            reach
        },
    }
}

pub fn sum_atomic_block_grid_stride() -> Model {
    Model {
        kernels: "sum_atomic_block_grid_stride",
        buffers: &["x", "total"],
        mirrors: &[
            ("ch06-contention.cu", "warp_sum"),
            ("ch06-contention.cu", "block_sum"),
            ("ch06-contention.cu", "block_grid_stride"),
        ],
        hash: 0xf9a12e6d47d696fb,
        draw: || one_d(256, 16, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch06_contention::SumAtomicBlockGridStride::contract(
                "sum_atomic_block_grid_stride",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let (extent, loop_ints) = thread_partial(l, d[0]);
            let mut ints = loop_ints.to_vec();
            ints.push(warp_slot(l, "threadIdx.x / 32, in warp_sums[32]"));
            Reach {
                extents: vec![extent, 1],
                vectors: vec![false; 2],
                ints,
            }
        },
    }
}

pub fn sum_atomic_spread() -> Model {
    Model {
        kernels: "sum_atomic_spread",
        buffers: &["x", "counters"],
        mirrors: &[("ch06-contention.cu", "spread")],
        hash: 0xc69c3f06dedf43a9,
        draw: || one_d(256, 1, |n| vec![n, 1024], |_| vec![1023]),
        contract: |l| {
            derived(ch06_contention::SumAtomicSpread::contract(
                "sum_atomic_spread",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
            ))
        },
        reach: |l, d| {
            // counters[i & counters_mask] for i < min(threads, n): at most the mask when it is
            // not negative, at most i when it is (its sign bit keeps i's bits).
            let mut reach = one_per_thread(l, d[0], 1);
            let touched = reach.extents[0];
            let mask = l.args[0];
            reach.extents.push(match touched {
                0 => 0,
                t if mask < 0 => t,
                t => (mask as u64).min(t - 1) + 1,
            });
            reach.vectors.push(false);
            reach
        },
    }
}

pub fn sum_grid_sync() -> Model {
    Model {
        kernels: "sum_grid_sync",
        buffers: &["x", "partials", "total"],
        mirrors: &[
            ("ch06-cooperative.cu", "block_sum"),
            ("ch06-cooperative.cu", "grid_sync"),
        ],
        hash: 0x00d3a4d02ab390f4,
        // A cooperative launch: the driver refuses a grid that cannot all be resident, which
        // the model does not know, so any grid is drawn.
        draw: || one_d(256, 8, |n| vec![n, ceil(n, 2048).max(1), 1], |_| vec![]),
        contract: |l| {
            derived(ch06_cooperative::SumGridSync::contract(
                "sum_grid_sync",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            let threads = l.threads();
            let (extent, last) = grid_stride(threads, d[0]);
            let grid = u64::from(l.grid[0]);
            // Block 0 reads partials[b] for b = thread_rank, += num_threads (unsigned) while
            // b < num_blocks.
            let b_last = i128::from(grid) - 1 + i128::from(l.block[0]);
            Reach {
                extents: vec![extent, grid, 1],
                vectors: vec![false; 3],
                ints: vec![
                    ("(int)grid.thread_rank()", i128::from(threads) - 1, INT_MAX),
                    ("i += (int)grid.num_threads()", last, INT_MAX),
                    ("b += block.num_threads() (unsigned)", b_last, UINT_MAX),
                    warp_slot(l, "tile.meta_group_rank(), in tile_sums[32]"),
                ],
            }
        },
    }
}

pub fn sum_partials() -> Model {
    Model {
        kernels: "sum_partials",
        buffers: &["partials", "total"],
        mirrors: &[
            ("ch06-cooperative.cu", "block_sum"),
            ("ch06-cooperative.cu", "two_kernels"),
        ],
        hash: 0x587713407062fa7b,
        draw: || {
            size()
                .prop_flat_map(|count| around([1, 1, 1], [256, 1, 1], vec![count, 1], vec![]))
                .boxed()
        },
        contract: |l| {
            derived(ch06_cooperative::SumPartials::contract(
                "sum_partials",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            // Every block walks all of partials by its own thread rank (a grid of more than
            // one block writes *total more than once, but nowhere else).
            let (extent, last) = grid_stride(u64::from(l.block[0]), d[0]);
            Reach {
                extents: vec![extent, 1],
                vectors: vec![false; 2],
                ints: vec![
                    ("b += block.num_threads()", last, INT_MAX),
                    warp_slot(l, "tile.meta_group_rank(), in tile_sums[32]"),
                ],
            }
        },
    }
}

pub fn scan_blocks() -> Model {
    Model {
        kernels: "scan_blocks",
        buffers: &["in", "out", "block_totals"],
        mirrors: &[
            ("ch06-scan.cu", "warp_scan"),
            ("ch06-scan.cu", "block_scan"),
        ],
        hash: 0x67ca0e96ccc77629,
        draw: || one_d(1024, 1, |n| vec![n, n, ceil(n, 1024).max(1)], |_| vec![]),
        contract: |l| {
            derived(ch06_scan::ScanBlocks::contract(
                "scan_blocks",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            // Thread 0 of block b writes block_totals[b], whatever n is.
            let mut reach = one_per_thread(l, d[0], 2);
            reach.extents.push(u64::from(l.grid[0]));
            reach.vectors.push(false);
            reach.ints.extend(block_scan_slots(l));
            reach
        },
    }
}

pub fn scan_totals() -> Model {
    Model {
        kernels: "scan_totals",
        buffers: &["totals"],
        mirrors: &[
            ("ch06-scan.cu", "warp_scan"),
            ("ch06-scan.cu", "block_scan"),
            ("ch06-scan.cu", "scan_totals"),
        ],
        hash: 0x0ccc0592b2b28384,
        draw: || {
            size()
                .prop_flat_map(|count| around([1, 1, 1], [1024, 1, 1], vec![count], vec![]))
                .boxed()
        },
        contract: |l| {
            derived(ch06_scan::ScanTotals::contract(
                "scan_totals",
                &l.config(),
                l.span(0),
            ))
        },
        reach: |l, d| {
            // Every block scans the whole of totals in place, a blockDim.x piece at a time.
            let count = d[0].max(0) as u64;
            let b = u64::from(l.block[0]);
            let ints = match count {
                0 => vec![],
                count => {
                    let last_start = i128::from((count - 1) / b * b);
                    let b = i128::from(b);
                    let mut ints = vec![
                        ("start += blockDim.x", last_start + b, INT_MAX),
                        ("i = start + threadIdx.x", last_start + b - 1, INT_MAX),
                    ];
                    ints.extend(block_scan_slots(l));
                    ints
                }
            };
            Reach {
                extents: vec![count],
                vectors: vec![false],
                ints,
            }
        },
    }
}

pub fn add_block_offsets() -> Model {
    Model {
        kernels: "add_block_offsets",
        buffers: &["out", "scanned_totals"],
        mirrors: &[("ch06-scan.cu", "scan_totals")],
        hash: 0xfcb4f4dcfe42cfb8,
        draw: || one_d(1024, 1, |n| vec![n, ceil(n, 1024)], |_| vec![]),
        contract: |l| {
            derived(ch06_scan::AddBlockOffsets::contract(
                "add_block_offsets",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            // Only blocks b > 0, at i < n: out[i] and scanned_totals[b - 1].
            let mut reach = one_per_thread(l, d[0], 1);
            let n = d[0].max(0) as u64;
            let b = u64::from(l.block[0]);
            let last_block = match n {
                0 => 0,
                n => u64::from(l.grid[0] - 1).min((n - 1) / b),
            };
            if last_block == 0 {
                reach.extents[0] = 0;
            }
            reach.extents.push(last_block);
            reach.vectors.push(false);
            reach
        },
    }
}

pub fn reduce_tiles() -> Model {
    Model {
        kernels: "reduce_tiles",
        buffers: &["in", "tile_totals"],
        mirrors: &[
            ("ch06-scan.cu", "warp_scan"),
            ("ch06-scan.cu", "block_scan"),
            ("ch06-scan.cu", "tile_io"),
            ("ch06-scan.cu", "reduce_then_scan"),
        ],
        hash: 0x32216d54f0701259,
        draw: || one_d(512, 16, |n| vec![n, ceil(n, 8192).max(1)], |_| vec![]),
        contract: |l| {
            derived(ch06_scan::ReduceTiles::contract(
                "reduce_tiles",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            // tile = blockDim.x * ITEMS; start = blockIdx.x * tile, an unsigned product kept
            // as an int. A block whose tile is whole (start + tile <= n) loads it as uint4s
            // from in + start; the last one loads start + j < n one at a time.
            let n = d[0].max(0) as u64;
            let b = u64::from(l.block[0]);
            let tile = b * 16;
            let grid = u64::from(l.grid[0]);
            let last_start = (grid - 1) * tile;
            let mut ints = vec![
                ("start = blockIdx.x * tile", i128::from(last_start), INT_MAX),
                ("start + tile", i128::from(grid * tile), INT_MAX),
                (
                    "start + j, one blockDim.x past n",
                    i128::from(n.max(1) - 1 + b).max(i128::from(last_start + b - 1)),
                    INT_MAX,
                ),
            ];
            ints.extend(block_scan_slots(l));
            let extent = n.min(grid * tile);
            Reach {
                extents: vec![extent, grid],
                vectors: vec![n >= tile, false],
                ints,
            }
        },
    }
}

pub fn scan_tiles() -> Model {
    Model {
        kernels: "scan_tiles",
        buffers: &["in", "out", "scanned_totals"],
        mirrors: &[
            ("ch06-scan.cu", "warp_scan"),
            ("ch06-scan.cu", "block_scan"),
            ("ch06-scan.cu", "tile_io"),
            ("ch06-scan.cu", "reduce_then_scan"),
        ],
        hash: 0x32216d54f0701259,
        draw: || one_d(512, 16, |n| vec![n, n, ceil(n, 8192).max(1)], |_| vec![]),
        contract: |l| {
            derived(ch06_scan::ScanTiles::contract(
                "scan_tiles",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        reach: |l, d| {
            // first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS, unsigned, kept as an
            // int; ITEMS values from first, as uint4s when first + ITEMS <= n, else those
            // below n. Block b > 0 reads scanned_totals[b - 1], whatever n is.
            let n = d[0].max(0) as u64;
            let t = l.tx();
            let mut ints = vec![
                (
                    "first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS",
                    (i128::from(t) - 1) * 16,
                    INT_MAX,
                ),
                ("first + ITEMS", i128::from(t) * 16, INT_MAX),
            ];
            ints.extend(block_scan_slots(l));
            let extent = n.min(t * 16);
            Reach {
                extents: vec![extent, extent, u64::from(l.grid[0] - 1)],
                vectors: vec![n >= 16, n >= 16, false],
                ints,
            }
        },
    }
}

pub fn shuffle_table() -> Model {
    Model {
        kernels: "shuffle_table",
        buffers: &["values", "table"],
        mirrors: &[("ch06-shuffles.cu", "table")],
        hash: 0x4f558bd1fb137be8,
        draw: || around([1, 1, 1], [32, 1, 1], vec![32, 9 * 32], vec![]),
        contract: |l| {
            ch06_shuffles::ShuffleTable::contract(
                "shuffle_table",
                &l.config(),
                l.span(0),
                l.span(1),
            )
            .map(|()| vec![])
        },
        reach: |l, _| {
            // lane = threadIdx.x, unbounded by the kernel: values[lane], and row r's
            // table[32 * r + lane] for the nine rows.
            let b = u64::from(l.block[0]);
            Reach {
                extents: vec![b, 8 * 32 + b],
                vectors: vec![false; 2],
                ints: vec![],
            }
        },
    }
}

pub fn warp_sum_down_i32() -> Model {
    Model {
        kernels: "warp_sum_down_i32, warp_sum_xor_i32",
        buffers: &["x", "out"],
        mirrors: &[
            ("ch06-shuffles.cu", "warp_sum"),
            ("ch06-shuffles.cu", "kernels"),
        ],
        hash: 0x3c9512c26945abd7,
        draw: || one_d(256, 1, |n| vec![n, n], |_| vec![]),
        contract: |l| {
            derived(ch06_shuffles::WarpSumDownI32::contract(
                "warp_sum_down_i32",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

pub fn warp_sum_down_f32() -> Model {
    Model {
        kernels: "warp_sum_down_f32, warp_sum_xor_f32, warp_max_xor_f32",
        buffers: &["x", "out"],
        mirrors: &[
            ("ch06-shuffles.cu", "warp_sum"),
            ("ch06-shuffles.cu", "warp_max"),
            ("ch06-shuffles.cu", "kernels_f32"),
        ],
        hash: 0x47525c383b47af53,
        draw: || one_d(256, 1, |n| vec![n, n], |_| vec![]),
        contract: |l| {
            derived(ch06_shuffles::WarpSumDownF32::contract(
                "warp_sum_down_f32",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread(l, d[0], 2),
    }
}

pub fn vote_demo() -> Model {
    Model {
        kernels: "vote_demo",
        buffers: &["values", "seen"],
        mirrors: &[("ch06-votes.cu", "vote_demo")],
        hash: 0x31d9752c87292479,
        draw: || around([1, 1, 1], [32, 1, 1], vec![32, 6 * 32], vec![]),
        contract: |l| {
            ch06_votes::VoteDemo::contract("vote_demo", &l.config(), l.span(0), 0.5, l.span(1))
                .map(|()| vec![])
        },
        reach: |l, _| {
            // lane = threadIdx.x % 32: values[lane] and its row seen[6 * lane ..= 6 * lane + 5].
            let lanes = u64::from(l.block[0]).min(32);
            Reach {
                extents: vec![lanes, 6 * lanes],
                vectors: vec![false; 2],
                ints: vec![],
            }
        },
    }
}

pub fn hist_block() -> Model {
    Model {
        kernels: "hist_block, hist_warp, hist_lane, hist_match",
        buffers: &["bytes", "bins"],
        mirrors: &[
            ("ch06-skewed-histogram.cu", "count_bytes"),
            ("ch06-skewed-histogram.cu", "merge"),
            ("ch06-skewed-histogram.cu", "hist_block"),
            ("ch06-skewed-histogram.cu", "hist_warp"),
            ("ch06-skewed-histogram.cu", "hist_lane"),
            ("ch06-skewed-histogram.cu", "hist_match"),
        ],
        hash: 0x0d216c4fdf64f44b,
        // `bytes` at any byte offset, not only the usual views': the kernels find the 16-byte
        // boundary themselves.
        draw: || {
            (one_d(256, 16, |n| vec![n, 256], |_| vec![]), 0u64..32)
                .prop_map(|(mut l, at)| {
                    l.offsets[0] = at;
                    l
                })
                .boxed()
        },
        contract: |l| {
            derived(ch06_skewed_histogram::HistBlock::contract(
                "hist_block",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            // count_bytes: `head` bytes up to the first 16-byte boundary of the address, then
            // `pieces` uint4s from there (wide[p] for p < pieces only, whoever loads it), then
            // the tail; block 0's threads below 32 read the head and tail, lane < rest a byte
            // each: bytes[lane] in the head, bytes[done + lane - head] past it. Its 64-bit
            // indices (first, threads, base, done) cannot overflow.
            let n = d[0].max(0) as u64;
            let address = l.span(0).address;
            let head = n.min((16 - address % 16) % 16);
            let pieces = (n - head) / 16;
            let done = head + pieces * 16;
            let rest = head + (n - done);
            let warp0 = u64::from(l.block[0]).min(32);
            let lanes = rest.min(warp0);
            let tail = if lanes > head {
                done + lanes - head
            } else {
                lanes
            };
            let wide = if pieces > 0 { done } else { 0 };
            let b = i128::from(l.block[0]);
            Reach {
                // Every kernel merges bin threadIdx.x into bins[threadIdx.x] (`merge`,
                // mirrored too).
                extents: vec![wide.max(tail), u64::from(l.block[0])],
                // `bytes` is loaded 16 bytes at a time, but from bytes + head, aligned by
                // construction whatever the buffer's address: not `true`, which would have the
                // framework check the buffer's own start; the first index below checks it.
                vectors: vec![false, false],
                ints: vec![
                    (
                        "(bytes + head) % 16, where the uint4 loads start",
                        if pieces > 0 {
                            i128::from((address + head) % 16)
                        } else {
                            0
                        },
                        0,
                    ),
                    (
                        "rest = head + (n - done), a byte a lane of warp 0",
                        i128::from(rest),
                        i128::from(warp0),
                    ),
                    (
                        "threadIdx.x, in local[BINS] (hist_lane: local[BINS][32])",
                        b - 1,
                        255,
                    ),
                    (
                        "threadIdx.x / 32, in hist_warp's local[WARPS]",
                        (b - 1) / 32,
                        7,
                    ),
                ],
            }
        },
    }
}

pub fn warp_sum_synced() -> Model {
    Model {
        kernels: "warp_sum_synced, warp_sum_unsynced",
        buffers: &["x", "sums"],
        mirrors: &[("ch06-warp-sync.cu", "warp_sum")],
        hash: 0xd3c049788703ab83,
        draw: || one_d(256, 1, |n| vec![n, ceil(n, 32)], |_| vec![]),
        contract: |l| {
            derived(ch06_warp_sync::WarpSumSynced::contract(
                "warp_sum_synced",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            // x[i] for i < n; sums[i / 32] from lane 0 (threadIdx.x % 32 == 0) for i < n: the
            // last such i is the lane 0 of the warp of the last thread below n. A warp's row of
            // s is 32 + 16 wide, and lane + half <= 31 + 16.
            let mut reach = one_per_thread(l, d[0], 1);
            let b = u64::from(l.block[0]);
            reach.extents.push(match reach.extents[0] {
                0 => 0,
                m => {
                    let last = m - 1;
                    (last - last % b % 32) / 32 + 1
                }
            });
            reach.vectors.push(false);
            reach.ints.push((
                "threadIdx.x / 32, in s[THREADS / 32]",
                (i128::from(l.block[0]) - 1) / 32,
                7,
            ));
            reach
        },
    }
}

/// A number of bins: a few, the chapter's 2^16 and 2^17, none, or any size.
fn bins() -> BoxedStrategy<u64> {
    prop_oneof![
        4 => 1u64..=4096,
        1 => Just(1u64 << 16),
        1 => Just(1u64 << 17),
        1 => Just(0u64),
        1 => size(),
    ]
    .boxed()
}

/// Dynamic shared memory: mostly the `needed` bytes, else one less or anything.
fn shared_near(needed: u64) -> BoxedStrategy<u32> {
    let needed = needed.min(u64::from(u32::MAX)) as u32;
    prop_oneof![
        6 => Just(needed),
        1 => Just(needed.saturating_sub(1)),
        1 => 0u32..=100_000,
    ]
    .boxed()
}

/// `n` values into `bins` bins, in blocks of 256, one value a thread.
fn histogram_launch(n: u64, bins: u64, ranges: u64) -> BoxedStrategy<Launch> {
    around(
        [ceil(n, 256), ranges, 1],
        [256, 1, 1],
        vec![n, bins],
        vec![bins as i64],
    )
}

/// The reach of a 64-bit grid-stride loop over values[0, n) that counts each value v < bins in
/// counts[v]: all of `values`, and any bin below `bins` (the first scalar argument).
fn values_into_bins(l: &Launch, n: i64) -> Vec<u64> {
    let (values, _) = grid_stride(l.tx(), n);
    vec![values, l.args[0] as u64]
}

pub fn hist_global_bins() -> Model {
    Model {
        kernels: "hist_global_bins",
        buffers: &["values", "counts"],
        mirrors: &[("ch06-cluster-histogram.cu", "hist_global_bins")],
        hash: 0x12d13b02aaf8c11c,
        draw: || {
            (size(), bins())
                .prop_flat_map(|(n, bins)| histogram_launch(n, bins, 1))
                .boxed()
        },
        contract: |l| {
            derived(ch06_cluster_histogram::HistGlobalBins::contract(
                "hist_global_bins",
                &l.config(),
                l.span(0),
                l.arg(0)?,
                l.span(1),
            ))
        },
        reach: |l, d| Reach {
            extents: values_into_bins(l, d[0]),
            vectors: vec![false; 2],
            ints: vec![],
        },
    }
}

pub fn hist_bin_ranges() -> Model {
    Model {
        kernels: "hist_bin_ranges",
        buffers: &["values", "counts"],
        mirrors: &[
            ("ch06-cluster-histogram.cu", "merge_range"),
            ("ch06-cluster-histogram.cu", "hist_bin_ranges"),
        ],
        hash: 0x44066c00b4214093,
        draw: || {
            let ranges = prop_oneof![4 => 1u64..=8, 1 => Just(65535u64), 1 => size()];
            (size(), bins(), ranges)
                .prop_flat_map(|(n, bins, ranges)| {
                    let needed = 4 * ceil(bins, ranges.max(1));
                    (histogram_launch(n, bins, ranges), shared_near(needed)).prop_map(
                        |(mut l, shared)| {
                            l.shared = shared;
                            l
                        },
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived(ch06_cluster_histogram::HistBinRanges::contract(
                "hist_bin_ranges",
                &l.config(),
                l.span(0),
                l.arg(0)?,
                l.span(1),
            ))
        },
        reach: |l, d| {
            // Block (x, y) holds bins [first, first + size) from first = y * size, size cut to
            // the bins left (0 past them), in local[size], the dynamic shared memory: its reach
            // is checked as the bytes the largest range takes against `shared`. It merges
            // local[b] into counts[first + b] for b < size (`merge_range`, mirrored).
            let bins = l.args[0] as u64;
            let ranges = u64::from(l.grid[1]);
            let size = (bins + ranges - 1) / ranges;
            let b = u64::from(l.block[0]);
            let mut ints = vec![
                (
                    "bins + gridDim.y - 1 (unsigned)",
                    i128::from(bins + ranges - 1),
                    UINT_MAX,
                ),
                (
                    "first = blockIdx.y * size (unsigned)",
                    i128::from((ranges - 1) * size),
                    UINT_MAX,
                ),
                (
                    "4 * size, the bytes of local[] (against `shared`)",
                    i128::from(4 * size.min(bins)),
                    i128::from(l.shared),
                ),
            ];
            if size > 0 {
                ints.push((
                    "b += blockDim.x (unsigned)",
                    i128::from(size - 1 + b),
                    UINT_MAX,
                ));
            }
            let mut extents = values_into_bins(l, d[0]);
            extents[1] = match size {
                0 => 0,
                size => {
                    let last_range = (ranges - 1).min((bins - 1) / size);
                    ((last_range + 1) * size).min(bins)
                }
            };
            Reach {
                extents,
                vectors: vec![false; 2],
                ints,
            }
        },
    }
}

pub fn hist_cluster() -> Model {
    Model {
        kernels: "hist_cluster",
        buffers: &["values", "counts"],
        mirrors: &[
            ("ch06-cluster-histogram.cu", "cluster_add"),
            ("ch06-cluster-histogram.cu", "merge_range"),
            ("ch06-cluster-histogram.cu", "hist_cluster"),
        ],
        hash: 0x52bf6aae63d72d4b,
        // Clusters of about 2 blocks, the grid mostly rounded up to whole clusters.
        draw: || {
            let cluster = (cluster_axis(2), cluster_axis(1), cluster_axis(1));
            (size(), bins(), cluster)
                .prop_flat_map(|(n, bins, (cx, cy, cz))| {
                    let needed = 4 * ceil(bins, u64::from(cx * cy * cz).max(1));
                    let whole = prop::bool::weighted(0.8);
                    (histogram_launch(n, bins, 1), shared_near(needed), whole).prop_map(
                        move |(mut l, shared, whole)| {
                            l.shared = shared;
                            l.cluster = [cx, cy, cz];
                            if whole && cx > 0 {
                                let g = ceil(u64::from(l.grid[0]), u64::from(cx)) * u64::from(cx);
                                l.grid[0] = g.min(u64::from(u32::MAX)) as u32;
                            }
                            l
                        },
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived(ch06_cluster_histogram::HistCluster::contract(
                "hist_cluster",
                &l.clustered(),
                l.span(0),
                l.arg(0)?,
                l.span(1),
            ))
        },
        reach: |l, d| {
            // The cluster's c blocks hold `size` bins each, block rank r from r * size on, in
            // local[size], the dynamic shared memory, which every block clears whole: its reach
            // is checked as those bytes against `shared`. A value v < bins is counted in
            // local[v % size] of rank v / size; rank r merges local[b] into counts[first + b]
            // for b below the bins left (`merge_range`, mirrored).
            let bins = l.args[0] as u64;
            let c: u64 = l.cluster.iter().map(|&a| u64::from(a)).product();
            let size = (bins + c - 1) / c;
            let b = u64::from(l.block[0]);
            let mut ints = vec![
                (
                    "bins + cluster.num_blocks() - 1 (unsigned)",
                    i128::from(bins + c - 1),
                    UINT_MAX,
                ),
                (
                    "first = cluster.block_rank() * size (unsigned)",
                    i128::from((c - 1) * size),
                    UINT_MAX,
                ),
                (
                    "4 * size, the bytes of local[] (against `shared`)",
                    i128::from(4 * size),
                    i128::from(l.shared),
                ),
            ];
            if size > 0 {
                ints.push((
                    "b += blockDim.x (unsigned)",
                    i128::from(size - 1 + b),
                    UINT_MAX,
                ));
            }
            if bins > 0 {
                ints.push((
                    "v / size, the rank whose local[] counts v",
                    i128::from((bins - 1) / size),
                    i128::from(c) - 1,
                ));
            }
            let mut extents = values_into_bins(l, d[0]);
            extents[1] = (c * size).min(bins);
            Reach {
                extents,
                vectors: vec![false; 2],
                ints,
            }
        },
    }
}

/// Every model of the chapter.
/// Challenge 3's solution: one thread per byte, `bins[bytes[i]]` for i < n, as chapter 5's
/// `hist_global`; the lanes past n only take part in the match.
pub fn hist_global_aggregated() -> Model {
    Model {
        kernels: "hist_global_aggregated",
        buffers: &["bytes", "bins"],
        mirrors: &[("ch06-challenges.cu", "hist_global_aggregated")],
        hash: 0x2b7517d7c44b2f5a,
        draw: || one_d(256, 1, |n| vec![n, 256], |_| vec![]),
        contract: |l| {
            derived(ch06_challenges::HistGlobalAggregated::contract(
                "hist_global_aggregated",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let mut reach = one_per_thread(l, d[0], 1);
            let any = reach.extents[0] > 0;
            reach.extents.push(if any { 256 } else { 0 });
            reach.vectors.push(false);
            reach
        },
    }
}

pub fn models() -> Vec<Model> {
    vec![
        hist_global_aggregated(),
        scan_warps(),
        block_partials(),
        smooth_tiles(),
        sum_tree(),
        sum_shuffle(),
        max_per_thread(),
        exclusive_scan_warps(),
        positions_two_ways(),
        sum_atomic_each(),
        sum_atomic_block_grid_stride(),
        sum_atomic_spread(),
        sum_grid_sync(),
        sum_partials(),
        scan_blocks(),
        scan_totals(),
        add_block_offsets(),
        reduce_tiles(),
        scan_tiles(),
        shuffle_table(),
        warp_sum_down_i32(),
        warp_sum_down_f32(),
        vote_demo(),
        hist_block(),
        warp_sum_synced(),
        hist_global_bins(),
        hist_bin_ranges(),
        hist_cluster(),
    ]
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
fn smooth_tiles_stays_inside() {
    prove(smooth_tiles());
}

#[test]
fn sum_tree_stays_inside() {
    prove(sum_tree());
}

#[test]
fn sum_shuffle_stays_inside() {
    prove(sum_shuffle());
}

#[test]
fn max_per_thread_stays_inside() {
    prove(max_per_thread());
}

#[test]
fn exclusive_scan_warps_stays_inside() {
    prove(exclusive_scan_warps());
}

#[test]
fn positions_two_ways_stays_inside() {
    prove(positions_two_ways());
}

#[test]
fn sum_atomic_each_stays_inside() {
    prove(sum_atomic_each());
}

#[test]
fn sum_atomic_block_grid_stride_stays_inside() {
    prove(sum_atomic_block_grid_stride());
}

#[test]
fn sum_atomic_spread_stays_inside() {
    prove(sum_atomic_spread());
}

#[test]
fn sum_grid_sync_stays_inside() {
    prove(sum_grid_sync());
}

#[test]
fn sum_partials_stays_inside() {
    prove(sum_partials());
}

#[test]
fn scan_blocks_stays_inside() {
    prove(scan_blocks());
}

#[test]
fn scan_totals_stays_inside() {
    prove(scan_totals());
}

#[test]
fn add_block_offsets_stays_inside() {
    prove(add_block_offsets());
}

#[test]
fn reduce_tiles_stays_inside() {
    prove(reduce_tiles());
}

#[test]
fn scan_tiles_stays_inside() {
    prove(scan_tiles());
}

#[test]
fn shuffle_table_stays_inside() {
    prove(shuffle_table());
}

#[test]
fn warp_sum_down_i32_stays_inside() {
    prove(warp_sum_down_i32());
}

#[test]
fn warp_sum_down_f32_stays_inside() {
    prove(warp_sum_down_f32());
}

#[test]
fn vote_demo_stays_inside() {
    prove(vote_demo());
}

#[test]
fn hist_block_stays_inside() {
    prove(hist_block());
}

#[test]
fn warp_sum_synced_stays_inside() {
    prove(warp_sum_synced());
}

#[test]
fn hist_global_bins_stays_inside() {
    prove(hist_global_bins());
}

#[test]
fn hist_bin_ranges_stays_inside() {
    prove(hist_bin_ranges());
}

#[test]
fn hist_cluster_stays_inside() {
    prove(hist_cluster());
}

// ---- launches the contracts refuse ----

/// Shrunk by the property test: 2^17 blocks of 1024 threads over 2^30 - 1 values. The last
/// block's start + tile is 2^31, past an int: wrapped, it passes `start + tile <= n`, and the
/// block loads a whole tile as uint4s from 2^31 - 16384, far past the end.
#[test]
fn reduce_tiles_whose_last_tile_ends_past_an_int_is_refused() {
    refused(
        ch06_scan::ReduceTiles::contract(
            "reduce_tiles",
            &shape((131_072, 1, 1), 1024),
            at((1 << 30) - 1),
            at(131_072),
        ),
        "threads * 16 <= 2147483647",
    );
}

/// No values at all, 2^23 blocks of 32 threads: blockIdx.x * tile, an unsigned product, wraps
/// to -512 for the last block, whose whole "tile" then lies before the buffer.
#[test]
fn reduce_tiles_whose_start_wraps_negative_is_refused() {
    refused(
        ch06_scan::ReduceTiles::contract(
            "reduce_tiles",
            &shape((1 << 23, 1, 1), 32),
            at(0),
            at(1 << 23),
        ),
        "threads * 16 <= 2147483647",
    );
}

/// Shrunk by the property test (seed 3): the last thread's first + ITEMS is 2^31.
#[test]
fn scan_tiles_whose_last_thread_ends_past_an_int_is_refused() {
    refused(
        ch06_scan::ScanTiles::contract(
            "scan_tiles",
            &shape((131_072, 1, 1), 1024),
            at((1 << 30) - 1),
            at((1 << 30) - 1),
            at(131_072),
        ),
        "threads * 16 <= 2147483647",
    );
}

#[test]
fn hist_global_aggregated_stays_inside() {
    prove(hist_global_aggregated());
}
