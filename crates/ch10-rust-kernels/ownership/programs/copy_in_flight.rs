//! A copy between the host and the GPU outlives the call that started it: the call borrows the
//! host buffer only until it returns. What keeps the buffer safe afterwards is not the compiler
//! but a wait: the driver's, for pageable memory, and cudarc's, for pinned memory. Each copy
//! here waits behind a kernel that keeps the stream busy for 20 ms.
//!
//! What this rests on, in cudarc 0.19.10 (`src/driver/safe/core.rs`):
//! - `memcpy_htod`/`memcpy_dtoh` (1695, 1737) hand the driver an async copy; for a `Vec` or a
//!   slice, `HostSlice` gives `SyncOnDrop::Sync(None)` (1398-1450), which waits for nothing:
//!   the driver's own rule for pageable memory (it stages the data before it returns) is the
//!   only guarantee.
//! - For a `PinnedHostSlice`, the copy's guard records the buffer's event (1574-1599), and
//!   `as_slice`/`as_mut_slice` synchronize on that event (1544-1571) before they give the host
//!   the memory.
//! - The guard records only while the context "manages stream synchronization" (1199-1207),
//!   which needs event tracking on *and* a stream made by `new_stream` (450-468, 726-731): on a
//!   context that has only its default stream, nothing is recorded, and `as_slice` returns at
//!   once.
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut, PinnedHostSlice, PushKernelArg, result};

use ch10_ownership::{
    BUSY_NS, Kernels, N, OrExit, describe, fmt_ms, gpu_or_exit, load_kernels, ms_since, parse_args,
    small_grid, verdict,
};

fn main() {
    parse_args("Copies between the host and a GPU whose stream is busy, and shows who waits.");
    let ctx = gpu_or_exit();
    println!("{}", describe(&ctx));
    let k = load_kernels(&ctx);
    println!(
        "{N} u32 values per copy; before each copy a kernel keeps the stream busy for {}",
        fmt_ms(BUSY_NS as f64 / 1e6)
    );

    // ANCHOR: one_stream
    // Before the program makes a stream of its own, the context is in cudarc's single-stream
    // mode: the pinned buffer's event is never recorded, so nothing makes `as_slice` wait.
    let stream = ctx.default_stream();
    // SAFETY: u32 is valid for any bits, and the buffer is filled before it is read.
    let mut pinned: PinnedHostSlice<u32> = unsafe { ctx.alloc_pinned(N) }.or_exit("pin memory");
    pinned.as_mut_slice().or_exit("fill").fill(0);
    let mut dev = stream.alloc_zeros::<u32>(N).or_exit("allocate");
    println!("on the context's default stream, before any stream is made:");
    copy_back_while_busy(&k, &stream, &mut dev, &mut pinned, 7, false);
    stream.synchronize().or_exit("wait for the GPU");
    // ANCHOR_END: one_stream

    // ANCHOR: new_stream
    let stream = ctx.new_stream().or_exit("make a stream");
    let mut dev = stream.alloc_zeros::<u32>(N).or_exit("allocate");
    println!("the same, on a stream made with new_stream:");
    copy_back_while_busy(&k, &stream, &mut dev, &mut pinned, 8, true);
    // ANCHOR_END: new_stream

    // ANCHOR: pageable
    println!("a pageable Vec copied to the GPU:");
    let mut host = vec![1u32; N];
    keep_busy(&k, &stream, &mut dev);
    let start = Instant::now();
    stream
        .memcpy_htod(&host, &mut dev)
        .or_exit("copy to the GPU");
    let call_ms = ms_since(start);
    // The borrow of `host` ended with the call, so the compiler lets the host write it at once.
    host.fill(2);
    // ANCHOR_END: pageable
    let got = stream.clone_dtoh(&dev).or_exit("copy from the GPU");
    println!("  memcpy_htod returned after {}", fmt_ms(call_ms));
    println!(
        "  then the host wrote 2s into the Vec; the GPU holds the 1s of the call: {}",
        verdict(got.iter().all(|&v| v == 1))
    );

    // ANCHOR: raw
    println!("the raw copy (unsafe) from the pinned buffer, which records no event:");
    pinned.as_mut_slice().or_exit("fill").fill(3);
    keep_busy(&k, &stream, &mut dev);
    {
        let src = pinned.as_slice().or_exit("read the pinned buffer");
        let (dst, _record_dst) = dev.device_ptr_mut(&stream);
        // SAFETY: `dst` has room for `src`; that `src` stays unchanged until the copy has run
        // is this caller's to ensure, and the next lines break it on purpose.
        unsafe { result::memcpy_htod_async(dst, src, stream.cu_stream()) }
            .or_exit("copy to the GPU");
    }
    let start = Instant::now();
    pinned
        .as_mut_slice()
        .or_exit("write the pinned buffer")
        .fill(4);
    let waited_ms = ms_since(start);
    let got = stream.clone_dtoh(&dev).or_exit("copy from the GPU");
    println!("  as_mut_slice() waited {}", fmt_ms(waited_ms));
    println!(
        "  the host wrote 4s before the copy ran, and the GPU holds them, not the 3s of the call: {}",
        verdict(got.iter().all(|&v| v == 4))
    );
    // ANCHOR_END: raw
}

/// A kernel that keeps `stream` busy for [`BUSY_NS`], and writes nothing.
fn keep_busy(k: &Kernels, stream: &CudaStream, dev: &mut CudaSlice<u32>) {
    // SAFETY: the arguments match `wait_then_fill(unsigned *, long long, unsigned, long long)`,
    // and with n = 0 the kernel writes nothing.
    unsafe {
        stream
            .launch_builder(&k.wait_then_fill)
            .arg(dev)
            .arg(&0i64)
            .arg(&0u32)
            .arg(&BUSY_NS)
            .launch(small_grid())
    }
    .or_exit("launch wait_then_fill");
}

/// A kernel writes `value` after [`BUSY_NS`]; `memcpy_dtoh` into the pinned buffer returns at
/// once; `as_slice` then waits for the copy, or, where nothing recorded it, does not.
fn copy_back_while_busy(
    k: &Kernels,
    stream: &std::sync::Arc<CudaStream>,
    dev: &mut CudaSlice<u32>,
    pinned: &mut PinnedHostSlice<u32>,
    value: u32,
    should_wait: bool,
) {
    let n = dev.len() as i64;
    // SAFETY: the arguments match `wait_then_fill(unsigned *, long long, unsigned, long long)`,
    // and the kernel writes out[i] only for i < n, the length of `dev`.
    unsafe {
        stream
            .launch_builder(&k.wait_then_fill)
            .arg(&mut *dev)
            .arg(&n)
            .arg(&value)
            .arg(&BUSY_NS)
            .launch(small_grid())
    }
    .or_exit("launch wait_then_fill");
    let start = Instant::now();
    stream
        .memcpy_dtoh(&*dev, pinned)
        .or_exit("copy from the GPU");
    let call_ms = ms_since(start);
    let copied = stream.record_event(None).or_exit("record an event");
    let in_flight = !copied.is_complete();

    let start = Instant::now();
    let seen = pinned.as_slice().or_exit("read the pinned buffer");
    let waited_ms = ms_since(start);
    let finished = copied.is_complete();
    println!(
        "  memcpy_dtoh into pinned memory returned after {}, the copy still in flight: {}",
        fmt_ms(call_ms),
        verdict(in_flight)
    );
    let when = match should_wait {
        true => "after the copy had finished",
        false => "before the copy had finished",
    };
    println!(
        "  as_slice() waited {}, and returned {when}: {}",
        fmt_ms(waited_ms),
        verdict(finished == should_wait)
    );
    if finished {
        let all = seen.iter().all(|&v| v == value);
        println!("  every value is the kernel's {value}: {}", verdict(all));
    }
}
