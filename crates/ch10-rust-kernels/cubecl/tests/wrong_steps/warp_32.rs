//! A wrong answer to chapter 10's challenge, which the judge's tests make it judge
//! (`COURSE_MUTANT=plane-warp-32`): the shuffles start at 16, half a warp of 32, whatever the
//! plane's size. Right on an NVIDIA GPU; on a plane of 8 (lavapipe), the first two shuffles
//! reach past the plane's end.

use cubecl::prelude::*;

#[cube]
pub fn plane_total(v: f32) -> f32 {
    let mut sum = v;
    let mut offset = 16u32;
    while offset > 0 {
        sum += plane_shuffle_down(sum, offset);
        offset /= 2;
    }
    sum
}
