//! Timing work on the CPU and on the GPU, and printing durations and rates.
//!
//! GPU work is timed with CUDA events after warm-up runs, and the median of the repetitions
//! is reported, beside the CPU time spent issuing the work (what `cupyx.profiler.benchmark`
//! calls CPU time). When `COURSE_METRICS` names a file, every measurement that has a rate is
//! appended to it for the GPU check's results table.

use std::io::Write;
use std::time::Instant;

use cudarc::driver::CudaStream;
use cudarc::driver::sys::CUevent_flags;

use crate::exit::OrExit;
use crate::sanitizer::sanitizing;

/// Medians over the timed repetitions, in milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Time on the GPU between two events (for CPU work: wall time).
    pub median_ms: f64,
    /// Time the CPU spent issuing the work, without waiting for it.
    pub cpu_ms: f64,
    pub reps: usize,
}

/// The middle value of `times` (the mean of the two middle ones for an even count).
pub fn median(times: &[f64]) -> f64 {
    let mut v = times.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Time `work`, which queues GPU work on `stream`: `warmup` untimed runs, then `reps` timed ones.
pub fn time_gpu(stream: &CudaStream, warmup: usize, reps: usize, mut work: impl FnMut()) -> Timing {
    assert!(reps > 0, "time_gpu needs at least one repetition");
    let (warmup, reps) = if sanitizing() { (0, 1) } else { (warmup, reps) };
    for _ in 0..warmup {
        work();
    }
    stream.synchronize().or_exit("finish the warm-up runs");
    // Events made with `record_event(None)` have timing disabled; ask for the default flags.
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = stream.record_event(flags).or_exit("create a CUDA event");
    let end = stream.record_event(flags).or_exit("create a CUDA event");
    let (mut gpu, mut cpu) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        start.record(stream).or_exit("record a CUDA event");
        let issued = Instant::now();
        work();
        cpu.push(issued.elapsed().as_secs_f64() * 1e3);
        end.record(stream).or_exit("record a CUDA event");
        gpu.push(start.elapsed_ms(&end).or_exit("read a CUDA event") as f64);
    }
    Timing {
        median_ms: median(&gpu),
        cpu_ms: median(&cpu),
        reps,
    }
}

/// Time CPU work: `warmup` untimed runs, then the median wall time of `reps` runs.
pub fn time_cpu<R>(warmup: usize, reps: usize, mut work: impl FnMut() -> R) -> Timing {
    assert!(reps > 0, "time_cpu needs at least one repetition");
    let (warmup, reps) = if sanitizing() { (0, 1) } else { (warmup, reps) };
    for _ in 0..warmup {
        std::hint::black_box(work());
    }
    let times: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(work());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let m = median(&times);
    Timing {
        median_ms: m,
        cpu_ms: m,
        reps,
    }
}

/// A duration with three significant digits and a unit: `812 ns`, `4.31 µs`, `12.0 ms`, `1.52 s`.
pub fn fmt_ms(ms: f64) -> String {
    let (value, unit) = if ms >= 1e3 {
        (ms / 1e3, "s")
    } else if ms >= 1.0 {
        (ms, "ms")
    } else if ms >= 1e-3 {
        (ms * 1e3, "µs")
    } else {
        (ms * 1e6, "ns")
    };
    format!("{} {unit}", three_digits(value))
}

/// Bytes per second as `GB/s` (10⁹ bytes), three significant digits.
pub fn fmt_gb_per_s(bytes: f64, ms: f64) -> String {
    format!("{} GB/s", three_digits(bytes / (ms * 1e-3) / 1e9))
}

/// Operations per second as `GFLOP/s` (10⁹ per second), three significant digits.
pub fn fmt_gflop_per_s(flops: f64, ms: f64) -> String {
    format!("{} GFLOP/s", three_digits(flops / (ms * 1e-3) / 1e9))
}

/// A ratio such as a speedup: `3.41x`.
pub fn fmt_times(ratio: f64) -> String {
    format!("{}x", three_digits(ratio))
}

/// How many times `fast_ms` fits in `slow_ms`, with the two times beside it:
/// `3.41x (12.3 ms / 3.61 ms)`. The output check masks a ratio only on a line that shows what
/// it divides.
pub fn fmt_speedup(slow_ms: f64, fast_ms: f64) -> String {
    format!(
        "{} ({} / {})",
        fmt_times(slow_ms / fast_ms),
        fmt_ms(slow_ms),
        fmt_ms(fast_ms)
    )
}

fn three_digits(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub use protocol::Work;

/// Reads back a time that [`fmt_ms`] wrote, as its two words (`4.31`, `µs`), in milliseconds.
pub use protocol::parse_duration_ms;

/// Append a measurement to the file named by `COURSE_METRICS` ([`protocol::METRICS_VAR`]), if
/// any. `label` names the measurement within the program, e.g. `adder n=1e8`.
pub fn record(label: &str, timing: &Timing, work: Work) {
    let Ok(path) = std::env::var(protocol::METRICS_VAR) else {
        return;
    };
    let metric = protocol::Metric {
        program: crate::cli::program_name(),
        label: label.into(),
        median_ms: timing.median_ms,
        work,
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(metric.line().as_bytes()));
    written.or_exit(&format!("append to the metrics file {path}"));
}
