//! Exercise: the streams challenge ("Streams"), as a model of the pipeline. `chunks` chunks go
//! through three steps: copy in, kernel and copy out, taking `copy_in`, `kernel` and
//! `copy_out` ms each. Chunk c goes to stream c % streams, and a stream runs its steps in the
//! order they were queued: chunk c's three, later chunk c + streams's. The GPU has one copy
//! engine each way and runs one kernel at a time; each of the three takes the chunks in order
//! of c. A step starts once its stream's previous step and its engine's previous step have
//! ended. Predict with it, then measure: change the number of streams that
//! `crates/examples/ch03/copy_overlap.rs` makes. `cargo run --bin judge -- ch03` compares the
//! model with a simulation of the GPU.
#![allow(unused_variables)]

/// The wall time: when the last chunk's copy out ends, in ms from the first copy in's start.
/// One chunk on one stream takes `copy_in + kernel + copy_out`.
pub fn pipeline_ms(chunks: usize, streams: usize, copy_in: f64, kernel: f64, copy_out: f64) -> f64 {
    // TODO: when each chunk's steps end, chunk by chunk.
    todo!("the wall time of the pipeline")
}
