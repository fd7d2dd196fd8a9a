//! bfloat16, the tensor cores' input type of chapter 9: the upper 16 bits of an `f32` (its sign,
//! all 8 exponent bits and the top 7 of its 23 fraction bits), so it spans f32's range with 8
//! significant bits. CUDA calls it `__nv_bfloat16`.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

/// One bfloat16, as its bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub struct Bf16(pub u16);

impl Bf16 {
    /// The bfloat16 nearest to `x`, ties to the one with an even last bit, as CUDA's
    /// `__float2bfloat16` rounds. A NaN stays a NaN; what overflows becomes an infinity.
    pub fn from_f32(x: f32) -> Bf16 {
        let bits = x.to_bits();
        if x.is_nan() {
            return Bf16((bits >> 16) as u16 | 0x0040);
        }
        let (upper, lower) = (bits >> 16, bits & 0xffff);
        let up = lower > 0x8000 || (lower == 0x8000 && upper & 1 == 1);
        Bf16((upper + up as u32) as u16)
    }

    /// Its value, exactly: every bfloat16 is an `f32`.
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
}

// SAFETY: a `#[repr(transparent)]` u16, the layout of `__nv_bfloat16`; all bits zero is +0.
unsafe impl DeviceRepr for Bf16 {}
unsafe impl ValidAsZeroBits for Bf16 {}

/// Each of `xs` rounded to bfloat16.
pub fn round_all(xs: &[f32]) -> Vec<Bf16> {
    xs.iter().map(|&x| Bf16::from_f32(x)).collect()
}

/// The values of `xs` as `f32`.
pub fn widen_all(xs: &[Bf16]) -> Vec<f32> {
    xs.iter().map(|x| x.to_f32()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(Bf16::from_f32(1.0), Bf16(0x3f80));
        assert_eq!(Bf16::from_f32(-2.0), Bf16(0xc000));
        assert_eq!(Bf16::from_f32(f32::MAX).to_f32(), f32::INFINITY);
        assert!(Bf16::from_f32(f32::NAN).to_f32().is_nan());
    }

    /// Every finite bfloat16 rounds to itself; a point a quarter of the way to its upper
    /// neighbour rounds down, three quarters of the way up, and halfway to the even one of the two.
    #[test]
    fn rounds_to_nearest_ties_to_even() {
        for bits in 0..=u16::MAX {
            let (low, high) = (Bf16(bits), Bf16(bits.wrapping_add(1)));
            let (x, y) = (low.to_f32(), high.to_f32());
            if !x.is_finite() || !y.is_finite() || (bits & 0x7fff) == 0x7fff {
                continue;
            }
            assert_eq!(Bf16::from_f32(x), low, "{bits:#06x}");
            let step = |fraction: u32| f32::from_bits(x.to_bits() + fraction);
            assert_eq!(Bf16::from_f32(step(0x4000)), low, "{bits:#06x}");
            assert_eq!(Bf16::from_f32(step(0xc000)), high, "{bits:#06x}");
            let even = if bits % 2 == 0 { low } else { high };
            assert_eq!(Bf16::from_f32(step(0x8000)), even, "{bits:#06x}");
        }
    }
}
