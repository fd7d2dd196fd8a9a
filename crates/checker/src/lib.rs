//! The book's expected-output files and how a run is compared with them.
//!
//! An expected-output file is what the book shows under a program. Its first line is the
//! command, `$ [NAME=VALUE ...] cargo run --release --bin NAME [-- ARGS]` (the settings of the
//! environment every run of the case gets); the rest is what the program printed
//! (standard output, then standard error), and a last line `[exit status: N]` when the program
//! is meant to fail. Files named `*.gpu.txt` hold the output of a GPU program, recorded on the
//! GPU machine; the others were recorded on a CPU.
//!
//! Some of what a program prints truly varies, and only that is ignored (see [`mask_line`]).

pub mod cases;
pub mod compare;
#[cfg(feature = "compile-fail")]
pub mod compile_fail;
pub mod limits;
pub mod mutants;

pub use cases::{Case, find_cases};
pub use compare::{Compared, compare, compare_verdicts, differences, mask_line};

pub use protocol::EXIT_NO_GPU;

/// A seed that differs from run to run, for the runs on fresh inputs.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // SplitMix64's finaliser, so that runs a nanosecond apart get unrelated seeds.
    let mut z = nanos ^ ((std::process::id() as u64) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) % 1_000_000_007
}
