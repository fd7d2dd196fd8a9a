//! Exercise: "Part 1: two loops" of the DFT (chapter 4). X[k] = Σ_j x[j]·e^(−2πi·k·j/N) for
//! every k, as two nested loops. Check it with `cargo run --bin judge -- ch04`, which compares
//! it with rustfft.
#![allow(unused_variables, unused_mut)]
use num_complex::Complex64;

/// The DFT of `xs`, N = `xs.len()`: N² terms.
pub fn dft(xs: &[Complex64]) -> Vec<Complex64> {
    let n = xs.len();
    let mut out = vec![Complex64::new(0.0, 0.0); n];
    // TODO: a loop over k, and inside it a loop over j. `Complex64::from_polar(1.0, angle)` is
    // e^(i·angle).
    out
}
