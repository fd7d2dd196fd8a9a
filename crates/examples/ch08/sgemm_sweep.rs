//! The last rung's tile shapes swept at one size (4096 unless given), each timed and checked;
//! the fastest is then timed again on its own, beside cuBLAS SGEMM, at that size and at twice
//! it, on fresh inputs, and checked there too.
use course::compare::verdict;
use course::gemm::{Samples, Shape, cublas, cublas_sgemm};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Timing, Work, fmt_ms, record, time_gpu};
use cudarc::driver::{CudaSlice, LaunchConfig};

mod ch08_sgemm {
    course::kernels!("ch08-sgemm.cu");
}
mod ch08_sgemm_async {
    course::kernels!("ch08-sgemm-async.cu");
}

type Launch<'a> = Box<dyn Fn(Shape, &CudaSlice<f32>, &CudaSlice<f32>, &mut CudaSlice<f32>) + 'a>;

fn main() {
    let (size, seed) = course::cli::parse(
        "Times the tile shapes of the warp-tiled SGEMM at N (4096 unless given), then the fastest again at N and 2N beside cuBLAS.",
        |args| {
            (
                args.usize("N", "the rows and columns of the matrices", 4096, 128, 8192),
                args.seed(),
            )
        },
    );
    // Under compute-sanitizer a smaller size, still a multiple of no tile.
    let size = problem_size(size, 200);
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let k = ch08_sgemm::Kernels::load(&load(&ctx, &kernel_file!("ch08-sgemm.cu"), false));
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

    // ANCHOR: candidates
    // (name, rows and columns of C per block, threads per block, launch)
    let mut candidates: Vec<(&str, Launch)> = Vec::new();
    macro_rules! candidate {
        ($file:expr, $name:ident, $rows:expr, $cols:expr, $threads:expr) => {{
            let (kernel, stream) = (&$file.$name, &stream);
            let launch: Launch = Box::new(move |s, a, b, c| {
                let config = LaunchConfig {
                    grid_dim: (s.n.div_ceil($cols) as u32, s.m.div_ceil($rows) as u32, 1),
                    block_dim: ($threads, 1, 1),
                    shared_mem_bytes: 0,
                };
                let (m, n, k) = (s.m as i32, s.n as i32, s.k as i32);
                kernel
                    .launch(stream, config, a, b, c, m, n, k)
                    .or_exit_launching(kernel)
            });
            candidates.push((stringify!($name), launch));
        }};
    }
    candidate!(k, sgemm_warp_tiles_128x128x8_64x32_1, 128, 128, 256);
    candidate!(k, sgemm_warp_tiles_128x128x8_32x64_1, 128, 128, 256);
    candidate!(k, sgemm_warp_tiles_128x128x16_64x32_1, 128, 128, 256);
    candidate!(k, sgemm_warp_tiles_128x128x16_64x32_2, 128, 128, 256);
    candidate!(k, sgemm_warp_tiles_128x128x16_32x64_2, 128, 128, 256);
    candidate!(k, sgemm_warp_tiles_128x64x8_64x32_1, 128, 64, 128);
    candidate!(k, sgemm_warp_tiles_64x128x8_32x64_1, 64, 128, 128);
    candidate!(k, sgemm_warp_tiles_64x128x8_32x64_4, 64, 128, 128);
    candidate!(k, sgemm_warp_tiles_128x64x16_64x32_1, 128, 64, 128);
    candidate!(k, sgemm_warp_tiles_64x128x16_32x64_1, 64, 128, 128);
    candidate!(k, sgemm_warp_tiles_64x128x16_32x64_4, 64, 128, 128);
    if let Some(c) = &copies {
        candidate!(c, sgemm_async_128x128x8_64x32_2_1, 128, 128, 256);
        candidate!(c, sgemm_async_128x128x8_64x32_3_1, 128, 128, 256);
        candidate!(c, sgemm_async_128x128x8_64x32_3_2, 128, 128, 256);
        candidate!(c, sgemm_async_128x128x8_64x32_4_1, 128, 128, 256);
        candidate!(c, sgemm_async_128x128x16_64x32_2_1, 128, 128, 256);
        candidate!(c, sgemm_async_128x128x16_64x32_2_2, 128, 128, 256);
        candidate!(c, sgemm_async_128x256x8_64x32_3_1, 128, 256, 512);
    }
    // ANCHOR_END: candidates

    // ANCHOR: sweep
    let shape = Shape {
        m: size,
        k: size,
        n: size,
    };
    let mut rng = Rng::new(seed);
    let a_host = rng.vec_f32(size * size, -1.0, 1.0);
    let b_host = rng.vec_f32(size * size, -1.0, 1.0);
    let samples = Samples::new(&a_host, &b_host, shape, 1024, &mut rng);
    let a = stream.clone_htod(&a_host).or_exit("copy A to the GPU");
    let b = stream.clone_htod(&b_host).or_exit("copy B to the GPU");
    println!(
        "sweep: {} shapes at n={size}, seed {seed}",
        candidates.len()
    );
    let mut best: Option<(usize, f64)> = None;
    let mut all_within = true;
    for (at, (name, launch)) in candidates.iter().enumerate() {
        let mut c = alloc_poisoned::<f32>(&stream, size * size);
        let t = time_gpu(&stream, 2, 10, || launch(shape, &a, &b, &mut c));
        let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
        let worst = samples.worst_ratio(&got, size);
        all_within &= worst <= 1.0;
        println!(
            "  {name:<36} {:>9} {:>6.2} TFLOP/s  error/bound {worst:.3}",
            fmt_ms(t.median_ms),
            shape.flops() / t.median_ms / 1e9
        );
        if best.is_none_or(|(_, ms)| t.median_ms < ms) {
            best = Some((at, t.median_ms));
        }
    }
    let Some((at, _)) = best else {
        course::cli::fail("there is no tile shape to sweep")
    };
    let (_, launch) = &candidates[at];
    // The winner by its place in the list: a name would be words, which the check compares exactly.
    println!(
        "fastest (varies): shape {} of {} in the list above",
        at + 1,
        candidates.len()
    );
    // ANCHOR_END: sweep

    // ANCHOR: again
    let blas = cublas(&stream);
    for size in [size, 2 * size] {
        let shape = Shape {
            m: size,
            k: size,
            n: size,
        };
        let mut rng = Rng::new(seed + 1);
        let a_host = rng.vec_f32(size * size, -1.0, 1.0);
        let b_host = rng.vec_f32(size * size, -1.0, 1.0);
        let samples = Samples::new(&a_host, &b_host, shape, 1024, &mut rng);
        let a = stream.clone_htod(&a_host).or_exit("copy A to the GPU");
        let b = stream.clone_htod(&b_host).or_exit("copy B to the GPU");
        let mut c = alloc_poisoned::<f32>(&stream, size * size);
        let t_blas = time_gpu(&stream, 2, 10, || {
            cublas_sgemm(&blas, shape, &a, &b, &mut c)
        });
        let mut c = alloc_poisoned::<f32>(&stream, size * size);
        let t = time_gpu(&stream, 2, 10, || launch(shape, &a, &b, &mut c));
        let got = stream.clone_dtoh(&c).or_exit("copy C back from the GPU");
        let worst = samples.worst_ratio(&got, size);
        all_within &= worst <= 1.0;
        let label = shape.label();
        // ANCHOR_END: again
        record(
            &format!("cuBLAS SGEMM, {label}"),
            &t_blas,
            Work::Flops(shape.flops()),
        );
        record(
            &format!("tuned warp tiles, {label}"),
            &t,
            Work::Flops(shape.flops()),
        );
        // ANCHOR: again
        report(&label, &t, &t_blas, shape, worst);
    }
    // ANCHOR_END: again
    println!(
        "every checked entry within γ_K·Σ|a||b| (error/bound at most 1): {}",
        verdict(all_within)
    );
}

fn report(label: &str, t: &Timing, t_blas: &Timing, shape: Shape, worst: f64) {
    let tflops = |ms: f64| shape.flops() / ms / 1e9;
    println!(
        "{label}: fastest {} {:.2} TFLOP/s, cuBLAS {} {:.2} TFLOP/s, {:.1}% of cuBLAS; error/bound {worst:.3}",
        fmt_ms(t.median_ms),
        tflops(t.median_ms),
        fmt_ms(t_blas.median_ms),
        tflops(t_blas.median_ms),
        100.0 * t_blas.median_ms / t.median_ms
    );
}
