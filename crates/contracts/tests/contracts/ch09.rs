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

/// A pipelined kernel's template arguments, `bf16_mma_pipelined<BN, BK, STAGES, THREADS>`.
#[derive(Clone, Copy)]
struct Pipeline {
    bn: u64,
    bk: u64,
    stages: u64,
    threads: u64,
}

impl Pipeline {
    /// STAGE_SIZE = A_SIZE + BK·BN with A_SIZE = 128·BK, in bytes (bf16).
    fn stage_bytes(self) -> u64 {
        (BM * self.bk + self.bk * self.bn) * 2
    }

    /// The dynamic shared memory of all the stages, what the contract asks for.
    fn shared(self) -> u32 {
        (self.stages * self.stage_bytes()) as u32
    }
}

const P128X128X32_4: Pipeline = Pipeline {
    bn: 128,
    bk: 32,
    stages: 4,
    threads: 128,
};
const P128X128X64_3: Pipeline = Pipeline {
    bn: 128,
    bk: 64,
    stages: 3,
    threads: 128,
};
const P128X256X64_3: Pipeline = Pipeline {
    bn: 256,
    bk: 64,
    stages: 3,
    threads: 256,
};

/// Dynamic shared memory for a pipelined kernel: mostly the bytes of its stages, else one less,
/// one more, a stage short, or anything up to twice them.
fn shared_near(p: Pipeline) -> BoxedStrategy<u32> {
    let needed = p.shared();
    prop_oneof![
        12 => Just(needed),
        1 => Just(needed - 1),
        1 => Just(needed + 1),
        1 => Just(needed - p.stage_bytes() as u32),
        1 => 0u32..=2 * needed,
    ]
    .boxed()
}

/// Launches of blocks of `block` threads covering C with 128 × `bn` tiles, with (for a
/// pipelined kernel) nearly the dynamic shared memory its stages need. m, n and k are empty,
/// single, whole chunks (multiples of 8) or ragged, even or odd; or k is at its largest (k + 64
/// = 2^31, one past, and around), where only an empty or single row of A and column of B fit.
fn draw(bn: u64, block: u32, pipeline: Option<Pipeline>) -> BoxedStrategy<Launch> {
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
    // With m = n = 0 nothing is read, but the loop over k still runs to its end (k + 64 <= 2^31
    // lets k reach 2^31 - 64); with a row of A or a column of B, threads + len <= 2^31 keeps k a
    // block's threads below 2^31.
    let largest_k = prop_oneof![
        // The edges: k + 64 = 2^31 and around, and k + 128 or 256 (a block's threads) = 2^31.
        1 => Just((1u64 << 31) - 64),
        2 => prop::sample::select(vec![
            (1u64 << 31) - 63,
            (1 << 31) - 65,
            (1 << 31) - 128,
            (1 << 31) - 129,
            (1 << 31) - 256,
            (1 << 31) - 257,
        ]),
        1 => prop::sample::select(vec![
            (1u64 << 31) - 1,
            (1 << 31) - 31,
            (1 << 31) - 32,
            (1 << 31) - 33,
            (1 << 31) - 96,
            (1 << 31) - 127,
            (1 << 31) - 192,
            (1 << 31) - 255,
            (1 << 31) - 320,
        ]),
    ];
    let small = || prop_oneof![2 => Just(0u64), 1 => Just(1u64), 1 => Just(8u64)];
    let sizes = prop_oneof![
        5 => (side(), side(), k).boxed(),
        3 => (small(), small(), largest_k).boxed(),
    ];
    sizes
        .prop_flat_map(move |(m, n, k)| {
            let launch = around(
                [ceil(n, bn), ceil(m, BM), 1],
                [block, 1, 1],
                vec![m * k, k * n, m * n],
                vec![m as i64, n as i64, k as i64],
            );
            let bytes = match pipeline {
                Some(p) => shared_near(p),
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
/// `bf16_mma`), 32 deep, or by `copy8` (`cp.async`, `load8` at a ragged edge) into the stages
/// of a pipeline, BK deep.
#[derive(Clone, Copy)]
enum Loads {
    Registers,
    Pipelined(Pipeline),
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
        Loads::Pipelined(p) => {
            let (bk, stages) = (p.bk, p.stages);
            let slices = k.div_ceil(bk);
            ints.push((
                "k + BK - 1, in slices = (k + BK - 1) / BK",
                kk + i128::from(bk) - 1,
                INT_MAX,
            ));
            // ask_for(s) for s < STAGES - 1, then ask_for(slice + STAGES - 1) for each
            // slice < slices.
            ints.push((
                "slice + STAGES - 1, the last slice asked for",
                i128::from(slices + stages) - 2,
                INT_MAX,
            ));
            // k0 = slice * BK for slice < slices; A's columns k0 + 8s (s < BK / 8) and B's
            // rows k0 + i (i < BK) end at slice * BK + BK - 1.
            ints.push((
                "slice * BK + BK - 1 (k0 + i, k0 = slice * BK for slice < slices)",
                i128::from(slices * bk) - 1,
                INT_MAX,
            ));
            // copy8 of a chunk outside its matrix: cp.async from p itself, 16 bytes with
            // src-size 0. A's chunks start at row0 + r (r < 128), k0 + 8s (s < BK / 8) for
            // every slice; B's at k0 + i (i < BK), col0 + 8u.
            let a_outside = k > 0 && (gy * BM > m || up(k, 8) < up(k, bk));
            let b_outside = k > 0 && (up(k, bk) > k || gx * bn > n);
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

/// `a_chunk<SWIZZLE, BK>`: where chunk `chunk` of row `row` of A's 128×BK tile is kept.
fn a_chunk(swizzle: bool, bk: u64, row: u64, chunk: u64) -> u64 {
    match (swizzle, bk) {
        (false, _) => chunk,
        (true, 32) => chunk ^ ((row >> 1) & 3),
        (true, _) => chunk ^ (row & 7),
    }
}

/// `b_chunk<SWIZZLE>`: where chunk `chunk` of row `row` of B's BK×BN tile is kept.
fn b_chunk(swizzle: bool, row: u64, chunk: u64) -> u64 {
    if swizzle { chunk ^ (row & 7) } else { chunk }
}

/// The shared tiles of a kernel built on `multiply_tiles<BN, BK, SWIZZLE>`, A's 128×BK at `as`
/// and B's BK×BN at `bs`, as a block of `block.x` threads (a warp per 64×64 part of C) fills and
/// reads them: each thread copies pieces `piece = t + THREADS * l`, A's 128 (BK / 8) / THREADS
/// of them (chunk `piece % (BK / 8)` of row `piece / (BK / 8)`) and B's BK (BN / 8) / THREADS
/// (chunk `piece % (BN / 8)` of row `piece / (BN / 8)`), 8 elements each at its swizzled
/// place; each lane of a warp gives `ldmatrix` a row of 8 elements, of A at row `wrow + 16 i +
/// lane % 16`, chunk `kk / 8 + lane / 16`, of B at row `kk + lane % 16`, chunk `(wcol + 16 j) /
/// 8 + lane / 16`, for kk < BK in steps of 16. The largest element each touches, against the
/// tile's size.
fn tile_ints(
    l: &Launch,
    bn: u64,
    bk: u64,
    threads: u64,
    swizzle: bool,
) -> Vec<(&'static str, i128, i128)> {
    let block = u64::from(l.block[0]);
    let (a_row, b_row) = (bk / 8, bn / 8);
    let (mut a_copy, mut b_copy, mut a_read, mut b_read) = (0, 0, 0, 0);
    for t in 0..block {
        for piece in (0..BM * a_row / threads).map(|l| t + threads * l) {
            let (r, s) = (piece / a_row, piece % a_row);
            a_copy = a_copy.max(r * bk + a_chunk(swizzle, bk, r, s) * 8 + 7);
        }
        for piece in (0..bk * b_row / threads).map(|l| t + threads * l) {
            let (i, u) = (piece / b_row, piece % b_row);
            b_copy = b_copy.max(i * bn + b_chunk(swizzle, i, u) * 8 + 7);
        }
    }
    for warp in 0..block.div_ceil(32) {
        let (wrow, wcol) = (warp / (bn / 64) * 64, warp % (bn / 64) * 64);
        for kk in (0..bk).step_by(16) {
            for lane in 0..32 {
                for i in 0..4 {
                    let (row, chunk) = (wrow + 16 * i + lane % 16, kk / 8 + lane / 16);
                    a_read = a_read.max(row * bk + a_chunk(swizzle, bk, row, chunk) * 8 + 7);
                }
                for j in 0..4 {
                    let (row, chunk) = (kk + lane % 16, (wcol + 16 * j) / 8 + lane / 16);
                    b_read = b_read.max(row * bn + b_chunk(swizzle, row, chunk) * 8 + 7);
                }
            }
        }
    }
    let (a_size, b_size) = (i128::from(BM * bk) - 1, i128::from(bk * bn) - 1);
    vec![
        (
            "r * BK + a_chunk(r, s) * 8 + 7, a copy's last element of A's tile",
            i128::from(a_copy),
            a_size,
        ),
        (
            "i * BN + b_chunk(i, u) * 8 + 7, a copy's last element of B's tile",
            i128::from(b_copy),
            b_size,
        ),
        (
            "row * BK + a_chunk(row, chunk) * 8 + 7, ldmatrix's last element of A's tile",
            i128::from(a_read),
            a_size,
        ),
        (
            "row * BN + b_chunk(row, chunk) * 8 + 7, ldmatrix's last element of B's tile",
            i128::from(b_read),
            b_size,
        ),
    ]
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
/// per thread in `as[128 * 32]` and `bs[32 * 128]` (`a_chunk<SWIZZLE, 32>`), multiplied by
/// `multiply_tiles<128, 32, SWIZZLE>`; C through `store_part`. Both layouts, plain and swizzled.
fn bf16_mma_reach(l: &Launch) -> Reach {
    let mut reach = gemm_reach(l, 128, Loads::Registers, Stores::Pairs);
    for swizzle in [false, true] {
        reach.ints.extend(tile_ints(l, 128, 32, 128, swizzle));
    }
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
        hash: 0xf1745d0b9c2fb039,
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

/// `bf16_mma_pipelined<BN, BK, STAGES, THREADS>`: warps of 64×64 (THREADS = 2 (BN / 64) 32),
/// the tiles copied `128 (BK / 8) / THREADS` and `BK (BN / 8) / THREADS` chunks per thread into
/// stage `slice % STAGES` of the dynamic shared memory (A's 128×BK tile, then B's BK×BN), for
/// slice < slices only, and multiplied by `multiply_tiles<BN, BK, true>`: the stages used are
/// min(slices, STAGES), each used whole.
fn pipelined_reach(l: &Launch, p: Pipeline) -> Reach {
    let mut reach = gemm_reach(l, p.bn, Loads::Pipelined(p), Stores::Pairs);
    let slices = mnk(l)[2].div_ceil(p.bk);
    reach.ints.extend(tile_ints(l, p.bn, p.bk, p.threads, true));
    reach.ints.push((
        "min(slices, STAGES) * STAGE_SIZE * 2, the bytes of stages[] used",
        i128::from(slices.min(p.stages) * p.stage_bytes()),
        i128::from(l.shared),
    ));
    reach
}

/// The lines every pipelined kernel mirrors, and their hash.
const PIPELINED: &[(&str, &str)] = &[
    (FILE, "edges"),
    (FILE, "instructions"),
    (FILE, "swizzle"),
    (FILE, "warp_tile"),
    (FILE, "store"),
    (FILE, "copies"),
    (FILE, "pipelined"),
];
const PIPELINED_HASH: u64 = 0xbd5330893eb0d701;

pub fn bf16_mma_pipelined_128x128x32_4() -> Model {
    Model {
        kernels: "bf16_mma_pipelined_128x128x32_4",
        buffers: &["a", "b", "c"],
        mirrors: PIPELINED,
        hash: PIPELINED_HASH,
        draw: || draw(128, 128, Some(P128X128X32_4)),
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
        reach: |l, _| pipelined_reach(l, P128X128X32_4),
    }
}

pub fn bf16_mma_pipelined_128x128x64_3() -> Model {
    Model {
        kernels: "bf16_mma_pipelined_128x128x64_3",
        buffers: &["a", "b", "c"],
        mirrors: PIPELINED,
        hash: PIPELINED_HASH,
        draw: || draw(128, 128, Some(P128X128X64_3)),
        contract: |l| {
            ch09_bf16_gemm::Bf16_MmaPipelined128x128x64_3::contract(
                "bf16_mma_pipelined_128x128x64_3",
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
        reach: |l, _| pipelined_reach(l, P128X128X64_3),
    }
}

/// The last two rungs share a launcher: `bf16_mma_pipelined<256, 64, 3, 256, AHEAD>`. With
/// AHEAD, the warps load each step's fragments (`load_fragments`) a step ahead, the first of a
/// slice (when there is one) after the barrier that follows its copies: the same tiles, read
/// the same way.
pub fn bf16_mma_pipelined_128x256x64_3() -> Model {
    Model {
        kernels: "bf16_mma_pipelined_128x256x64_3, bf16_mma_ahead_128x256x64_3",
        buffers: &["a", "b", "c"],
        mirrors: PIPELINED,
        hash: PIPELINED_HASH,
        draw: || draw(256, 256, Some(P128X256X64_3)),
        contract: |l| {
            ch09_bf16_gemm::Bf16_MmaPipelined128x256x64_3::contract(
                "bf16_mma_pipelined_128x256x64_3",
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
        reach: |l, _| pipelined_reach(l, P128X256X64_3),
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        bf16_wmma(),
        bf16_mma(),
        bf16_mma_pipelined_128x128x32_4(),
        bf16_mma_pipelined_128x128x64_3(),
        bf16_mma_pipelined_128x256x64_3(),
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
fn bf16_mma_pipelined_128x128x32_4_stays_inside() {
    prove(bf16_mma_pipelined_128x128x32_4());
}

#[test]
fn bf16_mma_pipelined_128x128x64_3_stays_inside() {
    prove(bf16_mma_pipelined_128x128x64_3());
}

#[test]
fn bf16_mma_pipelined_128x256x64_3_stays_inside() {
    prove(bf16_mma_pipelined_128x256x64_3());
}
