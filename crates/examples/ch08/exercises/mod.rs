//! The judge's entry for chapter 8's challenge, the register-blocked inner loop. The kernel's C
//! is compared on several shapes, most of them multiples of no tile, in two ways: exactly with
//! an integer product on whole numbers in [-8, 8] (every product and partial sum is a whole
//! number below 2²⁴, so exact in f32 in any order), and within γ_k·Σ|a||b| of a float64
//! product on random floats in [-1, 1) (`course::gemm::gamma`). C reaches past its m·n
//! elements, poisoned, so that a write outside it is seen.
use course::gemm::gamma;
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

use crate::exercise::{Code, Exercise, Gpu, GpuPart, cuda};

// The launcher of the learner's kernel. Its file states the contract that ch08-sgemm.cu states
// for sgemm_2d_blocking, which takes the same arguments, so the one launcher type serves both.
mod ch08_exercise_blocking {
    course::kernels!("ch08-exercise-blocking.cu");
}
use ch08_exercise_blocking::Sgemm2dBlockingExercise as Launcher;

/// m×k times k×n: awkward shapes first (one element, k below a tile, sides that are
/// multiples of no tile), then whole tiles.
const SHAPES: [(usize, usize, usize); 6] = [
    (131, 77, 259),
    (1, 1, 1),
    (200, 3, 129),
    (1, 300, 130),
    (129, 9, 1),
    (256, 64, 128),
];

/// The product that `launcher` computes of `a` (m×k) and `b` (k×n), as in `sgemm_ladder`.
fn product(
    gpu: &Gpu,
    launcher: &Launcher,
    a: &[f32],
    b: &[f32],
    (m, k, n): (usize, usize, usize),
) -> Result<Vec<f32>, String> {
    let s = &gpu.stream;
    let a_dev = cuda(s.clone_htod(a), "copy A to the GPU")?;
    let b_dev = cuda(s.clone_htod(b), "copy B to the GPU")?;
    // C and, past it, room for every place a grid of 128×128 tiles could write.
    let len = m * n + 128 * n + 128;
    let mut c_dev = alloc_poisoned::<f32>(s, len);
    let config = LaunchConfig {
        grid_dim: (n.div_ceil(128) as u32, m.div_ceil(128) as u32, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let (mi, ni, ki) = (m as i32, n as i32, k as i32);
    let launched = launcher.launch(
        s,
        config,
        &a_dev,
        &b_dev,
        &mut c_dev.slice_mut(..m * n),
        mi,
        ni,
        ki,
    );
    cuda(launched, &format!("launch {}", launcher.name))?;
    let c = cuda(s.clone_dtoh(&c_dev), "copy C from the GPU")?;
    if let Some(i) = c[m * n..].iter().position(|v| v.to_bits() != u32::MAX) {
        return Err(format!(
            "C[{}] was written, past the end of its {m}x{n} elements ({m}x{k} times {k}x{n})",
            m * n + i
        ));
    }
    Ok(c[..m * n].to_vec())
}

fn check_blocking_gpu(gpu: &Gpu, name: &'static str, seed: u64) -> Result<(), String> {
    // A file without the kernel is a verdict: look for it before launching.
    let launcher = Launcher {
        function: gpu.function(name)?,
        name,
    };
    let mut rng = Rng::new(seed);
    let mut side = || 1 + rng.below(300) as usize;
    let fresh = (side(), side(), side());
    for (m, k, n) in SHAPES.into_iter().chain([fresh]) {
        let shape = format!("{m}x{k} times {k}x{n}");
        let mut whole =
            |len: usize| -> Vec<f32> { (0..len).map(|_| rng.below(17) as f32 - 8.0).collect() };
        let (a, b) = (whole(m * k), whole(k * n));
        let c = product(gpu, &launcher, &a, &b, (m, k, n))?;
        for i in 0..m {
            for j in 0..n {
                let want: i64 = (0..k)
                    .map(|p| a[i * k + p] as i64 * b[p * n + j] as i64)
                    .sum();
                let got = c[i * n + j];
                if got != want as f32 {
                    return Err(format!(
                        "C[{i}][{j}] of {shape}, whole numbers, is {got}, expected {want}"
                    ));
                }
            }
        }
        let a = rng.vec_f32(m * k, -1.0, 1.0);
        let b = rng.vec_f32(k * n, -1.0, 1.0);
        let c = product(gpu, &launcher, &a, &b, (m, k, n))?;
        for i in 0..m {
            for j in 0..n {
                let (mut want, mut size) = (0.0f64, 0.0f64);
                for p in 0..k {
                    let term = a[i * k + p] as f64 * b[p * n + j] as f64;
                    want += term;
                    size += term.abs();
                }
                let (got, bound) = (c[i * n + j] as f64, gamma(k) * size);
                let within = (got - want).abs() <= bound; // false for NaN
                if !within {
                    return Err(format!(
                        "C[{i}][{j}] of {shape}, random floats, is {got:e}, expected {want:e} \
                         within {bound:e} (γ_k·Σ|a||b|)"
                    ));
                }
            }
        }
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let name = code.pick("sgemm_2d_blocking_exercise", "sgemm_2d_blocking");
    vec![Exercise {
        name: "blocking_2d",
        cpu: None,
        gpu: Some(GpuPart {
            kernel: code.pick(
                kernel_file!("ch08-exercise-blocking.cu"),
                kernel_file!("ch08-sgemm.cu"),
            ),
            sources: vec![],
            check: Box::new(move |gpu, seed| check_blocking_gpu(gpu, name, seed)),
        }),
    }]
}
