//! The models of chapter 9's challenge: one tile product per warp (kernels/ch09-fragments.cu and
//! its starter, kernels/ch09-exercise-fragments.cu).
//!
//! Warp `w = blockIdx.x * 4 + threadIdx.x / 32` returns unless `w < tiles`; a warp that goes on
//! reads A's 256 elements from `a + 256 w` and B's 128 from `b + 128 w`, one bf16 at a time
//! (`e = lane; e < 256; e += 32`), and writes C's 128 floats at `c + 128 w`, one at a time, at
//! `(row + 8) * 8 + col + 1` at most, with `row = lane / 4 < 8` and `col = 2 (lane % 4) < 8`.
//! Its shared tiles are `as[warp]` (256 bf16) and `bs[warp]` (128), `warp < 4`; `ldmatrix`
//! reads 8 elements from `as[warp] + a_row(lane) * 16 + a_col(lane)` and from
//! `bs[warp] + b_row(lane) * 8`. The solution's mapping gives rows up to 15 and columns up to
//! 8; the starter's gives 0 everywhere. Nothing is loaded or stored as a vector.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

/// Elements of one tile of A, of B and of C.
const A_TILE: u64 = 256;
const B_TILE: u64 = 128;
const C_TILE: u64 = 128;

/// Blocks of 128 threads (4 warps) covering `tiles` tiles; the tile counts around the largest
/// a launch can have: threads + len(a) <= 2^31, that is 32 t + 256 t <= 2^31 for t a multiple
/// of 4, so t <= 7,456,540.
fn draw() -> BoxedStrategy<Launch> {
    let tiles = prop_oneof![
        6 => 0u64..5000,
        1 => Just(0u64),
        1 => Just(1u64),
        2 => prop::sample::select(vec![
            7_456_536u64,
            7_456_539,
            7_456_540,
            7_456_541,
            7_456_544,
            (1 << 23) - 1,
            1 << 23,
            (1 << 23) + 1,
        ]),
        1 => size(),
    ];
    tiles
        .prop_flat_map(|t| {
            around(
                [ceil(t, 4), 1, 1],
                [128, 1, 1],
                vec![A_TILE * t, B_TILE * t, C_TILE * t],
                vec![t as i64],
            )
        })
        .boxed()
}

/// The reach of `tile_products` and its starter, whose mapping puts the last element that
/// `ldmatrix` reads at `a_last` of `as[warp]` and `b_last` of `bs[warp]`.
fn reach(l: &Launch, a_last: i128, b_last: i128) -> Reach {
    let tiles = l.args[0].max(0) as u64;
    // w = blockIdx.x * 4 + warp, over every block and warp of the launch.
    let warps_per_block = (u64::from(l.block[0]) - 1) / 32 + 1;
    let last_w = (u64::from(l.grid[0]) - 1) * 4 + (warps_per_block - 1);
    // The warps that go on are those with w < tiles: tiles 0 to min(tiles, last_w + 1) - 1.
    let done = tiles.min(last_w + 1);
    let first_of_last = |tile: u64| {
        if done > 0 {
            i128::from(tile * (done - 1))
        } else {
            0
        }
    };
    Reach {
        extents: vec![A_TILE * done, B_TILE * done, C_TILE * done],
        vectors: vec![false; 3],
        ints: vec![
            (
                "w = blockIdx.x * 4 + warp, the last warp's tile",
                i128::from(last_w),
                INT_MAX,
            ),
            (
                "256 * w (a += 256 * w), for w < tiles",
                first_of_last(A_TILE),
                INT_MAX,
            ),
            (
                "128 * w (b and c), for w < tiles",
                first_of_last(B_TILE),
                INT_MAX,
            ),
            (
                "warp = threadIdx.x / 32, in as[4] and bs[4]",
                i128::from(warps_per_block - 1),
                3,
            ),
            (
                "lanes missing from the last warp (mma.sync and ldmatrix need all 32)",
                i128::from((32 - l.block[0] % 32) % 32),
                0,
            ),
            (
                "a_row(lane) * 16 + a_col(lane) + 7, in as[warp] (256)",
                a_last,
                255,
            ),
            ("b_row(lane) * 8 + 7, in bs[warp] (128)", b_last, 127),
            ("(row + 8) * 8 + col + 1, in C's tile (128)", 127, 127),
        ],
    }
}

/// The solution: rows `lane % 16` of A's tile from column `8 * (lane / 16)`, rows `lane % 16`
/// of B's.
pub fn tile_products() -> Model {
    Model {
        kernels: "tile_products",
        buffers: &["a", "b", "c"],
        mirrors: &[
            ("ch09-fragments.cu", "instructions"),
            ("ch09-fragments.cu", "mapping"),
            ("ch09-fragments.cu", "kernel"),
        ],
        hash: 0xa9383565f7e2b6dd,
        draw,
        contract: |l| {
            ch09_fragments::TileProducts::contract(
                "tile_products",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
            )
            .map(|()| vec![])
        },
        reach: |l, _| reach(l, 15 * 16 + 8 + 7, 15 * 8 + 7),
    }
}

/// The starter, whose mapping functions return 0 until the learner writes them: every lane
/// points at row 0, column 0. (A learner's answer is the learner's to keep inside the tile; the
/// judge runs it on the GPU, not through this launcher's guarantee.)
pub fn tile_products_exercise() -> Model {
    Model {
        kernels: "tile_products_exercise",
        buffers: &["a", "b", "c"],
        mirrors: &[("ch09-exercise-fragments.cu", "exercise")],
        hash: 0xd0da524eceb3762b,
        draw,
        contract: |l| {
            ch09_exercise_fragments::TileProductsExercise::contract(
                "tile_products_exercise",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
            )
            .map(|()| vec![])
        },
        reach: |l, _| reach(l, 7, 7),
    }
}

/// Every model of the challenge.
pub fn models() -> Vec<Model> {
    vec![tile_products(), tile_products_exercise()]
}

#[test]
fn tile_products_stays_inside() {
    prove(tile_products());
}

#[test]
fn tile_products_exercise_stays_inside() {
    prove(tile_products_exercise());
}
