// Loop C in parallel: every thread pushes onto the same Vec.
use rayon::prelude::*;

fn main() {
    let xs: Vec<f64> = (0..1000).map(|i| (i as f64).sin()).collect();
    let threshold = 0.5;
    let mut indices = Vec::new();
    (0..xs.len()).into_par_iter().for_each(|i| {
        if xs[i] > threshold {
            indices.push(i);
        }
    });
    println!("{} indices", indices.len());
}
