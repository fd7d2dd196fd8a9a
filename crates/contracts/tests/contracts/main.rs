//! Property tests of the launch contracts: no launch that a safe launcher accepts can make its
//! kernel leave its buffers.
//!
//! For each launcher modelled here, proptest draws launches (lengths, grids, blocks, view
//! offsets and scalars, the extremes among them: 0, 1, 2^30, 2^31 - 1, one past...) and asks the
//! launcher's pure `contract` function, the very check `launch` runs, whether it accepts each.
//! For every accepted launch a hand-written model of the kernel says how far it reaches into
//! each buffer, which buffers it loads or stores 16 bytes at a time, and the largest value each
//! of its 32-bit index expressions takes; the test fails if any reach passes a length, any
//! vector access is misaligned, or any index overflows an `int`. A model mirrors the lines of
//! its `.cu` file between the anchors it names, and records a hash of them: when those lines
//! change, `every_model_mirrors_its_kernel_as_it_is` fails until the model is read again.
//!
//! The draws come from a fixed seed, printed; `COURSE_PROPTEST_SEED=N` draws others. A failing
//! launch is shrunk to a small one, which belongs in `refused.rs` as a plain test once the contract
//! refuses it; the findings of issue 34 are there too.
//!
//! `clusters.rs` tests the launchers of clustered kernels (`clusters` contracts) on a test's own
//! kernel: their contract accepts exactly the launches whose clauses all hold. A model of a
//! clustered kernel of `kernels/` draws `Launch::cluster` and calls its contract with
//! `Launch::clustered()`. A kernel's dynamic shared memory, which has no buffer, is checked as
//! an index: the bytes it uses against `shared`.

mod ch03;
mod ch04;
mod ch05;
mod ch06;
mod ch07;
mod ch08;
mod ch09;
mod ch09_fragments;
mod ch09_hopper;
mod ch09_tma;
mod clusters;
mod model;
mod refused;
mod tma;

use model::{Model, mirrored_hash};

/// The launchers of every kernel file, one module per file (`ch08_sort::RadixPass`...).
mod launchers {
    course::all_kernels!();
}

fn models() -> Vec<Model> {
    let chapters = [
        ch03::models(),
        ch04::models(),
        ch05::models(),
        ch06::models(),
        ch07::models(),
        ch08::models(),
        ch09::models(),
        ch09_fragments::models(),
        ch09_hopper::models(),
        ch09_tma::models(),
    ];
    chapters.into_iter().flatten().collect()
}

#[test]
fn every_model_mirrors_its_kernel_as_it_is() {
    let stale: Vec<String> = models()
        .iter()
        .filter(|m| mirrored_hash(m) != m.hash)
        .map(|m| {
            format!(
                "{} (its lines now hash to {:#018x})",
                m.kernels,
                mirrored_hash(m)
            )
        })
        .collect();
    assert!(
        stale.is_empty(),
        "the lines these models mirror have changed: read them again, correct the model, then \
         record the new hash: {stale:?}"
    );
}

/// The kernels whose launcher is an `unsafe fn`, by file, as `crates/examples/ch04/
/// unsafe_launchers.list` records them for the book (`BLESS=1` writes the file anew): a change in
/// which launchers are safe shows in review, and the book's count cannot go stale.
#[test]
fn the_unsafe_launchers_are_as_the_book_counts_them() {
    let mut text = String::new();
    let (mut kernels, mut safe) = (0, 0);
    let mut lines = Vec::new();
    for &(file, names, _, _, safety) in launchers::FILES {
        kernels += names.len();
        safe += safety.iter().filter(|&&s| s).count();
        let unsafe_ones: Vec<&str> = names
            .iter()
            .zip(safety)
            .filter(|&(_, &s)| !s)
            .map(|(n, _)| *n)
            .collect();
        if !unsafe_ones.is_empty() {
            lines.push(format!("  {file}: {}", unsafe_ones.join(", ")));
        }
    }
    text.push_str(&format!(
        "kernels in kernels/: {kernels}, of which {safe} have a safe launcher and {} an unsafe one:\n",
        kernels - safe
    ));
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/ch04/unsafe_launchers.list"
    );
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(path, &text).expect("the recording can be written");
    }
    let recorded = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        recorded, text,
        "{path} is not what the generator makes now; rerun with BLESS=1"
    );
}

/// Whether `name` fits `pattern`, where each `*` stands for any run of characters.
fn fits(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            name.starts_with(head) && (head.len()..=name.len()).any(|i| fits(rest, &name[i..]))
        }
    }
}

/// Every kernel with a safe launcher has a model here: a kernel added to `kernels/` with a
/// contract and no model would otherwise go untested. A model's `kernels` names its kernels,
/// separated by commas; a `*` in a name stands for any run of characters (`image_fma_*_*`).
#[test]
fn every_safe_launcher_has_a_model() {
    let models = models();
    let named = |kernel: &str| {
        models
            .iter()
            .any(|m| m.kernels.split(',').map(str::trim).any(|n| fits(n, kernel)))
    };
    let missing: Vec<String> = launchers::FILES
        .iter()
        .flat_map(|&(file, names, _, _, safety)| {
            names
                .iter()
                .zip(safety)
                .filter(|&(name, &safe)| safe && !named(name))
                .map(move |(name, _)| format!("{name} ({file})"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "these kernels have a safe launcher but no model in crates/contracts: {missing:?}"
    );
}
