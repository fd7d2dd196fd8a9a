//! Refusing a problem too large for the card. A program whose default size needs more GPU memory
//! than a learner's GPU has free says so in one sentence and exits with
//! [`EXIT_TOO_LITTLE_MEMORY`], which the tests and the GPU check count as a skip with its name,
//! `too little GPU memory`, never as a failure or a pass.
//!
//! [`PRETEND_GPU_MEMORY_VAR`] (`COURSE_PRETEND_GPU_MEMORY_GIB=1`) makes the card look smaller:
//! its free memory counts as at most that many GiB, so the refusal can be shown on any GPU.

use cudarc::driver::CudaContext;

use crate::exit::OrExit;

pub use protocol::{EXIT_TOO_LITTLE_MEMORY, PRETEND_GPU_MEMORY_VAR};

const GIB: f64 = (1u64 << 30) as f64;

/// Stop with one sentence and [`EXIT_TOO_LITTLE_MEMORY`] unless the GPU of `ctx` has `bytes`
/// free, as its driver reports it now (or as [`PRETEND_GPU_MEMORY_VAR`] pretends). `what`
/// names the problem: `radix_sort on n=2^28 keys`. Call it right after
/// [`crate::gpu::gpu_or_exit`], before the program allocates anything on the GPU.
pub fn ensure_memory(ctx: &CudaContext, bytes: usize, what: &str) {
    let (free, _total) = ctx
        .mem_get_info()
        .or_exit("ask the GPU for its free memory");
    let pretend = std::env::var(PRETEND_GPU_MEMORY_VAR).ok();
    let pretend = pretended_bytes(pretend.as_deref())
        .unwrap_or_else(|why| crate::exit::fail(protocol::EXIT_BAD_ARGUMENT, &why));
    let free = pretend.map_or(free, |p| p.min(free));
    if let Some(sentence) = shortfall(bytes, free, what) {
        crate::exit::fail(EXIT_TOO_LITTLE_MEMORY, &sentence);
    }
}

/// The bytes [`PRETEND_GPU_MEMORY_VAR`]'s value pretends the GPU has free (`None` when it is not
/// set), or the sentence that refuses a value that is not a number of GiB.
pub fn pretended_bytes(value: Option<&str>) -> Result<Option<usize>, String> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.trim().parse::<f64>() {
        Ok(gib) if gib.is_finite() && gib >= 0.0 => Ok(Some((gib * GIB) as usize)),
        _ => Err(format!(
            "{PRETEND_GPU_MEMORY_VAR} must be a number of GiB, such as 1 or 0.5, not `{value}`."
        )),
    }
}

/// The sentence that refuses a problem needing `needed` bytes where `free` are free, or `None`
/// when it fits.
pub fn shortfall(needed: usize, free: usize, what: &str) -> Option<String> {
    (needed > free).then(|| {
        format!(
            "too little GPU memory: {what} needs {:.2} GiB, the GPU has {:.2} GiB free.",
            needed as f64 / GIB,
            free as f64 / GIB
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pretended_memory_is_read_in_gib() {
        assert_eq!(pretended_bytes(None), Ok(None));
        assert_eq!(pretended_bytes(Some("1")), Ok(Some(1 << 30)));
        assert_eq!(pretended_bytes(Some("0.5")), Ok(Some(1 << 29)));
        assert_eq!(pretended_bytes(Some(" 2 ")), Ok(Some(2 << 30)));
        for bad in ["", "one", "-1", "1GiB", "NaN", "inf"] {
            let why = pretended_bytes(Some(bad)).unwrap_err();
            assert!(why.starts_with(PRETEND_GPU_MEMORY_VAR), "{why}");
        }
    }

    #[test]
    fn a_problem_larger_than_the_free_memory_is_refused_in_one_sentence() {
        let gib = 1usize << 30;
        assert_eq!(shortfall(gib, gib, "x"), None);
        assert_eq!(shortfall(gib / 2, gib, "x"), None);
        assert_eq!(
            shortfall(17 * (gib / 4), gib, "radix_sort on n=2^28 keys").as_deref(),
            Some(
                "too little GPU memory: radix_sort on n=2^28 keys needs 4.25 GiB, \
                 the GPU has 1.00 GiB free."
            )
        );
        assert!(shortfall(gib + 1, gib, "x").is_some());
    }
}
