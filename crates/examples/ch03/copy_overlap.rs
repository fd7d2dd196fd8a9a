//! Overlapping copies with computation: data goes to the GPU in chunks, is worked on, and comes
//! back. On one stream every step waits for the one before; on three streams, with pinned host
//! memory, one chunk's copies run while another chunk's kernel does. From ordinary (pageable)
//! memory they cannot: the host waits for each copy back. Event timestamps show which is which.
use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice,
};

use course::compare::within_bound;
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel;
use course::kernel_file;
use course::random::Rng;
use course::timing::{fmt_gb_per_s, fmt_ms};

const CHUNKS: usize = 8;
/// f32 values per chunk by default: 64 MiB.
const CHUNK: usize = 1 << 24;
const TIMED: Option<CUevent_flags> = Some(CUevent_flags::CU_EVENT_DEFAULT);

mod ch03_streams {
    course::kernels!("ch03-streams.cu");
}

/// Where the host data lives.
enum Host {
    /// One page-locked buffer per chunk, in and out.
    Pinned(Vec<PinnedHostSlice<f32>>, Vec<PinnedHostSlice<f32>>),
    /// One ordinary Vec for everything, in and out.
    Pageable(Vec<f32>, Vec<f32>),
}

/// When each step of one chunk started and ended, as events.
struct Steps {
    stream: usize,
    marks: [CudaEvent; 4], // before copy in, after copy in, after kernel, after copy out
}

fn main() {
    // Fewer rounds by default under compute-sanitizer: the overlap, not the arithmetic, is the
    // lesson. At least 10, so that Newton's iteration has converged from every input.
    let (rounds, chunk, seed) = course::cli::parse(
        "Sends 8 chunks through copy in, kernel and copy out, on one stream and on three.",
        |args| {
            let rounds = args.usize(
                "ROUNDS",
                "the number of rounds of work per value",
                problem_size(150, 10),
                10,
                100_000,
            );
            // A chunk that is not a multiple of the block reaches the kernel's bounds test.
            let chunk = args.usize("CHUNK", "the f32 values per chunk", CHUNK, 1, 1 << 26);
            (rounds as i32, chunk, args.seed())
        },
    );
    let ctx = gpu_or_exit();
    println!("{}", describe(&ctx));
    let module = kernel::load(&ctx, &kernel_file!("ch03-streams.cu"), false);
    let k = ch03_streams::Kernels::load(&module);
    println!("seed {seed}");
    let input = Rng::new(seed).vec_f32(CHUNKS * chunk, 0.5, 4.0);
    let size = match (chunk * 4) % (1 << 20) {
        0 => format!("{} MiB", (chunk * 4) >> 20),
        _ => format!("{chunk} f32 values"),
    };
    println!("{CHUNKS} chunks of {size}: copy in, {rounds} rounds of work per value, copy out");

    let streams: Vec<Arc<CudaStream>> = (0..3)
        .map(|_| ctx.new_stream().or_exit("create a stream"))
        .collect();
    let mut buffers: Vec<CudaSlice<f32>> =
        streams.iter().map(|s| alloc_poisoned(s, chunk)).collect();

    let mut pinned = Host::Pinned(
        pinned_chunks(&ctx, chunk, Some(&input)),
        pinned_chunks(&ctx, chunk, None),
    );
    let mut pageable = Host::Pageable(input.clone(), vec![f32::NAN; input.len()]);
    run(
        &k.polish,
        rounds,
        &streams[..1],
        &mut buffers,
        &mut pinned,
        "one stream, pinned memory",
    );
    run(
        &k.polish,
        rounds,
        &streams,
        &mut buffers,
        &mut pinned,
        "three streams, pinned memory",
    );
    run(
        &k.polish,
        rounds,
        &streams,
        &mut buffers,
        &mut pageable,
        "three streams, pageable memory",
    );
}

fn pinned_chunks(
    ctx: &Arc<CudaContext>,
    chunk: usize,
    data: Option<&[f32]>,
) -> Vec<PinnedHostSlice<f32>> {
    (0..CHUNKS)
        .map(|c| {
            // SAFETY: the memory starts unset; every element is written just below (copied from
            // `data` or set to NaN) before anything reads it.
            let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<f32>(chunk, 0) }
                .or_exit("allocate pinned memory");
            let slice = pinned.as_mut_slice().or_exit("reach pinned memory");
            match data {
                Some(d) => slice.copy_from_slice(&d[c * chunk..(c + 1) * chunk]),
                None => slice.fill(f32::NAN),
            }
            pinned
        })
        .collect()
}

// ANCHOR: pipeline
/// Chunk c goes to stream c % streams.len(): copy in, kernel, copy out, each step bracketed by
/// events. Nothing here waits for the GPU, except what a pageable copy forces.
fn run(
    polish: &ch03_streams::Polish,
    rounds: i32,
    streams: &[Arc<CudaStream>],
    buffers: &mut [CudaSlice<f32>],
    host: &mut Host,
    title: &str,
) {
    reset_output(host);
    let first = &streams[0];
    let start = first.record_event(TIMED).or_exit("record an event");
    for s in &streams[1..] {
        s.wait(&start).or_exit("wait for an event");
    }
    let mut steps = Vec::new();
    let chunk = buffers[0].len();
    for c in 0..CHUNKS {
        let (i, stream) = (c % streams.len(), &streams[c % streams.len()]);
        let buffer = &mut buffers[i];
        let mark = || stream.record_event(TIMED).or_exit("record an event");
        let before = mark();
        match host {
            Host::Pinned(inp, _) => stream.memcpy_htod(&inp[c], buffer),
            Host::Pageable(inp, _) => stream.memcpy_htod(&inp[c * chunk..(c + 1) * chunk], buffer),
        }
        .or_exit("copy to the GPU");
        let copied_in = mark();
        let cfg = LaunchConfig::for_num_elems(chunk as u32);
        polish
            .launch(stream, cfg, &mut *buffer, rounds)
            .or_exit_launching(polish);
        let computed = mark();
        match host {
            Host::Pinned(_, out) => stream.memcpy_dtoh(&*buffer, &mut out[c]),
            Host::Pageable(_, out) => {
                stream.memcpy_dtoh(&*buffer, &mut out[c * chunk..(c + 1) * chunk])
            }
        }
        .or_exit("copy from the GPU");
        steps.push(Steps {
            stream: i,
            marks: [before, copied_in, computed, mark()],
        });
    }
    for s in &streams[1..] {
        first.join(s).or_exit("join the streams");
    }
    let end = first.record_event(TIMED).or_exit("record an event");
    let total = start.elapsed_ms(&end).or_exit("read the events") as f64;
    report(title, &start, total, (CHUNKS * chunk * 4) as f64, &steps);
    check(host);
}
// ANCHOR_END: pipeline

// ANCHOR: timeline
/// The timeline, in ms from the start event, and whether steps of different chunks overlapped.
fn report(title: &str, start: &CudaEvent, total: f64, bytes: f64, steps: &[Steps]) {
    let at = |e: &CudaEvent| start.elapsed_ms(e).or_exit("read the events") as f64;
    let spans: Vec<[(f64, f64); 3]> = steps
        .iter()
        .map(|s| {
            let t = s.marks.each_ref().map(at);
            [(t[0], t[1]), (t[1], t[2]), (t[2], t[3])]
        })
        .collect();
    println!(
        "{title}: {}, {} through the pipeline",
        fmt_ms(total),
        fmt_gb_per_s(2.0 * bytes, total)
    );
    println!(
        "  chunk stream      copy in (start end)        kernel (start end)      copy out (start end)"
    );
    for (c, (s, span)) in steps.iter().zip(&spans).enumerate() {
        print!("  {c:>5} {:>6}", s.stream);
        for (from, to) in span {
            print!("   {from:>8.2}ms {to:>8.2}ms");
        }
        println!();
    }
    let busy: f64 = spans.iter().flatten().map(|(a, b)| b - a).sum();
    println!(
        "  time the steps took, added up: {}; wall time: {}",
        fmt_ms(busy),
        fmt_ms(total)
    );
    // Two steps overlap if they share more than a tenth of the shorter one.
    let overlap = |a: (f64, f64), b: (f64, f64)| {
        a.1.min(b.1) - a.0.max(b.0) > 0.1 * (a.1 - a.0).min(b.1 - b.0)
    };
    let any = |x: usize, y: usize| {
        spans.iter().enumerate().any(|(i, p)| {
            spans
                .iter()
                .enumerate()
                .any(|(j, q)| i != j && overlap(p[x], q[y]))
        })
    };
    println!(
        "  a copy in ran while another chunk's kernel ran: {}",
        yes_no(any(0, 1))
    );
    println!(
        "  a copy out ran while another chunk's kernel ran: {}",
        yes_no(any(2, 1))
    );
    println!(
        "  a copy in ran while another chunk's copy out ran: {}",
        yes_no(any(0, 2))
    );
}
// ANCHOR_END: timeline

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn reset_output(host: &mut Host) {
    match host {
        Host::Pinned(_, out) => out.iter_mut().for_each(|c| {
            c.as_mut_slice()
                .or_exit("reach pinned memory")
                .fill(f32::NAN)
        }),
        Host::Pageable(_, out) => out.fill(f32::NAN),
    }
}

/// Newton's iteration from any positive start ends at sqrt(2): every value that came back must
/// be within float rounding of it. A chunk never copied back would still be NaN, which the
/// largest distance keeps.
fn check(host: &Host) {
    let largest = |v: &[f32]| {
        v.iter()
            .map(|&x| (x as f64 - std::f64::consts::SQRT_2).abs())
            .fold(0.0f64, |m, d| if d.is_nan() || d > m { d } else { m })
    };
    let distance = match host {
        Host::Pinned(_, out) => out
            .iter()
            .map(|c| largest(c.as_slice().or_exit("reach pinned memory")))
            .fold(0.0f64, |m, d| if d.is_nan() || d > m { d } else { m }),
        Host::Pageable(_, out) => largest(out),
    };
    let what = "  largest distance from sqrt(2) of a value that came back";
    println!("{}", within_bound(what, distance, 2e-7).0);
}
