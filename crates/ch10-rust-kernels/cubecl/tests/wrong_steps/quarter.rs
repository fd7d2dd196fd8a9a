//! A wrong answer to chapter 10's challenge, which the judge's tests make it judge
//! (`COURSE_MUTANT=plane-quarter`): the shuffles start at a quarter of the plane, so the
//! upper half of the plane never reaches its first unit.

use cubecl::prelude::*;

#[cube]
pub fn plane_total(v: f32) -> f32 {
    let mut sum = v;
    let mut offset = PLANE_DIM / 4;
    while offset > 0 {
        sum += plane_shuffle_down(sum, offset);
        offset /= 2;
    }
    sum
}
