//! Hopper's rungs of the tensor-core ladder: the tensor memory accelerator copies tiles of A
//! and B into shared memory through tensor maps built here, mbarriers tell when they have
//! landed, and wgmma multiplies them, first with every warpgroup both copying and multiplying,
//! then with one warpgroup copying for two that multiply. Each is timed against cuBLAS's bf16
//! GEMM in the same run (4096×4096×4096 unless given), with the same pitches, and checked
//! against float64 within the tensor cores' bound; first, each exact on whole numbers.
use std::sync::Arc;

use course::bf16::{Bf16, round_all, widen_all};
use course::compare::{count_mismatches, verdict};
use course::gemm::{
    Blas16, Samples, Shape, TENSOR_CORE_UNIT, against_datasheet, integer_product, whole_numbers,
};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size, require_gpu_for};
use course::kernel::load;
use course::kernel_file;
use course::launch::Launcher;
use course::random::Rng;
use course::timing::{Work, fmt_ms, record, time_gpu};
use course::tma::{Swizzle, TensorMap, Tiled};
use cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod ch09_hopper_gemm {
    course::kernels!("ch09-hopper-gemm.cu");
}

/// The tile of C one block computes, the depth of a slice, and the stages in flight.
const BM: usize = 128;
const BN: usize = 256;
const BK: usize = 64;
const STAGES: usize = 4;

/// A and B on the GPU with rows padded to a multiple of 8 elements (16 bytes), as the tensor
/// memory accelerator needs, and their tensor maps.
struct Operands<'a> {
    a: &'a CudaSlice<Bf16>,
    b: &'a CudaSlice<Bf16>,
    lda: usize,
    ldb: usize,
    a_map: TensorMap<'a, Bf16>,
    b_map: TensorMap<'a, Bf16>,
}

/// `len` rounded up to a multiple of 8.
fn pitch(len: usize) -> usize {
    len.div_ceil(8) * 8
}

/// The rows of a rows×cols matrix, each followed by zeros up to `pitch` elements.
fn padded(x: &[Bf16], rows: usize, cols: usize, pitch: usize) -> Vec<Bf16> {
    let mut out = vec![Bf16::default(); rows * pitch];
    for r in 0..rows {
        out[r * pitch..r * pitch + cols].copy_from_slice(&x[r * cols..(r + 1) * cols]);
    }
    out
}

fn upload(stream: &Arc<CudaStream>, x: &[Bf16], rows: usize, cols: usize) -> CudaSlice<Bf16> {
    stream
        .clone_htod(&padded(x, rows, cols, pitch(cols)))
        .or_exit("copy a matrix to the GPU")
}

// ANCHOR: maps
fn operands<'a>(
    stream: &Arc<CudaStream>,
    shape: Shape,
    a: &'a CudaSlice<Bf16>,
    b: &'a CudaSlice<Bf16>,
) -> Operands<'a> {
    let Shape { m, k, n } = shape;
    let (lda, ldb) = (pitch(k), pitch(n));
    let map = |buffer, rows, cols, pitch, box_rows| {
        let tiled = Tiled {
            rows,
            cols,
            pitch,
            box_rows,
            box_cols: 64,
            swizzle: Swizzle::Bytes128,
        };
        TensorMap::tiled(buffer, stream, tiled)
            .unwrap_or_else(|why| course::exit::fail(course::exit::EXIT_BAD_ARGUMENT, &why))
    };
    Operands {
        a,
        b,
        lda,
        ldb,
        a_map: map(a, m, k, lda, BM),
        b_map: map(b, k, n, ldb, BK),
    }
}
// ANCHOR_END: maps

/// Shared memory a block asks for: the stages, and 1 KiB to align them to 1024 bytes.
const SHARED: usize = STAGES * (BM * BK + BK * BN) * 2 + 1024;

/// C = A·B for a shape, on the GPU.
type Multiply<'a> = dyn Fn(Shape, &Operands, &mut CudaSlice<f32>) + 'a;

/// One rung: its name and how to launch it for a shape.
struct Rung<'a> {
    name: &'static str,
    launch: Box<Multiply<'a>>,
}

/// The rungs, in the order the chapter climbs them.
fn ladder<'a>(stream: &'a Arc<CudaStream>, k: &'a ch09_hopper_gemm::Kernels) -> Vec<Rung<'a>> {
    for kernel in [
        k.hopper_wgmma.function(),
        k.hopper_specialised.function(),
        k.hopper_tuned.function(),
    ] {
        kernel
            .set_attribute(
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                SHARED as i32,
            )
            .or_exit("allow the kernel its shared memory");
    }
    macro_rules! rung {
        ($name:expr, $kernel:expr, $threads:expr) => {{
            let kernel = $kernel;
            Rung {
                name: $name,
                launch: Box::new(move |s, ops, c| {
                    let config = LaunchConfig {
                        grid_dim: (s.n.div_ceil(BN) as u32, s.m.div_ceil(BM) as u32, 1),
                        block_dim: ($threads, 1, 1),
                        shared_mem_bytes: SHARED as u32,
                    };
                    let (m, n, k) = (s.m as i32, s.n as i32, s.k as i32);
                    kernel
                        .launch(stream, config, &ops.a_map, &ops.b_map, c, m, n, k)
                        .or_exit_launching(kernel)
                }),
            }
        }};
    }
    vec![
        rung!("TMA + wgmma", &k.hopper_wgmma, 256),
        rung!("warp-specialised", &k.hopper_specialised, 384),
        rung!("in flight, grouped", &k.hopper_tuned, 384),
    ]
}

fn main() {
    let (m, k, n, seed) = course::cli::parse(
        "Multiplies an MxK by a KxN bf16 matrix (4096 each unless given) on Hopper's tensor cores with TMA and wgmma, against cuBLAS.",
        |args| {
            (
                args.usize("M", "the rows of A and C", 4096, 1, 16384),
                args.usize("K", "the columns of A and rows of B", 4096, 1, 16384),
                args.usize("N", "the columns of B and C", 4096, 1, 16384),
                args.seed(),
            )
        },
    );
    let (m, k, n) = (
        problem_size(m, m.min(300)),
        problem_size(k, k.min(200)),
        problem_size(n, n.min(260)),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let file = kernel_file!("ch09-hopper-gemm.cu");
    require_gpu_for(&ctx, &file);
    let kernels = ch09_hopper_gemm::Kernels::load(&load(&ctx, &file, false));
    let rungs = ladder(&stream, &kernels);
    let blas = Blas16::new(&stream);

    let mut rng = Rng::new(seed);
    exact_on_whole_numbers(&stream, &rungs, &blas, &mut rng);

    let shape = Shape { m, k, n };
    let a_host = round_all(&rng.vec_f32(m * k, -1.0, 1.0));
    let b_host = round_all(&rng.vec_f32(k * n, -1.0, 1.0));
    let (a_wide, b_wide) = (widen_all(&a_host), widen_all(&b_host));
    let samples = Samples::with_unit(&a_wide, &b_wide, shape, 4096, &mut rng, TENSOR_CORE_UNIT);
    println!(
        "A {m}x{k}, B {k}x{n}, bf16 in [-1, 1), seed {seed}; {} entries of C checked against f64",
        samples.len()
    );
    let a = upload(&stream, &a_host, m, k);
    let b = upload(&stream, &b_host, k, n);
    let ops = operands(&stream, shape, &a, &b);
    let mut c = alloc_poisoned::<f32>(&stream, m * n);
    let t_blas = time_gpu(&stream, 2, 10, || {
        blas.gemm_bf16_pitched(shape, (ops.a, ops.lda), (ops.b, ops.ldb), &mut c)
    });
    let label = shape.label();
    record(
        &format!("cuBLAS BF16, {label}"),
        &t_blas,
        Work::Flops(shape.flops()),
    );
    let tflops = |ms: f64| shape.flops() / ms / 1e9;
    println!(
        "{:<26} {:>9} {:>14} {:>9} {:>12}",
        "rung", "time", "rate", "of cuBLAS", "error/bound"
    );
    let mut all_within = true;
    for rung in &rungs {
        let mut c = alloc_poisoned::<f32>(&stream, m * n);
        let t = time_gpu(&stream, 2, 10, || (rung.launch)(shape, &ops, &mut c));
        record(
            &format!("{}, {label}", rung.name),
            &t,
            Work::Flops(shape.flops()),
        );
        let got = stream.clone_dtoh(&c).or_exit("copy C back");
        let worst = samples.worst_ratio(&got, n);
        all_within &= worst <= 1.0;
        println!(
            "{:<26} {:>9} {:>7.1} TFLOP/s {:>8.1}% {:>12.4}",
            rung.name,
            fmt_ms(t.median_ms),
            tflops(t.median_ms),
            100.0 * t_blas.median_ms / t.median_ms,
            worst
        );
    }
    let got = stream.clone_dtoh(&c).or_exit("copy C back");
    println!(
        "{:<26} {:>9} {:>7.1} TFLOP/s {:>9} {:>12.4}",
        "cuBLAS BF16",
        fmt_ms(t_blas.median_ms),
        tflops(t_blas.median_ms),
        "",
        samples.worst_ratio(&got, n)
    );
    println!("{}", against_datasheet(&ctx, tflops(t_blas.median_ms)));
    println!(
        "every sampled entry within γ_K·Σ|a||b|, u = 2^-22 (K = {k}, error/bound at most 1): {}",
        verdict(all_within)
    );
}

/// Every rung and cuBLAS on whole numbers in [-8, 8], exact in bf16, with two shapes that are
/// multiples of no tile: one whose rows need padding to 16 bytes, and one whose rows do not and
/// whose 9 slices of k pass through each of the 4 stages more than once. Each
/// product and partial sum is a whole number below 2^24, exact in float in any order, so C must
/// equal the CPU's integer product.
fn exact_on_whole_numbers(stream: &Arc<CudaStream>, rungs: &[Rung], blas: &Blas16, rng: &mut Rng) {
    for shape in [
        Shape {
            m: 131,
            k: 77,
            n: 259,
        },
        Shape {
            m: 136,
            k: 520,
            n: 264,
        },
    ] {
        let Shape { m, k, n } = shape;
        let a_host = whole_numbers(m * k, rng);
        let b_host = whole_numbers(k * n, rng);
        let want = integer_product(&a_host, &b_host, shape);
        let a = upload(stream, &round_all(&a_host), m, k);
        let b = upload(stream, &round_all(&b_host), k, n);
        let ops = operands(stream, shape, &a, &b);
        let run_blas: Box<Multiply> =
            Box::new(|s, ops, c| blas.gemm_bf16_pitched(s, (ops.a, ops.lda), (ops.b, ops.ldb), c));
        let everyone = rungs
            .iter()
            .map(|r| (r.name, &r.launch))
            .chain([("cuBLAS", &run_blas)]);
        let (mut wrong, mut count) = (Vec::new(), 0);
        for (name, launch) in everyone {
            let mut c = alloc_poisoned::<f32>(stream, m * n);
            launch(shape, &ops, &mut c);
            let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
            let mismatches = count_mismatches(&got, &want);
            if mismatches > 0 {
                wrong.push(format!("{name} ({mismatches} wrong)"));
            }
            count += 1;
        }
        println!(
            "whole numbers, {m}x{k} times {k}x{n}: {} of {count} exact{}: {}",
            count - wrong.len(),
            match wrong.is_empty() {
                true => String::new(),
                false => format!(", not {}", wrong.join(", ")),
            },
            verdict(wrong.is_empty())
        );
    }
}
