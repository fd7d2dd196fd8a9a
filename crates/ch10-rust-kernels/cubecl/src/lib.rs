//! Chapter 10: the course's staple kernels written in Rust with CubeCL, each run on the CPU
//! first, then on CUDA or on any GPU that wgpu finds (Vulkan, Metal, DX12), and on CUDA beside
//! its C++ twin from `kernels/`, launched in the same process through the course's launchers.
//!
//! One module per kernel: [`adder`], [`reduce`], [`histogram`], [`tiles`]. Each holds its
//! `#[cube]` kernel and the program that runs it; `src/main.rs` picks one by name. Around them:
//! [`args`] (the command line), [`device`] (CUDA or wgpu, and the buffers), [`timing`] and
//! [`report`] (how the kernels are timed, and the lines that say so), [`mutant`] (kernels broken
//! on purpose, for the tests), [`cuda_source`] (the CUDA C++ that CubeCL makes, without a GPU).

pub mod adder;
pub mod args;
pub mod cuda_source;
pub mod device;
pub mod histogram;
pub mod mutant;
pub mod reduce;
pub mod report;
pub mod tiles;
pub mod timing;
