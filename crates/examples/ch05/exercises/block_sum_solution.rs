//! A solution to the exercise in `block_sum.rs`, as in
//! `crates/examples/ch05/block_sum_two_pass.rs`.
use rayon::prelude::*;

use super::block_sum::THREADS;

pub fn sum_in_kernel_order(x: &[f32]) -> f32 {
    let mut values = x.to_vec();
    loop {
        values = values
            .par_chunks(THREADS)
            .map(|chunk| {
                let mut s = [0.0f32; THREADS];
                s[..chunk.len()].copy_from_slice(chunk);
                let mut stride = THREADS / 2;
                while stride > 0 {
                    for t in 0..stride {
                        s[t] += s[t + stride];
                    }
                    stride /= 2;
                }
                s[0]
            })
            .collect();
        if values.len() == 1 {
            return values[0];
        }
    }
}
