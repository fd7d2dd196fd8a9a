//! A launch imitated on the CPU: which element each thread of a 1-D and of a 2-D grid handles.
use course::compare::verdict;

/// CUDA's `dim3`: a size or an index in up to three dimensions.
#[derive(Clone, Copy, Debug)]
struct Dim3 {
    x: usize,
    y: usize,
    z: usize,
}

const fn dim3(x: usize, y: usize, z: usize) -> Dim3 {
    Dim3 { x, y, z }
}

// ANCHOR: launch
/// Run `kernel(blockIdx, threadIdx)` once for every thread of a grid of `grid` blocks of
/// `block` threads. A GPU runs them all at once, in no promised order; here they take turns.
fn launch(grid: Dim3, block: Dim3, mut kernel: impl FnMut(Dim3, Dim3)) {
    for bz in 0..grid.z {
        for by in 0..grid.y {
            for bx in 0..grid.x {
                for tz in 0..block.z {
                    for ty in 0..block.y {
                        for tx in 0..block.x {
                            kernel(dim3(bx, by, bz), dim3(tx, ty, tz));
                        }
                    }
                }
            }
        }
    }
}
// ANCHOR_END: launch

fn main() {
    course::cli::no_args("Shows which element each thread of a small 1-D and 2-D grid handles.");
    one_dimension();
    println!();
    two_dimensions();
}

fn one_dimension() {
    // ANCHOR: one_d
    let n: usize = 10;
    let block_dim = dim3(4, 1, 1);
    let grid_dim = dim3(n.div_ceil(block_dim.x), 1, 1);
    println!(
        "1-D: {n} elements, {} blocks of {} threads",
        grid_dim.x, block_dim.x
    );
    println!("blockIdx.x  threadIdx.x  global index");
    let mut visits = vec![0u32; n];
    launch(grid_dim, block_dim, |block_idx, thread_idx| {
        let i = block_idx.x * block_dim.x + thread_idx.x;
        let note = if i < n {
            visits[i] += 1;
            ""
        } else {
            "  past the end: does nothing"
        };
        println!("{:>10}  {:>11}  {i:>12}{note}", block_idx.x, thread_idx.x);
    });
    // ANCHOR_END: one_d
    let once = visits.iter().all(|&v| v == 1);
    println!("every element handled exactly once: {}", verdict(once));
}

fn two_dimensions() {
    // ANCHOR: two_d
    let (width, height): (usize, usize) = (7, 5);
    let block_dim = dim3(4, 2, 1);
    let grid_dim = dim3(width.div_ceil(block_dim.x), height.div_ceil(block_dim.y), 1);
    let mut owner = vec!['.'; width * height];
    let mut visits = vec![0u32; width * height];
    launch(grid_dim, block_dim, |block_idx, thread_idx| {
        let x = block_idx.x * block_dim.x + thread_idx.x;
        let y = block_idx.y * block_dim.y + thread_idx.y;
        if x < width && y < height {
            // Row-major: row y starts `y * width` elements into the array.
            let i = y * width + x;
            let block_number = block_idx.y * grid_dim.x + block_idx.x;
            owner[i] = (b'A' + block_number as u8) as char;
            visits[i] += 1;
        }
    });
    // ANCHOR_END: two_d
    let launched = grid_dim.x * grid_dim.y * block_dim.x * block_dim.y;
    println!(
        "2-D: a {width}x{height} image, {}x{} blocks of {}x{} threads, {launched} threads for {} pixels",
        grid_dim.x,
        grid_dim.y,
        block_dim.x,
        block_dim.y,
        width * height
    );
    println!("which block handles each pixel (A is blockIdx (0,0), B is (1,0), C is (0,1), ...):");
    println!(
        "       x: {}",
        (0..width)
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    for y in 0..height {
        let row: Vec<String> = owner[y * width..(y + 1) * width]
            .iter()
            .map(char::to_string)
            .collect();
        println!("    y={y}:  {}", row.join(" "));
    }
    let once = visits.iter().all(|&v| v == 1);
    println!("every pixel handled exactly once: {}", verdict(once));
}
