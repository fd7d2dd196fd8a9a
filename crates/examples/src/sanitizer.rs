//! Running under the GPU check's `--sanitize` mode (compute-sanitizer), where every kernel runs
//! 10-100 times slower and timings mean nothing.

/// Whether the program runs under compute-sanitizer: the timing helpers then run the work once,
/// and a program may shrink a problem whose size is not what its kernels test.
pub fn sanitizing() -> bool {
    std::env::var_os(protocol::SANITIZE_VAR).is_some()
}

/// `full`, or `under_sanitizer` when [`sanitizing`]: for a problem whose size is not what its
/// kernels test, so that compute-sanitizer, which checks every access, finishes in seconds.
pub fn problem_size(full: usize, under_sanitizer: usize) -> usize {
    if sanitizing() { under_sanitizer } else { full }
}
