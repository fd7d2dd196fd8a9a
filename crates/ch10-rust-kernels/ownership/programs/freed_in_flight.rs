//! Memory dropped while a stream still reads it. The compiler allows the drop: the call that
//! queued the read has returned, and its borrow with it. What makes the drop safe is a wait
//! inside `Drop`, which cudarc does for pinned host memory and for device memory. The wait is
//! for the slice's *last recorded* read: a second read on another stream, safe code all of it,
//! takes the kernel's place, and the memory goes to its next owner while the kernel is still to
//! read it. With event tracking turned off (an `unsafe` call) there is no wait at all.
//!
//! What this rests on, in cudarc 0.19.10 (`src/driver/safe/core.rs`):
//! - `Drop for PinnedHostSlice` (1468-1474) synchronizes on the buffer's event, which the copy
//!   recorded (1574-1599), before it frees the memory.
//! - A launch records a read of each `&CudaSlice` argument (`launch.rs` 100-115, 232-234), and
//!   `Drop for CudaSlice` (855-874) makes the slice's own stream wait for its last read and
//!   write before it frees the memory on that stream (`free_async`). A slice has one read
//!   event (846), and every read records it again (`DevicePtr`, 1237-1248): an event keeps
//!   only its latest record, so the drop waits for the last reader alone.
//! - `disable_event_tracking` (493) is `unsafe`: slices made after it carry no events
//!   (1633-1640), so the free is ordered on the slice's own stream only.
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaStream, DevicePtr, PinnedHostSlice, PushKernelArg};

use ch10_ownership::{
    BUSY_NS, Kernels, N, OrExit, describe, fmt_ms, gpu_or_exit, load_kernels, ms_since, parse_args,
    small_grid, verdict,
};

fn main() {
    parse_args(
        "Drops pinned and device memory that a stream will still read, and shows who waits.",
    );
    let ctx = gpu_or_exit();
    println!("{}", describe(&ctx));
    let k = load_kernels(&ctx);
    println!(
        "{N} u32 values per buffer; each reader waits behind {} of other work",
        fmt_ms(BUSY_NS as f64 / 1e6)
    );
    let (a, b) = (
        ctx.new_stream().or_exit("make a stream"),
        ctx.new_stream().or_exit("make a stream"),
    );

    // ANCHOR: pinned
    println!("pinned host memory dropped while a copy from it waits:");
    // SAFETY: u32 is valid for any bits, and the buffer is filled before it is read.
    let mut pinned: PinnedHostSlice<u32> = unsafe { ctx.alloc_pinned(N) }.or_exit("pin memory");
    pinned.as_mut_slice().or_exit("fill").fill(5);
    let mut dev = a.alloc_zeros::<u32>(N).or_exit("allocate");
    // SAFETY: the arguments match `wait_then_fill(unsigned *, long long, unsigned, long long)`,
    // and with n = 0 the kernel writes nothing: it only keeps stream a busy.
    unsafe {
        a.launch_builder(&k.wait_then_fill)
            .arg(&mut dev)
            .arg(&0i64)
            .arg(&0u32)
            .arg(&BUSY_NS)
            .launch(small_grid())
    }
    .or_exit("launch wait_then_fill");
    a.memcpy_htod(&pinned, &mut dev).or_exit("copy to the GPU");
    // ANCHOR_END: pinned
    let copied = a.record_event(None).or_exit("record an event");
    let start = Instant::now();
    drop(pinned);
    let drop_ms = ms_since(start);
    println!(
        "  drop waited {}, and the copy had finished when it returned: {}",
        fmt_ms(drop_ms),
        verdict(copied.is_complete())
    );
    let got = a.clone_dtoh(&dev).or_exit("copy from the GPU");
    println!(
        "  the GPU holds the buffer's 5s: {}",
        verdict(got.iter().all(|&v| v == 5))
    );

    println!("device memory dropped while a kernel on another stream will read it:");
    report(read_after_drop(&ctx, &k, &a, &b, false), Expect::FivesOnly);

    println!(
        "the same, after a second read of the buffer, on stream a, once the kernel is queued:"
    );
    report(read_after_drop(&ctx, &k, &a, &b, true), Expect::NinesSeen);

    println!("the same without the second read, with event tracking off (unsafe):");
    // SAFETY: the slices made while tracking is off are ordered by hand: the context is
    // synchronized before any of them is read back or dropped, except the one dropped early
    // on purpose, whose reader may then read what the next buffer holds.
    unsafe { ctx.disable_event_tracking() };
    let untracked = read_after_drop(&ctx, &k, &a, &b, false);
    // SAFETY: every slice made while tracking was off has been dropped.
    unsafe { ctx.enable_event_tracking() };
    report(untracked, Expect::NinesSeen);
}

/// What the late reader copied, and whether the next buffer took the freed one's address.
struct Reading {
    copied: Vec<u32>,
    reused: bool,
}

enum Expect {
    /// cudarc's drop waited for the reader: it copied the dropped buffer's 5s.
    FivesOnly,
    /// Nothing made the drop wait: the reader may copy the next buffer's 9s.
    NinesSeen,
}

// ANCHOR: read_after_drop
/// On stream b, a kernel waits, then copies `input` (5s, made on stream a) to `output`. The
/// program drops `input` at once and makes a buffer of 9s on stream a. With `second_read`, it
/// first copies `input` back to the host on stream a, after the kernel's launch.
fn read_after_drop(
    ctx: &Arc<CudaContext>,
    k: &Kernels,
    a: &Arc<CudaStream>,
    b: &Arc<CudaStream>,
    second_read: bool,
) -> Reading {
    let input = a.clone_htod(&vec![5u32; N]).or_exit("copy to the GPU");
    let mut output = b.alloc_zeros::<u32>(N).or_exit("allocate");
    // The address, for the report; taken before the launch, since taking it is a read too.
    let freed = input.device_ptr(a).0;
    let n = N as i64;
    // SAFETY: the arguments match `wait_then_copy(const unsigned *, unsigned *, long long,
    // long long)`, and the kernel touches in[i] and out[i] only for i < n, both lengths.
    unsafe {
        b.launch_builder(&k.wait_then_copy)
            .arg(&input)
            .arg(&mut output)
            .arg(&n)
            .arg(&BUSY_NS)
            .launch(small_grid())
    }
    .or_exit("launch wait_then_copy");
    if second_read {
        // Records this read on the slice's one read event, in place of the kernel's.
        a.clone_dtoh(&input).or_exit("copy from the GPU");
    }
    // The launch's borrow of `input` ended when it returned: the compiler allows the drop.
    drop(input);
    let mut next = a.alloc_zeros::<u32>(N).or_exit("allocate");
    a.memcpy_htod(&vec![9u32; N], &mut next)
        .or_exit("copy to the GPU");
    let taken = next.device_ptr(a).0;
    ctx.synchronize().or_exit("wait for the GPU");
    Reading {
        copied: b.clone_dtoh(&output).or_exit("copy from the GPU"),
        reused: freed == taken,
    }
}
// ANCHOR_END: read_after_drop

fn report(reading: Reading, expect: Expect) {
    let fives = reading.copied.iter().filter(|&&v| v == 5).count();
    let nines = reading.copied.iter().filter(|&&v| v == 9).count();
    let address = match reading.reused {
        true => "the same",
        false => "another",
    };
    println!("  the next buffer (9s) got {address} address as the dropped one (this machine)");
    match expect {
        Expect::FivesOnly => println!(
            "  the reader copied the dropped buffer's 5s, all {N}: {}",
            verdict(fives == N)
        ),
        Expect::NinesSeen => {
            println!("  the reader copied {fives} 5s and {nines} 9s (varies)");
            println!(
                "  the reader saw the next buffer's 9s, which a drop that waits never gives: {}",
                verdict(nines > 0)
            );
        }
    }
}
