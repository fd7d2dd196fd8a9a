//! What each warp shuffle hands to each lane of one warp. The GPU runs nine shuffles; the CPU
//! works out the same nine tables from the rules in the CUDA programming guide, and the two
//! must agree exactly, first on lane numbers (printed) and then on random values.
use std::sync::Arc;

use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::{CudaStream, LaunchConfig};

const WARP: usize = 32;

mod ch06_shuffles {
    course::kernels!("ch06-shuffles.cu");
}

// ANCHOR: rules
/// A shuffle, described by which lane each lane reads. Lanes are split into groups of
/// `width` consecutive lanes (32 unless given), and a lane never reads outside its group.
#[derive(Clone, Copy)]
enum Shuffle {
    /// `__shfl_sync(mask, v, src, width)`: lane `src` of my group (`src` taken modulo `width`).
    Idx { src: usize, width: usize },
    /// `__shfl_up_sync(mask, v, delta, width)`: lane − delta; the first `delta` lanes of a
    /// group have no such lane and keep their own value.
    Up { delta: usize, width: usize },
    /// `__shfl_down_sync(mask, v, delta, width)`: lane + delta; the last `delta` lanes of a
    /// group keep their own value.
    Down { delta: usize, width: usize },
    /// `__shfl_xor_sync(mask, v, lane_mask)`: lane ^ lane_mask (width 32).
    Xor { lane_mask: usize },
}

impl Shuffle {
    /// The lane whose value `lane` receives.
    fn source(self, lane: usize) -> usize {
        match self {
            Shuffle::Idx { src, width } => lane / width * width + src % width,
            Shuffle::Up { delta, width } => {
                if lane % width >= delta {
                    lane - delta
                } else {
                    lane
                }
            }
            Shuffle::Down { delta, width } => {
                if lane % width + delta < width {
                    lane + delta
                } else {
                    lane
                }
            }
            Shuffle::Xor { lane_mask } => lane ^ lane_mask,
        }
    }

    /// What every lane of the warp receives when lane i holds `values[i]`.
    fn apply(self, values: &[i32]) -> Vec<i32> {
        (0..WARP).map(|lane| values[self.source(lane)]).collect()
    }
}
// ANCHOR_END: rules

// ANCHOR: rows
/// The shuffles of the kernel `shuffle_table`, in its order.
const ROWS: [(&str, Shuffle); 9] = [
    ("__shfl_sync(v, 3)", Shuffle::Idx { src: 3, width: 32 }),
    ("__shfl_sync(v, 0, 8)", Shuffle::Idx { src: 0, width: 8 }),
    (
        "__shfl_up_sync(v, 1)",
        Shuffle::Up {
            delta: 1,
            width: 32,
        },
    ),
    (
        "__shfl_up_sync(v, 16)",
        Shuffle::Up {
            delta: 16,
            width: 32,
        },
    ),
    (
        "__shfl_down_sync(v, 1)",
        Shuffle::Down {
            delta: 1,
            width: 32,
        },
    ),
    (
        "__shfl_down_sync(v, 16)",
        Shuffle::Down {
            delta: 16,
            width: 32,
        },
    ),
    (
        "__shfl_down_sync(v, 1, 8)",
        Shuffle::Down { delta: 1, width: 8 },
    ),
    ("__shfl_xor_sync(v, 1)", Shuffle::Xor { lane_mask: 1 }),
    ("__shfl_xor_sync(v, 16)", Shuffle::Xor { lane_mask: 16 }),
];

/// All nine tables, row after row, as the CPU works them out.
fn cpu_tables(values: &[i32]) -> Vec<i32> {
    ROWS.iter()
        .flat_map(|(_, shuffle)| shuffle.apply(values))
        .collect()
}
// ANCHOR_END: rows

// ANCHOR: launch
/// One warp runs `shuffle_table` on `values`; the nine rows of 32 lanes come back.
fn gpu_tables(
    stream: &Arc<CudaStream>,
    kernel: &ch06_shuffles::ShuffleTable,
    values: &[i32],
) -> Vec<i32> {
    let d_values = stream
        .clone_htod(values)
        .or_exit("copy the values to the GPU");
    let mut d_table = alloc_poisoned::<i32>(stream, ROWS.len() * WARP);
    let one_warp = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (WARP as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    kernel
        .launch(stream, one_warp, &d_values, &mut d_table)
        .or_exit_launching(kernel);
    stream
        .clone_dtoh(&d_table)
        .or_exit("copy the tables from the GPU")
}
// ANCHOR_END: launch

/// The table in two halves of 16 lanes, so that a line stays short.
fn print_table(table: &[i32]) {
    for half in [0..16, 16..32] {
        print!("{:<26}", "lane");
        for lane in half.clone() {
            print!("{lane:>3}");
        }
        println!();
        for (row, (name, _)) in ROWS.iter().enumerate() {
            print!("{name:<26}");
            for lane in half.clone() {
                print!("{:>3}", table[row * WARP + lane]);
            }
            println!();
        }
        println!();
    }
}

fn main() {
    let seed = course::cli::parse(
        "Prints what each warp shuffle hands each lane, checked against the CPU's rules.",
        |args| args.seed(),
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch06-shuffles.cu"), false);
    let kernels = ch06_shuffles::Kernels::load(&module);
    let kernel = &kernels.shuffle_table;

    // ANCHOR: main
    // First every lane holds its own number, so each entry says which lane it came from.
    let lane_numbers: Vec<i32> = (0..WARP as i32).collect();
    let got = gpu_tables(&stream, kernel, &lane_numbers);
    println!("Each entry is the lane whose value arrived (lane i starts with the value i):");
    print_table(&got);
    let wrong = count_mismatches(&got, &cpu_tables(&lane_numbers));
    // ANCHOR_END: main
    println!(
        "GPU tables equal the CPU's rules, lane numbers ({wrong} entries differ): {}",
        verdict(wrong == 0)
    );
    // ANCHOR: main

    // Then random 32-bit values, so that no lucky pattern can pass.
    println!("seed {seed}");
    let mut rng = Rng::new(seed);
    let random: Vec<i32> = (0..WARP).map(|_| rng.next_u64() as i32).collect();
    let wrong = count_mismatches(&gpu_tables(&stream, kernel, &random), &cpu_tables(&random));
    // ANCHOR_END: main
    println!(
        "GPU tables equal the CPU's rules, random values ({wrong} entries differ): {}",
        verdict(wrong == 0)
    );
}
