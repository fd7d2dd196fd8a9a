//! Candidates 1 and 3 for C = A·B as CUDA kernels: nothing stops them from running, and
//! their result is wrong. Candidate 2, with one writer per element of C, is right.
use course::compare::{count_mismatches, verdict};
use course::gpu::{OrExit, alloc_poisoned, describe, gpu_or_exit};
use course::kernel::load;
use course::kernel_file;
use course::random::Rng;
use cudarc::driver::LaunchConfig;

mod ch04_matmul {
    course::kernels!("ch04-matmul.cu");
}

fn main() {
    // Sizes that are not multiples of the blocks (32x8, 16x16) reach the kernels' bounds tests.
    let (m, n, p, seed) = course::cli::parse(
        "Launches the two racy matrix-multiplication candidates and the right one on the GPU.",
        |args| {
            (
                args.usize("M", "the rows of A and C", 256, 1, 1024),
                args.usize("N", "the columns of A and rows of B", 256, 1, 1024),
                args.usize("P", "the columns of B and C", 256, 1, 1024),
                args.seed(),
            )
        },
    );
    let ctx = gpu_or_exit();
    let stream = ctx.default_stream();
    println!("{}", describe(&ctx));
    let module = load(&ctx, &kernel_file!("ch04-matmul.cu"), false);
    let k = ch04_matmul::Kernels::load(&module);

    // ANCHOR: data
    // Whole numbers from -2 to 2: every product and every sum is exact in f32, so a right
    // answer equals the CPU's to the bit, whatever the order of the additions.
    let mut rng = Rng::new(seed);
    let mut small =
        |len: usize| -> Vec<f32> { (0..len).map(|_| rng.below(5) as f32 - 2.0).collect() };
    let (a, b) = (small(m * n), small(n * p));
    let mut want = vec![0.0f32; m * p];
    for i in 0..m {
        for k in 0..n {
            for j in 0..p {
                want[i * p + j] += a[i * n + k] * b[k * p + j];
            }
        }
    }
    println!("A and B are {m}x{n} and {n}x{p}, whole numbers from -2 to 2, seed {seed}");
    // ANCHOR_END: data
    let a_dev = stream.clone_htod(&a).or_exit("copy A to the GPU");
    let b_dev = stream.clone_htod(&b).or_exit("copy B to the GPU");
    let (mi, ni, pi) = (m as i32, n as i32, p as i32);

    // ANCHOR: launches
    let candidates = [
        // candidate 1: x over k, y over j, z over i; 32×8 threads per block
        (
            "matmul_racy_ijk",
            "candidate 1, a thread per (i, j, k)",
            (n.div_ceil(32), p.div_ceil(8), m),
            (32, 8, 1),
        ),
        // candidate 3: x over k, y over i
        (
            "matmul_racy_ik",
            "candidate 3, a thread per (i, k)",
            (n.div_ceil(32), m.div_ceil(8), 1),
            (32, 8, 1),
        ),
        // candidate 2: x over j, y over i
        (
            "matmul_sum_in_register",
            "candidate 2, a thread per (i, j)",
            (p.div_ceil(16), m.div_ceil(16), 1),
            (16, 16, 1),
        ),
    ];
    for (kernel, name, grid, block) in candidates {
        // The racy kernels add into C, so C must start at zero; candidate 2 writes every
        // element, so its C starts as NaN, which no forgotten element can pass for a result.
        let mut c_dev = if kernel.starts_with("matmul_racy") {
            stream.alloc_zeros::<f32>(m * p).or_exit("allocate C")
        } else {
            alloc_poisoned::<f32>(&stream, m * p)
        };
        let config = LaunchConfig {
            grid_dim: (grid.0 as u32, grid.1 as u32, grid.2 as u32),
            block_dim: block,
            shared_mem_bytes: 0,
        };
        // Each candidate's contract names the axes that must cover its indices, so each has
        // a launcher of its own.
        match kernel {
            "matmul_racy_ijk" => k
                .matmul_racy_ijk
                .launch(&stream, config, &a_dev, &b_dev, &mut c_dev, mi, ni, pi)
                .or_exit_launching(&k.matmul_racy_ijk),
            "matmul_racy_ik" => k
                .matmul_racy_ik
                .launch(&stream, config, &a_dev, &b_dev, &mut c_dev, mi, ni, pi)
                .or_exit_launching(&k.matmul_racy_ik),
            _ => k
                .matmul_sum_in_register
                .launch(&stream, config, &a_dev, &b_dev, &mut c_dev, mi, ni, pi)
                .or_exit_launching(&k.matmul_sum_in_register),
        }
        let c = stream
            .clone_dtoh(&c_dev)
            .or_exit("copy C back from the GPU");
        let wrong = count_mismatches(&c, &want);
        // ANCHOR_END: launches
        println!("{name}: C equals the CPU's: {}", verdict(wrong == 0));
        // ANCHOR: launches
        // How much a race loses changes from run to run; a right C has no wrong element.
        let varies = if wrong > 0 { " (varies)" } else { "" };
        println!(
            "    wrong elements: {wrong} of {}; C[0][0] = {} where the CPU has {}{varies}",
            m * p,
            c[0],
            want[0]
        );
    }
    // ANCHOR_END: launches
}
