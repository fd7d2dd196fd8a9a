//! NumPy-style computation with ndarray: the Taylor series of exp on a million values, one
//! whole-array operation per term, checked against the standard library's `exp`.
use ndarray::Array1;

use course::compare::within_bound;
use course::random::Rng;

// ANCHOR: series
/// ys += xs^n / n! for n = 0..degree: each term is whole-array arithmetic, as in NumPy.
fn exp_series(xs: &Array1<f64>, ys: &mut Array1<f64>, degree: i32) {
    let mut factorial = 1.0;
    for n in 0..degree {
        if n > 0 {
            factorial *= n as f64;
        }
        *ys += &(xs.mapv(|x| x.powi(n)) / factorial);
    }
}
// ANCHOR_END: series

fn main() {
    let seed = course::cli::parse(
        "Sums 12 terms of the Taylor series of exp on a million random values with ndarray.",
        |args| args.seed(),
    );
    println!("seed {seed}");
    let mut rng = Rng::new(seed);

    // ANCHOR: check
    let xs = Array1::from(rng.vec_f64(1_000_000, -1.0, 1.0));
    let mut ys = Array1::<f64>::zeros(xs.len());
    exp_series(&xs, &mut ys, 12);

    let want = xs.mapv(f64::exp);
    let worst = ((&ys - &want) / &want)
        .mapv(f64::abs)
        .fold(0.0f64, |m, &r| m.max(r));
    // The first term left out, x^12/12!, is below 2.1e-9 for |x| <= 1, and below 5.7e-9 relative
    // to exp(x): twelve terms must pass this bound, and eleven (up to 6.8e-8) must fail it.
    // ANCHOR_END: check
    let (line, _) = within_bound("largest relative difference from std's exp", worst, 1e-8);
    println!("{line}");
}
