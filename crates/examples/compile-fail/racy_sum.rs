// A parallel sum into one shared variable: the compiler refuses it.
use rayon::prelude::*;

fn main() {
    let xs = vec![1u64; 1_000_000];
    let mut sum = 0;
    xs.par_iter().for_each(|x| sum += x);
    println!("sum: {sum}");
}
