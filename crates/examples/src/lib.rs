//! The small library every program of the book shares: finding the GPU, compiling and
//! loading kernels, timing, comparing results, reading arguments, describing the machine,
//! stopping with one sentence and drawing plots. Each module does one of those things; chapter
//! 7's imaging domain (the sky, its pixels, the groups of mirrored pixels) lives apart, in
//! [`imaging`].

pub mod bf16;
pub mod cli;
pub mod compare;
pub mod cub;
pub mod exit;
pub mod floor;
pub mod gemm;
pub mod gpu;
pub mod imaging;
pub mod includes;
pub mod kernel;
pub mod launch;
pub mod machine;
pub mod memory;
pub mod ncu;
pub mod plot;
pub mod png;
pub mod poison;
pub mod ptx;
pub mod random;
pub mod sanitizer;
pub mod timing;
pub mod tma;

/// Typed launchers for the kernels of one file of `kernels/`: `course::kernels!("ch03-streams.cu")`.
pub use launch_macro::{all_kernels, kernels};
