//! The models of chapter 7's kernels: the coarsened DFT and the imaging steps.

use super::launchers::*;
use super::model::*;
use proptest::prelude::*;

/// Two derived scalars, as the contract returns them.
fn derived2(
    r: Result<(i32, i32), course::launch::LaunchError>,
) -> Result<Vec<i64>, course::launch::LaunchError> {
    r.map(|(a, b)| vec![i64::from(a), i64::from(b)])
}

/// A kernel declared `__launch_bounds__(t)` does not start with more than `t` threads per
/// block: the driver refuses the launch, and the kernel reaches nothing.
fn starts(l: &Launch, bound: u32) -> bool {
    l.block[0] <= bound
}

/// Now and then, a launch of `s` with its grid along x (and, half of those times, blocks of
/// 1024) set to one of `grids`: the sizes where a bound of the contract starts to matter.
fn with_grids(s: BoxedStrategy<Launch>, grids: &'static [u32]) -> BoxedStrategy<Launch> {
    (s, 0u32..16, prop::sample::select(grids), any::<bool>())
        .prop_map(|(mut l, coin, g, wide)| {
            if coin == 0 {
                l.grid[0] = g;
                if wide {
                    l.block[0] = 1024;
                }
            }
            l
        })
        .boxed()
}

// ---- ch07-dft-coarsening.cu ----

const DFT_FACTORS: [u64; 6] = [1, 2, 3, 4, 6, 8];
const DFT_CHUNK: i128 = 512;

/// `for (start = from; start < to; start += CHUNK)`: the last value of `start + CHUNK`, which
/// the loop computes for `end` and for its step (none when the loop does not run).
fn chunk_steps(from: i128, to: i128, chunk: i128) -> Option<i128> {
    (from < to).then(|| from + ((to - 1 - from) / chunk + 1) * chunk)
}

pub fn dft_coarse() -> Model {
    Model {
        kernels: "dft_coarse_1, dft_coarse_2, dft_coarse_3, dft_coarse_4, dft_coarse_6, dft_coarse_8",
        buffers: &["xs", "out"],
        mirrors: &[
            ("ch07-dft-coarsening.cu", "coarse"),
            ("ch07-dft-coarsening.cu", "instances"),
        ],
        hash: 0x80af33562b691d34,
        draw: || {
            let around_n =
                (size(), prop::sample::select(DFT_FACTORS.to_vec())).prop_flat_map(|(n, f)| {
                    around(
                        [ceil(ceil(n, f), 128), 1, 1],
                        [128, 1, 1],
                        vec![n, n],
                        vec![],
                    )
                });
            // One block on n within a chunk of 2^31: the loop's start + CHUNK past an int.
            let last_chunk = prop::sample::select(vec![(1u64 << 31) - 129, (1 << 31) - 500])
                .prop_map(|n| Launch {
                    grid: [1, 1, 1],
                    block: [128, 1, 1],
                    shared: 0,
                    lens: vec![n, n],
                    offsets: vec![0, 0],
                    args: vec![],
                    cluster: [1, 1, 1],
                });
            prop_oneof![20 => around_n, 1 => last_chunk].boxed()
        },
        contract: |l| {
            derived(ch07_dft_coarsening::DftCoarse1::contract(
                "dft_coarse_1",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0);
            if !starts(l, 128) {
                return Reach {
                    extents: vec![0, 0],
                    vectors: vec![false; 2],
                    ints: vec![],
                };
            }
            let t = i128::from(l.tx());
            // Every member: thread `first` takes outputs first + i·stride for i < F, stride
            // the grid's threads; the largest F is 8.
            let f = 8;
            Reach {
                // Every thread reads all of xs (j < n); outputs are written only below n.
                extents: vec![n as u64, (n as u64).min(l.tx() * f as u64)],
                vectors: vec![false; 2],
                ints: vec![
                    ("blockIdx.x * blockDim.x + threadIdx.x", t - 1, INT_MAX),
                    ("gridDim.x * blockDim.x (stride)", t, INT_MAX),
                    ("i * stride, i < F", (f - 1) * t, INT_MAX),
                    ("ki = first + i * stride", f * t - 1, INT_MAX),
                    (
                        "start + CHUNK",
                        chunk_steps(0, i128::from(n), DFT_CHUNK).unwrap_or(0),
                        INT_MAX,
                    ),
                ],
            }
        },
    }
}

pub fn dft_pairs() -> Model {
    Model {
        kernels: "dft_pairs",
        buffers: &["xs", "partial"],
        mirrors: &[("ch07-dft-coarsening.cu", "pairs")],
        hash: 0xb3435e315cd01873,
        draw: || {
            (size(), 1u64..=16)
                .prop_flat_map(|(n, parts)| {
                    around(
                        [ceil(n / 2 + 1, 128), parts, 1],
                        [128, 1, 1],
                        vec![n, parts * n],
                        vec![],
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived(ch07_dft_coarsening::DftPairs::contract(
                "dft_pairs",
                &l.config(),
                l.span(0),
                l.span(1),
            ))
        },
        reach: |l, d| {
            let n = i128::from(d[0].max(0));
            if !starts(l, 128) {
                return Reach {
                    extents: vec![0, 0],
                    vectors: vec![false; 2],
                    ints: vec![],
                };
            }
            let t = i128::from(l.tx());
            let gy = i128::from(l.grid[1]);
            // per_part = (n + gridDim.y - 1) / gridDim.y, in unsigned arithmetic.
            let per_part = (n + gy - 1) / gy;
            // Thread k works when k <= n / 2: row[k], and row[n - k] for 0 < k, 2k != n.
            let kmax = (t - 1).min(n / 2);
            let in_row = if kmax >= 1 { n.max(kmax + 1) } else { 1 };
            // Each row j0..j1 of the sum, j1 = min(j0 + per_part, n); the chunks of the last.
            let steps = (0..gy)
                .rev()
                .take(2)
                .filter_map(|y| {
                    let j0 = y * per_part;
                    chunk_steps(j0, (j0 + per_part).min(n), DFT_CHUNK)
                })
                .max()
                .unwrap_or(0);
            Reach {
                extents: vec![n as u64, ((gy - 1) * n + in_row) as u64],
                vectors: vec![false; 2],
                ints: vec![
                    ("k = blockIdx.x * blockDim.x + threadIdx.x", t - 1, INT_MAX),
                    ("n + gridDim.y - 1 (unsigned)", n + gy - 1, UINT_MAX),
                    (
                        "j0 = blockIdx.y * per_part (unsigned)",
                        (gy - 1) * per_part,
                        UINT_MAX,
                    ),
                    ("j0 + per_part", gy * per_part, INT_MAX),
                    ("start + CHUNK", steps, INT_MAX),
                    ("(n + 1) / 2", n + 1, INT_MAX),
                    // n is a divisor: (long long)k * j0 % n; a zero divisor is undefined.
                    ("1 - n, n a divisor (must be >= 1)", 1 - n, 0),
                ],
            }
        },
    }
}

pub fn dft_sum_parts() -> Model {
    Model {
        kernels: "dft_sum_parts",
        buffers: &["partial", "out"],
        mirrors: &[("ch07-dft-coarsening.cu", "pairs")],
        hash: 0xb3435e315cd01873,
        draw: || {
            (size(), 1u64..=16)
                .prop_flat_map(|(n, parts)| {
                    around(
                        [ceil(n, 1024), 1, 1],
                        [1024, 1, 1],
                        vec![parts * n, n],
                        vec![parts as i64],
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived(ch07_dft_coarsening::DftSumParts::contract(
                "dft_sum_parts",
                &l.config(),
                l.span(0),
                l.span(1),
                l.arg(0)?,
            ))
        },
        reach: |l, d| {
            let n = d[0].max(0) as u64;
            let parts = l.args[0];
            let outputs = l.tx().min(n);
            // Thread k < n reads partial[r * n + k] (64-bit) for r < parts, writes out[k].
            let reads = if parts >= 1 && outputs > 0 {
                (parts as u64 - 1) * n + outputs
            } else {
                0
            };
            Reach {
                extents: vec![reads, outputs],
                vectors: vec![false; 2],
                ints: vec![(
                    "k = blockIdx.x * blockDim.x + threadIdx.x",
                    i128::from(l.tx()) - 1,
                    INT_MAX,
                )],
            }
        },
    }
}

// ---- ch07-imaging-f64.cu ----

pub fn image_first() -> Model {
    Model {
        kernels: "image_first, image_local_sum",
        buffers: &["ls", "ms", "ns", "us", "vs", "ws", "vis", "img"],
        mirrors: &[
            ("ch07-imaging-f64.cu", "first"),
            ("ch07-imaging-f64.cu", "local_sum"),
        ],
        hash: 0xa95b7889383901f4,
        draw: || {
            (size(), size())
                .prop_flat_map(|(n_px, n_vis)| {
                    around(
                        [ceil(n_px, 256), 1, 1],
                        [256, 1, 1],
                        vec![n_px, n_px, n_px, n_vis, n_vis, n_vis, n_vis, n_px],
                        vec![],
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived2(ch07_imaging_f64::ImageFirst::contract(
                "image_first",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.span(3),
                l.span(4),
                l.span(5),
                l.span(6),
                1.0,
                l.span(7),
            ))
        },
        reach: |l, d| {
            // One pixel per thread, p < n_px; each pixel reads every visibility j < n_vis.
            let (n_px, n_vis) = (d[0].max(0) as u64, d[1].max(0) as u64);
            let px = l.tx().min(n_px);
            let vis = if px > 0 { n_vis } else { 0 };
            Reach {
                extents: vec![px, px, px, vis, vis, vis, vis, px],
                vectors: vec![false; 8],
                ints: vec![
                    (
                        "p = blockIdx.x * blockDim.x + threadIdx.x",
                        i128::from(l.tx()) - 1,
                        INT_MAX,
                    ),
                    ("++j", i128::from(n_vis), INT_MAX),
                ],
            }
        },
    }
}

// ---- ch07-imaging.cu ----

/// Pixels per thread K and block size T of every kernel of ch07-imaging.cu that takes its
/// pixels `first + i * stride` with `stride = gridDim.x * T` (T a constant: image_coarse_K_T,
/// image_fma_K_T, image_split_statements).
fn imaging_tiled() -> Vec<(i128, u32)> {
    let ks = [1, 2, 3, 4, 6, 8];
    let mut out: Vec<(i128, u32)> = ks.iter().map(|&k| (k, 256)).collect();
    for t in [64, 128, 256, 512] {
        out.extend(ks.iter().map(|&k| (k, t)));
    }
    out.push((3, 256));
    out
}

pub fn image_f32() -> Model {
    Model {
        kernels: "image_f32, image_sincospi, image_fast_reduced, image_fast, image_two_pi, image_shared, image_split_statements, image_coarse_*_256, image_fma_*_*, image_shuffle_*",
        buffers: &["ls", "ms", "ns", "us", "vs", "ws", "vis", "img"],
        mirrors: &[
            ("ch07-imaging.cu", "f32"),
            ("ch07-imaging.cu", "sincospi"),
            ("ch07-imaging.cu", "fast_reduced"),
            ("ch07-imaging.cu", "fast"),
            ("ch07-imaging.cu", "two_pi"),
            ("ch07-imaging.cu", "shared"),
            ("ch07-imaging.cu", "coarse"),
            ("ch07-imaging.cu", "fma"),
            ("ch07-imaging.cu", "split"),
            ("ch07-imaging.cu", "shuffle"),
            ("ch07-imaging.cu", "instances"),
        ],
        hash: 0x56374c94aed4d6e3,
        draw: || {
            let launches = (
                size(),
                size(),
                prop::sample::select(vec![1u64, 2, 3, 4, 6, 8]),
                prop::sample::select(vec![64u32, 128, 256, 512]),
            )
                .prop_flat_map(|(n_px, n_vis, k, t)| {
                    around(
                        [ceil(ceil(n_px, k), u64::from(t)), 1, 1],
                        [t, 1, 1],
                        vec![n_px, n_px, n_px, n_vis, n_vis, n_vis, n_vis, n_px],
                        vec![],
                    )
                })
                .boxed();
            // grid.x * 4096 and threads.x * 8 near 2^31.
            with_grids(
                launches,
                &[
                    (1 << 18) - 1,
                    (1 << 18) + 1,
                    1 << 19,
                    (1 << 19) + 1,
                    (1 << 22) + 1,
                ],
            )
        },
        contract: |l| {
            derived2(ch07_imaging::ImageF32::contract(
                "image_f32",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.span(3),
                l.span(4),
                l.span(5),
                l.span(6),
                1.0,
                l.span(7),
            ))
        },
        reach: |l, d| {
            let (n_px, n_vis) = (i128::from(d[0].max(0)), i128::from(d[1].max(0)));
            let (gx, bx) = (i128::from(l.grid[0]), i128::from(l.block[0]));
            let t = gx * bx;
            // The largest pixel index each member computes, and the last visibility index and
            // loop step, over every member that starts under this launch.
            let mut pixel = 0i128; // one past the largest pixel touched (< n_px)
            let mut p_max = -1i128; // largest p computed
            let mut first_max = -1i128;
            let mut stride_max = 0i128;
            let mut i_stride = 0i128;
            let mut j_max = -1i128;
            let mut step_max = 0i128;
            let mut reads_vis = false;
            // A member whose largest pixel index is p_last touches pixels below
            // min(p_last + 1, n_px) (every pixel access is guarded by p < n_px).
            let mut take = |p_last: i128| {
                p_max = p_max.max(p_last);
                pixel = pixel.max((p_last + 1).min(n_px));
            };
            // image_f32, image_sincospi, image_fast_reduced, image_fast, image_two_pi: one
            // pixel per thread, p < n_px reads every visibility.
            take(t - 1);
            first_max = first_max.max(t - 1);
            reads_vis |= n_px > 0 && t > 0;
            // image_shared (TILE 256): every thread fills tiles, j = start + threadIdx.x.
            if starts(l, 256) {
                take(t - 1);
                if let Some(s) = chunk_steps(0, n_vis, 256) {
                    step_max = step_max.max(s);
                    j_max = j_max.max(s - 256 + bx - 1);
                }
            }
            // image_coarse_K_T, image_fma_K_T, image_split_statements: first = blockIdx.x * T
            // + threadIdx.x, stride = gridDim.x * T, pixels first + i * stride, i < K.
            for (k, tt) in imaging_tiled() {
                if !starts(l, tt) {
                    continue;
                }
                let tt = i128::from(tt);
                let first = (gx - 1) * tt + bx - 1;
                let stride = gx * tt;
                first_max = first_max.max(first);
                stride_max = stride_max.max(stride);
                i_stride = i_stride.max((k - 1) * stride);
                take(first + (k - 1) * stride);
                if let Some(s) = chunk_steps(0, n_vis, tt) {
                    step_max = step_max.max(s);
                    j_max = j_max.max(s - tt + bx - 1);
                }
            }
            // image_shuffle_K: first = blockIdx.x * blockDim.x + threadIdx.x, stride = the
            // grid's threads, K up to 8; j = start + lane in chunks of 32.
            stride_max = stride_max.max(t);
            i_stride = i_stride.max(7 * t);
            take(8 * t - 1);
            if let Some(s) = chunk_steps(0, n_vis, 32) {
                step_max = step_max.max(s);
                j_max = j_max.max(s - 32 + bx.min(32) - 1);
            }
            // Every member with tiles or shuffles reads the visibilities whatever its pixels.
            reads_vis |= n_vis > 0;
            let px = pixel.max(0) as u64;
            let vis = if reads_vis { n_vis as u64 } else { 0 };
            Reach {
                // Every pixel access is guarded by p < n_px, every visibility by j < n_vis.
                extents: vec![px, px, px, vis, vis, vis, vis, px],
                vectors: vec![false; 8],
                ints: vec![
                    (
                        "first (blockIdx.x * T or blockDim.x, + threadIdx.x)",
                        first_max,
                        INT_MAX,
                    ),
                    ("stride (gridDim.x * T or blockDim.x)", stride_max, INT_MAX),
                    ("i * stride", i_stride, INT_MAX),
                    ("p = first + i * stride", p_max, INT_MAX),
                    ("j = start + threadIdx.x or lane", j_max, INT_MAX),
                    ("start += TILE, T or 32", step_max, INT_MAX),
                ],
            }
        },
    }
}

// ---- ch07-imaging-mirrors.cu and ch07-imaging-rectangle.cu ----

/// `side / 2 + 1`, as C divides (towards zero, as Rust does).
fn offsets(side: i64) -> i64 {
    side / 2 + 1
}

/// A side of an image: small, any size, or (the contract must refuse what it cannot serve)
/// negative.
fn side() -> BoxedStrategy<i64> {
    prop_oneof![
        8 => 0i64..3000,
        2 => size().prop_map(|s| (s % (1 << 17)) as i64),
        1 => -6i64..0,
    ]
    .boxed()
}

/// A count for a length: 0 for a negative one.
fn count(v: i64) -> u64 {
    v.max(0) as u64
}

/// image_mirrors and image_rectangle: thread g of blocks of TILE = 256 is group g, column
/// offset a = g % n_a, row offset b = g / n_a; a group with b < n_b reads ls[a], ms[b], ns[g]
/// and writes parts[4g .. 4g + 4]; every thread stages visibilities j = start + threadIdx.x <
/// n_vis, start += TILE. Buffers: ls, ms, ns, us, vs, ws, vis, parts.
fn groups_reach(l: &Launch, n_a: i64, n_b: i64, n_vis: i64) -> Reach {
    if !starts(l, 256) {
        return Reach {
            extents: vec![0; 8],
            vectors: vec![false; 8],
            ints: vec![],
        };
    }
    let t = l.tx();
    let n_vis = count(n_vis);
    let mut ints = vec![(
        "g = blockIdx.x * TILE + threadIdx.x",
        i128::from(t) - 1,
        INT_MAX,
    )];
    let vis = if t > 0 { n_vis } else { 0 };
    if let Some(s) = chunk_steps(0, i128::from(n_vis), 256) {
        ints.push(("start += TILE", s, INT_MAX));
        ints.push((
            "j = start + threadIdx.x",
            s - 256 + i128::from(l.block[0]) - 1,
            INT_MAX,
        ));
    }
    // n_a divides g: zero is undefined, and a negative n_a gives b = g / n_a <= 0, a row
    // offset below every table (ms[b]) that passes b < n_b.
    ints.push((
        "1 - n_a, n_a = width / 2 + 1 a divisor (must be >= 1)",
        1 - i128::from(n_a),
        0,
    ));
    let (n_a, n_b) = (count(n_a), count(n_b));
    let groups = t.min(n_a * n_b);
    let extents = if n_a == 0 || groups == 0 {
        vec![0, 0, 0, vis, vis, vis, vis, 0]
    } else {
        vec![
            groups.min(n_a),
            (groups - 1) / n_a + 1,
            groups,
            vis,
            vis,
            vis,
            vis,
            4 * groups,
        ]
    };
    if groups > 0 {
        ints.push((
            "4 * g + 3 (store_group)",
            4 * i128::from(groups) - 1,
            INT_MAX,
        ));
    }
    Reach {
        extents,
        vectors: vec![false; 8],
        ints,
    }
}

/// image_place_groups and image_place_rectangle: thread p < width * height is pixel (col, row)
/// = (p % width, p / width); it reads parts[4 * ((part * (cb + 1) + b) * (ca + 1) + a) + which]
/// for part < n_parts, with a = |col - ca|, b = |row - cb|, ca = width / 2, cb = height / 2,
/// which in 0..4, and writes img[p]. Buffers: parts, img.
fn place_reach(l: &Launch, n_parts: i64, width: i64, height: i64) -> Reach {
    let t = i128::from(l.tx());
    let (w, h) = (i128::from(width), i128::from(height));
    let mut ints = vec![
        ("p = blockIdx.x * blockDim.x + threadIdx.x", t - 1, INT_MAX),
        ("width * height", w * h, INT_MAX),
    ];
    let pixels = t.min(w * h).max(0);
    if pixels == 0 {
        return Reach {
            extents: vec![0, 0],
            vectors: vec![false; 2],
            ints,
        };
    }
    // C's remainder takes the dividend's sign (p >= 0), its quotient rounds towards zero.
    let (ca, cb) = (w / 2, h / 2);
    let col_hi = pixels.min(w.abs()) - 1;
    let row_mag = (pixels - 1) / w.abs();
    let (row_lo, row_hi) = if w > 0 { (0, row_mag) } else { (-row_mag, 0) };
    let span = |lo: i128, hi: i128, c: i128| {
        let most = (lo - c).abs().max((hi - c).abs());
        let least = if (lo..=hi).contains(&c) {
            0
        } else {
            (lo - c).abs().min((hi - c).abs())
        };
        (least, most)
    };
    let (a_lo, a_hi) = span(0, col_hi, ca);
    let (b_lo, b_hi) = span(row_lo, row_hi, cb);
    let parts = i128::from(n_parts);
    let mut index_hi = None::<i128>;
    let mut index_lo = None::<i128>;
    if parts >= 1 {
        // (part * (cb + 1) + b) * (ca + 1) + a is linear in part, b and a: its extremes over
        // their ranges are at the corners.
        for part in [0, parts - 1] {
            for b in [b_lo, b_hi] {
                for a in [a_lo, a_hi] {
                    let e = (part * (cb + 1) + b) * (ca + 1) + a;
                    index_hi = Some(index_hi.map_or(e, |x: i128| x.max(e)));
                    index_lo = Some(index_lo.map_or(e, |x: i128| x.min(e)));
                }
            }
        }
    }
    let extent = match index_hi {
        Some(e) => {
            ints.push(("4 * (...) + which", 4 * e + 3, INT_MAX));
            ints.push((
                "-(4 * (...)), the index's least (must be >= 0)",
                -4 * index_lo.unwrap(),
                0,
            ));
            (4 * e + 4).max(0) as u64
        }
        None => 0,
    };
    Reach {
        extents: vec![extent, pixels as u64],
        vectors: vec![false; 2],
        ints,
    }
}

/// Groups of `n_a` by `n_b`, blocks of 256, `n_vis` visibilities.
fn groups_launch(n_a: u64, n_b: u64, n_vis: u64, args: Vec<i64>) -> BoxedStrategy<Launch> {
    around(
        [ceil(n_a * n_b, 256), 1, 1],
        [256, 1, 1],
        vec![
            n_a,
            n_b,
            n_a * n_b,
            n_vis,
            n_vis,
            n_vis,
            n_vis,
            4 * n_a * n_b,
        ],
        args,
    )
}

pub fn image_mirrors() -> Model {
    Model {
        kernels: "image_mirrors",
        buffers: &["ls", "ms", "ns", "us", "vs", "ws", "vis", "parts"],
        mirrors: &[
            ("ch07-imaging-mirrors.cu", "accumulate"),
            ("ch07-imaging-mirrors.cu", "mirrors"),
        ],
        hash: 0xf8bd86d51da87e8d,
        draw: || {
            (side(), size())
                .prop_flat_map(|(side, n_vis)| {
                    let n = count(offsets(side));
                    groups_launch(n, n, n_vis, vec![side])
                })
                .boxed()
        },
        contract: |l| {
            derived(ch07_imaging_mirrors::ImageMirrors::contract(
                "image_mirrors",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.span(3),
                l.span(4),
                l.span(5),
                l.span(6),
                l.span(7),
            ))
        },
        reach: |l, d| {
            let n = offsets(l.args[0]);
            groups_reach(l, n, n, d[0])
        },
    }
}

pub fn image_rectangle() -> Model {
    Model {
        kernels: "image_rectangle",
        buffers: &["ls", "ms", "ns", "us", "vs", "ws", "vis", "parts"],
        mirrors: &[
            ("ch07-imaging-rectangle.cu", "groups"),
            ("ch07-imaging-rectangle.cu", "groups_rest"),
        ],
        hash: 0x0a5a19103121c9fc,
        draw: || {
            (side(), side(), size())
                .prop_flat_map(|(width, height, n_vis)| {
                    let (n_a, n_b) = (count(offsets(width)), count(offsets(height)));
                    groups_launch(n_a, n_b, n_vis, vec![width, height])
                })
                .boxed()
        },
        contract: |l| {
            derived(ch07_imaging_rectangle::ImageRectangle::contract(
                "image_rectangle",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.arg(1)?,
                l.span(3),
                l.span(4),
                l.span(5),
                l.span(6),
                l.span(7),
            ))
        },
        reach: |l, d| groups_reach(l, offsets(l.args[0]), offsets(l.args[1]), d[0]),
    }
}

const TABLE_GROUPS: [i128; 4] = [1, 2, 4, 8];

pub fn image_tables() -> Model {
    Model {
        kernels: "image_tables_1, image_tables_2, image_tables_4, image_tables_8",
        buffers: &["ls", "ms", "ns", "us", "vs", "ws", "vis", "parts"],
        mirrors: &[
            ("ch07-imaging-mirrors.cu", "unit"),
            ("ch07-imaging-mirrors.cu", "tables"),
            ("ch07-imaging-mirrors.cu", "tables_instances"),
        ],
        hash: 0xa216e3727d86fb00,
        draw: || {
            (
                side(),
                size(),
                prop::sample::select(vec![1u64, 2, 4, 8]),
                1u64..=64,
            )
                .prop_flat_map(|(side, n_vis, g, parts)| {
                    let n = count(offsets(side));
                    around(
                        [ceil(n, 32), ceil(n, 8 * g), parts],
                        [256, 1, 1],
                        vec![n, n, n * n, n_vis, n_vis, n_vis, n_vis, 4 * parts * n * n],
                        vec![side],
                    )
                })
                .boxed()
        },
        contract: |l| {
            derived(ch07_imaging_mirrors::ImageTables1::contract(
                "image_tables_1",
                &l.config(),
                l.span(0),
                l.span(1),
                l.span(2),
                l.arg(0)?,
                l.span(3),
                l.span(4),
                l.span(5),
                l.span(6),
                l.span(7),
            ))
        },
        reach: |l, d| {
            if !starts(l, 256) {
                return Reach {
                    extents: vec![0; 8],
                    vectors: vec![false; 8],
                    ints: vec![],
                };
            }
            let n_off = i128::from(offsets(l.args[0]));
            let n_vis = i128::from(d[0].max(0));
            let [gx, gy, gz] = l.grid.map(i128::from);
            // Columns a = col0 + tx + PER_ROW * i < col0 + COLUMNS; rows b = row0 + ty <
            // row0 + ROWS, ROWS = 8G (64 for G = 8, the most).
            let cols = gx * 32;
            let mut ints = vec![(
                "col0 + COLUMNS - 1 (blockIdx.x * COLUMNS)",
                cols - 1,
                INT_MAX,
            )];
            let mut ms_reach = 0i128;
            let mut groups_hi = None::<i128>;
            for g in TABLE_GROUPS {
                let rows = gy * 8 * g;
                ints.push(("b = row0 + ty (blockIdx.y * ROWS)", rows - 1, INT_MAX));
                let (a_n, b_n) = (cols.min(n_off), rows.min(n_off));
                ms_reach = ms_reach.max(b_n.max(0));
                if a_n >= 1 && b_n >= 1 {
                    // (blockIdx.z * n_off + b) * n_off + a, unsigned, for a, b < n_off.
                    let e = ((gz - 1) * n_off + b_n - 1) * n_off + a_n - 1;
                    groups_hi = Some(groups_hi.map_or(e, |x: i128| x.max(e)));
                }
            }
            // This part's visibilities: per_part = ceil(n_vis / (gridDim.z * CHUNK)) * CHUNK
            // in unsigned arithmetic; begin = blockIdx.z * per_part, end = min(n_vis, begin +
            // per_part); start += CHUNK from begin while start < end.
            let per_part = (n_vis + gz * 32 - 1) / (gz * 32) * 32;
            ints.push((
                "n_vis + gridDim.z * CHUNK - 1 (unsigned)",
                n_vis + gz * 32 - 1,
                UINT_MAX,
            ));
            ints.push(("per_part", per_part, INT_MAX));
            ints.push((
                "begin = blockIdx.z * per_part (unsigned)",
                (gz - 1) * per_part,
                UINT_MAX,
            ));
            ints.push(("begin + per_part", gz * per_part, INT_MAX));
            let mut reads_vis = false;
            if per_part > 0 {
                let z_last = ((n_vis - 1).max(0) / per_part).min(gz - 1);
                for z in [z_last - 1, z_last].into_iter().filter(|&z| z >= 0) {
                    let begin = z * per_part;
                    if let Some(s) = chunk_steps(begin, n_vis.min(begin + per_part), 32) {
                        reads_vis = true;
                        ints.push(("start += CHUNK", s, INT_MAX));
                        ints.push(("j = start + k, k < CHUNK", s - 1, INT_MAX));
                    }
                }
            }
            let (ls, ms, ns, parts) = match groups_hi {
                // Columns and rows are read into the tables only while there are visibilities.
                Some(e) => {
                    let b_n = (gy * 64).min(n_off);
                    let a_n = cols.min(n_off);
                    ints.push(("b * n_off + a", (b_n - 1) * n_off + a_n - 1, INT_MAX));
                    ints.push(("4 * (...) + 3 (store_group, unsigned)", 4 * e + 3, UINT_MAX));
                    ints.push(("4 * (...) + 3 as a pointer offset", 4 * e + 3, INT_MAX));
                    let ls = if reads_vis { a_n } else { 0 };
                    let ms = if reads_vis { ms_reach } else { 0 };
                    (ls, ms, (b_n - 1) * n_off + a_n, 4 * e + 4)
                }
                None => (0, 0, 0, 0),
            };
            let vis = if reads_vis { n_vis } else { 0 };
            Reach {
                extents: [ls, ms, ns, vis, vis, vis, vis, parts]
                    .map(|e| e.max(0) as u64)
                    .to_vec(),
                vectors: vec![false; 8],
                ints,
            }
        },
    }
}

pub fn image_place_groups() -> Model {
    Model {
        kernels: "image_place_groups",
        buffers: &["parts", "img"],
        mirrors: &[("ch07-imaging-mirrors.cu", "place")],
        hash: 0xd868aff16b13dcf6,
        draw: || {
            (side(), 1u64..=64)
                .prop_flat_map(|(side, parts)| {
                    let (n, px) = (count(offsets(side)), (side * side) as u64);
                    around(
                        [ceil(px, 256), 1, 1],
                        [256, 1, 1],
                        vec![4 * parts * n * n, px],
                        vec![parts as i64, side],
                    )
                })
                .boxed()
        },
        contract: |l| {
            ch07_imaging_mirrors::ImagePlaceGroups::contract(
                "image_place_groups",
                &l.config(),
                l.span(0),
                l.arg(0)?,
                l.arg(1)?,
                1.0,
                l.span(1),
            )
            .map(|()| vec![])
        },
        reach: |l, _| place_reach(l, l.args[0], l.args[1], l.args[1]),
    }
}

pub fn image_place_rectangle() -> Model {
    Model {
        kernels: "image_place_rectangle",
        buffers: &["parts", "img"],
        mirrors: &[("ch07-imaging-rectangle.cu", "place")],
        hash: 0xca224191f21eba2e,
        draw: || {
            (side(), side())
                .prop_flat_map(|(width, height)| {
                    let (n_a, n_b) = (count(offsets(width)), count(offsets(height)));
                    let px = (width * height).max(0) as u64;
                    around(
                        [ceil(px, 256), 1, 1],
                        [256, 1, 1],
                        vec![4 * n_a * n_b, px],
                        vec![width, height],
                    )
                })
                .boxed()
        },
        contract: |l| {
            ch07_imaging_rectangle::ImagePlaceRectangle::contract(
                "image_place_rectangle",
                &l.config(),
                l.span(0),
                l.arg(0)?,
                l.arg(1)?,
                1.0,
                l.span(1),
            )
            .map(|()| vec![])
        },
        reach: |l, _| place_reach(l, 1, l.args[0], l.args[1]),
    }
}

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![
        dft_coarse(),
        dft_pairs(),
        dft_sum_parts(),
        image_first(),
        image_f32(),
        image_mirrors(),
        image_tables(),
        image_place_groups(),
        image_rectangle(),
        image_place_rectangle(),
    ]
}

#[test]
fn dft_coarse_stays_inside() {
    prove(dft_coarse());
}

#[test]
fn dft_pairs_stays_inside() {
    prove(dft_pairs());
}

#[test]
fn dft_sum_parts_stays_inside() {
    prove(dft_sum_parts());
}

#[test]
fn image_first_stays_inside() {
    prove(image_first());
}

#[test]
fn image_f32_stays_inside() {
    prove(image_f32());
}

#[test]
fn image_mirrors_stays_inside() {
    prove(image_mirrors());
}

#[test]
fn image_tables_stays_inside() {
    prove(image_tables());
}

#[test]
fn image_place_groups_stays_inside() {
    prove(image_place_groups());
}

#[test]
fn image_rectangle_stays_inside() {
    prove(image_rectangle());
}

#[test]
fn image_place_rectangle_stays_inside() {
    prove(image_place_rectangle());
}

// ---- findings: launches the contracts accepted before these models, refused now ----

/// n = 0 and 2^21 + 1 blocks of 128 (the shrunk counterexample): dft_coarse_8's last output
/// index first + 7 * stride passes 2^31, wraps negative, and passes ki < n.
#[test]
fn dft_coarse_with_f_times_the_threads_past_an_int_is_refused() {
    refused(
        ch07_dft_coarsening::DftCoarse1::contract(
            "dft_coarse_8",
            &shape(((1 << 21) + 1, 1, 1), 128),
            at(0),
            at(0),
        ),
        "threads * 8 <= 2147483648",
    );
}

/// n = 2^31 - 300: the loop's start + CHUNK passes 2^31 in the last chunk.
#[test]
fn dft_coarse_with_n_within_a_chunk_of_2_31_is_refused() {
    refused(
        ch07_dft_coarsening::DftCoarse1::contract(
            "dft_coarse_1",
            &shape((1, 1, 1), 128),
            at((1 << 31) - 300),
            at((1 << 31) - 300),
        ),
        "n + 512 <= 2147483648",
    );
}

/// n = 0, one block (the shrunk counterexample): thread 0 is active (k <= n / 2) and writes
/// partial[0] of an empty buffer, after a remainder by n = 0.
#[test]
fn dft_pairs_of_an_empty_transform_is_refused() {
    refused(
        ch07_dft_coarsening::DftPairs::contract("dft_pairs", &shape((1, 1, 1), 128), at(0), at(0)),
        "n >= 1",
    );
}

/// The launch course::imaging::mirrors::Shape::config makes for image_tables_8 with 64 parts
/// on a 700 x 700 image, grid (11, 6, 64): the contract named no clause with grid.y, so the
/// implicit grid.y = 1 refused it. It is accepted now (`grid.y * 64 <= 2^31`).
#[test]
fn image_tables_accepts_the_programs_grid_of_rows() {
    let n = 351;
    let got = ch07_imaging_mirrors::ImageTables1::contract(
        "image_tables_8",
        &shape((11, 6, 64), 256),
        at(n),
        at(n),
        at(n * n),
        700,
        at(1000),
        at(1000),
        at(1000),
        at(1000),
        at(64 * 4 * n * n),
    );
    assert_eq!(got.unwrap(), (1000,));
}

/// Sides and widths are ints the launcher will not take negative: a negative side would make
/// n_off = side / 2 + 1 a zero or negative divisor.
#[test]
fn negative_sides_are_refused() {
    refused(
        ch07_imaging_mirrors::ImageMirrors::contract(
            "image_mirrors",
            &shape((1, 1, 1), 256),
            at(0),
            at(0),
            at(0),
            -4,
            at(1),
            at(1),
            at(1),
            at(1),
            at(0),
        ),
        "side",
    );
    refused(
        ch07_imaging_rectangle::ImagePlaceRectangle::contract(
            "image_place_rectangle",
            &shape((1, 1, 1), 256),
            at(0),
            -3,
            -3,
            1.0,
            at(9),
        ),
        "width",
    );
}
