//! Expands the book's includes with mdBook's own preprocessor, then hands every chapter to
//! skeptic, which turns each `rust` block into a test: compiled, and run unless `no_run`.
//!
//! Blocks marked `no_run` are compiled through a small cache, and a block whose text another
//! block repeats runs once (see tests/skeptic.rs). A block marked `ignore` stops the build.
//! Blocks marked `compile_fail` are left out here: `tests/compile_fail.rs` checks that they
//! fail with the error the book shows. Blocks marked `ch10` are too: chapter 10's workspace
//! (crates/ch10-rust-kernels) builds them, and `tests/book.rs` checks that they are its text.

use std::path::PathBuf;

use mdbook_driver::MDBook;
use mdbook_driver::book::BookItem;
use mdbook_driver::builtin_renderers::MarkdownRenderer;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..");
    for watched in ["book.toml", "src", "crates/examples", "kernels"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    let book =
        MDBook::load(&root).unwrap_or_else(|e| panic!("mdBook could not load the book: {e:#}"));
    let (book, _) = book
        .preprocess_book(&MarkdownRenderer::new())
        .unwrap_or_else(|e| panic!("mdBook could not expand the book: {e:#}"));

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("expanded");
    let mut files = Vec::new();
    for item in book.iter() {
        let BookItem::Chapter(chapter) = item else {
            continue;
        };
        let Some(path) = &chapter.path else { continue };
        // skeptic names each test after its file, so flatten `ch01-parallelism/races.md`.
        let flat = path.to_string_lossy().replace(['/', '\\', '-'], "_");
        let file = out.join(flat);
        // Chapter 10's listings are built by its own workspace (tests/book.rs checks that).
        let text = chapter
            .content
            .replace("```rust,compile_fail", "```text")
            .replace("```rust,ch10", "```text");
        // skeptic asks cargo to watch these files, and a file written while this script runs is
        // newer than the run: cargo would run the script (and recompile the crate) once more
        // next time. Date them in the past; the sources they come from are watched above.
        if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            std::fs::create_dir_all(&out).unwrap();
            std::fs::write(&file, text).unwrap();
            let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
            std::fs::File::options()
                .write(true)
                .open(&file)
                .and_then(|f| f.set_modified(long_ago))
                .unwrap();
        }
        files.push(file);
    }
    skeptic::generate_doc_tests(&files);

    // skeptic checks each `no_run` block with rustc on every run; route those checks through
    // `compile_test_cached` (tests/skeptic.rs), which skips a block unchanged since it passed.
    let generated = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("skeptic-tests.rs");
    let tests = std::fs::read_to_string(&generated).expect("skeptic wrote its tests");
    // Every block is compiled: a block marked `ignore` would be shown but never checked.
    if tests.contains("#[ignore]") {
        panic!(
            "a `rust,ignore` block in the book is never compiled: make it `rust,no_run` (with hidden lines `# ...` where it needs them) or `text`"
        );
    }
    // Each distinct text of a `rust` block runs once (`run_test_once`, tests/skeptic.rs).
    let tests = tests
        .replace("skeptic::rt::compile_test(", "compile_test_cached(")
        .replace("skeptic::rt::run_test(", "run_test_once(");
    std::fs::write(&generated, tests).unwrap();
}
