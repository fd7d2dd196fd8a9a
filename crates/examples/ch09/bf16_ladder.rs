//! The tensor-core ladder: a bf16 matrix product with float sums, C = A·B, from WMMA through
//! `mma.sync` with `ldmatrix`, a swizzled layout and a `cp.async` pipeline, each timed against
//! cuBLAS's bf16 GEMM in the same run (4096×4096×4096 unless given) and checked against
//! float64 within the tensor cores' bound; first, each exact on small whole-number matrices.
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
use cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod ch09_bf16_gemm {
    course::kernels!("ch09-bf16-gemm.cu");
}

/// C = A·B for a shape, on the GPU.
type Multiply<'a> = dyn Fn(Shape, &CudaSlice<Bf16>, &CudaSlice<Bf16>, &mut CudaSlice<f32>) + 'a;

/// One rung: its name and how to launch it for a shape.
struct Rung<'a> {
    name: &'static str,
    launch: Box<Multiply<'a>>,
}

/// A grid of `threads`-thread blocks covering C (m×n) with tiles of `rows`×`cols`, each block
/// with `shared` bytes of dynamic shared memory.
fn grid(shape: Shape, rows: usize, cols: usize, threads: u32, shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            shape.n.div_ceil(cols) as u32,
            shape.m.div_ceil(rows) as u32,
            1,
        ),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: shared,
    }
}

fn main() {
    let (m, k, n, seed) = course::cli::parse(
        "Multiplies an MxK by a KxN bf16 matrix (4096 each unless given) on the tensor cores with each rung of the ladder, against cuBLAS.",
        |args| {
            (
                args.usize("M", "the rows of A and C", 4096, 1, 16384),
                args.usize("K", "the columns of A and rows of B", 4096, 1, 16384),
                args.usize("N", "the columns of B and C", 4096, 1, 16384),
                args.seed(),
            )
        },
    );
    // Under compute-sanitizer smaller sides, still multiples of no tile.
    let (m, k, n) = (
        problem_size(m, m.min(300)),
        problem_size(k, k.min(200)),
        problem_size(n, n.min(260)),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let file = kernel_file!("ch09-bf16-gemm.cu");
    require_gpu_for(&ctx, &file);
    let kernels = ch09_bf16_gemm::Kernels::load(&load(&ctx, &file, false));
    let rungs = ladder(&stream, &kernels);
    let blas = Blas16::new(&stream);

    exact_on_whole_numbers(&stream, &rungs, &blas, seed);

    // ANCHOR: data
    let shape = Shape { m, k, n };
    let mut rng = Rng::new(seed);
    let a_host = round_all(&rng.vec_f32(m * k, -1.0, 1.0));
    let b_host = round_all(&rng.vec_f32(k * n, -1.0, 1.0));
    let (a_wide, b_wide) = (widen_all(&a_host), widen_all(&b_host));
    let samples = Samples::with_unit(&a_wide, &b_wide, shape, 4096, &mut rng, TENSOR_CORE_UNIT);
    println!(
        "A {m}x{k}, B {k}x{n}, bf16 in [-1, 1), seed {seed}; {} entries of C checked against f64",
        samples.len()
    );
    let a = stream.clone_htod(&a_host).or_exit("copy A to the GPU");
    let b = stream.clone_htod(&b_host).or_exit("copy B to the GPU");
    // ANCHOR_END: data

    // ANCHOR: ladder
    let mut c = alloc_poisoned::<f32>(&stream, m * n);
    let t_blas = time_gpu(&stream, 2, 10, || blas.gemm_bf16(shape, &a, &b, &mut c));
    let label = shape.label();
    // ANCHOR_END: ladder
    record(
        &format!("cuBLAS BF16, {label}"),
        &t_blas,
        Work::Flops(shape.flops()),
    );
    // ANCHOR: ladder
    let tflops = |ms: f64| shape.flops() / ms / 1e9;
    println!(
        "{:<26} {:>9} {:>14} {:>9} {:>12}",
        "rung", "time", "rate", "of cuBLAS", "error/bound"
    );
    let mut all_within = true;
    for rung in &rungs {
        let mut c = alloc_poisoned::<f32>(&stream, m * n);
        let t = time_gpu(&stream, 2, 10, || (rung.launch)(shape, &a, &b, &mut c));
        // ANCHOR_END: ladder
        record(
            &format!("{}, {label}", rung.name),
            &t,
            Work::Flops(shape.flops()),
        );
        // ANCHOR: ladder
        let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
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
    let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
    let worst = samples.worst_ratio(&got, n);
    all_within &= worst <= 1.0;
    println!(
        "{:<26} {:>9} {:>7.1} TFLOP/s {:>9} {:>12.4}",
        "cuBLAS BF16",
        fmt_ms(t_blas.median_ms),
        tflops(t_blas.median_ms),
        "",
        worst
    );
    // ANCHOR_END: ladder
    println!("{}", against_datasheet(&ctx, tflops(t_blas.median_ms)));
    println!(
        "every sampled entry within γ_K·Σ|a||b|, u = 2^-22 (K = {k}, error/bound at most 1): {}",
        verdict(all_within)
    );
}

/// The rungs, in the order the chapter climbs them.
fn ladder<'a>(stream: &'a Arc<CudaStream>, k: &'a ch09_bf16_gemm::Kernels) -> Vec<Rung<'a>> {
    // The pipelined kernels keep their stages in more dynamic shared memory than the 48 KiB a
    // kernel gets unless it asks.
    // Each stage holds A's 128×BK and B's BK×BN in bf16, two bytes each.
    let stages = |count: u32, bk: u32, bn: u32| count * (128 * bk + bk * bn) * 2;
    let (shallow, deep, wide) = (stages(4, 32, 128), stages(3, 64, 128), stages(3, 64, 256));
    for (kernel, bytes) in [
        (k.bf16_mma_pipelined_128x128x32_4.function(), shallow),
        (k.bf16_mma_pipelined_128x128x64_3.function(), deep),
        (k.bf16_mma_pipelined_128x256x64_3.function(), wide),
        (k.bf16_mma_ahead_128x256x64_3.function(), wide),
    ] {
        kernel
            .set_attribute(
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
            .or_exit("allow the pipelined kernel its shared memory");
    }
    // `rung!(name, kernel, tile columns, threads, shared bytes)`: every rung takes
    // (a, b, c, m, n, k) and covers C with tiles 128 rows high.
    macro_rules! rung {
        ($name:expr, $kernel:expr, $cols:expr, $threads:expr, $shared:expr) => {{
            let kernel = $kernel;
            Rung {
                name: $name,
                launch: Box::new(move |s, a, b, c| {
                    let config = grid(s, 128, $cols, $threads, $shared);
                    let (m, n, k) = (s.m as i32, s.n as i32, s.k as i32);
                    kernel
                        .launch(stream, config, a, b, c, m, n, k)
                        .or_exit_launching(kernel)
                }),
            }
        }};
    }
    // ANCHOR: rungs
    vec![
        rung!("WMMA", &k.bf16_wmma, 128, 256, 0),
        rung!("mma.sync + ldmatrix", &k.bf16_mma_plain, 128, 128, 0),
        rung!("swizzled", &k.bf16_mma_swizzled, 128, 128, 0),
        rung!(
            "cp.async, 4 stages",
            &k.bf16_mma_pipelined_128x128x32_4,
            128,
            128,
            shallow
        ),
        rung!(
            "64 deep, 3 stages",
            &k.bf16_mma_pipelined_128x128x64_3,
            128,
            128,
            deep
        ),
        rung!(
            "128x256 tiles",
            &k.bf16_mma_pipelined_128x256x64_3,
            256,
            256,
            wide
        ),
        rung!(
            "fragments a step ahead",
            &k.bf16_mma_ahead_128x256x64_3,
            256,
            256,
            wide
        ),
    ]
    // ANCHOR_END: rungs
}

/// Every rung and cuBLAS on whole numbers in [-8, 8], exact in bf16, with two shapes that are
/// multiples of no tile: one whose rows are not whole 16-byte chunks (A's and B's rows are then
/// read element by element) and one whose rows are. Each product and partial sum is a whole
/// number below 2^24, exact in float in any order, so C must equal the CPU's integer product.
fn exact_on_whole_numbers(stream: &Arc<CudaStream>, rungs: &[Rung], blas: &Blas16, seed: u64) {
    let mut rng = Rng::new(seed);
    for shape in [
        Shape {
            m: 131,
            k: 77,
            n: 259,
        },
        Shape {
            m: 136,
            k: 200,
            n: 264,
        },
    ] {
        let Shape { m, k, n } = shape;
        let a_host = whole_numbers(m * k, &mut rng);
        let b_host = whole_numbers(k * n, &mut rng);
        let want = integer_product(&a_host, &b_host, shape);
        let a = stream
            .clone_htod(&round_all(&a_host))
            .or_exit("copy A to the GPU");
        let b = stream
            .clone_htod(&round_all(&b_host))
            .or_exit("copy B to the GPU");
        let mut wrong = Vec::new();
        let run_blas: Box<Multiply> = Box::new(|s, a, b, c| blas.gemm_bf16(s, a, b, c));
        let everyone = rungs
            .iter()
            .map(|r| (r.name, &r.launch))
            .chain([("cuBLAS", &run_blas)]);
        let mut count = 0;
        for (name, launch) in everyone {
            let mut c = alloc_poisoned::<f32>(stream, m * n);
            launch(shape, &a, &b, &mut c);
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
