//! The judge's entries for chapter 6's challenges. The warp maximum must equal the CPU's
//! exactly and, on equal values, issue at most one compare-and-swap per warp; the scans are
//! compared exactly with a serial scan written out here, and the CPU's scan is checked by a
//! property of every exclusive scan; the aggregated histogram's counts must be exact on
//! crowded, uniform and equal bytes.

/// This file's text: the judge's fingerprint hashes every chapter's checks.
pub const CHECKS: &str = include_str!("mod.rs");
use course::gpu::alloc_poisoned;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

use crate::exercise::{Code, CpuPart, Exercise, Gpu, GpuPart, Work, cuda, same};

mod scan;
mod scan_solution;

const THREADS: usize = 256;

// The learner's kernels have no contract, so their launchers are unsafe. In solution mode the
// module is ch06-challenges.cu, whose kernels of these names take the same arguments.
mod ch06_exercise_warp_max {
    course::kernels!("ch06-exercise-warp-max.cu");
}
mod ch06_exercise_scan {
    course::kernels!("ch06-exercise-scan.cu");
}
mod ch06_exercise_warp_histogram {
    course::kernels!("ch06-exercise-warp-histogram.cu");
}

fn launch_for(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(THREADS) as u32, 1, 1),
        block_dim: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The maximum and the number of atomicCAS calls of one run of `max_warp_first`; `timed`: the
/// run is timed.
fn warp_max(gpu: &Gpu, values: &[f32], timed: bool) -> Result<(f32, u32), String> {
    let s = &gpu.stream;
    // A file without the kernel is a verdict: look for it before `load`, which would exit.
    gpu.function("max_warp_first")?;
    let k = ch06_exercise_warp_max::Kernels::load(&gpu.module);
    let d_values = cuda(s.clone_htod(values), "copy the values to the GPU")?;
    let mut d_result = cuda(
        s.clone_htod(&[f32::NEG_INFINITY]),
        "copy -infinity to the GPU",
    )?;
    let mut d_attempts = cuda(s.clone_htod(&[0u32]), "copy 0 to the GPU")?;
    let n = values.len() as i32;
    let mut run = || {
        // SAFETY: n is the length of values, and result and attempts hold one element each;
        // the learner's kernel must read values[i] only for i < n, and write only *result and
        // *attempts, as the exercise's kernel file says.
        let launched = unsafe {
            k.max_warp_first.launch(
                s,
                launch_for(values.len()),
                &d_values,
                n,
                &mut d_result,
                &mut d_attempts,
            )
        };
        cuda(launched, "launch max_warp_first")
    };
    // The values read, 4 bytes each (the maximum and the count are 8 bytes more).
    if timed {
        gpu.timed(Work::Bytes(4.0 * values.len() as f64), run)?;
    } else {
        run()?;
    }
    let result = cuda(s.clone_dtoh(&d_result), "copy the maximum from the GPU")?;
    let attempts = cuda(s.clone_dtoh(&d_attempts), "copy the count from the GPU")?;
    Ok((result[0], attempts[0]))
}

fn check_warp_max(gpu: &Gpu, seed: u64) -> Result<(), String> {
    // 7 short of a whole number of warps, so that the last warp has lanes past the end.
    let n = (1 << 22) - 7;
    let random = Rng::new(seed).vec_f32(n, -100.0, 100.0);
    let mut ascending = random.clone();
    ascending.sort_by(f32::total_cmp);
    for (order, values) in [("random", &random), ("ascending", &ascending)] {
        let want = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        // The random order is the one timed; ascending is the worst case for the atomics.
        let (got, _) = warp_max(gpu, values, order == "random")?;
        if got.to_bits() != want.to_bits() {
            return Err(format!(
                "the maximum of {n} values in {order} order is {got}, expected {want}"
            ));
        }
    }
    // On equal values the first compare-and-swap to land settles every later loop, so lane 0
    // of each warp calls atomicCAS at most once; a thread-per-value loop would call it more.
    let warps = n.div_ceil(32) as u32;
    let (got, attempts) = warp_max(gpu, &vec![42.0; n], false)?;
    if got != 42.0 || attempts == 0 || attempts > warps {
        return Err(format!(
            "on {n} values all 42 it found {got} with {attempts} atomicCAS calls, expected 42 with \
             1 to {warps} (one warp, one call at most)"
        ));
    }
    Ok(())
}

/// Each warp's exclusive scan, one value after another.
fn serial_scan(values: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(values.len());
    for warp in values.chunks(32) {
        let mut sum = 0u32;
        for &v in warp {
            out.push(sum);
            sum = sum.wrapping_add(v);
        }
    }
    out
}

fn check_scan_cpu(scan: fn(&[u32]) -> Vec<u32>, seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(100_000) as usize;
    for n in [1, 32, 1000, n] {
        let values: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let got = scan(&values);
        if got.len() != n {
            return Err(format!("the scan of {n} values has {} elements", got.len()));
        }
        // Every warp starts at 0, and neighbours differ by the input value between them.
        for (w, (s, v)) in got.chunks(32).zip(values.chunks(32)).enumerate() {
            if let Some(k) = (0..s.len()).find(|&k| match k {
                0 => s[0] != 0,
                _ => s[k].wrapping_sub(s[k - 1]) != v[k - 1],
            }) {
                let want = serial_scan(&values)[32 * w + k];
                return Err(format!(
                    "element {} of the scan of {n} values is {}, expected {want}",
                    32 * w + k,
                    s[k]
                ));
            }
        }
    }
    Ok(())
}

fn check_scan_gpu(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let n = (1 << 20) + 13;
    let s = &gpu.stream;
    let mut rng = Rng::new(seed);
    let values: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let d_values = cuda(s.clone_htod(&values), "copy the values to the GPU")?;
    let mut d_out = alloc_poisoned::<u32>(s, n);
    let n_arg = n as i32;
    // A file without the kernels is a verdict: look for them before `load`, which would exit.
    gpu.function("exclusive_scan_warps")?;
    gpu.function("positions_two_ways")?;
    let k = ch06_exercise_scan::Kernels::load(&gpu.module);
    // Both kernels timed; the second, which moves more, is the one kept. Here n u32 read and
    // n written.
    gpu.timed(Work::Bytes(8.0 * n as f64), || {
        // SAFETY: n_arg is the length of values and of out; the learner's kernel must touch
        // in[i] and out[i] only for i < n, as the exercise's kernel file does.
        let launched = unsafe {
            k.exclusive_scan_warps
                .launch(s, launch_for(n), &d_values, &mut d_out, n_arg)
        };
        cuda(launched, "launch exclusive_scan_warps")
    })?;
    let got = cuda(s.clone_dtoh(&d_out), "copy the scan from the GPU")?;
    same("exclusive_scan_warps' out", &got, &serial_scan(&values))?;

    let floats = rng.vec_f32(n, 0.0, 1.0);
    let threshold = 0.5f32;
    let flags: Vec<u32> = floats.iter().map(|&v| u32::from(v > threshold)).collect();
    let want = serial_scan(&flags);
    let d_floats = cuda(s.clone_htod(&floats), "copy the values to the GPU")?;
    let mut d_by_scan = alloc_poisoned::<u32>(s, n);
    let mut d_by_ballot = alloc_poisoned::<u32>(s, n);
    // n f32 read, n u32 written twice.
    gpu.timed(Work::Bytes(12.0 * n as f64), || {
        // SAFETY: n_arg is the length of floats, by_scan and by_ballot; the learner's kernel
        // must touch their elements only below n, as the exercise's kernel file does.
        let launched = unsafe {
            k.positions_two_ways.launch(
                s,
                launch_for(n),
                &d_floats,
                n_arg,
                threshold,
                &mut d_by_scan,
                &mut d_by_ballot,
            )
        };
        cuda(launched, "launch positions_two_ways")
    })?;
    let by_scan = cuda(s.clone_dtoh(&d_by_scan), "copy by_scan from the GPU")?;
    let by_ballot = cuda(s.clone_dtoh(&d_by_ballot), "copy by_ballot from the GPU")?;
    same("positions_two_ways' by_scan", &by_scan, &want)?;
    same("positions_two_ways' by_ballot", &by_ballot, &want)
}

/// Bytes crowded around 128 (a normal distribution, standard deviation 20), uniform ones, and
/// bytes all equal, each counted exactly; the crowded ones are timed.
fn check_warp_histogram(gpu: &Gpu, seed: u64) -> Result<(), String> {
    let s = &gpu.stream;
    gpu.function("hist_global_aggregated")?;
    let k = ch06_exercise_warp_histogram::Kernels::load(&gpu.module);
    let n = (1 << 22) - 7; // the last warp reaches past the end
    let mut rng = Rng::new(seed);
    let crowded: Vec<u8> = (0..n)
        .map(|_| (128.0 + 20.0 * rng.normal()).round().clamp(0.0, 255.0) as u8)
        .collect();
    let uniform = rng.bytes(n);
    let inputs = [
        ("crowded", crowded),
        ("uniform", uniform),
        ("equal", vec![200u8; n]),
        ("one", vec![7u8]),
    ];
    for (what, bytes) in inputs {
        let mut want = vec![0u32; 256];
        bytes.iter().for_each(|&b| want[b as usize] += 1);
        let d_bytes = cuda(s.clone_htod(&bytes), "copy the bytes to the GPU")?;
        let mut d_bins = cuda(s.alloc_zeros::<u32>(256), "allocate the bins")?;
        let len = bytes.len() as i32;
        let mut run = || {
            cuda(s.memset_zeros(&mut d_bins), "clear the bins")?;
            // SAFETY: len is the length of bytes and bins holds 256; the learner's kernel must
            // read bytes[i] only for i < n and write only bins[0, 256), as its file says.
            let launched = unsafe {
                k.hist_global_aggregated.launch(
                    s,
                    launch_for(bytes.len()),
                    &d_bytes,
                    len,
                    &mut d_bins,
                )
            };
            cuda(launched, "launch hist_global_aggregated")
        };
        if what == "crowded" {
            gpu.timed(Work::Bytes(n as f64), &mut run)?;
        }
        run()?;
        let got = cuda(s.clone_dtoh(&d_bins), "copy the bins from the GPU")?;
        same(
            &format!("the bins of {} {what} bytes", bytes.len()),
            &got,
            &want,
        )?;
    }
    Ok(())
}

pub fn exercises(code: Code) -> Vec<Exercise> {
    let scan = code.pick(
        scan::exclusive_per_warp as fn(&[u32]) -> Vec<u32>,
        scan_solution::exclusive_per_warp,
    );
    let source = code.pick(
        (
            "crates/examples/ch06/exercises/scan.rs",
            include_str!("scan.rs"),
        ),
        (
            "crates/examples/ch06/exercises/scan_solution.rs",
            include_str!("scan_solution.rs"),
        ),
    );
    let solution = kernel_file!("ch06-challenges.cu");
    vec![
        Exercise {
            name: "warp_max",
            cpu: None,
            gpu: Some(GpuPart::kernel(
                code.pick(kernel_file!("ch06-exercise-warp-max.cu"), solution),
                check_warp_max,
            )),
        },
        Exercise {
            name: "scan",
            cpu: Some(CpuPart {
                sources: vec![source],
                check: Box::new(move |seed| check_scan_cpu(scan, seed)),
            }),
            gpu: Some(GpuPart::kernel(
                code.pick(kernel_file!("ch06-exercise-scan.cu"), solution),
                check_scan_gpu,
            )),
        },
        Exercise {
            name: "warp_histogram",
            cpu: None,
            gpu: Some(GpuPart::kernel(
                code.pick(kernel_file!("ch06-exercise-warp-histogram.cu"), solution),
                check_warp_histogram,
            )),
        },
    ]
}
