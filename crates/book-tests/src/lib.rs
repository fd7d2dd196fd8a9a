//! Nothing to see here: the tests live in `tests/`. This crate exists so that the book's code
//! blocks, its programs' outputs, its kernels and the rendered book are tested together by
//! `cargo test` at the root of the repository.
