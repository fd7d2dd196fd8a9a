//! NumPy-style computation with ndarray: the Taylor series of exp on a million values, one
//! whole-array operation per term, checked against `exp`.
use ndarray::Array1;

use course::compare::verdict;
use course::random::{Rng, fresh_seed};

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
    let seed = fresh_seed();
    println!("seed {seed} (varies)");
    let mut rng = Rng::new(seed);

    // ANCHOR: check
    let xs = Array1::from(rng.vec_f64(1_000_000, -1.0, 1.0));
    let mut ys = Array1::<f64>::zeros(xs.len());
    exp_series(&xs, &mut ys, 12);

    let want = xs.mapv(f64::exp);
    let worst = ((&ys - &want) / &want)
        .mapv(f64::abs)
        .fold(0.0f64, |m, &r| m.max(r));
    println!("largest relative difference from exp: {worst:.1e} (varies)");
    println!(
        "within 1e-7 everywhere (NumPy's assert_allclose default): {}",
        verdict(worst <= 1e-7)
    );
    // ANCHOR_END: check
}
