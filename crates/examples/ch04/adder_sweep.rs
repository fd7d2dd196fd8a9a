//! The serial and rayon adders against the GPU adder, for arrays of 1,000 to 100,000,000 doubles. The
//! arrays already sit where each side needs them (host memory for the CPU, device memory for
//! the GPU): this times the adding, not the copying. `adder_plot` draws the figure from the
//! table this prints.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::machine::{data_cache_kib, describe_cpu};
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_times, record, time_cpu, time_gpu};
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

mod ch04_adder {
    course::kernels!("ch04-adder.cu");
}

fn add_serial(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    for (i, z) in zs.iter_mut().enumerate() {
        *z = xs[i] + ys[i];
    }
}

fn add_rayon(xs: &[f64], ys: &[f64], zs: &mut [f64]) {
    zs.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
}

/// 1000, 3000, 10000, 30000, ... up to `largest`.
fn sizes_up_to(largest: usize) -> Vec<usize> {
    let mut sizes = vec![1000];
    loop {
        let last = *sizes.last().unwrap();
        let next = if last.to_string().starts_with('1') {
            last * 3
        } else {
            last / 3 * 10
        };
        if next > largest {
            return sizes;
        }
        sizes.push(next);
    }
}

fn main() {
    let (largest, seed) = course::cli::parse(
        "Times the serial and rayon adders against the GPU adder, up to N doubles.",
        |args| {
            let largest = args.usize(
                "N",
                "the largest array length",
                100_000_000,
                1000,
                400_000_000,
            );
            (largest, args.seed())
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    println!("{}", describe_cpu());
    println!(
        "data caches of this CPU: L1 {} KiB and L2 {} KiB per core, L3 {} KiB shared (this machine)",
        data_cache_kib(1),
        data_cache_kib(2),
        data_cache_kib(3)
    );
    let module = load(&ctx, &kernel_file!("ch04-adder.cu"), false);
    let k = ch04_adder::Kernels::load(&module);

    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(largest, -1.0, 1.0);
    let ys = rng.vec_f64(largest, -1.0, 1.0);
    println!("inputs drawn with seed {seed}");
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let ys_dev = stream.clone_htod(&ys).or_exit("copy ys to the GPU");

    // ANCHOR: sweep
    println!(
        "{:>11} {:>12} {:>12} {:>10} {:>14}",
        "n", "CPU serial", "CPU rayon", "GPU", "GPU vs best CPU"
    );
    let mut all_right = true;
    let sizes = sizes_up_to(largest);
    for &n in &sizes {
        let (mut zs_serial, mut zs_cpu) = (vec![0.0; n], vec![0.0; n]);
        let serial = time_cpu(2, 10, || add_serial(&xs[..n], &ys[..n], &mut zs_serial));
        let cpu = time_cpu(2, 10, || add_rayon(&xs[..n], &ys[..n], &mut zs_cpu));
        let best_cpu = serial.median_ms.min(cpu.median_ms);

        let mut zs_dev = alloc_poisoned::<f64>(&stream, n);
        let blocks = (n as u32).div_ceil(256);
        let config = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        // The first n elements of the inputs, as views: the launcher takes n from them.
        let (xs_n, ys_n) = (xs_dev.slice(..n), ys_dev.slice(..n));
        let gpu = time_gpu(&stream, 3, 20, || {
            k.adder
                .launch(&stream, config, &xs_n, &ys_n, &mut zs_dev)
                .or_exit_launching(&k.adder);
        });
        let zs_gpu = stream
            .clone_dtoh(&zs_dev)
            .or_exit("copy zs back from the GPU");
        all_right &=
            count_mismatches(&zs_gpu, &zs_cpu) == 0 && count_mismatches(&zs_serial, &zs_cpu) == 0;

        println!(
            "{n:>11} {:>12} {:>12} {:>10} {:>14}",
            fmt_ms(serial.median_ms),
            fmt_ms(cpu.median_ms),
            fmt_ms(gpu.median_ms),
            fmt_times(best_cpu / gpu.median_ms)
        );
        if n == *sizes.last().unwrap() {
            let bytes = 24.0 * n as f64; // two arrays read, one written
            // ANCHOR_END: sweep
            record(&format!("adder, n={n} f64"), &gpu, Work::Bytes(bytes));
            // ANCHOR: sweep
            println!(
                "GPU adder at n = {n}: {} for three arrays of f64",
                fmt_gb_per_s(bytes, gpu.median_ms)
            );
        }
    }
    // ANCHOR_END: sweep
    println!(
        "the three sums agree exactly at every size: {}",
        verdict(all_right)
    );
}
