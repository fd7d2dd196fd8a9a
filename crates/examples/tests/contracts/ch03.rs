//! The models of chapter 3's kernels.

#[allow(unused_imports)]
use super::launchers::*;
#[allow(unused_imports)]
use super::model::*;

/// Every model of the chapter.
pub fn models() -> Vec<Model> {
    vec![]
}
