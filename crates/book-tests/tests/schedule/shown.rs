//! What a page shows of the files it includes, as mdBook's links preprocessor picks it: the
//! schedule counts the lines of its listings, and the core-path test reads them.

use std::path::Path;

pub use book_tests::{Include, include, shown_lines};

/// The lines that `inc`, on a page in folder `dir`, shows to a reader: blank lines and, in a
/// Rust include, the lines rustdoc hides (`#` or `# ...`) left out. A file that is not there
/// shows nothing here (the book test reports it).
pub fn visible(dir: &Path, inc: &Include) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(inc.file)) else {
        return Vec::new();
    };
    shown_lines(&text, inc.spec, inc.rustdoc)
        .unwrap_or_default()
        .into_iter()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !(inc.rustdoc && (t == "#" || t.starts_with("# ")))
        })
        .map(str::to_string)
        .collect()
}
