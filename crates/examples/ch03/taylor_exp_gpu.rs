//! The Taylor series of exp on the GPU: the same loop over terms as the ndarray version, each
//! term one element-wise kernel, checked against the CPU's `exp`.
use ndarray::{Array1, Zip};

use cudarc::driver::{CudaSlice, LaunchConfig};

use course::compare::within_bound;
use course::gpu::{OrExit, describe, gpu_or_exit};
use course::kernel;
use course::kernel_file;
use course::machine::describe_cpu;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_speedup, record, time_cpu, time_gpu};

const N: usize = 1_000_000;
const DEGREE: i32 = 12;

mod ch03_elementwise {
    course::kernels!("ch03-elementwise.cu");
}

fn main() {
    let seed = course::cli::parse(
        "Sums 12 terms of the Taylor series of exp on the GPU, one kernel per term.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    let module = kernel::load(&ctx, &kernel_file!("ch03-elementwise.cu"), false);
    let k = ch03_elementwise::Kernels::load(&module);

    println!("seed {seed}");
    let xs = Rng::new(seed).vec_f64(N, -1.0, 1.0);

    // ANCHOR: gpu
    let xs_gpu = stream.clone_htod(&xs).or_exit("copy to the GPU");
    // ys is the running sum, so it starts at zero: here zero is an input, not a guess.
    let mut ys_gpu = stream.alloc_zeros::<f64>(N).or_exit("allocate GPU memory");
    let exp_series_gpu = |ys_gpu: &mut CudaSlice<f64>| {
        let mut factorial = 1.0f64;
        for power in 0..DEGREE {
            if power > 0 {
                factorial *= power as f64;
            }
            let cfg = LaunchConfig::for_num_elems(N as u32);
            k.add_taylor_term
                .launch(&stream, cfg, &xs_gpu, ys_gpu, power, factorial)
                .or_exit_launching(&k.add_taylor_term);
        }
    };
    exp_series_gpu(&mut ys_gpu);
    let ys = stream.clone_dtoh(&ys_gpu).or_exit("copy from the GPU");
    // ANCHOR_END: gpu

    let worst = ys
        .iter()
        .zip(&xs)
        .map(|(y, x)| ((y - x.exp()) / x.exp()).abs())
        .fold(0.0f64, |m, r| if r.is_nan() || r > m { r } else { m }); // NaN is kept
    // The same bound as the ndarray version's: twelve terms pass it, eleven would not.
    let (line, _) = within_bound("largest relative difference from std's exp", worst, 1e-8);
    println!("{line}");

    // Timing: the GPU loop (zeroing ys first each time), and the same loop on the CPU.
    let gpu = time_gpu(&stream, 2, 20, || {
        stream.memset_zeros(&mut ys_gpu).or_exit("zero GPU memory");
        exp_series_gpu(&mut ys_gpu);
    });
    // Each term reads xs and ys and writes ys; the zeroing writes ys once more.
    let bytes = ((3 * DEGREE + 1) as usize * N * size_of::<f64>()) as f64;
    record(
        "exp by 12 Taylor-term kernels, n=1e6, f64",
        &gpu,
        Work::Bytes(bytes),
    );
    // ANCHOR: cpu
    // The CPU's fair rival: the same twelve passes over the array, each split over every
    // rayon thread by ndarray's parallel Zip.
    let xs_cpu = Array1::from(xs);
    // ANCHOR_END: cpu
    let cpu = time_cpu(1, 5, || {
        // ANCHOR: cpu
        let mut ys = Array1::<f64>::zeros(N);
        let mut factorial = 1.0;
        for n in 0..DEGREE {
            if n > 0 {
                factorial *= n as f64;
            }
            Zip::from(&mut ys)
                .and(&xs_cpu)
                .par_for_each(|y, &x| *y += x.powi(n) / factorial);
        }
        ys
        // ANCHOR_END: cpu
    });
    println!("ndarray with rayon:    {:>9}", fmt_ms(cpu.median_ms));
    println!(
        "{DEGREE} kernels on the GPU: {:>9}  {:>10}",
        fmt_ms(gpu.median_ms),
        fmt_gb_per_s(bytes, gpu.median_ms)
    );
    println!(
        "GPU speedup over ndarray with rayon: {}",
        fmt_speedup(cpu.median_ms, gpu.median_ms)
    );
}
