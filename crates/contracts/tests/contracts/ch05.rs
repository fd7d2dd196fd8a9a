//! The models of chapter 5: shared memory and atomics's kernels.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

/// `threadIdx.x` as the index of a `__shared__` array of `slots` elements.
fn shared_slot(l: &Launch, what: &'static str, slots: i128) -> (&'static str, i128, i128) {
    (what, i128::from(l.block[0]) - 1, slots - 1)
}

/// 1 if a buffer is touched at all (one element, at index 0), else 0.
fn one_if(touched: bool) -> u64 {
    u64::from(touched)
}

/// `i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { atomic(result, values[i]) }`: the
/// values up to `n`, and the one result word when any thread passes the test.
fn one_per_thread_into_one(l: &Launch, n: i64, singles: usize) -> Reach {
    let mut reach = one_per_thread(l, n, 1);
    let any = reach.extents[0] > 0;
    reach
        .extents
        .extend(std::iter::repeat_n(one_if(any), singles));
    reach.vectors.extend(std::iter::repeat_n(false, singles));
    reach
}

/// Tiles of 256 elements, a block of 256 threads each, the grid covering the buffers exactly.
fn tiles() -> BoxedStrategy<Launch> {
    size()
        .prop_flat_map(|n| {
            let blocks = ceil(n, 256);
            around([blocks, 1, 1], [256, 1, 1], vec![blocks * 256; 2], vec![])
        })
        .boxed()
}

pub fn hist_shared() -> Model {
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

pub fn max_int() -> Model {
    Model {
        kernels: "max_int",
        buffers: &["values", "result"],
        mirrors: &[("ch05-atomic-max.cu", "max_int")],
        hash: 0xc3123f6a6b119b7a,
        draw: || one_d(256, 1, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch05_atomic_max::MaxInt::contract(
                "max_int",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| one_per_thread_into_one(l, d[0], 1),
    }
}

pub fn max_float_bits() -> Model {
    Model {
        kernels: "max_float_bits, max_float_cas, max_float_sign_split_by_value, max_float_sign_split",
        buffers: &["values", "result"],
        mirrors: &[
            ("ch05-atomic-max.cu", "max_float_bits"),
            ("ch05-atomic-max.cu", "atomic_max_float"),
            ("ch05-atomic-max.cu", "max_float_sign_split_by_value"),
            ("ch05-atomic-max.cu", "max_float_sign_split"),
        ],
        hash: 0x37e81c9edd14d3bb,
        draw: || one_d(256, 1, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch05_atomic_max::MaxFloatBits::contract(
                "max_float_bits",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        // Every access to *result goes through the pointer itself, reinterpreted: word 0 only.
        reach: |l, d| one_per_thread_into_one(l, d[0], 1),
    }
}

pub fn max_float_cas_counted() -> Model {
    Model {
        kernels: "max_float_cas_counted",
        buffers: &["values", "result", "retries"],
        mirrors: &[("ch05-atomic-max.cu", "max_float_cas_counted")],
        hash: 0x93b6bd2a56b85116,
        draw: || one_d(256, 1, |n| vec![n, 1, 1], |_| vec![]),
        contract: |l| {
            derived(ch05_atomic_max::MaxFloatCasCounted::contract(
                "max_float_cas_counted",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
            ))
        },
        // Threads past n return first; the others read *result and may add to *retries.
        reach: |l, d| one_per_thread_into_one(l, d[0], 2),
    }
}

pub fn bincount_largest_u8() -> Model {
    Model {
        kernels: "bincount_largest_u8",
        buffers: &["v", "r"],
        mirrors: &[("ch05-bincount.cu", "bincount")],
        hash: 0xe8f249ea19ba8d0b,
        draw: || one_d(256, 16, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch05_bincount::BincountLargestU8::contract(
                "bincount_largest_u8",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            let t = i128::from(l.tx());
            Reach {
                // A 64-bit grid-stride loop over [0, n); thread 0 of every block offers its
                // block's largest to *result, whatever n is.
                extents: vec![n, 1],
                vectors: vec![false; 2],
                // The start and the stride are unsigned 32-bit products, widened afterwards: a
                // stride of 2^32 threads would be 0, and the loop would never end.
                ints: vec![
                    (
                        "blockIdx.x * blockDim.x + threadIdx.x (unsigned)",
                        t - 1,
                        UINT_MAX,
                    ),
                    ("gridDim.x * blockDim.x, not 0 (unsigned)", t, UINT_MAX),
                    shared_slot(l, "threadIdx.x, in s[THREADS]", 256),
                    // s[threadIdx.x + stride] with threadIdx.x < stride <= THREADS / 2.
                    (
                        "threadIdx.x + stride, in s[THREADS]",
                        i128::from(l.block[0].min(128)) - 1 + 128,
                        255,
                    ),
                ],
            }
        },
    }
}

/// `i = blockIdx.x * THREADS + threadIdx.x`, loaded if below n, a tree in `s[THREADS]`.
fn block_sum_reach(l: &Launch, n: i64, second: u64) -> Reach {
    let n = n.max(0) as u64;
    let last = u64::from(l.grid[0] - 1) * 256 + u64::from(l.block[0]);
    Reach {
        extents: vec![last.min(n), second],
        vectors: vec![false; 2],
        ints: vec![
            (
                "blockIdx.x * THREADS + threadIdx.x",
                i128::from(last) - 1,
                INT_MAX,
            ),
            shared_slot(l, "threadIdx.x, in s[THREADS]", 256),
            // tree_sum: s[t + stride] for t < stride <= THREADS / 2.
            (
                "t + stride, in s[THREADS]",
                i128::from(l.block[0].min(128)) - 1 + 128,
                255,
            ),
        ],
    }
}

pub fn block_sum_atomic() -> Model {
    Model {
        kernels: "block_sum_atomic",
        buffers: &["x", "total"],
        mirrors: &[
            ("ch05-block-sum.cu", "tree"),
            ("ch05-block-sum.cu", "block_sum_atomic"),
        ],
        hash: 0x252fea67491f3a02,
        draw: || one_d(256, 1, |n| vec![n, 1], |_| vec![]),
        contract: |l| {
            derived(ch05_block_sum::BlockSumAtomic::contract(
                "block_sum_atomic",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        // Thread 0 of every block adds to *total, whatever n is.
        reach: |l, d| block_sum_reach(l, d[0], 1),
    }
}

pub fn block_partial_sums() -> Model {
    Model {
        kernels: "block_partial_sums",
        buffers: &["x", "partials"],
        mirrors: &[
            ("ch05-block-sum.cu", "tree"),
            ("ch05-block-sum.cu", "block_partial_sums"),
        ],
        hash: 0xe384e44e8f8bdbc7,
        draw: || one_d(256, 1, |n| vec![n, ceil(n, 256)], |_| vec![]),
        contract: |l| {
            derived(ch05_block_sum::BlockPartialSums::contract(
                "block_partial_sums",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        // Thread 0 of block b writes partials[b], whatever n is.
        reach: |l, d| block_sum_reach(l, d[0], u64::from(l.grid[0])),
    }
}

pub fn count_plain() -> Model {
    Model {
        kernels: "count_plain, count_atomic",
        buffers: &["counter"],
        mirrors: &[("ch05-counter.cu", "counters")],
        hash: 0xb68ec48b5eca16e7,
        draw: || {
            size()
                .prop_flat_map(|threads| {
                    around([ceil(threads, 256), 1, 1], [256, 1, 1], vec![1], vec![])
                })
                .boxed()
        },
        contract: |l| {
            ch05_counter::CountPlain::contract("count_plain", &l.config(), l.span(0))
                .map(|()| vec![])
        },
        // Every thread of the grid adds one to counter[0]; no index is computed.
        reach: |_, _| Reach {
            extents: vec![1],
            vectors: vec![false],
            ints: vec![],
        },
    }
}

pub fn hist_global() -> Model {
    Model {
        kernels: "hist_global",
        buffers: &["bytes", "bins"],
        mirrors: &[("ch05-histogram.cu", "hist_global")],
        hash: 0x32e91a0785c0e32b,
        draw: || one_d(256, 1, |n| vec![n, 256], |_| vec![]),
        contract: |l| {
            derived(ch05_histogram::HistGlobal::contract(
                "hist_global",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            // bins[bytes[i]]: a byte is at most 255.
            let mut reach = one_per_thread(l, d[0], 1);
            let any = reach.extents[0] > 0;
            reach.extents.push(if any { 256 } else { 0 });
            reach.vectors.push(false);
            reach
        },
    }
}

/// `i = blockIdx.x * TILE + t`, with no bounds test: every thread loads x[i] and stores out[i],
/// and slots t and TILE - 1 - t of `tile[TILE]`.
fn reverse_reach(l: &Launch) -> Reach {
    let last = u64::from(l.grid[0] - 1) * 256 + u64::from(l.block[0]);
    Reach {
        extents: vec![last; 2],
        vectors: vec![false; 2],
        ints: vec![
            ("blockIdx.x * TILE + t", i128::from(last) - 1, INT_MAX),
            shared_slot(l, "t, in tile[TILE]", 256),
            // TILE - 1 - t >= 0.
            (
                "t - (TILE - 1), at least 0",
                i128::from(l.block[0]) - 256,
                0,
            ),
        ],
    }
}

pub fn reverse_tiles_no_barrier() -> Model {
    Model {
        kernels: "reverse_tiles_no_barrier",
        buffers: &["x", "out"],
        mirrors: &[("ch05-no-barrier.cu", "reverse_tiles_no_barrier")],
        hash: 0xcd8417be4e892dc0,
        draw: tiles,
        contract: |l| {
            ch05_no_barrier::ReverseTilesNoBarrier::contract(
                "reverse_tiles_no_barrier",
                &l.config(),
                l.span(0),
                l.span(1),
            )
            .map(|()| vec![])
        },
        reach: |l, _| reverse_reach(l),
    }
}

pub fn reverse_tiles() -> Model {
    Model {
        kernels: "reverse_tiles",
        buffers: &["x", "out"],
        mirrors: &[("ch05-tiles.cu", "reverse_tiles")],
        hash: 0x2087f0885b324d1e,
        draw: tiles,
        contract: |l| {
            ch05_tiles::ReverseTiles::contract("reverse_tiles", &l.config(), l.span(0), l.span(1))
                .map(|()| vec![])
        },
        reach: |l, _| reverse_reach(l),
    }
}

pub fn reverse_tiles_dynamic() -> Model {
    Model {
        kernels: "reverse_tiles_dynamic",
        buffers: &["x", "out"],
        mirrors: &[("ch05-tiles.cu", "reverse_tiles_dynamic")],
        hash: 0xe1633043a6b6d6f9,
        draw: || {
            // The natural launch asks for blockDim.x floats of dynamic shared memory.
            let extra = prop_oneof![8 => Just(0i64), 1 => Just(-4i64), 1 => Just(4i64), 1 => -4096i64..100_000];
            (tiles(), extra)
                .prop_map(|(mut l, extra)| {
                    l.shared = (i64::from(l.block[0]) * 4 + extra).clamp(0, 1 << 20) as u32;
                    l
                })
                .boxed()
        },
        contract: |l| {
            ch05_tiles::ReverseTilesDynamic::contract(
                "reverse_tiles_dynamic",
                &l.config(),
                l.span(0),
                l.span(1),
            )
            .map(|()| vec![])
        },
        reach: |l, _| {
            let t = l.tx();
            Reach {
                extents: vec![t; 2],
                vectors: vec![false; 2],
                ints: vec![
                    // size = blockDim.x: an unsigned product, then an int.
                    ("blockIdx.x * size + t", i128::from(t) - 1, INT_MAX),
                    // tile[t] and tile[size - 1 - t], floats, in the launch's dynamic memory.
                    (
                        "(t + 1) * 4, the bytes of tile[] it uses",
                        i128::from(l.block[0]) * 4,
                        i128::from(l.shared),
                    ),
                ],
            }
        },
    }
}

/// Every model of the chapter.
/// `row_sums_unpadded` and `row_sums_padded` (kernels/ch05-banks.cu): thread (lane, warp) of
/// block b loads and stores element `b * TILE * TILE + warp * TILE + lane` (a `long long`), and
/// uses `tile[warp][lane]` and `tile[lane][(warp + k) % TILE]` of a tile TILE words on a side
/// (TILE + 1 wide, padded): both indices must stay below TILE.
fn row_sums_reach(l: &Launch) -> Reach {
    let tile = 32u64;
    let last = u64::from(l.grid[0] - 1) * tile * tile
        + u64::from(l.block[1] - 1) * tile
        + u64::from(l.block[0] - 1);
    Reach {
        extents: vec![last + 1; 2],
        vectors: vec![false; 2],
        ints: vec![
            (
                "lane = threadIdx.x, a row and a column of the tile",
                i128::from(l.block[0]) - 1,
                31,
            ),
            (
                "warp = threadIdx.y, a row of the tile",
                i128::from(l.block[1]) - 1,
                31,
            ),
        ],
    }
}

/// Blocks around 32 x 32, around `g` of them, over lengths that are often exactly the
/// threads launched (the contract asks for one element per thread), whatever the block.
fn row_sums_launches() -> BoxedStrategy<Launch> {
    (size(), block_near(32), block_near(32))
        .prop_flat_map(|(n, bx, by)| {
            let g = n.div_ceil(1024).max(1);
            let threads = g * u64::from(bx) * u64::from(by);
            around([g, 1, 1], [bx, by, 1], vec![threads, threads], vec![])
        })
        .boxed()
}

/// One launcher type for both: the same parameters and contract.
pub fn row_sums() -> Model {
    Model {
        kernels: "row_sums_unpadded, row_sums_padded",
        buffers: &["x", "sums"],
        mirrors: &[("ch05-banks.cu", "unpadded"), ("ch05-banks.cu", "padded")],
        hash: 0x729361cbb762c107,
        draw: row_sums_launches,
        contract: |l| {
            ch05_banks::RowSumsUnpadded::contract(
                "row_sums_unpadded",
                &l.config(),
                l.span(0),
                l.span(1),
            )
            .map(|()| vec![])
        },
        reach: |l, _| row_sums_reach(l),
    }
}

pub fn models() -> Vec<Model> {
    vec![
        hist_shared(),
        max_int(),
        max_float_bits(),
        max_float_cas_counted(),
        bincount_largest_u8(),
        block_sum_atomic(),
        block_partial_sums(),
        count_plain(),
        hist_global(),
        reverse_tiles_no_barrier(),
        reverse_tiles(),
        reverse_tiles_dynamic(),
        row_sums(),
    ]
}

#[test]
fn row_sums_stays_inside() {
    prove(row_sums());
}

#[test]
fn hist_shared_stays_inside() {
    prove(hist_shared());
}

#[test]
fn max_int_stays_inside() {
    prove(max_int());
}

#[test]
fn max_float_bits_stays_inside() {
    prove(max_float_bits());
}

#[test]
fn max_float_cas_counted_stays_inside() {
    prove(max_float_cas_counted());
}

#[test]
fn bincount_largest_u8_stays_inside() {
    prove(bincount_largest_u8());
}

#[test]
fn block_sum_atomic_stays_inside() {
    prove(block_sum_atomic());
}

#[test]
fn block_partial_sums_stays_inside() {
    prove(block_partial_sums());
}

#[test]
fn count_plain_stays_inside() {
    prove(count_plain());
}

#[test]
fn hist_global_stays_inside() {
    prove(hist_global());
}

#[test]
fn reverse_tiles_no_barrier_stays_inside() {
    prove(reverse_tiles_no_barrier());
}

#[test]
fn reverse_tiles_stays_inside() {
    prove(reverse_tiles());
}

#[test]
fn reverse_tiles_dynamic_stays_inside() {
    prove(reverse_tiles_dynamic());
}

// ---- launches the contracts refuse ----

/// The issue's finding: bincount's start and stride are unsigned 32-bit products, so 2^24
/// blocks of 256 threads made the stride 2^32 = 0 and the loop never ended. The implicit
/// 32-bit bound on the threads refuses that grid.
#[test]
fn a_bincount_whose_stride_wraps_to_zero_is_refused() {
    refused(
        ch05_bincount::BincountLargestU8::contract(
            "bincount_largest_u8",
            &shape((1 << 24, 1, 1), 256),
            at(1000),
            at(1),
        ),
        "threads + len(v) <= 2147483648 (32-bit indices)",
    );
}
