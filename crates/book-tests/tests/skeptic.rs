// Every `rust` block of the book, after its includes are expanded (see build.rs).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

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

/// What `rustc -vV` says: a new toolchain checks every block again.
static TOOLCHAIN: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(rustc).arg("-vV").output();
    out.expect("rustc -vV runs").stdout
});

/// skeptic's `compile_test`, skipped for a block that already compiled against the very same
/// libraries with the same compiler: the key is the block's text, `rustc -vV`, and the name,
/// size and time of each built file of [`LISTING_CRATES`] in `target/<profile>/deps`, so a new
/// toolchain or a rebuild of any of them checks every block again. Without this, the checks
/// alone take most of a minute on every `cargo test`.
fn compile_test_cached(root_dir: &str, out_dir: &str, target_triple: &str, test_text: &str) {
    let profile = Path::new(out_dir)
        .ancestors()
        .nth(3)
        .expect("OUT_DIR is target/<profile>/build/<pkg>/out");
    let mut hasher = DefaultHasher::new();
    test_text.hash(&mut hasher);
    TOOLCHAIN.hash(&mut hasher);
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

/// skeptic's `run_test`, once per distinct text. A page that shows several parts of one program
/// includes it with `rustdoc_include`, so each of its blocks is the whole program with the rest
/// hidden, and most run blocks repeat another's text. skeptic compiles each text once (its
/// binary cache); this runs it once too. The first test of a text runs it; the others wait for
/// that run and take its verdict.
fn run_test_once(root_dir: &str, out_dir: &str, target_triple: &str, test_text: &str) {
    type Verdict = Arc<OnceLock<Result<(), String>>>;
    static RUNS: LazyLock<Mutex<HashMap<String, Verdict>>> = LazyLock::new(Default::default);
    let verdict = Arc::clone(
        RUNS.lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(test_text.to_string())
            .or_default(),
    );
    let verdict = verdict.get_or_init(|| {
        std::panic::catch_unwind(|| {
            skeptic::rt::run_test(root_dir, out_dir, target_triple, test_text)
        })
        .map_err(|panic| {
            let text = panic.downcast_ref::<String>().cloned();
            text.or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
    });
    if let Err(why) = verdict {
        panic!("this block (the same text as another block of the book) failed: {why}");
    }
}

include!(concat!(env!("OUT_DIR"), "/skeptic-tests.rs"));
