//! A solution to the exercise in `slow_memory.rs`: the arithmetic of the Solution of
//! "Challenge: slower memory".

/// The loads fill `threads` of the `cores · load_latency` issue slots before the first value
/// arrives; the rest are idle.
pub fn idle_before_first_value(cores: usize, load_latency: usize, threads: usize) -> usize {
    (cores * load_latency).saturating_sub(threads)
}

/// Little's law: `cores` loads issued per cycle, each in flight for `load_latency` cycles.
pub fn threads_to_hide(cores: usize, load_latency: usize) -> usize {
    cores * load_latency
}
