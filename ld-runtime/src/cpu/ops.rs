//! WGSL's arithmetic where Rust's differs. The twin calls these so the CPU
//! computes exactly what a conformant GPU computes.

// The CPU twin's operations: reached by `#[ld::kernel]` expansions through the hidden
// `__private` module, not part of the documented API.
#![allow(missing_docs)]

/// WGSL: `e1 / 0 == e1`.
#[inline]
pub fn div_u32(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(a)
}

/// WGSL: `e1 / 0 == e1` and `MIN / -1 == MIN`.
#[inline]
pub fn div_i32(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) {
        a
    } else {
        a / b
    }
}

/// WGSL: `e1 % 0 == 0`.
#[inline]
pub fn rem_u32(a: u32, b: u32) -> u32 {
    if b == 0 {
        0
    } else {
        a % b
    }
}

/// WGSL: `e1 % 0 == 0` and `MIN % -1 == 0`; the sign follows `e1`.
#[inline]
pub fn rem_i32(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) {
        0
    } else {
        a % b
    }
}

/// WGSL's float `%`: `a - b * trunc(a / b)`, each step rounded to f32 (as
/// lavapipe computes SPIR-V's `OpFRem`). It differs from Rust's `%` (an
/// exact fmod) where the quotient is large (`4294967296.0 % 3.0` is 0, not
/// 1) and in the sign of a zero result (`-6.0 % 3.0` is +0.0, not -0.0).
#[inline]
pub fn rem_f32(a: f32, b: f32) -> f32 {
    a - b * (a / b).trunc()
}

/// WGSL's `u32(f32)`: round toward zero, clamped to the representable range.
#[inline]
pub fn f32_to_u32(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        x.clamp(0.0, 4294967040.0) as u32
    }
}

/// WGSL's `i32(f32)`: round toward zero, clamped to the representable range.
#[inline]
pub fn f32_to_i32(x: f32) -> i32 {
    if x.is_nan() {
        0
    } else {
        x.clamp(-2147483648.0, 2147483520.0) as i32
    }
}

#[inline]
pub fn min_f32(a: f32, b: f32) -> f32 {
    a.min(b)
}

#[inline]
pub fn max_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}

/// WGSL's `clamp(e, lo, hi) = min(max(e, lo), hi)` (never panics, unlike `f32::clamp`).
#[inline]
pub fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

/// Rust's `fract`: `x - trunc(x)`.
#[inline]
pub fn fract(x: f32) -> f32 {
    x - x.trunc()
}

#[inline]
pub fn sign_f32(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wgsl_division_rules() {
        assert_eq!(div_u32(7, 0), 7);
        assert_eq!(rem_u32(7, 0), 0);
        assert_eq!(div_i32(i32::MIN, -1), i32::MIN);
        assert_eq!(rem_i32(i32::MIN, -1), 0);
        assert_eq!(div_i32(-7, 2), -3);
        assert_eq!(rem_i32(-7, 2), -1);
    }

    #[test]
    fn float_to_int_clamps() {
        assert_eq!(f32_to_u32(-3.5), 0);
        assert_eq!(f32_to_u32(1e20), 4294967040);
        assert_eq!(f32_to_i32(1e20), 2147483520);
        assert_eq!(f32_to_i32(-1e20), i32::MIN);
        assert_eq!(f32_to_i32(-2.7), -2);
        assert_eq!((f32_to_i32(f32::NAN), f32_to_u32(-f32::NAN)), (0, 0));
    }

    #[test]
    fn float_remainder_is_wgsls() {
        assert_eq!(rem_f32(-6.0, 3.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(rem_f32(4294967296.0, 3.0), 0.0);
        assert_eq!(rem_f32(-7.5, 2.0), -1.5);
        assert!(rem_f32(1.0, 0.0).is_nan());
    }
}
