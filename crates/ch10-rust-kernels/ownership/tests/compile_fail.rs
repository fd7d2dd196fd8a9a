//! The ownership programs that fail to compile, with the compiler's real error: what the
//! borrow checker refuses about memory that asynchronous work uses. The programs of
//! `compile-fail/`, checked by the course's `checker::compile_fail` (which says how).

fn main() {
    checker::compile_fail::run(
        include_str!("../../../../rust-toolchain.toml"),
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
    )
}
