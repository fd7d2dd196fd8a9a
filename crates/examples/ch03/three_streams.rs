//! Three independent computations (a * 2, b², sin c), each on its own stream: verified, timed
//! one at a time, and timed together. Kernels that leave most of the GPU idle overlap; kernels
//! that fill it have little room to.
use std::sync::Arc;

use cudarc::curand::CudaRng;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};

use course::compare::{count_mismatches, relative_error, verdict, within_bound};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::timing::{fmt_ms, fmt_times, time_gpu};

const THREADS: u32 = 256;

mod ch03_streams {
    course::kernels!("ch03-streams.cu");
}

/// One computation: its stream, its input, its output and the name of its kernel.
struct Job {
    name: &'static str,
    stream: Arc<CudaStream>,
    input: CudaSlice<f32>,
    output: CudaSlice<f32>,
    kernel: &'static str,
}

impl Job {
    fn launch(&mut self, k: &ch03_streams::Kernels, blocks: u32) {
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (stream, x, y) = (&self.stream, &self.input, &mut self.output);
        // The three launchers are of three types (their parameters have different names).
        match self.kernel {
            "times_two" => k
                .times_two
                .launch(stream, cfg, x, y)
                .or_exit_launching(&k.times_two),
            "square" => k
                .square
                .launch(stream, cfg, x, y)
                .or_exit_launching(&k.square),
            _ => k.sine.launch(stream, cfg, x, y).or_exit_launching(&k.sine),
        }
    }
}

fn main() {
    // A length that is not a multiple of the grid leaves some threads of the grid-stride
    // loops one trip short, and the last block of the full grid partly past the end.
    let (n, seed) = course::cli::parse(
        "Runs three independent kernels on three streams, alone and together.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of values per job (even)",
                    1 << 24,
                    2,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    if !n.is_multiple_of(2) {
        course::cli::fail(&format!(
            "the number of values must be even (cuRAND draws normal values in pairs), not {n}"
        ));
    }
    let ctx = gpu_or_exit();
    println!("{}", describe(&ctx));
    let module = kernel::load(&ctx, &kernel_file!("ch03-streams.cu"), false);
    let k = ch03_streams::Kernels::load(&module);
    println!("seed {seed}");

    // ANCHOR: setup
    // Each job's data is made on the job's own stream, where it is used: no job waits for another.
    let mut jobs: Vec<Job> = [
        ("a * 2", "times_two"),
        ("b ** 2", "square"),
        ("sin(c)", "sine"),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (name, kernel))| {
        let stream = ctx.new_stream().or_exit("create a stream");
        let rng = CudaRng::new(seed.wrapping_add(i as u64), stream.clone()).or_exit("start cuRAND");
        let mut input = alloc_poisoned::<f32>(&stream, n);
        rng.fill_with_normal(&mut input, 0.0, 1.0)
            .or_exit("fill with normal values");
        let output = alloc_poisoned::<f32>(&stream, n);
        Job {
            name,
            stream,
            input,
            output,
            kernel,
        }
    })
    .collect();
    // ANCHOR_END: setup

    let full = (n as u32).div_ceil(THREADS);
    for blocks in [32, full] {
        println!("each kernel on {blocks} blocks of {THREADS} threads, {n} f32 values per job:");
        // ANCHOR: alone
        let mut sum_alone = 0.0;
        for job in jobs.iter_mut() {
            let stream = job.stream.clone();
            let t = time_gpu(&stream, 2, 10, || job.launch(&k, blocks));
            println!(
                "  {:<7} alone on its stream: {:>9}",
                job.name,
                fmt_ms(t.median_ms)
            );
            sum_alone += t.median_ms;
        }
        // ANCHOR_END: alone
        let together = together_ms(&mut jobs, &k, blocks);
        println!("  sum of the three alone:         {:>9}", fmt_ms(sum_alone));
        println!(
            "  all three at once, three streams: {:>7}  ({} the sum)",
            fmt_ms(together),
            fmt_times(together / sum_alone)
        );
        check(&jobs);
    }
}

// ANCHOR: together
/// Median time of running all jobs at once. The first stream records a start event that the
/// others wait for; it then waits for the others' work and records the end.
fn together_ms(jobs: &mut [Job], k: &ch03_streams::Kernels, blocks: u32) -> f64 {
    let timed = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let first = jobs[0].stream.clone();
    let mut times = Vec::new();
    for rep in 0..12 {
        let start = first.record_event(timed).or_exit("record an event");
        for job in jobs.iter() {
            job.stream.wait(&start).or_exit("wait for an event");
        }
        for job in jobs.iter_mut() {
            job.launch(k, blocks);
        }
        for job in &jobs[1..] {
            first.join(&job.stream).or_exit("join the streams");
        }
        let end = first.record_event(timed).or_exit("record an event");
        let ms = start.elapsed_ms(&end).or_exit("read the events") as f64;
        if rep >= 2 {
            times.push(ms); // the first two are warm-up
        }
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
// ANCHOR_END: together

/// Each output against the CPU: a * 2 and b * b exactly, sin c to f32 accuracy.
fn check(jobs: &[Job]) {
    let host = |s: &CudaSlice<f32>, stream: &Arc<CudaStream>| {
        stream.clone_dtoh(s).or_exit("copy from the GPU")
    };
    for job in jobs {
        let x = host(&job.input, &job.stream);
        let got = host(&job.output, &job.stream);
        let exactly = |want: Vec<f32>| {
            let ok = count_mismatches(&got, &want) == 0;
            format!("  {:<7} matches the CPU exactly: {}", job.name, verdict(ok))
        };
        let line = match job.name {
            "a * 2" => exactly(x.iter().map(|v| 2.0 * v).collect()),
            "b ** 2" => exactly(x.iter().map(|v| v * v).collect()),
            _ => {
                let want: Vec<f64> = x.iter().map(|&v| (v as f64).sin()).collect();
                let got: Vec<f64> = got.iter().map(|&v| v as f64).collect();
                let what = format!("  {:<7} relative error against the CPU's f64 sin", job.name);
                within_bound(&what, relative_error(&got, &want), 1e-6).0
            }
        };
        println!("{line}");
    }
}
