//! Programs the book shows failing to compile, with the compiler's real error.
//! Each `compile-fail/NAME.rs` must fail with exactly `compile-fail/NAME.stderr`, the file the
//! book includes under it. `TRYBUILD=overwrite` rewrites the `.stderr` files from a fresh run.

#[test]
fn unsafe_sharing_is_refused_by_the_compiler() {
    // trybuild builds the programs with a cargo of its own: keep its progress lines and colour
    // codes out of the test output (cargo reads `term.quiet` from the environment).
    // SAFETY: this is the binary's only test, so no other thread reads the environment.
    unsafe {
        std::env::set_var("CARGO_TERM_QUIET", "true");
        std::env::set_var("NO_COLOR", "1");
    }
    trybuild::TestCases::new().compile_fail("compile-fail/*.rs");
}
