//! A solution to the exercise in `scan.rs`, as in
//! `crates/examples/ch06/challenge_exclusive_scan.rs`.
use rayon::prelude::*;

pub fn exclusive_per_warp(values: &[u32]) -> Vec<u32> {
    let mut out = values.to_vec();
    out.par_chunks_mut(32).for_each(|warp| {
        let mut sum = 0u32;
        for x in warp {
            let v = *x;
            *x = sum;
            sum = sum.wrapping_add(v);
        }
    });
    out
}
