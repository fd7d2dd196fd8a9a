//! The four candidate kernels for C = A·B, written as Rust loop bodies. Run one after the
//! other, all four are right; the question is which of them may run in parallel.
use course::compare::{relative_error, verdict, within_bound};
use course::gpu::OrExit;
use course::random::Rng;
use ndarray::ArrayView2;
use rayon::prelude::*;

/// A row-major matrix: `rows` rows of `cols` values.
#[derive(Clone, PartialEq)]
struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    fn zeros(rows: usize, cols: usize) -> Matrix {
        Matrix {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }
    fn random(rows: usize, cols: usize, rng: &mut Rng) -> Matrix {
        Matrix {
            rows,
            cols,
            data: rng.vec_f64(rows * cols, -1.0, 1.0),
        }
    }
}

impl std::ops::Index<(usize, usize)> for Matrix {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.data[i * self.cols + j]
    }
}

impl std::ops::IndexMut<(usize, usize)> for Matrix {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.data[i * self.cols + j]
    }
}

// ANCHOR: candidates
/// Candidate 1: a 3-D grid, one thread per (i, j, k).
fn kernel1(i: usize, j: usize, k: usize, a: &Matrix, b: &Matrix, c: &mut Matrix) {
    c[(i, j)] += a[(i, k)] * b[(k, j)];
}

/// Candidate 2: a 2-D grid, one thread per (i, j).
fn kernel2(i: usize, j: usize, a: &Matrix, b: &Matrix, c: &mut Matrix) {
    for k in 0..a.cols {
        c[(i, j)] += a[(i, k)] * b[(k, j)];
    }
}

/// Candidate 3: a 2-D grid, one thread per (i, k).
fn kernel3(i: usize, k: usize, a: &Matrix, b: &Matrix, c: &mut Matrix) {
    for j in 0..c.cols {
        c[(i, j)] += a[(i, k)] * b[(k, j)];
    }
}

/// Candidate 4: a 1-D grid, one thread per row i.
fn kernel4(i: usize, a: &Matrix, b: &Matrix, c: &mut Matrix) {
    for j in 0..c.cols {
        for k in 0..a.cols {
            c[(i, j)] += a[(i, k)] * b[(k, j)];
        }
    }
}
// ANCHOR_END: candidates

fn main() {
    let seed = course::cli::parse(
        "Runs four candidate matrix-multiplication kernels serially, and two of them with rayon.",
        |args| args.seed(),
    );
    // ANCHOR: serial
    let (m, n, p) = (32, 16, 24);
    let mut rng = Rng::new(seed);
    let a = Matrix::random(m, n, &mut rng);
    let b = Matrix::random(n, p, &mut rng);
    println!("A is {m}x{n}, B is {n}x{p}, seed {seed}");

    // Every candidate, its "grid" walked by plain loops, one thread after another.
    let mut c1 = Matrix::zeros(m, p);
    for i in 0..m {
        for j in 0..p {
            for k in 0..n {
                kernel1(i, j, k, &a, &b, &mut c1);
            }
        }
    }
    let mut c2 = Matrix::zeros(m, p);
    for i in 0..m {
        for j in 0..p {
            kernel2(i, j, &a, &b, &mut c2);
        }
    }
    let mut c3 = Matrix::zeros(m, p);
    for i in 0..m {
        for k in 0..n {
            kernel3(i, k, &a, &b, &mut c3);
        }
    }
    let mut c4 = Matrix::zeros(m, p);
    for i in 0..m {
        kernel4(i, &a, &b, &mut c4);
    }
    // Each element sums its n products in the same order, so the results agree to the bit.
    let same = c1 == c2 && c2 == c3 && c3 == c4;
    // ANCHOR_END: serial
    println!(
        "run serially, the four candidates give the same C: {}",
        verdict(same)
    );

    // The known answer: ndarray's own product of the same matrices (it sums in another order,
    // so it agrees to rounding, not to the bit).
    let a_nd = ArrayView2::from_shape((m, n), &a.data).or_exit("shape A");
    let b_nd = ArrayView2::from_shape((n, p), &b.data).or_exit("shape B");
    let want: Vec<f64> = a_nd.dot(&b_nd).iter().copied().collect();
    let (line, _) = within_bound(
        "relative difference from ndarray's A·B",
        relative_error(&c2.data, &want),
        1e-12,
    );
    println!("{line}");

    // ANCHOR: parallel
    // In parallel, rayon must hand each thread the part of C that it alone writes. For
    // candidate 2 that is one element; for candidate 4, one row. Candidates 1 and 3 have
    // no such part: several of their threads write the same element.
    let mut c2_par = vec![0.0; m * p];
    c2_par.par_iter_mut().enumerate().for_each(|(ij, c_ij)| {
        let (i, j) = (ij / p, ij % p);
        *c_ij = (0..n)
            .map(|k| a[(i, k)] * b[(k, j)])
            .fold(0.0, |s, x| s + x);
    });
    let mut c4_par = vec![0.0; m * p];
    c4_par.par_chunks_mut(p).enumerate().for_each(|(i, row)| {
        for (j, c_ij) in row.iter_mut().enumerate() {
            *c_ij = (0..n)
                .map(|k| a[(i, k)] * b[(k, j)])
                .fold(0.0, |s, x| s + x);
        }
    });
    // ANCHOR_END: parallel
    println!(
        "candidates 2 and 4 under rayon give the same C: {}",
        verdict(c2_par == c2.data && c4_par == c2.data)
    );

    // ANCHOR: threads
    println!("threads each candidate's grid would launch:");
    println!(
        "{:>20} {:>12} {:>12} {:>12} {:>12}",
        "A and B", "candidate 1", "candidate 2", "candidate 3", "candidate 4"
    );
    for (m, n, p) in [(32u64, 16u64, 24u64), (2048, 2048, 2048)] {
        let shape = format!("{m}x{n}, {n}x{p}");
        println!(
            "{shape:>20} {:>12} {:>12} {:>12} {:>12}",
            m * n * p,
            m * p,
            m * n,
            m
        );
    }
    // ANCHOR_END: threads
}
