//! The judge's entries for chapter 3's exercises. Both versions of the broadcast product are
//! compared with a plain triple loop, within 1e-12 relative (the order of the sums may differ).
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;
use ndarray::Array2;

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, close, cuda};

mod broadcast;
mod broadcast_solution;

// The exercise file's launchers; the solution file declares the same two kernels alike.
mod ch03_exercise_broadcast {
    course::kernels!("ch03-exercise-broadcast.cu");
}

const TOLERANCE: f64 = 1e-12;

fn random_matrix(rng: &mut Rng, rows: usize, cols: usize) -> Array2<f64> {
    Array2::from_shape_vec((rows, cols), rng.vec_f64(rows * cols, -1.0, 1.0)).expect("shape")
}

fn triple_loop(a: &Array2<f64>, b: &Array2<f64>) -> Vec<f64> {
    let (m, n, p) = (a.nrows(), a.ncols(), b.ncols());
    let mut c = vec![0.0; m * p];
    for i in 0..m {
        for j in 0..p {
            c[i * p + j] = (0..n).map(|k| a[[i, k]] * b[[k, j]]).sum();
        }
    }
    c
}

fn check_cpu(f: fn(&Array2<f64>, &Array2<f64>) -> Array2<f64>, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let (m, n, p) = (
        1 + rng.below(40) as usize,
        1 + rng.below(40) as usize,
        1 + rng.below(40) as usize,
    );
    for (m, n, p) in [(2, 2, 2), (m, n, p)] {
        let (a, b) = (random_matrix(&mut rng, m, n), random_matrix(&mut rng, n, p));
        let c = f(&a, &b);
        if c.dim() != (m, p) {
            return Err(format!(
                "C is {:?} for a {m} x {n} times a {n} x {p}, expected ({m}, {p})",
                c.dim()
            ));
        }
        let got: Vec<f64> = c.iter().copied().collect();
        close(
            &format!("C ({m} x {n} times {n} x {p})"),
            &got,
            &triple_loop(&a, &b),
            TOLERANCE,
        )?;
    }
    Ok(())
}

/// The challenge's sizes, 100 x 1000 times 1000 x 100, through the two kernels.
fn check_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let (m, n, p) = (100usize, 1000usize, 100usize);
    let mut rng = Rng::new(seed);
    let (a, b) = (random_matrix(&mut rng, m, n), random_matrix(&mut rng, n, p));
    let s = &gpu.stream;
    let a_gpu = cuda(
        s.clone_htod(a.as_slice().expect("standard layout")),
        "copy A to the GPU",
    )?;
    let b_gpu = cuda(
        s.clone_htod(b.as_slice().expect("standard layout")),
        "copy B to the GPU",
    )?;
    let mut products = alloc_poisoned::<f64>(s, m * n * p);
    let mut c = alloc_poisoned::<f64>(s, m * p);
    let (mi, ni, pi) = (m as i32, n as i32, p as i32);
    // A missing kernel is the learner's to fix: a verdict, where `Kernels::load` would exit.
    gpu.function("broadcast_multiply")?;
    gpu.function("sum_middle_axis")?;
    let k = ch03_exercise_broadcast::Kernels::load(&gpu.module);
    let cfg = |elements: usize| LaunchConfig {
        grid_dim: (elements.div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: one thread per product, in blocks of 256, for buffers of m * n, n * p and
    // m * n * p values: the learner's kernel must return for idx >= m * n * p and read a and b
    // only at i * n + k and k * p + j, as the file's comments ask.
    let launched = unsafe {
        k.broadcast_multiply
            .launch(s, cfg(m * n * p), &a_gpu, &b_gpu, &mut products, mi, ni, pi)
    };
    cuda(launched, "launch broadcast_multiply")?;
    // SAFETY: one thread per element of c (m * p values); the learner's kernel must return for
    // idx >= m * p and read prod only below m * n * p.
    let launched = unsafe {
        k.sum_middle_axis
            .launch(s, cfg(m * p), &products, &mut c, mi, ni, pi)
    };
    cuda(launched, "launch sum_middle_axis")?;
    let got = cuda(s.clone_dtoh(&c), "copy C from the GPU")?;
    close("C", &got, &triple_loop(&a, &b), TOLERANCE)
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let f = code.pick(
        broadcast::matmul_broadcast as fn(&Array2<f64>, &Array2<f64>) -> Array2<f64>,
        broadcast_solution::matmul_broadcast,
    );
    let source = code.pick(
        (
            "crates/examples/ch03/exercises/broadcast.rs",
            include_str!("broadcast.rs"),
        ),
        (
            "crates/examples/ch03/exercises/broadcast_solution.rs",
            include_str!("broadcast_solution.rs"),
        ),
    );
    vec![Exercise {
        name: "broadcast",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |seed| check_cpu(f, seed)),
        }),
        gpu: Some(GpuPart {
            kernel: code.pick(
                kernel_file!("ch03-exercise-broadcast.cu"),
                kernel_file!("ch03-broadcast.cu"),
            ),
            sources: vec![],
            check: Box::new(check_gpu),
        }),
    }]
}
