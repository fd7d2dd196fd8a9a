//! Inclusive prefix sums on the GPU at three levels: each warp on its own, each block on its
//! own, and the whole array in three kernels: first with one value per thread, then with 16
//! values per thread in a design that writes every result only once. Every result is
//! compared exactly with the CPU; both whole-array scans are timed against a
//! device-to-device copy of the same bytes.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit, problem_size};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use course::timing::{Work, fmt_gb_per_s, fmt_ms, fmt_times, record, time_gpu};
use cudarc::driver::{CudaSlice, LaunchConfig};
use rayon::prelude::*;

const BLOCK: usize = 1024;
/// The faster scan's blocks: TILE_THREADS threads, each holding 16 consecutive values.
const TILE_THREADS: usize = 512;
const TILE: usize = TILE_THREADS * 16;

mod ch06_scan {
    course::kernels!("ch06-scan.cu");
}

/// Inclusive scans of each `piece`-sized run of `values` on its own, wrapping like u32 on the GPU.
fn scan_pieces_cpu(values: &[u32], piece: usize) -> Vec<u32> {
    let mut out = values.to_vec();
    out.par_chunks_mut(piece).for_each(|p| {
        let mut sum = 0u32;
        for x in p {
            sum = sum.wrapping_add(*x);
            *x = sum;
        }
    });
    out
}

fn main() {
    let (n, seed) = course::cli::parse(
        "Prefix sums on the GPU: in a warp, in a block, and over a whole array two ways.",
        |args| {
            (
                args.usize(
                    "N",
                    "the number of values",
                    problem_size(1 << 26, 1 << 20),
                    1,
                    1 << 28,
                ),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-scan.cu"), false);
    let k = ch06_scan::Kernels::load(&module);
    let mut rng = Rng::new(seed);
    let values: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    println!("{n} random u32 values, sums wrapping modulo 2^32, {BLOCK} threads per block");
    println!("seed {seed}");
    let d_values = stream.clone_htod(&values).or_exit("copy to the GPU");
    let blocks = n.div_ceil(BLOCK);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (BLOCK as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let check = |label: &str, d_out: &CudaSlice<u32>, want: &[u32]| {
        let got = stream.clone_dtoh(d_out).or_exit("copy from the GPU");
        let wrong = count_mismatches(&got, want);
        println!(
            "{label:<34} equals the CPU exactly ({wrong} differ): {}",
            verdict(wrong == 0)
        );
    };

    // ANCHOR: levels
    let mut d_out = alloc_poisoned::<u32>(&stream, n);
    k.scan_warps
        .launch(&stream, cfg, &d_values, &mut d_out)
        .or_exit_launching(&k.scan_warps);
    check(
        "each warp's 32 values on their own",
        &d_out,
        &scan_pieces_cpu(&values, 32),
    );

    let mut d_out = alloc_poisoned::<u32>(&stream, n);
    let mut d_totals = alloc_poisoned::<u32>(&stream, blocks); // the blocks' sums, unused here
    k.scan_blocks
        .launch(&stream, cfg, &d_values, &mut d_out, &mut d_totals)
        .or_exit_launching(&k.scan_blocks);
    check(
        "each block's values on their own",
        &d_out,
        &scan_pieces_cpu(&values, BLOCK),
    );
    // ANCHOR_END: levels

    // ANCHOR: whole
    let mut d_out = alloc_poisoned::<u32>(&stream, n);
    let one_block = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (BLOCK as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut scan_all = || {
        k.scan_blocks
            .launch(&stream, cfg, &d_values, &mut d_out, &mut d_totals)
            .or_exit_launching(&k.scan_blocks);
        k.scan_totals
            .launch(&stream, one_block, &mut d_totals)
            .or_exit_launching(&k.scan_totals);
        k.add_block_offsets
            .launch(&stream, cfg, &mut d_out, &d_totals)
            .or_exit_launching(&k.add_block_offsets);
    };
    // ANCHOR_END: whole
    let t_scan = time_gpu(&stream, 2, 10, &mut scan_all);
    // ANCHOR: whole
    let want = scan_pieces_cpu(&values, n);
    // The known answer, a property of any inclusive scan: the difference of two neighbouring
    // sums gives back the input value, and the first sum is the first value.
    let differences_give_input = want[0] == values[0]
        && want
            .par_windows(2)
            .zip(&values[1..])
            .all(|(w, &v)| w[1].wrapping_sub(w[0]) == v);
    // ANCHOR_END: whole
    println!(
        "{:<34} differenced, gives back the input: {}",
        "the CPU's scan",
        verdict(differences_give_input)
    );
    // ANCHOR: whole
    check("the whole array, three kernels", &d_out, &want);
    // ANCHOR_END: whole

    // ANCHOR: fast
    // Reduce, then scan: tiles of TILE_THREADS threads x 16 values (ITEMS in the kernel file).
    let tiles = n.div_ceil(TILE);
    let mut d_tile_totals = alloc_poisoned::<u32>(&stream, tiles);
    // The scan of the first m values into `out`: all n of them for the timing, fewer to test a
    // last tile that ends partway.
    let mut reduce_then_scan = |m: usize, out: &mut CudaSlice<u32>| {
        let tiles = m.div_ceil(TILE);
        let per_tile = LaunchConfig {
            grid_dim: (tiles as u32, 1, 1),
            block_dim: (TILE_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let first_m = d_values.slice(..m);
        k.reduce_tiles
            .launch(&stream, per_tile, &first_m, &mut d_tile_totals)
            .or_exit_launching(&k.reduce_tiles);
        k.scan_totals
            .launch(&stream, one_block, &mut d_tile_totals.slice_mut(..tiles))
            .or_exit_launching(&k.scan_totals);
        k.scan_tiles
            .launch(&stream, per_tile, &first_m, out, &d_tile_totals)
            .or_exit_launching(&k.scan_tiles);
    };
    let mut d_fast = alloc_poisoned::<u32>(&stream, n);
    // ANCHOR_END: fast
    let t_fast = time_gpu(&stream, 2, 10, || {
        // ANCHOR: fast
        reduce_then_scan(n, &mut d_fast)
        // ANCHOR_END: fast
    });
    // ANCHOR: fast
    check("the whole array, reduce then scan", &d_fast, &want);
    // A length that ends partway through a tile and through a uint4: the last tile's scalar path.
    let m = n - n.min(TILE / 3 + 1);
    if m > 0 {
        let mut d_part = alloc_poisoned::<u32>(&stream, n);
        reduce_then_scan(m, &mut d_part);
        let got = stream.clone_dtoh(&d_part).or_exit("copy from the GPU");
        let wrong = count_mismatches(&got[..m], &want[..m]);
        let untouched = got[m..].iter().all(|&x| x == u32::MAX);
        let label = format!("the first {m} values alone");
        // ANCHOR_END: fast
        println!(
            "{label:<34} equals the CPU exactly ({wrong} differ): {}",
            verdict(wrong == 0)
        );
        println!(
            "{:<34} nothing written past them: {}",
            "",
            verdict(untouched)
        );
        // ANCHOR: fast
    }

    // The floor for any scan: read every value once and write every result once, as a copy does.
    let mut d_copy = stream.alloc_zeros::<u32>(n).or_exit("allocate GPU memory");
    // ANCHOR_END: fast
    let t_copy = time_gpu(&stream, 2, 10, || {
        // ANCHOR: fast
        stream
            .memcpy_dtod(&d_values, &mut d_copy)
            .or_exit("copy on the GPU")
        // ANCHOR_END: fast
    });
    // ANCHOR: fast
    let bytes = (2 * 4 * n) as f64;
    // ANCHOR_END: fast
    record(
        &format!("scan, 3 kernels, n={n} (read n + write n)"),
        &t_scan,
        Work::Bytes(bytes),
    );
    record(
        &format!("scan, reduce then scan, n={n} (read n + write n)"),
        &t_fast,
        Work::Bytes(bytes),
    );
    record(
        &format!("device-to-device copy, n={n} u32"),
        &t_copy,
        Work::Bytes(bytes),
    );
    // ANCHOR: fast
    println!("counting one read and one write per value:");
    // ANCHOR_END: fast
    println!(
        "  copy of the same bytes:           {}, {}",
        fmt_ms(t_copy.median_ms),
        fmt_gb_per_s(bytes, t_copy.median_ms)
    );
    // ANCHOR: fast
    for (label, t) in [
        ("three kernels, 1 value a thread", t_scan),
        ("reduce then scan, 16 a thread", t_fast),
    ] {
        // ANCHOR_END: fast
        println!(
            "  {label:<32} {}, {}, {} the copy's time",
            fmt_ms(t.median_ms),
            fmt_gb_per_s(bytes, t.median_ms),
            fmt_times(t.median_ms / t_copy.median_ms)
        );
        // ANCHOR: fast
    }
    // ANCHOR_END: fast
}
