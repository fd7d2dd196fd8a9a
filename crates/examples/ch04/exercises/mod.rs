//! The judge's entries for chapter 4's exercises. The multiplier's products are compared with
//! the CPU's exactly: one IEEE multiplication, rounded once, on both sides.
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, cuda, same};

mod multiplier;
mod multiplier_solution;

// The learner's kernel file; the solution's `multiplier` takes the same arguments, so this
// launcher serves both.
mod ch04_exercise_multiplier {
    course::kernels!("ch04-exercise-multiplier.cu");
}

type ConfigFn = fn(usize) -> LaunchConfig;

fn check_config(config: ConfigFn, seed: u64) -> Result<(), String> {
    let fresh = 1 + Rng::new(seed).below(50_000_000) as usize;
    for n in [12_000_000, 1, 255, 256, 257, fresh] {
        let got = config(n);
        let blocks = n.div_ceil(256) as u32;
        let want = ((blocks, 1, 1), (256, 1, 1));
        if (got.grid_dim, got.block_dim) != want {
            return Err(format!(
                "launch_config({n}) has grid {:?} and blocks {:?}, expected {:?} and {:?}",
                got.grid_dim, got.block_dim, want.0, want.1
            ));
        }
    }
    Ok(())
}

fn check_gpu(gpu: &Gpu, config: ConfigFn, seed: u64) -> Result<(), String> {
    let n = 12_000_000usize;
    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(n, -1.0, 1.0);
    let ys = rng.vec_f64(n, -1.0, 1.0);
    let want: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| x * y).collect();
    let s = &gpu.stream;
    let xs_dev = cuda(s.clone_htod(&xs), "copy xs to the GPU")?;
    let ys_dev = cuda(s.clone_htod(&ys), "copy ys to the GPU")?;
    // A file without the kernel is a verdict: look for it before `load`, which would exit.
    gpu.function("multiplier")?;
    let k = ch04_exercise_multiplier::Kernels::load(&gpu.module);
    let n_arg = n as i32;
    let small_grid = LaunchConfig {
        grid_dim: (40, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    for (how, cfg) in [
        ("your launch_config", config(n)),
        ("a grid of 40 blocks", small_grid),
    ] {
        let mut zs_dev = alloc_poisoned::<f64>(s, n);
        // SAFETY: xs, ys and zs hold n elements each; the learner's kernel must keep to
        // i < n, on any grid, as the exercise asks (a file of exercises states no contract).
        let launched = unsafe {
            k.multiplier
                .launch(s, cfg, &xs_dev, &ys_dev, &mut zs_dev, n_arg)
        };
        cuda(launched, &format!("launch the multiplier with {how}"))?;
        let zs = cuda(s.clone_dtoh(&zs_dev), "copy zs from the GPU")?;
        same(&format!("zs, launched with {how},"), &zs, &want)?;
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let config: ConfigFn = code.pick(
        multiplier::launch_config,
        multiplier_solution::launch_config,
    );
    let source = code.pick(
        (
            "crates/examples/ch04/exercises/multiplier.rs",
            include_str!("multiplier.rs"),
        ),
        (
            "crates/examples/ch04/exercises/multiplier_solution.rs",
            include_str!("multiplier_solution.rs"),
        ),
    );
    vec![Exercise {
        name: "multiplier",
        cpu: Some(CpuPart {
            sources: vec![source],
            check: Box::new(move |seed| check_config(config, seed)),
        }),
        gpu: Some(GpuPart {
            kernel: code.pick(
                kernel_file!("ch04-exercise-multiplier.cu"),
                kernel_file!("ch04-multiplier.cu"),
            ),
            sources: vec![source],
            check: Box::new(move |gpu, seed| check_gpu(gpu, config, seed)),
        }),
    }]
}
