//! Deliberately broken kernels, to prove that the checks catch them. `COURSE_MUTANT=NAME` is read
//! when a kernel is built: the host passes it to the kernel as a comptime flag, or as a type
//! parameter (the block sum's plane step, `reduce::HalfPlane`), so the same binary JIT-compiles
//! the broken version, on CUDA and on wgpu alike. The chapter's judge has wrong answers of its
//! own, named the same way (`exercises/mod.rs`).

use course::cli::fail;

/// The variable that names the mutant.
pub const VAR: &str = "COURSE_MUTANT";

/// The mutants, each a name and what it breaks.
pub const MUTANTS: [(&str, &str); 2] = [
    (
        "reduce-half-plane",
        "the reduction's shuffles start at a quarter of the plane, so half its lanes are lost",
    ),
    (
        "histogram-no-tail",
        "the histogram skips the bytes after the last whole 16-byte piece",
    ),
];

/// Refuse, with one sentence, a `COURSE_MUTANT` that names no mutant: before any work.
pub fn check() {
    if let Ok(value) = std::env::var(VAR)
        && !MUTANTS.iter().any(|(m, _)| *m == value)
    {
        let names: Vec<&str> = MUTANTS.iter().map(|(m, _)| *m).collect();
        fail(&format!(
            "{VAR} must name one of the mutants, {}, not `{value}`",
            names.join(", ")
        ));
    }
}

/// Whether `COURSE_MUTANT` names `name`.
pub fn is(name: &str) -> bool {
    std::env::var(VAR).is_ok_and(|value| value == name)
}
