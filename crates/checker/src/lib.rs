//! The book's expected-output files and how a run is compared with them.
//!
//! An expected-output file is what the book shows under a program. Its first line is the
//! command, `$ cargo run --release --bin NAME [-- ARGS]`; the rest is what the program printed
//! (standard output, then standard error), and a last line `[exit status: N]` when the program
//! is meant to fail. Files named `*.gpu.txt` hold the output of a GPU program, recorded on the
//! GPU machine; the others were recorded on a CPU.
//!
//! Some of what a program prints truly varies, and only that is ignored (see [`mask_line`]).

pub mod cases;
pub mod compare;

pub use cases::{Case, find_cases};
pub use compare::{compare, mask_line};

/// Exit status of a program that needs a GPU and finds none (the same as `course::gpu`).
pub const EXIT_NO_GPU: i32 = 77;
