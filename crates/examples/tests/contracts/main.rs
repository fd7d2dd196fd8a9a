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

mod ch03;
mod ch04;
mod ch05;
mod ch06;
mod ch07;
mod ch08;
mod model;
mod refused;

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
