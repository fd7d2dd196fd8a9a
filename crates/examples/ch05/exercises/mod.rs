//! The judge's entries for chapter 5's practice problems. The tile reverse is compared with the
//! CPU's exactly; the block sum's bits with the same float32 additions, in the kernel's order,
//! written out here, and with the exact sum of ones.
use std::sync::Arc;

use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, cuda, same};

mod block_sum;
mod block_sum_solution;
mod tile_reverse;
mod tile_reverse_solution;

use block_sum::THREADS;

type TileLaunchFn = fn(usize, usize) -> LaunchConfig;
type SumFn = fn(&[f32]) -> f32;

fn check_tile_launch(tile_launch: TileLaunchFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let tile = 32 << rng.below(6);
    let fresh = (tile * (1 + rng.below(5000) as usize), tile);
    for (n, tile) in [(1 << 20, 128), (1 << 20, 512), fresh] {
        let got = tile_launch(n, tile);
        let want = (
            ((n / tile) as u32, 1, 1),
            (tile as u32, 1, 1),
            4 * tile as u32,
        );
        if (got.grid_dim, got.block_dim, got.shared_mem_bytes) != want {
            return Err(format!(
                "tile_launch({n}, {tile}) has grid {:?}, blocks {:?} and {} bytes of shared memory, \
                 expected {:?}, {:?} and {}",
                got.grid_dim, got.block_dim, got.shared_mem_bytes, want.0, want.1, want.2
            ));
        }
    }
    Ok(())
}

fn check_tiles_gpu(gpu: &Gpu, tile_launch: TileLaunchFn, seed: u64) -> Result<(), String> {
    let n = 1 << 20;
    let x = Rng::new(seed).vec_f32(n, -1.0, 1.0);
    let s = &gpu.stream;
    let d_x = cuda(s.clone_htod(&x), "copy x to the GPU")?;
    let reverse = gpu.function("reverse_tiles_dynamic")?;
    for tile in [128, 512, 1024] {
        let mut d_out = alloc_poisoned::<f32>(s, n);
        let mut launch = s.launch_builder(&reverse);
        launch.arg(&d_x).arg(&mut d_out);
        cuda(
            unsafe { launch.launch(tile_launch(n, tile)) },
            "launch reverse_tiles_dynamic",
        )?;
        let out = cuda(s.clone_dtoh(&d_out), "copy out from the GPU")?;
        let want: Vec<f32> = x
            .chunks(tile)
            .flat_map(|t| t.iter().rev().copied())
            .collect();
        same(&format!("out (tiles of {tile})"), &out, &want)?;
    }
    Ok(())
}

/// The kernel's additions, one block after another, pass after pass.
fn tree_order_sum(x: &[f32]) -> f32 {
    let mut values = x.to_vec();
    loop {
        let mut sums = Vec::new();
        for block in values.chunks(THREADS) {
            let mut s = [0.0f32; THREADS];
            s[..block.len()].copy_from_slice(block);
            let mut stride = THREADS / 2;
            while stride > 0 {
                for t in 0..stride {
                    s[t] += s[t + stride];
                }
                stride /= 2;
            }
            sums.push(s[0]);
        }
        if sums.len() == 1 {
            return sums[0];
        }
        values = sums;
    }
}

fn same_bits(what: &str, got: f32, want: f32) -> Result<(), String> {
    match got.to_bits() == want.to_bits() {
        true => Ok(()),
        false => Err(format!("{what} is {got:e}, expected {want:e} to the bit")),
    }
}

fn check_sum_cpu(sum: SumFn, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(300_000) as usize;
    same_bits("the sum of 70,000 ones", sum(&vec![1.0; 70_000]), 70_000.0)?;
    for n in [1, 100_000, n] {
        let x = rng.vec_f32(n, 0.0, 1.0);
        same_bits(
            &format!("the sum of {n} random values"),
            sum(&x),
            tree_order_sum(&x),
        )?;
    }
    Ok(())
}

/// Launch `partial_sums` on `d_x`, then on its partial sums, until one value is left.
fn sum_on_gpu(
    s: &Arc<CudaStream>,
    partial_sums: &CudaFunction,
    d_x: &CudaSlice<f32>,
) -> Result<f32, String> {
    let mut len = d_x.len();
    let mut current: Option<CudaSlice<f32>> = None;
    while len > 1 || current.is_none() {
        let blocks = len.div_ceil(THREADS);
        let mut next = alloc_poisoned::<f32>(s, blocks);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let len_arg = len as i32;
        let mut launch = s.launch_builder(partial_sums);
        launch
            .arg(current.as_ref().unwrap_or(d_x))
            .arg(&len_arg)
            .arg(&mut next);
        cuda(unsafe { launch.launch(cfg) }, "launch block_partial_sums")?;
        current = Some(next);
        len = blocks;
    }
    let last = cuda(
        s.clone_dtoh(&current.expect("one pass ran")),
        "copy the sum from the GPU",
    )?;
    Ok(last[0])
}

fn check_sum_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let n = 1 << 24;
    let s = &gpu.stream;
    let partial_sums = gpu.function("block_partial_sums")?;
    let ones = cuda(s.clone_htod(&vec![1.0f32; n]), "copy to the GPU")?;
    same_bits(
        "the GPU's sum of 2^24 ones",
        sum_on_gpu(s, &partial_sums, &ones)?,
        n as f32,
    )?;
    let x = Rng::new(seed).vec_f32(n - 12_345, 0.0, 1.0);
    let d_x = cuda(s.clone_htod(&x), "copy to the GPU")?;
    let got = sum_on_gpu(s, &partial_sums, &d_x)?;
    same_bits(
        &format!("the GPU's sum of {} random values", x.len()),
        got,
        tree_order_sum(&x),
    )
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let tile_launch: TileLaunchFn = code.pick(
        tile_reverse::tile_launch,
        tile_reverse_solution::tile_launch,
    );
    let tile_source = code.pick(
        (
            "crates/examples/ch05/exercises/tile_reverse.rs",
            include_str!("tile_reverse.rs"),
        ),
        (
            "crates/examples/ch05/exercises/tile_reverse_solution.rs",
            include_str!("tile_reverse_solution.rs"),
        ),
    );
    let sum: SumFn = code.pick(
        block_sum::sum_in_kernel_order,
        block_sum_solution::sum_in_kernel_order,
    );
    let sum_source = code.pick(
        (
            "crates/examples/ch05/exercises/block_sum.rs",
            include_str!("block_sum.rs"),
        ),
        (
            "crates/examples/ch05/exercises/block_sum_solution.rs",
            include_str!("block_sum_solution.rs"),
        ),
    );
    vec![
        Exercise {
            name: "tile_reverse",
            cpu: Some(CpuPart {
                sources: vec![tile_source],
                check: Box::new(move |seed| check_tile_launch(tile_launch, seed)),
            }),
            gpu: Some(GpuPart {
                kernel: code.pick(
                    kernel_file!("ch05-exercise-tiles.cu"),
                    kernel_file!("ch05-tiles.cu"),
                ),
                sources: vec![tile_source],
                check: Box::new(move |gpu, seed| check_tiles_gpu(gpu, tile_launch, seed)),
            }),
        },
        Exercise {
            name: "block_sum",
            cpu: Some(CpuPart {
                sources: vec![sum_source],
                check: Box::new(move |seed| check_sum_cpu(sum, seed)),
            }),
            gpu: Some(GpuPart {
                kernel: code.pick(
                    kernel_file!("ch05-exercise-block-sum.cu"),
                    kernel_file!("ch05-block-sum.cu"),
                ),
                sources: vec![],
                check: Box::new(check_sum_gpu),
            }),
        },
    ]
}
