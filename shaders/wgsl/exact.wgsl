// Check and deterministic modes' float arithmetic: IEEE 754 binary32 as
// the CPU reference computes it, on any device.
//
// WGSL lets a device fuse a product into the sum it feeds (NVIDIA does, and
// rounds once where the CPU rounds twice), and lets its `/` and `sqrt` be
// 2.5 ulp off (NVIDIA's are): on such a device (an H200) the deterministic
// output of a kernel summing products or dividing would differ from the
// CPU's in the last bit (and a check's buffers from deterministic mode's).
// So instrumented kernels round every product on its own, and divide and
// take square roots by integer operations, rounded to nearest even. Loops
// are unrolled: lavapipe charges every loop against one budget of
// iterations per invocation. NaN payloads and signs are left to the
// device, as IEEE 754 leaves them; so are subnormal operands and results
// of `+ - *` on a device that flushes them (WGSL allows it; NVIDIA's does).

// A product rounded to f32 before anything else sees it: the exclusive or
// with a word the compiler cannot know (`canary` is always 2) stops it
// from fusing the product into an addition.
fn ld_fmul(a: f32, b: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(a * b) ^ (ld_cfg.canary >> 2u));
}

// The one NaN these functions return (IEEE 754 leaves a NaN's payload
// and sign open).
const LD_QNAN: u32 = 0x7fc00000u;

fn ld_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

fn ld_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// WGSL's `%`, `a - b * trunc(a / b)`, each step rounded as the CPU's.
// Infinities and NaNs are spelled out: WGSL lets a device assume none
// reaches an operation (lavapipe folds `0.0 * inf` to 0).
fn ld_frem(a: f32, b: f32) -> f32 {
    let nan = bitcast<f32>(LD_QNAN);
    let d = ld_fdiv(a, b);
    if ld_nan(a) || ld_nan(b) || ld_nan(d) {
        return nan;
    }
    let q = select(trunc(d), d, ld_inf(d));
    var p = 0.0;
    if ld_inf(b) || ld_inf(q) {
        if b == 0.0 || q == 0.0 {
            return nan;
        }
        p = bitcast<f32>(((bitcast<u32>(b) ^ bitcast<u32>(q)) & 0x80000000u) | 0x7f800000u);
    } else {
        p = ld_fmul(b, q);
    }
    if ld_inf(p) {
        // inf - inf is NaN; a finite a minus an infinite p is -p.
        return select(bitcast<f32>(bitcast<u32>(p) ^ 0x80000000u), select(a, nan, a == p), ld_inf(a));
    }
    if ld_inf(a) {
        return a;
    }
    return a - p;
}

// A finite nonzero float's significand in [2^23, 2^24) and its biased
// exponent (below 1 for a subnormal).
fn ld_unpack(bits: u32) -> vec2<i32> {
    let e = i32((bits >> 23u) & 0xffu);
    let m = bits & 0x7fffffu;
    if e == 0 {
        let s = countLeadingZeros(m) - 8u;
        return vec2<i32>(i32(m << s), 1 - i32(s));
    }
    return vec2<i32>(i32(m | 0x800000u), e);
}

// `q` (the bits of a result's significand beyond its last `shift`) rounded
// to nearest even, with `sticky` for any nonzero bit below them; `base`
// holds the sign and the exponent's field less one (the significand's
// leading bit adds the one, and a carry out of it moves the exponent).
fn ld_round_bits(base: u32, q: u32, shift: u32, sticky: bool) -> u32 {
    let m = q >> shift;
    let rest = q & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    let up = rest > half || (rest == half && (sticky || (m & 1u) == 1u));
    return base + m + u32(up);
}

// floor(n / d) and its remainder, where the hardware's quotient `est` is
// off by a few: the exact remainder of the estimate fits 32 bits, so
// wrapping arithmetic gives it, and one more hardware division (whose
// error is below one) and a step each way fix it. `n` is known modulo
// 2^32 only (`n32`). (A digit-by-digit division would take 26 steps:
// most of the time of a kernel that divides, such as nbody's, on lavapipe.)
fn ld_div_fix(n32: u32, d: u32, est: u32) -> vec2<u32> {
    let r0 = i32(n32 - est * d);
    let dd = i32(floor(f32(r0) / f32(d)));
    var q = est + u32(dd);
    var r = r0 - dd * i32(d);
    let lo = r < 0;
    q = select(q, q - 1u, lo);
    r = select(r, r + i32(d), lo);
    let hi = r >= i32(d);
    q = select(q, q + 1u, hi);
    r = select(r, r - i32(d), hi);
    return vec2<u32>(u32(r), q);
}

fn ld_fdiv(x: f32, y: f32) -> f32 {
    let a = bitcast<u32>(x);
    let b = bitcast<u32>(y);
    let sign = (a ^ b) & 0x80000000u;
    let ax = a & 0x7fffffffu;
    let bx = b & 0x7fffffffu;
    if ax > 0x7f800000u || bx > 0x7f800000u {
        return bitcast<f32>(LD_QNAN);
    }
    if ax == 0x7f800000u || bx == 0u {
        // inf / inf and 0 / 0 are NaN; inf / y and x / 0 infinite.
        return select(bitcast<f32>(sign | 0x7f800000u), bitcast<f32>(LD_QNAN), ax == bx);
    }
    if ax == 0u || bx == 0x7f800000u {
        return bitcast<f32>(sign);
    }
    let ua = ld_unpack(ax);
    let ub = ld_unpack(bx);
    var ma = u32(ua.x);
    let mb = u32(ub.x);
    var e = ua.y - ub.y + 127;
    if ma < mb {
        ma <<= 1u;
        e -= 1;
    }
    // q = floor(ma / mb * 2^25): 26 bits, the significand's 24 and two to
    // round by (ma < 2^25 is even where it passes 2^24, so both convert
    // exactly; the quotient in [1, 2) is within a few units of 2^-23).
    let est = u32(f32(ma) / f32(mb) * 33554432.0);
    let s = ld_div_fix(ma << 25u, mb, est);
    let sticky = s.x != 0u;
    if e >= 255 {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    if e >= 1 {
        // A carry into exponent 255 gives exactly infinity's bits.
        return bitcast<f32>(ld_round_bits(sign | (u32(e - 1) << 23u), s.y, 2u, sticky));
    }
    // Subnormal: 3 - e bits go (at most 31: the rest rounds to zero).
    return bitcast<f32>(ld_round_bits(sign, s.y, u32(min(3 - e, 31)), sticky));
}

// floor(sqrt(n)) and its remainder, from the hardware's root `est`, off
// by a few: a Newton step on the exact remainder (which fits 32 bits, so
// wrapping arithmetic gives it) and a step each way. `n` is known modulo
// 2^32 only (`n32`).
fn ld_sqrt_fix(n32: u32, est: u32) -> vec2<u32> {
    let r0 = i32(n32 - est * est);
    var q = u32(i32(est) + i32(round(f32(r0) / f32(2u * est))));
    var r = i32(n32 - q * q);
    let lo = r < 0;
    r = select(r, r + i32(2u * q) - 1, lo);
    q = select(q, q - 1u, lo);
    let hi = r > i32(2u * q);
    r = select(r, r - i32(2u * q) - 1, hi);
    q = select(q, q + 1u, hi);
    return vec2<u32>(u32(r), q);
}

fn ld_fsqrt(x: f32) -> f32 {
    let a = bitcast<u32>(x);
    if a == 0u || a == 0x80000000u || a == 0x7f800000u {
        // Zeros keep their sign, infinity stays.
        return x;
    }
    if a > 0x7f800000u {
        // NaNs and negative numbers.
        return bitcast<f32>(LD_QNAN);
    }
    let u = ld_unpack(a);
    var m = u32(u.x);
    var e = u.y - 127;
    if (e & 1) != 0 {
        m <<= 1u;
        e -= 1;
    }
    // The root of m * 2^25: 25 bits, the significand's 24 and one to round
    // by; sqrt(m * 2^25) = sqrt(2m) * 2^12, and 2m converts exactly (m is
    // even where it passes 2^24).
    let est = u32(sqrt(f32(2u * m)) * 4096.0);
    let s = ld_sqrt_fix(m << 25u, est);
    return bitcast<f32>(ld_round_bits(u32(e / 2 + 126) << 23u, s.y, 1u, s.x != 0u));
}
