//! Chapter 5's 256-bin histogram of bytes written in Rust: a private histogram per cube in
//! shared memory, counted with shared atomics while each unit reads 16 bytes at a time in a
//! grid-stride loop, then merged into the global bins. Its C++ twin is `hist_shared_wide` of
//! `kernels/ch05-histogram.cu`, the fastest histogram of chapter 5.

use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::OrExit;
use course::kernel::{KernelFile, load};
use course::random::Rng;
use course::timing::{Timing, fmt_ms, time_gpu};
use cubecl::prelude::*;
use cudarc::driver::{CudaContext, LaunchConfig};
use rayon::prelude::*;

use crate::args::ProblemSize;
use crate::device::Gpu;
use crate::timing::{REPS, WARMUP, first_launch, time_batches};
use crate::{mutant, report};

pub const SIZE: ProblemSize = ProblemSize {
    what: "the number of bytes",
    min: 1,
    max: 1 << 30,
    cuda: 1 << 28,
    // Not a multiple of 16: the tail loop runs.
    wgpu: (1 << 22) + 5,
};

const BINS: usize = 256;

// ANCHOR: kernel
/// Counts the first `count` bytes of `words` (little-endian, 4 to a word) into `bins`, which must
/// start at zero. `pieces` is the same buffer read 16 bytes at a time (N = 4 words); cubes of
/// exactly BINS units.
#[cube(launch_unchecked)]
pub fn histogram_shared<N: Size>(
    pieces: &Array<Vector<u32, N>>,
    words: &Array<u32>,
    count: u32,
    bins: &mut Array<Atomic<u32>>,
    #[comptime] skip_tail: bool,
) {
    let local = SharedMemory::<Atomic<u32>>::new(BINS);
    let t = UNIT_POS as usize;
    local[t].store(0); // shared memory starts with whatever was there
    sync_cube();

    let stride = CUBE_COUNT * CUBE_DIM as usize;
    let whole = (count / 16) as usize;
    let mut p = ABSOLUTE_POS;
    while p < whole {
        let piece = pieces[p];
        #[unroll]
        for w in 0..N::value() {
            let word = piece[w];
            #[unroll]
            for b in 0..4u32 {
                local[((word >> (8 * b)) & 0xFF) as usize].fetch_add(1);
            }
        }
        p += stride;
    }
    if !skip_tail {
        // The last count % 16 bytes, one per unit.
        let mut i = whole * 16 + ABSOLUTE_POS;
        while i < count as usize {
            let byte = (words[i / 4] >> (8 * (i % 4) as u32)) & 0xFF;
            local[byte as usize].fetch_add(1);
            i += stride;
        }
    }
    sync_cube();
    bins[t].fetch_add(local[t].load()); // the merge: BINS global atomics per cube
}
// ANCHOR_END: kernel

mod ch05_histogram {
    course::kernels!("ch05-histogram.cu");
}

const CH05_HISTOGRAM: KernelFile = KernelFile {
    name: "ch05-histogram.cu",
    source: include_str!("../../../../kernels/ch05-histogram.cu"),
};

/// Cubes on wgpu, where the SMs are not counted.
const WGPU_CUBES: u32 = 64;

/// The bytes as little-endian words, padded with zeros to whole 16-byte pieces (the padding is
/// past `n`, and never counted).
fn as_words(bytes: &[u8]) -> Vec<u32> {
    let mut words = vec![0u32; bytes.len().div_ceil(16) * 4];
    for (word, chunk) in words.iter_mut().zip(bytes.chunks(4)) {
        let mut four = [0u8; 4];
        four[..chunk.len()].copy_from_slice(chunk);
        *word = u32::from_le_bytes(four);
    }
    words
}

pub fn run<R: Runtime>(gpu: &Gpu<R>, n: usize, seed: u64) {
    let bytes = Rng::new(seed).bytes(n);
    println!("{n} random bytes into {BINS} bins, seed {seed}");
    let started = std::time::Instant::now();
    let want = bytes
        .par_chunks(1 << 16)
        .map(|chunk| {
            let mut bins = [0u32; BINS];
            chunk.iter().for_each(|&b| bins[b as usize] += 1);
            bins
        })
        .reduce(
            || [0u32; BINS],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    println!(
        "CPU, rayon: {}",
        fmt_ms(started.elapsed().as_secs_f64() * 1e3)
    );

    let sms = gpu.cuda.as_ref().map(|ctx| {
        ctx.attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .or_exit("count the SMs") as u32
    });
    // As the C++ twin: a few cubes per SM, each looping over the data.
    let cubes = sms.map_or(WGPU_CUBES, |sms| 4 * sms);
    let machine = if sms.is_some() { " (this machine)" } else { "" };
    println!("CubeCL histogram_shared: {cubes} cubes of {BINS} units, 16 bytes per load{machine}");
    let words = as_words(&bytes);
    let words_d = gpu.upload(&words);
    let skip_tail = mutant::is("histogram-no-tail");
    let launch = |bins: &cubecl::server::Handle| {
        // SAFETY: `words` holds whole 16-byte pieces covering the n bytes (both arrays are
        // given its length in words); the kernel reads pieces below n / 16 and words below n / 4
        // rounded up, and writes the BINS bins, one per unit of cubes of BINS units.
        unsafe {
            histogram_shared::launch_unchecked::<R>(
                &gpu.client,
                CubeCount::Static(cubes, 1, 1),
                CubeDim::new_1d(BINS as u32),
                4,
                ArrayArg::from_raw_parts(words_d.clone(), words.len()),
                ArrayArg::from_raw_parts(words_d.clone(), words.len()),
                n as u32,
                ArrayArg::from_raw_parts(bins.clone(), BINS),
                skip_tail,
            )
        }
    };
    let bins_d = gpu.upload(&[0u32; BINS]);
    let first = first_launch(|| gpu.sync(), || launch(&bins_d));
    let got: Vec<u32> = gpu.download(bins_d);
    check("CubeCL", &got, &want, n);
    report::compilation("CubeCL histogram_shared", first);

    let batch = report::batch(gpu.cuda.is_some());
    let timed_bins = gpu.upload(&[0u32; BINS]);
    let cubecl = time_batches(batch, || gpu.sync(), || launch(&timed_bins));
    report::method(batch);
    report::rate("CubeCL histogram_shared", &cubecl, n as f64);
    if let Some(ctx) = &gpu.cuda {
        let cpp = cpp_twin(ctx, &bytes, &want, cubes, batch);
        report::ratio(&cubecl, &cpp);
    }
}

fn check(who: &str, got: &[u32], want: &[u32], n: usize) {
    let wrong = count_mismatches(got, want);
    println!(
        "{who} bins that differ from the CPU's: {wrong} of {BINS}: {}",
        verdict(wrong == 0)
    );
    let counted: u64 = got.iter().map(|&c| c as u64).sum();
    println!(
        "{who} bytes counted: {counted} of {n}: {}",
        verdict(counted == n as u64)
    );
}

/// The C++ `hist_shared_wide` on the same bytes and the same grid: checked, then timed.
fn cpp_twin(
    ctx: &Arc<CudaContext>,
    bytes: &[u8],
    want: &[u32],
    blocks: u32,
    batch: usize,
) -> Timing {
    let stream = ctx.default_stream();
    let kernels = ch05_histogram::Kernels::load(&load(ctx, &CH05_HISTOGRAM, false));
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BINS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let bytes_d = stream
        .clone_htod(bytes)
        .or_exit("copy the bytes to the GPU");
    let mut bins = stream.alloc_zeros::<u32>(BINS).or_exit("allocate the bins");
    let launch = |bins: &mut cudarc::driver::CudaSlice<u32>| {
        kernels
            .hist_shared_wide
            .launch(&stream, config, &bytes_d, bins)
            .or_exit_launching(&kernels.hist_shared_wide)
    };
    launch(&mut bins);
    let got = stream.clone_dtoh(&bins).or_exit("copy the bins back");
    let batched = time_batches(
        batch,
        || stream.synchronize().or_exit("wait for the GPU"),
        || launch(&mut bins),
    );
    let events = time_gpu(&stream, WARMUP, REPS, || launch(&mut bins));
    let n = bytes.len() as f64;
    report::rate("C++ hist_shared_wide (chapter 5)", &batched, n);
    report::rate("C++ hist_shared_wide, CUDA events", &events, n);
    check("C++", &got, want, bytes.len());
    batched
}
