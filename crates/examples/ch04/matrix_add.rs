//! Adding two 8192×8192 matrices with a 2-D grid of 32×32-thread blocks, twice: with x along
//! the rows' elements (neighbouring threads, neighbouring addresses) and with x picking the
//! row, as `i, j = cuda.grid(2)` reads in the workshop.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, record, time_gpu};
use cudarc::driver::LaunchConfig;
use rayon::prelude::*;

mod ch04_grids {
    course::kernels!("ch04-grids.cu");
}

fn main() {
    // Sides that are not multiples of 32 leave the last blocks partly outside the matrix, where
    // the kernels' test `row < rows && col < cols` keeps them out.
    let side = problem_size(8192, 1024);
    let (rows, cols, seed) = course::cli::parse(
        "Adds two matrices (8192x8192 unless given) on a 2-D grid, with x along the rows and with x picking the row.",
        |args| {
            (
                args.usize("ROWS", "the number of rows", side, 1, 16384),
                args.usize("COLS", "the number of columns", side, 1, 16384),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-grids.cu"), false);
    let k = ch04_grids::Kernels::load(&module);

    let mut rng = Rng::new(seed);
    let xs = rng.vec_f64(rows * cols, -1.0, 1.0);
    let ys = rng.vec_f64(rows * cols, -1.0, 1.0);
    println!("two {rows}x{cols} matrices of f64, seed {seed}");
    let mut want = vec![0.0; rows * cols];
    want.par_iter_mut()
        .enumerate()
        .for_each(|(i, z)| *z = xs[i] + ys[i]);
    let xs_dev = stream.clone_htod(&xs).or_exit("copy xs to the GPU");
    let ys_dev = stream.clone_htod(&ys).or_exit("copy ys to the GPU");
    let bytes = 24.0 * (rows * cols) as f64;

    // ANCHOR: launch
    // 32×32 threads per block; enough blocks along each axis to cover the matrix.
    let block = (32u32, 32u32, 1u32);
    for (name, grid) in [
        (
            "matrix_add_2d",
            ((cols as u32).div_ceil(32), (rows as u32).div_ceil(32), 1),
        ),
        (
            "matrix_add_row_from_x",
            ((rows as u32).div_ceil(32), (cols as u32).div_ceil(32), 1),
        ),
    ] {
        let config = LaunchConfig {
            grid_dim: grid,
            block_dim: block,
            shared_mem_bytes: 0,
        };
        let mut zs_dev = alloc_poisoned::<f64>(&stream, rows * cols);
        let (r, c) = (rows as i32, cols as i32);
        // Two launchers: the kernels' contracts differ in which axis must cover the rows.
        // ANCHOR_END: launch
        let t = time_gpu(&stream, 2, 10, || {
            // ANCHOR: launch
            match name {
                "matrix_add_2d" => k
                    .matrix_add_2d
                    .launch(&stream, config, &xs_dev, &ys_dev, &mut zs_dev, r, c)
                    .or_exit_launching(&k.matrix_add_2d),
                _ => k
                    .matrix_add_row_from_x
                    .launch(&stream, config, &xs_dev, &ys_dev, &mut zs_dev, r, c)
                    .or_exit_launching(&k.matrix_add_row_from_x),
            }
            // ANCHOR_END: launch
        });
        // ANCHOR: launch
        let zs = stream
            .clone_dtoh(&zs_dev)
            .or_exit("copy the sum back from the GPU");
        // ANCHOR_END: launch
        record(
            &format!("{name}, {rows}x{cols} f64"),
            &t,
            Work::Bytes(bytes),
        );
        println!(
            "{name:<22} grid {:>3}x{:<3} blocks of 32x32: {:>9}, {:>10}, all sums right: {}",
            grid.0,
            grid.1,
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms),
            verdict(count_mismatches(&zs, &want) == 0)
        );
        // ANCHOR: launch
    }
    // ANCHOR_END: launch
}
