//! A solution to the exercise in `lost_updates.rs`: the counting of
//! `crates/examples/ch01/lost_updates.rs`, as a function.
pub use super::lost_updates::Tally;

pub fn tally(sum: &dyn Fn(&[u64]) -> u64, n: usize, runs: usize) -> Tally {
    let xs = vec![1u64; n];
    let mut t = Tally {
        right: 0,
        most_lost: 0,
    };
    for _ in 0..runs {
        let lost = n as u64 - sum(&xs);
        if lost == 0 {
            t.right += 1;
        }
        t.most_lost = t.most_lost.max(lost);
    }
    t
}
