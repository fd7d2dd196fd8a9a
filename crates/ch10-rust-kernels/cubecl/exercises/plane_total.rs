//! Chapter 10's challenge: the reduction's plane step. `sum_planes` (`src/reduce.rs`) adds up a
//! cube's floats in three levels, and the middle one is this function. The chapter's judge runs
//! it on its own and inside `sum_planes`: `cargo run --bin judge -- ch10 plane`, in
//! `crates/ch10-rust-kernels`.

use cubecl::prelude::*;

/// The sum of `v` over the plane, complete in its first unit.
#[cube]
pub fn plane_total(v: f32) -> f32 {
    // TODO: return the sum of `v` over every unit of the plane. Only the plane's first unit
    // (UNIT_POS_PLANE == 0) must end up with the whole sum; the other units may hold anything.
    // Add values across the plane with `plane_shuffle_down(value, offset)`, which gives each
    // unit the `value` of the unit `offset` places above it. The plane has PLANE_DIM units:
    // 32 on an NVIDIA GPU, 8 on lavapipe, other sizes elsewhere, so write no 32.
    v
}
