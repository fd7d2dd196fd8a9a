// Every `rust` block of the book, after its includes are expanded (see build.rs).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

/// The crates a book listing may use (this package's dependencies); a rebuild of any of them,
/// or of anything they depend on, gives them new files.
const LISTING_CRATES: [&str; 6] = [
    "course",
    "cudarc",
    "ndarray",
    "num_complex",
    "rayon",
    "rustfft",
];

/// skeptic's `compile_test`, skipped for a block that already compiled against the very same
/// libraries: the key is the block's text and the name, size and time of each built file of
/// [`LISTING_CRATES`] in `target/<profile>/deps`, so a rebuild of any of them checks every
/// block again. Without this, the checks alone take most of a minute on every `cargo test`.
fn compile_test_cached(root_dir: &str, out_dir: &str, target_triple: &str, test_text: &str) {
    let profile = Path::new(out_dir)
        .ancestors()
        .nth(3)
        .expect("OUT_DIR is target/<profile>/build/<pkg>/out");
    let mut hasher = DefaultHasher::new();
    test_text.hash(&mut hasher);
    let mut libraries: Vec<_> = std::fs::read_dir(profile.join("deps"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let library = name.ends_with(".rlib") || name.ends_with(".rmeta");
            library
                && LISTING_CRATES
                    .iter()
                    .any(|c| name.starts_with(&format!("lib{c}-")))
        })
        .filter_map(|e| {
            Some((
                e.file_name(),
                e.metadata().ok()?.len(),
                e.metadata().ok()?.modified().ok()?,
            ))
        })
        .collect();
    libraries.sort();
    libraries.hash(&mut hasher);
    let marker = profile
        .join("skeptic-checked")
        .join(format!("{:016x}", hasher.finish()));
    if marker.exists() {
        return;
    }
    skeptic::rt::compile_test(root_dir, out_dir, target_triple, test_text); // panics on failure
    let _ = std::fs::create_dir_all(marker.parent().unwrap());
    let _ = std::fs::write(&marker, test_text);
}

include!(concat!(env!("OUT_DIR"), "/skeptic-tests.rs"));
