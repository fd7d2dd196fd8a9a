//! The models of chapter 9: BF16 matrix products on the tensor cores (kernels/ch09-bf16-gemm.cu).
//!
//! Every kernel reads A (m×k) and B (k×n) through `load8` or `copy8`, eight neighbours of a
//! row at a time at chunk starts that are multiples of 8, guarded by `row < rows && col <
//! cols`; a chunk is loaded as one 16-byte vector (or copied by a 16-byte `cp.async`) only when
//! `whole` (cols % 8 == 0), else element by element below `cols`. A pipelined kernel's copy of
//! a chunk outside its matrix reads nothing (src-size 0) but gives the matrix's base pointer as
//! a stand-in address, which must still be aligned to the copy's 16 bytes. C is written only
//! inside: one float at a time by `bf16_wmma`, else by `store_part`, a `float2` (8 bytes) at an
//! even column when n is even.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

const FILE: &str = "ch09-bf16-gemm.cu";

/// Rows of C (and of A) per block, in every kernel.
const BM: u64 = 128;

fn mnk(l: &Launch) -> [u64; 3] {
    [l.args[0], l.args[1], l.args[2]].map(|v| v.max(0) as u64)
}

/// `v` rounded up to a multiple of `to`.
fn up(v: u64, to: u64) -> u64 {
    v.div_ceil(to) * to
}

/// Dynamic shared memory: mostly the `needed` bytes, else one less, one more or anything.
fn shared_near(needed: u32) -> BoxedStrategy<u32> {
    prop_oneof![
        6 => Just(needed),
        1 => Just(needed - 1),
        1 => Just(needed + 1),
        1 => 0u32..=100_000,
    ]
    .boxed()
}

/// Launches of blocks of `block` threads covering C with 128 × `bn` tiles, with `shared`
/// bytes of dynamic shared memory (nearly) for a pipelined kernel. m, n and k are empty, single,
/// whole chunks (multiples of 8) or ragged, even or odd; or k is at its largest (k + 32 =
/// 2^31, one past, and around), where only an empty or single row of A and column of B fit.
fn draw(bn: u64, block: u32, shared: Option<u32>) -> BoxedStrategy<Launch> {
    let side = || {
        prop_oneof![
            1 => Just(0u64),
            1 => Just(1u64),
            2 => (1u64..1200).prop_map(|x| 8 * x),
            4 => 0u64..9000,
        ]
    };
    let k = prop_oneof![
        2 => 0u64..9000,
        1 => (0u64..1200).prop_map(|x| 8 * x),
        1 => 0u64..=100,
        1 => size(),
    ];
    // With m = n = 0 nothing is read, but the loop over k still runs to its end; with a row of
    // A or a column of B, threads + len <= 2^31 keeps k a block's threads below 2^31.
    let largest_k = prop::sample::select(vec![
        (1u64 << 31) - 1,
        (1 << 31) - 31,
        (1 << 31) - 32,
        (1 << 31) - 33,
        (1 << 31) - 64,
        (1 << 31) - 128,
        (1 << 31) - 256,
        (1 << 31) - 288,
    ]);
    let small = || prop_oneof![2 => Just(0u64), 1 => Just(1u64), 1 => Just(8u64)];
    let sizes = prop_oneof![
        5 => (side(), side(), k).boxed(),
        2 => (small(), small(), largest_k).boxed(),
    ];
    sizes
        .prop_flat_map(move |(m, n, k)| {
            let launch = around(
                [ceil(n, bn), ceil(m, BM), 1],
                [block, 1, 1],
                vec![m * k, k * n, m * n],
                vec![m as i64, n as i64, k as i64],
            );
            let bytes = match shared {
                Some(needed) => shared_near(needed),
                None => prop_oneof![4 => Just(0u32), 1 => 0u32..=100_000].boxed(),
            };
            (launch, bytes).prop_map(|(mut l, bytes)| {
                l.shared = bytes;
                l
            })
        })
        .boxed()
}

/// How a kernel gets its tiles of A and B: by `load8` through registers (`bf16_wmma`,
/// `bf16_mma`), or by `copy8` (`cp.async`, `load8` at a ragged edge) into `STAGES` stages.
#[derive(Clone, Copy)]
enum Loads {
    Registers,
    Pipelined { stages: u64 },
}

/// How a kernel writes C: one float per entry from the staged fragments (`bf16_wmma`), or
/// `store_part`'s pairs of neighbours at even columns.
#[derive(Clone, Copy)]
enum Stores {
    Floats,
    Pairs,
}

/// The reach of a ch09 kernel whose blocks cover 128 × `bn` tiles of C, loading and storing as
/// `loads` and `stores` say. The shared-memory indices that depend on the block (pieces of the
/// tiles per thread, a warp's rows) are the kernel's own and added by its model.
fn gemm_reach(l: &Launch, bn: u64, loads: Loads, stores: Stores) -> Reach {
    let [m, n, k] = mnk(l);
    let (gx, gy) = (u64::from(l.grid[0]), u64::from(l.grid[1]));
    // The rows of A and C and the columns of B and C that some block covers, inside.
    let (r, c) = ((gy * BM).min(m), (gx * bn).min(n));
    // A: rows row0 + r < m, all of k in each (every block loads along all of k, whatever n).
    // The last chunk of a row starts at the last multiple of 8 below k; whole (k % 8 == 0), its
    // 16 bytes end at k; ragged, its elements stop below k. Likewise B's rows k0 + i < k, its
    // columns col0 + 8u below min(n, grid.x * BN).
    let a = if r > 0 && k > 0 { r * k } else { 0 };
    let b = if c > 0 && k > 0 { (k - 1) * n + c } else { 0 };
    let cc = if r > 0 && c > 0 { (r - 1) * n + c } else { 0 };
    // The largest `row * cols + col` (a chunk's start) of each.
    let a_at = if a > 0 {
        i128::from((r - 1) * k + (k - 1) / 8 * 8)
    } else {
        0
    };
    let b_at = if b > 0 {
        i128::from((k - 1) * n + (c - 1) / 8 * 8)
    } else {
        0
    };
    let c_at = match stores {
        _ if cc == 0 => 0,
        Stores::Floats => i128::from(cc) - 1,
        // store_part's columns col0 + 8j + 2 (lane % 4) are even.
        Stores::Pairs => i128::from((r - 1) * n + (c - 1) / 2 * 2),
    };
    let kk = i128::from(k);
    let mut ints = vec![
        (
            "row0 + 127 (row0 = blockIdx.y * 128)",
            i128::from(gy * BM) - 1,
            INT_MAX,
        ),
        (
            "col0 + BN - 1 (col0 = blockIdx.x * BN)",
            i128::from(gx * bn) - 1,
            INT_MAX,
        ),
        ("row * cols + col, inside A (row * k + col)", a_at, INT_MAX),
        ("row * cols + col, inside B (row * n + col)", b_at, INT_MAX),
        ("row * n + col, inside C", c_at, INT_MAX),
    ];
    // A 16-byte load or copy of a whole chunk: from p + row * cols + col, a multiple of 8
    // elements past p.
    let vectors = vec![k % 8 == 0, n % 8 == 0, false];
    match loads {
        Loads::Registers => {
            // for (k0 = 0; k0 < k; k0 += 32): the first k0 past k, and a tile's last column
            // of A (k0 + s + 7, in load8's `col + j`) or row of B (k0 + i).
            let past = i128::from(up(k, 32));
            ints.push(("k0 += 32, the first k0 not below k", past, INT_MAX));
            ints.push((
                "k0 + 31, a tile's last column of A, row of B",
                past - 1,
                INT_MAX,
            ));
        }
        Loads::Pipelined { stages } => {
            let slices = k.div_ceil(32);
            ints.push(("k + 31, in slices = (k + 31) / 32", kk + 31, INT_MAX));
            ints.push((
                "slice + STAGES - 1, the last slice asked for",
                i128::from(slices + stages) - 2,
                INT_MAX,
            ));
            ints.push((
                "k0 + 31 (k0 = slice * 32 for slice < slices)",
                i128::from(slices * 32) - 1,
                INT_MAX,
            ));
            // copy8 of a chunk outside its matrix: cp.async from p itself, 16 bytes with
            // src-size 0. A's chunks start at row0 + r (r < 128), k0 + 8s (s < 4) for every
            // slice; B's at k0 + i (i < 32), col0 + 8u.
            let a_outside = k > 0 && (gy * BM > m || up(k, 8) < up(k, 32));
            let b_outside = k > 0 && (up(k, 32) > k || gx * bn > n);
            let standin = |outside: bool, i: usize| {
                if outside {
                    i128::from(l.offsets[i] % 16)
                } else {
                    0
                }
            };
            ints.push((
                "a's address % 16, cp.async's stand-in for a chunk outside A",
                standin(a_outside, 0),
                0,
            ));
            ints.push((
                "b's address % 16, cp.async's stand-in for a chunk outside B",
                standin(b_outside, 1),
                0,
            ));
        }
    }
    if let Stores::Pairs = stores {
        // *reinterpret_cast<float2 *>(c + row * n + col) when n % 2 == 0: 8 bytes at an even
        // element, so c itself must start on 8 bytes.
        let paired = n % 2 == 0 && cc > 0;
        ints.push((
            "c's address % 8, for its float2 stores (n even)",
            if paired {
                i128::from(l.offsets[2] % 8)
            } else {
                0
            },
            0,
        ));
    }
    Reach {
        extents: vec![a, b, cc],
        vectors,
        ints,
    }
}

/// `piece = t + THREADS * l` for `l < per_thread`: the largest piece a block of `block.x`
/// threads computes.
fn last_piece(l: &Launch, threads: i128, per_thread: i128) -> i128 {
    i128::from(l.block[0]) - 1 + threads * (per_thread - 1)
}

/// 256 threads, 8 warps of 64×32, A's 128×32 and B's 32×128 tiles two pieces per thread, and
/// each 16×16 result staged through `staged[warp]` and written one float at a time.
pub fn bf16_wmma() -> Model {
    Model {
        kernels: "bf16_wmma",
        buffers: &["a", "b", "c"],
        mirrors: &[(FILE, "edges"), (FILE, "wmma")],
        hash: 0xa5fcdd4fa533437f,
        draw: || draw(128, 256, None),
        contract: |l| {
            ch09_bf16_gemm::Bf16_Wmma::contract(
                "bf16_wmma",
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
            let mut reach = gemm_reach(l, 128, Loads::Registers, Stores::Floats);
            let piece = last_piece(l, 256, 2);
            let warp = (i128::from(l.block[0]) - 1) / 32;
            reach.ints.extend([
                ("piece / 4, a row of as[128][40]", piece / 4, 127),
                ("piece / 16, a row of bs[32][136]", piece / 16, 31),
                ("warp, in staged[8]", warp, 7),
                ("(warp / 4) * 64 + 63, a row of as", warp / 4 * 64 + 63, 127),
            ]);
            reach
        },
    }
}

/// `bf16_mma<SWIZZLE>`: 128 threads, 4 warps of 64×64, A's and B's tiles four pieces (chunks)
/// per thread in `as[128 * 32]` and `bs[32 * 128]`; C through `store_part`.
fn bf16_mma_reach(l: &Launch) -> Reach {
    let mut reach = gemm_reach(l, 128, Loads::Registers, Stores::Pairs);
    let piece = last_piece(l, 128, 4);
    let warp = (i128::from(l.block[0]) - 1) / 32;
    reach.ints.extend([
        ("piece / 4, a row of as (128 × 32)", piece / 4, 127),
        ("piece / 16, a row of bs (32 × 128)", piece / 16, 31),
        ("(warp / 2) * 64 + 63, a row of as", warp / 2 * 64 + 63, 127),
    ]);
    reach
}

/// `bf16_mma_plain` and `bf16_mma_swizzled` share one launcher (the same parameters and
/// contract): `bf16_mma<false>` and `bf16_mma<true>`, whose swizzle moves a chunk only within
/// its row of the tile.
pub fn bf16_mma() -> Model {
    Model {
        kernels: "bf16_mma_plain, bf16_mma_swizzled",
        buffers: &["a", "b", "c"],
        mirrors: &[
            (FILE, "edges"),
            (FILE, "instructions"),
            (FILE, "swizzle"),
            (FILE, "warp_tile"),
            (FILE, "store"),
            (FILE, "mma"),
        ],
        hash: 0xf19652b3d021f85d,
        draw: || draw(128, 128, None),
        contract: |l| {
            ch09_bf16_gemm::Bf16_MmaPlain::contract(
                "bf16_mma_plain",
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
        reach: |l, _| bf16_mma_reach(l),
    }
}

/// The bytes of one stage: A's 128×32 tile and B's 32×BN, bf16.
fn stage_bytes(bn: u64) -> u64 {
    (128 * 32 + 32 * bn) * 2
}

/// `bf16_mma_pipelined<BN, STAGES, THREADS>`: warps of 64×64 (THREADS = 2 (BN / 64) 32),
/// the tiles copied `128 * 4 / THREADS` and `32 * (BN / 8) / THREADS` chunks per thread into
/// stage `slice % STAGES` of the dynamic shared memory, for slice < slices only: the stages
/// used are min(slices, STAGES), each used whole.
fn pipelined_reach(l: &Launch, bn: u64, stages: u64, threads: u64) -> Reach {
    let mut reach = gemm_reach(l, bn, Loads::Pipelined { stages }, Stores::Pairs);
    let slices = mnk(l)[2].div_ceil(32);
    let (t, bn_i) = (i128::from(threads), i128::from(bn));
    let a_piece = last_piece(l, t, 128 * 4 / t);
    let b_piece = last_piece(l, t, 32 * (bn_i / 8) / t);
    let warp = (i128::from(l.block[0]) - 1) / 32;
    reach.ints.extend([
        ("piece / 4, a row of A's 128×32 tile", a_piece / 4, 127),
        (
            "piece / (BN / 8), a row of B's 32×BN tile",
            b_piece / (bn_i / 8),
            31,
        ),
        (
            "(warp / (BN / 64)) * 64 + 63, a row of A's tile",
            warp / (bn_i / 64) * 64 + 63,
            127,
        ),
        (
            "min(slices, STAGES) * STAGE_SIZE * 2, the bytes of stages[] used",
            i128::from(slices.min(stages) * stage_bytes(bn)),
            i128::from(l.shared),
        ),
    ]);
    reach
}

pub fn bf16_mma_pipelined_128x128() -> Model {
    Model {
        kernels: "bf16_mma_pipelined_128x128x32_4",
        buffers: &["a", "b", "c"],
        mirrors: &[
            (FILE, "edges"),
            (FILE, "instructions"),
            (FILE, "swizzle"),
            (FILE, "warp_tile"),
            (FILE, "store"),
            (FILE, "copies"),
            (FILE, "pipelined"),
        ],
        hash: 0xce06098428d79231,
        draw: || draw(128, 128, Some(4 * stage_bytes(128) as u32)),
        contract: |l| {
            ch09_bf16_gemm::Bf16_MmaPipelined128x128x32_4::contract(
                "bf16_mma_pipelined_128x128x32_4",
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
        reach: |l, _| pipelined_reach(l, 128, 4, 128),
    }
}

pub fn bf16_mma_pipelined_128x256() -> Model {
    Model {
        kernels: "bf16_mma_pipelined_128x256x32_3",
        buffers: &["a", "b", "c"],
        mirrors: &[
            (FILE, "edges"),
            (FILE, "instructions"),
            (FILE, "swizzle"),
            (FILE, "warp_tile"),
            (FILE, "store"),
            (FILE, "copies"),
            (FILE, "pipelined"),
        ],
        hash: 0xce06098428d79231,
        draw: || draw(256, 256, Some(3 * stage_bytes(256) as u32)),
        contract: |l| {
            ch09_bf16_gemm::Bf16_MmaPipelined128x256x32_3::contract(
                "bf16_mma_pipelined_128x256x32_3",
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
        reach: |l, _| pipelined_reach(l, 256, 3, 256),
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        bf16_wmma(),
        bf16_mma(),
        bf16_mma_pipelined_128x128(),
        bf16_mma_pipelined_128x256(),
    ]
}

#[test]
fn bf16_wmma_stays_inside() {
    prove(bf16_wmma());
}

#[test]
fn bf16_mma_stays_inside() {
    prove(bf16_mma());
}

#[test]
fn bf16_mma_pipelined_128x128_stays_inside() {
    prove(bf16_mma_pipelined_128x128());
}

#[test]
fn bf16_mma_pipelined_128x256_stays_inside() {
    prove(bf16_mma_pipelined_128x256());
}
