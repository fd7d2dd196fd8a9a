//! Two streams write one buffer: writer A waits 20 ms on the GPU and then writes 1s, writer B,
//! launched after it on another stream, writes 2s at once. Program order says B's 2s are the
//! result. The compiler sees two `&mut` borrows one after the other, each ended when its launch
//! returned, and allows both; cudarc's events put B after A on the GPU. A raw pointer, or
//! event tracking turned off, takes that order away, and A's late write wins.
//!
//! What this rests on, in cudarc 0.19.10:
//! - a `&mut CudaSlice` argument makes the launch wait for the slice's last read and write and
//!   then record its write (`src/driver/safe/launch.rs` 117-132, 212-234);
//! - a `u64` device pointer is a plain value: no event is waited for or recorded (92-98);
//! - `disable_event_tracking` (`src/driver/safe/core.rs` 493) is `unsafe`, and its contract
//!   names this very case: "Ensure that a [CudaSlice] is not written two concurrently by
//!   multiple streams."
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, PushKernelArg};

use ch10_ownership::{
    BUSY_NS, Kernels, N, OrExit, describe, fmt_ms, gpu_or_exit, load_kernels, parse_args,
    small_grid, verdict,
};

const TRIALS: usize = 20;
const FIRST: u32 = 1;
const SECOND: u32 = 2;

/// How the two launches name the buffer.
#[derive(Clone, Copy, PartialEq)]
enum Route {
    /// `.arg(&mut out)`: cudarc orders the two writes.
    Typed,
    /// `.arg(&ptr)`, the buffer's address as a `u64`: nothing orders them.
    RawPointer,
}

fn main() {
    parse_args("Writes one buffer from two streams, with and without cudarc's ordering.");
    let ctx = gpu_or_exit();
    println!("{}", describe(&ctx));
    let k = load_kernels(&ctx);
    let (a, b) = (
        ctx.new_stream().or_exit("make a stream"),
        ctx.new_stream().or_exit("make a stream"),
    );
    println!(
        "{N} u32 values; A waits {} then writes {FIRST}s, B (launched second) writes {SECOND}s",
        fmt_ms(BUSY_NS as f64 / 1e6)
    );
    let want = vec![SECOND; N];
    println!("CPU: in program order the buffer ends as B's {SECOND}s, all {N}");

    let safe = not_second_writers(&ctx, &k, &a, &b, &want, Route::Typed);
    println!(
        "typed arguments (&mut CudaSlice): {safe} of {TRIALS} trials end other than B's, expected 0: {}",
        verdict(safe == 0)
    );

    let raw = not_second_writers(&ctx, &k, &a, &b, &want, Route::RawPointer);
    println!("raw device pointer (u64): {raw} of {TRIALS} trials end other than B's (varies)");
    println!(
        "  at least one trial lost B's write, which the typed route never does: {}",
        verdict(raw > 0)
    );

    // SAFETY: the slices made while tracking is off are ordered by hand: the context is
    // synchronized before each is read back or dropped; the two writes are left unordered on
    // purpose.
    unsafe { ctx.disable_event_tracking() };
    let off = not_second_writers(&ctx, &k, &a, &b, &want, Route::Typed);
    // SAFETY: every slice made while tracking was off has been dropped.
    unsafe { ctx.enable_event_tracking() };
    println!(
        "typed arguments, event tracking off (unsafe): {off} of {TRIALS} trials end other than B's (varies)"
    );
    println!(
        "  at least one trial lost B's write, which tracking on never does: {}",
        verdict(off > 0)
    );
}

/// Runs [`TRIALS`] trials of A then B on a fresh buffer each, and counts those whose buffer
/// does not end as `want`.
fn not_second_writers(
    ctx: &Arc<CudaContext>,
    k: &Kernels,
    a: &Arc<CudaStream>,
    b: &Arc<CudaStream>,
    want: &[u32],
    route: Route,
) -> usize {
    let mut differ = 0;
    for _ in 0..TRIALS {
        let mut out = a.alloc_zeros::<u32>(N).or_exit("allocate");
        a.synchronize().or_exit("wait for the allocation");
        write(k, a, &mut out, FIRST, BUSY_NS, route);
        write(k, b, &mut out, SECOND, 0, route);
        if route == Route::RawPointer || !ctx.is_event_tracking() {
            // Nothing else orders the copy back after both writers.
            ctx.synchronize().or_exit("wait for the GPU");
        }
        let got = a.clone_dtoh(&out).or_exit("copy from the GPU");
        differ += usize::from(got != want);
    }
    differ
}

// ANCHOR: write
/// Launch `wait_then_fill` on `stream`: wait `wait_ns`, then write `value` to all of `out`.
fn write(
    k: &Kernels,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    value: u32,
    wait_ns: i64,
    route: Route,
) {
    let n = out.len() as i64;
    // Declared first, so that the raw pointer outlives the builder that points at it.
    let address;
    let mut launch = stream.launch_builder(&k.wait_then_fill);
    match route {
        Route::Typed => launch.arg(out),
        Route::RawPointer => {
            // The guard records a write on `stream` now, before the kernel is queued: an
            // event that orders nothing.
            address = out.device_ptr_mut(stream).0;
            launch.arg(&address)
        }
    };
    // SAFETY: the arguments match `wait_then_fill(unsigned *, long long, unsigned, long long)`
    // (a device pointer is a u64 either way), and the kernel writes out[i] only for i < n, the
    // length of `out`.
    unsafe {
        launch
            .arg(&n)
            .arg(&value)
            .arg(&wait_ns)
            .launch(small_grid())
    }
    .or_exit("launch wait_then_fill");
}
// ANCHOR_END: write
