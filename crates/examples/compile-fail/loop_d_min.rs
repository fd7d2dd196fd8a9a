// Loop D in parallel: every thread reads and writes the same running minimum.
use rayon::prelude::*;

fn main() {
    let xs: Vec<f64> = (0..1000).map(|i| (i as f64).sin()).collect();
    let mut x_min = xs[0];
    xs.par_iter().for_each(|&x| {
        if x < x_min {
            x_min = x;
        }
    });
    println!("smallest: {x_min}");
}
