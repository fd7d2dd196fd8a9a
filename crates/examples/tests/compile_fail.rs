//! Programs the book shows failing to compile, with the compiler's real error: the programs of
//! `compile-fail/`, checked by `checker::compile_fail` (which says how).

fn main() {
    checker::compile_fail::run(
        include_str!("../../../rust-toolchain.toml"),
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
    )
}
