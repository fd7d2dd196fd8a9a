//! Warp sums in five shuffle steps, on many warps at once: `__shfl_down_sync` (the sum ends in
//! lane 0) and the `__shfl_xor_sync` butterfly (it ends in every lane), on integers and on
//! floats, and a warp maximum. The CPU simulates the same 32 lanes doing the same five steps.
use std::ops::Add;
use std::sync::Arc;

use course::compare::{count_mismatches, relative_error, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::launch::{LaunchError, Launcher};
use course::random::Rng;
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, LaunchConfig, ValidAsZeroBits};
use rayon::prelude::*;

const WARP: usize = 32;
type Lanes<T> = [T; WARP];

mod ch06_shuffles {
    course::kernels!("ch06-shuffles.cu");
}

/// The launcher of the i32 kernels and that of the f32 kernels, as one generic `run` can call
/// them: both take `(x, out)` and compute `n` from them.
trait PerLane<T>: Launcher {
    fn launch_on(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        x: &CudaSlice<T>,
        out: &mut CudaSlice<T>,
    ) -> Result<(), LaunchError>;
}

impl PerLane<i32> for ch06_shuffles::WarpSumDownI32 {
    fn launch_on(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        x: &CudaSlice<i32>,
        out: &mut CudaSlice<i32>,
    ) -> Result<(), LaunchError> {
        self.launch(stream, cfg, x, out)
    }
}

impl PerLane<f32> for ch06_shuffles::WarpSumDownF32 {
    fn launch_on(
        &self,
        stream: &CudaStream,
        cfg: LaunchConfig,
        x: &CudaSlice<f32>,
        out: &mut CudaSlice<f32>,
    ) -> Result<(), LaunchError> {
        self.launch(stream, cfg, x, out)
    }
}

// ANCHOR: cpu_lanes
/// What `__shfl_down_sync(mask, v, delta)` hands each of 32 lanes: the value `delta` lanes
/// up, or, for the last `delta` lanes, their own.
fn shuffle_down<T: Copy>(v: &Lanes<T>, delta: usize) -> Lanes<T> {
    std::array::from_fn(|lane| {
        if lane + delta < WARP {
            v[lane + delta]
        } else {
            v[lane]
        }
    })
}

/// What `__shfl_xor_sync(mask, v, lane_mask)` hands each lane: the value of lane ^ lane_mask.
fn shuffle_xor<T: Copy>(v: &Lanes<T>, lane_mask: usize) -> Lanes<T> {
    std::array::from_fn(|lane| v[lane ^ lane_mask])
}

/// The five halving steps of `warp_sum_down`, done by all 32 lanes: what each lane ends with.
fn sum_down<T: Copy + Add<Output = T>>(mut v: Lanes<T>) -> Lanes<T> {
    for offset in [16, 8, 4, 2, 1] {
        let received = shuffle_down(&v, offset);
        for lane in 0..WARP {
            v[lane] = v[lane] + received[lane];
        }
    }
    v
}

/// The butterfly of `warp_sum_xor`: at every step each lane and its partner add each other's
/// value, so both end the step with the same number.
fn sum_xor<T: Copy + Add<Output = T>>(mut v: Lanes<T>) -> Lanes<T> {
    for lane_mask in [16, 8, 4, 2, 1] {
        let received = shuffle_xor(&v, lane_mask);
        for lane in 0..WARP {
            v[lane] = v[lane] + received[lane];
        }
    }
    v
}

/// The butterfly with `max` in place of `+`, as `warp_max_xor` does with `fmaxf`.
fn max_xor(mut v: Lanes<f32>) -> Lanes<f32> {
    for lane_mask in [16, 8, 4, 2, 1] {
        let received = shuffle_xor(&v, lane_mask);
        for lane in 0..WARP {
            v[lane] = v[lane].max(received[lane]);
        }
    }
    v
}
// ANCHOR_END: cpu_lanes

/// `step` applied to every warp's 32 consecutive elements of `x`, in parallel with rayon.
fn every_warp<T: Copy + Send + Sync>(x: &[T], step: fn(Lanes<T>) -> Lanes<T>) -> Vec<T> {
    x.par_chunks_exact(WARP)
        .flat_map_iter(|warp| step(warp.try_into().expect("32 lanes")))
        .collect()
}

/// Run `kernel(x, out, n)` with 256 threads per block; every lane writes what it ends with.
fn run<T: DeviceRepr + ValidAsZeroBits + Default + Clone + Unpin>(
    stream: &Arc<CudaStream>,
    kernel: &impl PerLane<T>,
    x: &[T],
) -> Vec<T> {
    let n = x.len();
    let d_x = stream.clone_htod(x).or_exit("copy the input to the GPU");
    let mut d_out = alloc_poisoned::<T>(stream, n);
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(256) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    kernel
        .launch_on(stream, cfg, &d_x, &mut d_out)
        .or_exit_launching(kernel);
    stream
        .clone_dtoh(&d_out)
        .or_exit("copy the result from the GPU")
}

/// In how many warps every one of the 32 lanes holds `want[w]`.
fn warps_where_all_lanes_hold<T: PartialEq + Sync>(got: &[T], want: &[T]) -> usize {
    got.par_chunks_exact(WARP)
        .zip(want)
        .filter(|(lanes, w)| lanes.iter().all(|v| v == *w))
        .count()
}

fn main() {
    let seed = course::cli::parse(
        "Warp sums and maxima in five shuffle steps, against the CPU doing the same steps.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-shuffles.cu"), false);
    let k = ch06_shuffles::Kernels::load(&module);

    let n = problem_size(1 << 24, 1 << 16);
    let warps = n / WARP;
    let mut rng = Rng::new(seed);
    println!("{n} values in {warps} warps of 32 lanes; seed {seed}");

    // ANCHOR: integers
    // Integers: any order of additions gives the same sum, so the checks are exact.
    let ints: Vec<i32> = (0..n).map(|_| rng.below(2001) as i32 - 1000).collect();
    let int_sums: Vec<i32> = ints
        .par_chunks_exact(WARP)
        .map(|w| w.iter().sum())
        .collect();

    let down = run(&stream, &k.warp_sum_down_i32, &ints);
    let lane0: Vec<i32> = down.iter().step_by(WARP).copied().collect();
    println!("i32, __shfl_down_sync:");
    // ANCHOR_END: integers
    println!(
        "  lane 0 holds its warp's sum, in every warp: {}",
        verdict(lane0 == int_sums)
    );
    // ANCHOR: integers
    println!(
        "  warps in which all 32 lanes hold the sum: {} of {warps}",
        warps_where_all_lanes_hold(&down, &int_sums)
    );
    // ANCHOR_END: integers
    println!(
        "  every lane equals the CPU's five steps: {}",
        verdict(down == every_warp(&ints, sum_down))
    );
    // ANCHOR: integers

    let xor = run(&stream, &k.warp_sum_xor_i32, &ints);
    let all_hold = warps_where_all_lanes_hold(&xor, &int_sums);
    println!("i32, __shfl_xor_sync:");
    // ANCHOR_END: integers
    println!(
        "  warps in which all 32 lanes hold the sum, {all_hold} of {warps}: {}",
        verdict(all_hold == warps)
    );
    println!(
        "  every lane equals the CPU's five steps: {}",
        verdict(xor == every_warp(&ints, sum_xor))
    );

    // ANCHOR: floats
    // Floats: the CPU does the same float32 additions in the same order, so every lane must
    // match it bit for bit; lane 0 must also be within 1e-6 of a float64 sum of the warp.
    let floats = rng.vec_f32(n, -1.0, 1.0);
    let f64_sums: Vec<f64> = floats
        .par_chunks_exact(WARP)
        .map(|w| w.iter().map(|&v| v as f64).sum())
        .collect();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    for (kernel, shuffle, cpu) in [
        (
            &k.warp_sum_down_f32,
            "__shfl_down_sync",
            sum_down::<f32> as fn(Lanes<f32>) -> Lanes<f32>,
        ),
        (&k.warp_sum_xor_f32, "__shfl_xor_sync", sum_xor::<f32>),
    ] {
        let got = run(&stream, kernel, &floats);
        let same_bits = count_mismatches(&bits(&got), &bits(&every_warp(&floats, cpu)));
        let lane0: Vec<f64> = got.iter().step_by(WARP).map(|&v| v as f64).collect();
        let error = relative_error(&lane0, &f64_sums);
        println!("f32, {shuffle}:");
        // ANCHOR_END: floats
        println!(
            "  every lane's bits equal the CPU's five steps ({same_bits} lanes differ): {}",
            verdict(same_bits == 0)
        );
        let (line, _) = within_bound(
            "  lane 0 against a float64 sum: relative error",
            error,
            1e-6,
        );
        println!("{line}");
        // ANCHOR: floats
    }

    // A maximum is exact in any order.
    let maxima: Vec<f32> = floats
        .par_chunks_exact(WARP)
        .map(|w| w.iter().copied().fold(f32::MIN, f32::max))
        .collect();
    let got = run(&stream, &k.warp_max_xor_f32, &floats);
    let all_hold = warps_where_all_lanes_hold(&got, &maxima);
    println!("f32 maximum, __shfl_xor_sync with fmaxf:");
    // ANCHOR_END: floats
    println!(
        "  warps in which all 32 lanes hold the maximum, {all_hold} of {warps}: {}",
        verdict(all_hold == warps)
    );
    println!(
        "  every lane equals the CPU's five steps: {}",
        verdict(got == every_warp(&floats, max_xor))
    );
}
