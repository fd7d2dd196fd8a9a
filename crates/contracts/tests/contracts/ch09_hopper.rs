//! The models of chapter 9's Hopper rungs (kernels/ch09-hopper-gemm.cu).
//!
//! A and B reach the kernels only through tensor maps, whose copies the hardware keeps inside
//! the rows × cols each map describes (`course::tma::TensorMap` checked those against its
//! buffer): no launch argument moves them. What the arguments decide is C: `store` writes row
//! `row0 + 64 half + 16 warp + lane / 4 + 8 h` and column `col0 + 8 j + 2 (lane % 4)` (and the
//! next) of C only below m and n, as a `float2` when n is even, with `row0 = 128 blockIdx.y`,
//! `col0 = 256 blockIdx.x` in `int`. The stages take `STAGES` × 48 KiB of dynamic shared memory
//! from the first 1024-byte boundary in it (up to 1023 bytes in); the TMA's coordinates
//! `slice * 64` and `col0 + 64 j` are `int`s, and so is `k + BK - 1`.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

const BM: u64 = 128;
const BN: u64 = 256;
const BK: u64 = 64;
const STAGES: u64 = 4;
const STAGE_BYTES: u64 = (BM * BK + BK * BN) * 2;

/// Launches of `block`-thread blocks covering C with 128 × 256 tiles, with around the shared
/// memory the stages need; m, n, k empty, small, ragged or huge, k also at its largest.
fn draw(block: u32) -> BoxedStrategy<Launch> {
    let side = || prop_oneof![1 => Just(0u64), 1 => Just(1u64), 6 => 0u64..9000, 1 => size()];
    let k = prop_oneof![
        4 => 0u64..9000,
        1 => prop::sample::select(vec![
            (1u64 << 31) - 64,
            (1 << 31) - 63,
            (1 << 31) - 65,
            (1 << 31) - 1,
        ]),
    ];
    let needed = (STAGES * STAGE_BYTES + 1024) as u32;
    let shared = prop_oneof![
        12 => Just(needed),
        1 => Just(needed - 1),
        1 => Just(needed - 1024),
        1 => 0u32..=2 * needed,
    ];
    (side(), side(), k, shared)
        .prop_flat_map(move |(m, n, k, shared)| {
            around(
                [ceil(n, BN), ceil(m, BM), 1],
                [block, 1, 1],
                vec![m.saturating_mul(n).min(1 << 40)],
                vec![m as i64, n as i64, k as i64],
            )
            .prop_map(move |mut l| {
                l.shared = shared;
                l
            })
        })
        .boxed()
}

/// `grouped`: `tile_of_block<true>`, whose block index `blockIdx.y * gridDim.x + blockIdx.x`
/// and group size `8 * gridDim.x` are `int`s; it gives each block of the grid a different tile
/// of the same grid (a permutation), so the tiles, and C's reach, are those of the plain order.
fn reach(l: &Launch, grouped: bool) -> Reach {
    let [m, n, k] = [l.args[0], l.args[1], l.args[2]].map(|v| v.max(0) as u64);
    let (gx, gy) = (u64::from(l.grid[0]), u64::from(l.grid[1]));
    // The rows and columns of C that some block covers, inside C.
    let (r, c) = ((gy * BM).min(m), (gx * BN).min(n));
    let cc = if r > 0 && c > 0 {
        (r - 1).saturating_mul(n).saturating_add(c)
    } else {
        0
    };
    let paired = n % 2 == 0 && cc > 0;
    let slices = k.div_ceil(BK);
    let grouping = match grouped {
        true => vec![
            (
                "blockIdx.y * gridDim.x + blockIdx.x",
                i128::from(gx * gy) - 1,
                INT_MAX,
            ),
            ("per_group = 8 * gridDim.x", i128::from(8 * gx), INT_MAX),
        ],
        false => vec![],
    };
    Reach {
        extents: vec![cc],
        vectors: vec![false],
        ints: vec![
            (
                "row0 + 127 (row0 = blockIdx.y * 128)",
                i128::from(gy * BM) - 1,
                INT_MAX,
            ),
            (
                "col0 + 255 (col0 = blockIdx.x * 256)",
                i128::from(gx * BN) - 1,
                INT_MAX,
            ),
            (
                "k + BK - 1, in slices = (k + BK - 1) / BK",
                i128::from(k + BK - 1),
                INT_MAX,
            ),
            (
                "slice * BK, the TMA's column of A",
                i128::from(slices * BK) - 1,
                INT_MAX,
            ),
            (
                "c's address % 8, for its float2 stores (n even)",
                if paired {
                    i128::from(l.offsets[0] % 8)
                } else {
                    0
                },
                0,
            ),
            (
                "the stages' last byte, up to 1023 bytes past the start of shared memory",
                i128::from(1023 + STAGES * STAGE_BYTES) - 1,
                i128::from(l.shared) - 1,
            ),
            (
                "threads missing from the block's warpgroups (wgmma needs all 128)",
                i128::from((128 - l.block[0] % 128) % 128),
                0,
            ),
        ]
        .into_iter()
        .chain(grouping)
        .collect(),
    }
}

/// The model of one Hopper rung: its launcher type, the anchor of its kernel, the hash of the
/// lines it mirrors, its block size and whether its blocks take their tiles in groups.
macro_rules! hopper_model {
    ($kernel:literal, $launcher:ident, $anchor:literal, $hash:literal, $block:literal, $grouped:literal) => {
        Model {
            kernels: $kernel,
            buffers: &["c"],
            mirrors: &[
                ("ch09-hopper-gemm.cu", "store"),
                ("ch09-hopper-gemm.cu", "grouped"),
                ("ch09-hopper-gemm.cu", $anchor),
            ],
            hash: $hash,
            draw: || draw($block),
            contract: |l| {
                ch09_hopper_gemm::$launcher::contract(
                    $kernel,
                    &l.config(),
                    l.span(0),
                    l.arg(0)?,
                    l.arg(1)?,
                    l.arg(2)?,
                )
                .map(|()| vec![])
            },
            reach: |l, _| reach(l, $grouped),
        }
    };
}

pub fn hopper_wgmma() -> Model {
    hopper_model!(
        "hopper_wgmma",
        HopperWgmma,
        "together",
        0xcb878e8b30184246,
        256,
        false
    )
}

pub fn hopper_specialised() -> Model {
    hopper_model!(
        "hopper_specialised",
        HopperSpecialised,
        "specialised",
        0x0394c864055b5348,
        384,
        false
    )
}

/// `specialised<true>`: the blocks take their tiles in groups.
pub fn hopper_tuned() -> Model {
    hopper_model!(
        "hopper_tuned",
        HopperTuned,
        "specialised",
        0x0394c864055b5348,
        384,
        true
    )
}

/// Every model of the Hopper rungs.
pub fn models() -> Vec<Model> {
    vec![hopper_wgmma(), hopper_specialised(), hopper_tuned()]
}

#[test]
fn hopper_wgmma_stays_inside() {
    prove(hopper_wgmma());
}

#[test]
fn hopper_specialised_stays_inside() {
    prove(hopper_specialised());
}

#[test]
fn hopper_tuned_stays_inside() {
    prove(hopper_tuned());
}
