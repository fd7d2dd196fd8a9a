//! Exercise: the thread-count arithmetic of "Grids, blocks and threads", as a function.
//! A grid of `blocks` blocks of `block` threads runs on `sms` SMs; each SM holds at most
//! `blocks_per_sm` blocks, and, when `threads_per_sm` is given, at most that many threads.
//! Check your answer with `cargo run --bin judge -- ch02`.
#![allow(unused_variables)]

#[derive(Debug, PartialEq)]
pub struct Residency {
    /// Threads in the whole grid.
    pub threads: usize,
    /// Blocks resident on the GPU at once.
    pub resident: usize,
    /// Waves the grid runs in, if every block takes the same time.
    pub waves: usize,
    /// Block slots left empty during the last wave.
    pub empty_in_last_wave: usize,
}

pub fn residency(
    sms: usize,
    blocks_per_sm: usize,
    threads_per_sm: Option<usize>,
    blocks: usize,
    block: usize,
) -> Residency {
    // TODO: work out the four numbers (the workshop's example: 80 SMs, 16 blocks per SM,
    // 2000 blocks of 256 threads).
    Residency {
        threads: 0,
        resident: 0,
        waves: 0,
        empty_in_last_wave: 0,
    }
}
