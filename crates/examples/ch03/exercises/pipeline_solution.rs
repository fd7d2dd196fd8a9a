//! A solution to the exercise in `pipeline.rs`.

pub fn pipeline_ms(chunks: usize, streams: usize, copy_in: f64, kernel: f64, copy_out: f64) -> f64 {
    // When each engine is next free, and when each chunk's copy out ended.
    let (mut in_free, mut kernel_free, mut out_free) = (0.0f64, 0.0f64, 0.0f64);
    let mut out_ends: Vec<f64> = Vec::with_capacity(chunks);
    for c in 0..chunks {
        // The stream's previous step is the copy out of chunk c - streams.
        let stream_free = match c.checked_sub(streams) {
            Some(earlier) => out_ends[earlier],
            None => 0.0,
        };
        in_free = in_free.max(stream_free) + copy_in;
        kernel_free = kernel_free.max(in_free) + kernel;
        out_free = out_free.max(kernel_free) + copy_out;
        out_ends.push(out_free);
    }
    out_free
}
