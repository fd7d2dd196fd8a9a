//! Programs the book shows failing to compile, with the compiler's real error.
//! Each `compile-fail/NAME.rs` must fail with exactly `compile-fail/NAME.stderr`, the file the
//! book includes under it. `TRYBUILD=overwrite` rewrites the `.stderr` files from a fresh run.

#[test]
fn unsafe_sharing_is_refused_by_the_compiler() {
    trybuild::TestCases::new().compile_fail("compile-fail/*.rs");
}
