//! A solution to the exercise in `waves.rs`, the arithmetic of
//! `crates/examples/ch02/resident_blocks.rs`.
pub use super::waves::Residency;

pub fn residency(
    sms: usize,
    blocks_per_sm: usize,
    threads_per_sm: Option<usize>,
    blocks: usize,
    block: usize,
) -> Residency {
    let per_sm = match threads_per_sm {
        Some(limit) => blocks_per_sm.min(limit / block),
        None => blocks_per_sm,
    };
    let resident = per_sm * sms;
    let waves = blocks.div_ceil(resident);
    Residency {
        threads: blocks * block,
        resident,
        waves,
        empty_in_last_wave: waves * resident - blocks,
    }
}
