//! SAXPY, y = a·x + y, on the GPU with cudarc alone: compile a CUDA C++ kernel with NVRTC, load
//! it, launch it, copy the result back and check it against the CPU.
use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg, sys};
use cudarc::nvrtc::{CompileError, compile_ptx};

// ANCHOR: kernel
const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {  // the last block may reach past the end
        y[i] = a * x[i] + y[i];
    }
}
"#;
// ANCHOR_END: kernel

/// The exit status for "no GPU here": test harnesses (automake's, and this course's) count a
/// program that exits with it as skipped, not failed.
const EXIT_NO_GPU: i32 = 77;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--help") {
        println!(
            "Usage: cudarc_alone\n\nComputes y = 2x + y for 1048576 floats on the GPU and checks it on the CPU."
        );
        return;
    }
    if let Some(other) = std::env::args().nth(1) {
        stop(
            2,
            &format!("unknown argument `{other}`; the program takes none (see --help)."),
        );
    }

    // ANCHOR: open
    // cudarc loads libcuda and libnvrtc when they are first used, and panics if it cannot:
    // ask first, so that a machine without them gets a sentence instead of a backtrace.
    // SAFETY: these only try to load the libraries; nothing is called through them.
    if !unsafe { sys::is_culib_present() } {
        stop(
            EXIT_NO_GPU,
            "this program needs an NVIDIA GPU, but no NVIDIA driver (libcuda) is installed.",
        );
    }
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        stop(
            EXIT_NO_GPU,
            "this program needs NVRTC, CUDA's run-time compiler, but libnvrtc is not installed.",
        );
    }
    let ctx = match CudaContext::new(0) {
        Ok(ctx) => ctx,
        // A driver with no GPU to drive: nothing to run on.
        Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => stop(
            EXIT_NO_GPU,
            "this program needs an NVIDIA GPU, but the driver found none.",
        ),
        Err(e) => stop(1, &format!("the driver could not open GPU 0: {e}.")),
    };
    let stream = ctx.default_stream();
    println!("GPU: {}", ctx.name().unwrap_or_else(|_| "unnamed".into()));
    // ANCHOR_END: open

    // ANCHOR: compile
    // NVRTC compiles the C++ text to PTX, which the driver compiles for this GPU when it loads it.
    let ptx = match compile_ptx(SAXPY) {
        Ok(ptx) => ptx,
        Err(CompileError::CompileError { log, .. }) => stop(
            1,
            &format!(
                "the kernel did not compile; NVRTC said:\n{}",
                log.to_string_lossy()
            ),
        ),
        Err(e) => stop(1, &format!("NVRTC failed: {e}.")),
    };
    let module = ctx
        .load_module(ptx)
        .unwrap_or_else(|e| cuda_failed("load the kernel", e));
    let saxpy = module
        .load_function("saxpy")
        .unwrap_or_else(|e| cuda_failed("find saxpy", e));
    // ANCHOR_END: compile

    // ANCHOR: run
    let n: usize = 1 << 20;
    let a = 2.0f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - (i % 7) as f32).collect();

    let x_dev = stream
        .clone_htod(&x)
        .unwrap_or_else(|e| cuda_failed("copy x to the GPU", e));
    let mut y_dev = stream
        .clone_htod(&y)
        .unwrap_or_else(|e| cuda_failed("copy y to the GPU", e));

    let n_arg = n as i32; // the kernel's `int n`: the type must match exactly
    let config = LaunchConfig::for_num_elems(n as u32); // 1024 threads a block, enough blocks
    let mut launch = stream.launch_builder(&saxpy);
    launch.arg(&a).arg(&x_dev).arg(&mut y_dev).arg(&n_arg);
    // SAFETY: saxpy takes (float, const float *, float *, int): these arguments, in this order.
    // x and y hold n floats each, and the kernel touches no index at or past n.
    unsafe { launch.launch(config) }.unwrap_or_else(|e| cuda_failed("launch saxpy", e));

    // The copy back waits for the kernel to finish.
    let got = stream
        .clone_dtoh(&y_dev)
        .unwrap_or_else(|e| cuda_failed("copy y back", e));
    // ANCHOR_END: run

    // ANCHOR: check
    // The same sums on the CPU. a·x + y is one multiply and one add; the GPU fuses them into one
    // instruction with a single rounding, so allow a difference of a few units in the last place.
    let largest_error = x
        .iter()
        .zip(&y)
        .zip(&got)
        .map(|((x, y), g)| ((a * x + y) - g).abs() / (a * x + y).abs().max(1.0))
        .fold(0.0f32, f32::max);
    let bound = 1e-6;
    let ok = largest_error <= bound;
    println!("{n} floats, y = {a} x + y");
    println!("y[0..4] on the GPU: {:?}", &got[..4]);
    println!(
        "largest relative error against the CPU {largest_error:.1e}, bound {bound:.0e}: {}",
        if ok { "yes" } else { "NO" }
    );
    // ANCHOR_END: check
}

/// Print one sentence and exit with `status`.
fn stop(status: i32, sentence: &str) -> ! {
    eprintln!("Error: {sentence}");
    std::process::exit(status)
}

/// A CUDA call that failed, named with what it was doing.
fn cuda_failed(what: &str, e: DriverError) -> ! {
    stop(1, &format!("could not {what}: {e}."))
}
