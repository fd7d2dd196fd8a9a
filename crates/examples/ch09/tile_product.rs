//! What a tensor core computes, worked out on the CPU first: a tile product D = A·B + C with A
//! and B in bfloat16 and C and D in f32. The program shows what rounding to bfloat16 costs, that
//! a product of two bfloat16 values is exact in f32 (short of overflow and underflow), one
//! 16×16 by 16×8 tile (the shape of a warp's `mma`), a large product in parallel with rayon
//! held to the chapter's one bound, and an exact check on whole numbers. The GPU pages that
//! follow are judged by the same bound.
use course::bf16::{Bf16, round_all, widen_all};
use course::compare::verdict;
use course::gemm::{Samples, Shape, TENSOR_CORE_UNIT, gamma_with};
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{fmt_gflop_per_s, fmt_ms, time_cpu};
use rayon::prelude::*;

/// Entries of a large product checked against f64.
const SAMPLES: usize = 4096;

// ANCHOR: rounding
/// The unit roundoff of bfloat16: with 8 significant bits, rounding to the nearest value moves
/// a number by at most 2⁻⁸ of itself.
const BF16_UNIT: f64 = 1.0 / 256.0;

/// The largest relative error |bf16(x) − x| / |x| over the nonzero values of `xs`.
fn largest_rounding_error(xs: &[f32]) -> f64 {
    xs.iter()
        .filter(|&&x| x != 0.0)
        .map(|&x| {
            let rounded = Bf16::from_f32(x).to_f32() as f64;
            ((rounded - x as f64) / x as f64).abs()
        })
        .fold(0.0, f64::max)
}
// ANCHOR_END: rounding

// ANCHOR: mma
/// One warp's `mma` with bfloat16 inputs, m16n8k16: A is 16×16, B is 16×8, C and D are 16×8.
const TILE: Shape = Shape { m: 16, k: 16, n: 8 };

/// D = A·B + C, row-major: A (m×k) and B (k×n) in bfloat16, C and D (m×n) in f32. Each entry
/// of D starts from its entry of C and adds its k products in order, in f32. One rayon task
/// per row of D: no two tasks write the same entry.
fn bf16_mma(a: &[Bf16], b: &[Bf16], c: &[f32], d: &mut [f32], shape: Shape) {
    let Shape { k, n, .. } = shape;
    // Widening is exact: each bf16 becomes the f32 with the same upper 16 bits.
    let b = widen_all(b);
    d.par_chunks_mut(n)
        .zip(c.par_chunks(n))
        .enumerate()
        .for_each(|(i, (d_row, c_row))| {
            d_row.copy_from_slice(c_row);
            for p in 0..k {
                let a_ip = a[i * k + p].to_f32();
                let b_row = &b[p * n..][..n];
                for (d_ij, &b_pj) in d_row.iter_mut().zip(b_row) {
                    // The product is exact in f32; only the addition rounds.
                    *d_ij += a_ip * b_pj;
                }
            }
        });
}
// ANCHOR_END: mma

/// The bits of `x` as f32 and as bfloat16 (sign, exponent, fraction), and the two values.
fn show_bits(name: &str, x: f32) {
    let bits = format!("{:032b}", x.to_bits());
    let (sign, exponent, fraction) = (&bits[..1], &bits[1..9], &bits[9..]);
    let (kept, dropped) = fraction.split_at(7);
    println!("{name} as f32:  {sign} {exponent} {kept} {dropped} = {x}");
    let rounded = Bf16::from_f32(x);
    let bits = format!("{:016b}", rounded.0);
    let (sign, exponent, fraction) = (&bits[..1], &bits[1..9], &bits[9..]);
    let value = rounded.to_f32();
    println!("{name} as bf16: {sign} {exponent} {fraction:<24} = {value}");
}

/// How many of the m·k·n products a[i][p]·b[p][j] that a product of A (m×k) and B (k×n) takes
/// are exact in f32: the f32 product equals the f64 one.
fn exact_products(a: &[f32], b: &[f32], shape: Shape) -> usize {
    let Shape { m, k, n } = shape;
    let mut exact = 0;
    for i in 0..m {
        for p in 0..k {
            for j in 0..n {
                let (x, y) = (a[i * k + p], b[p * n + j]);
                exact += ((x * y) as f64 == x as f64 * y as f64) as usize;
            }
        }
    }
    exact
}

/// The largest |d − exact| / bound over every entry of D = A·B + C, the exact value computed in
/// f64 from the same (bf16-valued) A and B, the bound γ_k·(|c| + Σ|a||b|) with the tensor
/// cores' unit 2⁻²²: k additions, each of an exact product.
fn tile_worst_ratio(a: &[f32], b: &[f32], c: &[f32], d: &[f32], shape: Shape) -> f64 {
    let Shape { m, k, n } = shape;
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let (mut exact, mut size) = (c[i * n + j] as f64, c[i * n + j].abs() as f64);
            for p in 0..k {
                let term = a[i * k + p] as f64 * b[p * n + j] as f64;
                exact += term;
                size += term.abs();
            }
            let bound = gamma_with(k, TENSOR_CORE_UNIT) * size;
            let error = (d[i * n + j] as f64 - exact).abs();
            worst = worst.max(error / bound.max(f64::MIN_POSITIVE));
        }
    }
    worst
}

/// At SAMPLES entries drawn at random, as shares of Σ|a||b| (of the bf16 inputs): how far the
/// f32 sums moved D from the exact product of the bf16 inputs, and how far rounding the inputs
/// moved that exact product from the exact product of the f32 inputs they came from. The
/// largest of each.
fn what_moves_an_entry(
    a_f32: &[f32],
    b_f32: &[f32],
    a_bf16: &[f32],
    b_bf16: &[f32],
    d: &[f32],
    shape: Shape,
    rng: &mut Rng,
) -> (f64, f64) {
    let Shape { m, k, n } = shape;
    let (mut by_sums, mut by_inputs) = (0.0f64, 0.0f64);
    for _ in 0..SAMPLES {
        let (i, j) = (rng.below(m as u64) as usize, rng.below(n as u64) as usize);
        let (mut of_bf16, mut of_f32, mut size) = (0.0f64, 0.0f64, 0.0f64);
        for p in 0..k {
            let term = a_bf16[i * k + p] as f64 * b_bf16[p * n + j] as f64;
            of_bf16 += term;
            of_f32 += a_f32[i * k + p] as f64 * b_f32[p * n + j] as f64;
            size += term.abs();
        }
        let size = size.max(f64::MIN_POSITIVE);
        by_sums = by_sums.max((d[i * n + j] as f64 - of_bf16).abs() / size);
        by_inputs = by_inputs.max((of_bf16 - of_f32).abs() / size);
    }
    (by_sums, by_inputs)
}

fn main() {
    // A small default keeps the book's own run of this listing (unoptimised) quick; the
    // recorded run asks for 1024.
    let (side, seed) = course::cli::parse(
        "Computes D = A·B + C as a tensor core does (A, B in bfloat16; C, D in f32), on the CPU.",
        |args| {
            (
                args.usize("N", "the side of the large square product", 256, 1, 4096),
                args.seed(),
            )
        },
    );
    println!("{}", describe_cpu());
    println!("random inputs from seed {seed}");
    let mut rng = Rng::new(seed);

    show_bits("π", std::f32::consts::PI);
    let xs = rng.vec_f32(4096, -1.0, 1.0);
    let worst = largest_rounding_error(&xs) / BF16_UNIT;
    println!(
        "{} values in [-1, 1) to bf16: largest relative error over 2⁻⁸ {worst:.3}, bound 1: {}",
        xs.len(),
        verdict(worst <= 1.0)
    );

    // ANCHOR: one_tile
    let Shape { m, k, n } = TILE;
    let (a_f32, b_f32) = (rng.vec_f32(m * k, -1.0, 1.0), rng.vec_f32(k * n, -1.0, 1.0));
    let c = rng.vec_f32(m * n, -1.0, 1.0);
    let (a, b) = (round_all(&a_f32), round_all(&b_f32));
    let (a_wide, b_wide) = (widen_all(&a), widen_all(&b));
    let exact = exact_products(&a_wide, &b_wide, TILE);
    let exact_before = exact_products(&a_f32, &b_f32, TILE);
    let mut d = vec![0.0f32; m * n];
    bf16_mma(&a, &b, &c, &mut d, TILE);
    let worst = tile_worst_ratio(&a_wide, &b_wide, &c, &d, TILE);
    // ANCHOR_END: one_tile
    let products = m * k * n;
    println!("one tile, D = A·B + C: A {m}x{k}, B {k}x{n} in bf16; C, D {m}x{n} in f32");
    println!(
        "  products of two bf16 exact in f32: {exact} of {products}: {}",
        verdict(exact == products)
    );
    println!(
        "  products of the f32 values before rounding, exact in f32: {exact_before} of {products}"
    );
    println!(
        "  D against f64: largest error over γ_{k}·(|c| + Σ|a||b|) {worst:.1e}, bound 1: {}",
        verdict(worst <= 1.0)
    );

    // ANCHOR: large
    let shape = Shape {
        m: side,
        k: side,
        n: side,
    };
    let (a_f32, b_f32) = (
        rng.vec_f32(side * side, -1.0, 1.0),
        rng.vec_f32(side * side, -1.0, 1.0),
    );
    let (a, b) = (round_all(&a_f32), round_all(&b_f32));
    let (a_wide, b_wide) = (widen_all(&a), widen_all(&b));
    // The bound of every rung on the GPU: γ_k·Σ|a||b| with u = 2⁻²², against f64 products of
    // the very bf16 values the tensor cores get.
    let samples = Samples::with_unit(&a_wide, &b_wide, shape, SAMPLES, &mut rng, TENSOR_CORE_UNIT);
    let zero = vec![0.0f32; side * side];
    let mut d = vec![0.0f32; side * side];
    // ANCHOR_END: large
    println!(
        "large product: A and B {side}x{side}, drawn in [-1, 1) as f32, rounded to bf16; C = 0"
    );
    println!(
        "  one rayon task per row of D: {side} tasks on {} threads (this machine)",
        rayon::current_num_threads()
    );
    let timing = time_cpu(1, 5, || bf16_mma(&a, &b, &zero, &mut d, shape));
    let ms = timing.median_ms;
    println!(
        "  D = A·B: {} {}",
        fmt_ms(ms),
        fmt_gflop_per_s(shape.flops(), ms)
    );
    // ANCHOR: large
    let worst = samples.worst_ratio(&d, side);
    let (by_sums, by_inputs) =
        what_moves_an_entry(&a_f32, &b_f32, &a_wide, &b_wide, &d, shape, &mut rng);
    // ANCHOR_END: large
    println!(
        "  D against f64, {} entries: largest error over γ_{side}·Σ|a||b| {worst:.1e}, bound 1: {}",
        samples.len(),
        verdict(worst <= 1.0)
    );
    println!("  what moves an entry, as a share of Σ|a||b|, the largest at {SAMPLES} entries:");
    println!("    the f32 sums (D against the exact product of the bf16 inputs): {by_sums:.1e}");
    println!(
        "    rounding the inputs (that product against the f32 inputs' exact one): {by_inputs:.1e}"
    );

    exact_on_whole_numbers(&mut rng);
}

// ANCHOR: whole
/// D = A·B + C on whole numbers in [-8, 8], at sides that are multiples of no tile, against a
/// triple loop in i64. The numbers are exact in bf16, their products and sums are whole numbers
/// below 2²⁴, exact in f32: every entry must match.
fn exact_on_whole_numbers(rng: &mut Rng) {
    let shape = Shape {
        m: 67,
        k: 133,
        n: 43,
    };
    let Shape { m, k, n } = shape;
    let mut whole =
        |len: usize| -> Vec<i64> { (0..len).map(|_| rng.below(17) as i64 - 8).collect() };
    let (a, b, c) = (whole(m * k), whole(k * n), whole(m * n));
    let to_f32 = |xs: &[i64]| -> Vec<f32> { xs.iter().map(|&x| x as f32).collect() };
    let mut d = vec![f32::NAN; m * n];
    bf16_mma(
        &round_all(&to_f32(&a)),
        &round_all(&to_f32(&b)),
        &to_f32(&c),
        &mut d,
        shape,
    );
    let mut differ = 0;
    for i in 0..m {
        for j in 0..n {
            let want = c[i * n + j] + (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum::<i64>();
            differ += (d[i * n + j] as f64 != want as f64) as usize;
        }
    }
    // ANCHOR_END: whole
    println!(
        "whole numbers, {m}x{k} by {k}x{n} plus C: {differ} of {} entries differ from i64: {}",
        m * n,
        verdict(differ == 0)
    );
    // ANCHOR: whole
}
// ANCHOR_END: whole
