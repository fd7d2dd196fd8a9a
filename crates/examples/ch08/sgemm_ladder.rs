//! The matrix-multiplication ladder: chapter 4's kernel and every rung after it, on the same
//! f32 inputs (4096×4096 unless given), each timed against cuBLAS SGEMM in the same run and
//! checked against float64 within its rounding bound; first, each rung exact on small
//! whole-number matrices whose sides are multiples of no tile.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gemm::{Samples, Shape, cublas, cublas_sgemm, integer_product, whole_numbers};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_ms, record, time_gpu};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

mod ch04_matmul {
    course::kernels!("ch04-matmul.cu");
}
mod ch08_sgemm {
    course::kernels!("ch08-sgemm.cu");
}
mod ch08_sgemm_async {
    course::kernels!("ch08-sgemm-async.cu");
}

/// One rung: its name, its arithmetic intensity towards global memory (operations per byte it
/// asks for, from its tile: [`tile_intensity`]), and how to launch it for a shape.
struct Rung<'a> {
    name: &'static str,
    intensity: f64,
    launch: Box<dyn Fn(Shape, &CudaSlice<f32>, &CudaSlice<f32>, &mut CudaSlice<f32>) + 'a>,
}

/// A grid of `block` threads covering C (m×n) with tiles of `rows`×`cols`.
fn grid(shape: Shape, rows: usize, cols: usize, block: (u32, u32)) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            shape.n.div_ceil(cols) as u32,
            shape.m.div_ceil(rows) as u32,
            1,
        ),
        block_dim: (block.0, block.1, 1),
        shared_mem_bytes: 0,
    }
}

/// FLOP per byte read from global memory by a block that computes a rows×cols tile of C:
/// per step along k it reads rows + cols floats and does 2·rows·cols operations.
fn tile_intensity(rows: usize, cols: usize) -> f64 {
    (2 * rows * cols) as f64 / (4 * (rows + cols)) as f64
}

fn main() {
    let (m, k, n, seed) = course::cli::parse(
        "Multiplies an MxK by a KxN f32 matrix (4096 each unless given) with each rung of the ladder, against cuBLAS.",
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
    let old = ch04_matmul::Kernels::load(&load(&ctx, &kernel_file!("ch04-matmul.cu"), false));
    let new = ch08_sgemm::Kernels::load(&load(&ctx, &kernel_file!("ch08-sgemm.cu"), false));
    // cp.async needs compute capability 8.0; an older GPU runs the ladder without that rung.
    let copies = (ctx
        .compute_capability()
        .or_exit("read the compute capability")
        .0
        >= 8)
        .then(|| {
            ch08_sgemm_async::Kernels::load(&load(
                &ctx,
                &kernel_file!("ch08-sgemm-async.cu"),
                false,
            ))
        });

    // ANCHOR: rungs
    let mut rungs: Vec<Rung> = vec![
        Rung {
            name: "chapter 4 (one per thread)",
            intensity: 0.25,
            launch: Box::new(|s, a, b, c| {
                let (m, k, n) = (s.m as i32, s.k as i32, s.n as i32);
                let kernel = &old.matmul_sum_in_register;
                kernel
                    .launch(&stream, grid(s, 16, 16, (16, 16)), a, b, c, m, k, n)
                    .or_exit_launching(kernel)
            }),
        },
        Rung {
            name: "rows across a warp",
            intensity: 0.25,
            launch: Box::new(|s, a, b, c| {
                let (m, k, n) = (s.m as i32, s.k as i32, s.n as i32);
                let kernel = &new.sgemm_rows_across_warp;
                // x runs down the rows of C here, so the grid's x covers m.
                let config = LaunchConfig {
                    grid_dim: (s.m.div_ceil(16) as u32, s.n.div_ceil(16) as u32, 1),
                    block_dim: (16, 16, 1),
                    shared_mem_bytes: 0,
                };
                kernel
                    .launch(&stream, config, a, b, c, m, n, k)
                    .or_exit_launching(kernel)
            }),
        },
    ];
    // Every later rung takes (a, b, c, m, n, k) and covers C with tiles of one size:
    // `rung!(name, kernel, tile rows, tile columns, block)` pushes one more.
    // ANCHOR_END: rungs
    macro_rules! rung {
        ($name:expr, $kernel:expr, $rows:expr, $cols:expr, $block:expr) => {{
            let (kernel, stream) = ($kernel, &stream);
            rungs.push(Rung {
                name: $name,
                intensity: tile_intensity($rows, $cols),
                launch: Box::new(move |s, a, b, c| {
                    let config = grid(s, $rows, $cols, $block);
                    let (m, n, k) = (s.m as i32, s.n as i32, s.k as i32);
                    kernel
                        .launch(stream, config, a, b, c, m, n, k)
                        .or_exit_launching(kernel)
                }),
            })
        }};
    }
    // ANCHOR: rungs
    rung!(
        "shared-memory tiles",
        &new.sgemm_shared_tiles,
        32,
        32,
        (32, 32)
    );
    rung!(
        "1-D register blocking",
        &new.sgemm_1d_blocking,
        64,
        64,
        (512, 1)
    );
    rung!(
        "2-D register blocking",
        &new.sgemm_2d_blocking,
        128,
        128,
        (256, 1)
    );
    rung!("vectorised", &new.sgemm_vectorised, 128, 128, (256, 1));
    rung!(
        "no bank conflicts",
        &new.sgemm_conflict_free,
        128,
        128,
        (256, 1)
    );
    rung!(
        "double-buffered",
        &new.sgemm_double_buffered,
        128,
        128,
        (256, 1)
    );
    rung!(
        "warp tiles",
        &new.sgemm_warp_tiles_128x128x8_64x32_1,
        128,
        128,
        (256, 1)
    );
    if let Some(copies) = &copies {
        rung!(
            "cp.async, 3 stages",
            &copies.sgemm_async_128x128x8_64x32_3_1,
            128,
            128,
            (256, 1)
        );
    }
    // ANCHOR_END: rungs

    exact_on_whole_numbers(&stream, &rungs, seed);

    // ANCHOR: data
    let shape = Shape { m, k, n };
    let mut rng = Rng::new(seed);
    let a_host = rng.vec_f32(m * k, -1.0, 1.0);
    let b_host = rng.vec_f32(k * n, -1.0, 1.0);
    let samples = Samples::new(&a_host, &b_host, shape, 4096, &mut rng);
    println!(
        "A {m}x{k}, B {k}x{n}, f32 in [-1, 1), seed {seed}; {} entries of C checked against f64",
        samples.len()
    );
    let a = stream.clone_htod(&a_host).or_exit("copy A to the GPU");
    let b = stream.clone_htod(&b_host).or_exit("copy B to the GPU");
    // ANCHOR_END: data

    // ANCHOR: ladder
    let blas = cublas(&stream);
    let mut c = alloc_poisoned::<f32>(&stream, m * n);
    let t_blas = time_gpu(&stream, 2, 10, || {
        cublas_sgemm(&blas, shape, &a, &b, &mut c)
    });
    let label = shape.label();
    // ANCHOR_END: ladder
    record(
        &format!("cuBLAS SGEMM, {label}"),
        &t_blas,
        Work::Flops(shape.flops()),
    );
    // ANCHOR: ladder
    let tflops = |ms: f64| shape.flops() / ms / 1e9;
    println!(
        "{:<28} {:>9} {:>13} {:>9} {:>10} {:>12}",
        "rung", "time", "rate", "of cuBLAS", "FLOP/B", "error/bound"
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
            "{:<28} {:>9} {:>6.2} TFLOP/s {:>8.1}% {:>10.2} {:>12.3}",
            rung.name,
            fmt_ms(t.median_ms),
            tflops(t.median_ms),
            100.0 * t_blas.median_ms / t.median_ms,
            rung.intensity,
            worst
        );
    }
    let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
    let worst = samples.worst_ratio(&got, n);
    all_within &= worst <= 1.0;
    println!(
        "{:<28} {:>9} {:>6.2} TFLOP/s {:>9} {:>10} {:>12.3}",
        "cuBLAS SGEMM",
        fmt_ms(t_blas.median_ms),
        tflops(t_blas.median_ms),
        "",
        "",
        worst
    );
    // ANCHOR_END: ladder
    println!(
        "every sampled entry within γ_K·Σ|a||b| (K = {k}, error/bound at most 1): {}",
        verdict(all_within)
    );
}

/// Every rung on whole numbers in [-8, 8] with sides that are multiples of no tile: each
/// product and every partial sum is a whole number below 2²⁴, exact in f32 in any order, so
/// the GPU must match the CPU's integer product exactly.
fn exact_on_whole_numbers(stream: &Arc<CudaStream>, rungs: &[Rung], seed: u64) {
    let shape = Shape {
        m: 131,
        k: 77,
        n: 259,
    };
    let Shape { m, k, n } = shape;
    let mut rng = Rng::new(seed);
    let a_host = whole_numbers(m * k, &mut rng);
    let b_host = whole_numbers(k * n, &mut rng);
    let want = integer_product(&a_host, &b_host, shape);
    let a = stream.clone_htod(&a_host).or_exit("copy A to the GPU");
    let b = stream.clone_htod(&b_host).or_exit("copy B to the GPU");
    let mut wrong = Vec::new();
    for rung in rungs {
        let mut c = alloc_poisoned::<f32>(stream, m * n);
        (rung.launch)(shape, &a, &b, &mut c);
        let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
        let mismatches = count_mismatches(&got, &want);
        if mismatches > 0 {
            wrong.push(format!("{} ({mismatches} wrong)", rung.name));
        }
    }
    println!(
        "whole numbers, {m}x{k} times {k}x{n}: {} of {} rungs exact{}: {}",
        rungs.len() - wrong.len(),
        rungs.len(),
        match wrong.is_empty() {
            true => String::new(),
            false => format!(", not {}", wrong.join(", ")),
        },
        verdict(wrong.is_empty())
    );
}
