//! Differential tests of the integer side of the kernel language: wrapping
//! arithmetic, division/remainder edge cases, shifts, bit operations, casts,
//! bit-counting methods, min/max/clamp/abs and literal typing.
//!
//! Every test runs the same kernel on the GPU runtime (lavapipe here) and on
//! the CPU reference executor with the same inputs, asserts the two outputs
//! are bit-identical (integers are exact), and checks them against an
//! expectation computed in plain Rust on the host, so the test also fails if
//! both backends are wrong the same way.
use crate::support as common;

use common::both;

/// Asserts `got` (the backends' agreed output) equals the host expectation.
fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T], input: impl Fn(usize) -> String) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{what}[{i}] (input {}): kernels gave {g:?}, host expects {w:?}", input(i));
    }
}

/// Deterministic pseudo-random u32s (xorshift), mixed with edge values.
fn words(n: usize, seed: u32) -> Vec<u32> {
    let edges = [0u32, 1, 2, 3, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, u32::MAX, u32::MAX - 1, 0xffff, 0x10000, 46341, 65535, 65536, 31, 32, 33];
    let mut s = seed | 1;
    (0..n)
        .map(|i| {
            if i < edges.len() {
                edges[(i + seed as usize) % edges.len()]
            } else {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                // a mix of full-range and small values
                if i % 3 == 0 {
                    s % 1000
                } else {
                    s
                }
            }
        })
        .collect()
}

const N: usize = 1024;
const WG: u32 = 64;

// ---------------------------------------------------------------- wrapping

#[ld::kernel(workgroup_size = 64)]
fn wrap_u32(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i * 6] = x + y;
        out[i * 6 + 1] = x - y;
        out[i * 6 + 2] = x * y;
        out[i * 6 + 3] = x.wrapping_add(y);
        out[i * 6 + 4] = x.wrapping_sub(y);
        out[i * 6 + 5] = x.wrapping_mul(y);
    }
}

#[test]
fn u32_add_sub_mul_wrap() {
    let a = words(N, 7);
    let b = words(N, 11);
    let got = both("wrap_u32", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<u32>(N * 6).unwrap();
        wrap_u32.launch(rt, ld::Grid::cover(N as u64, WG), &da, &db, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = (0..N)
        .flat_map(|i| {
            let (x, y) = (a[i], b[i]);
            [x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y), x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y)]
        })
        .collect();
    expect("wrap_u32", &got, &want, |i| format!("a={} b={} op={}", a[i / 6], b[i / 6], i % 6));
}

#[ld::kernel(workgroup_size = 64)]
fn wrap_i32(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i * 7] = x + y;
        out[i * 7 + 1] = x - y;
        out[i * 7 + 2] = x * y;
        out[i * 7 + 3] = x.wrapping_add(y);
        out[i * 7 + 4] = x.wrapping_sub(y);
        out[i * 7 + 5] = x.wrapping_mul(y);
        out[i * 7 + 6] = -x;
    }
}

#[test]
fn i32_add_sub_mul_neg_wrap() {
    let a: Vec<i32> = words(N, 3).into_iter().map(|w| w as i32).collect();
    let b: Vec<i32> = words(N, 5).into_iter().map(|w| w as i32).collect();
    let got = both("wrap_i32", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<i32>(N * 7).unwrap();
        wrap_i32.launch(rt, ld::Grid::cover(N as u64, WG), &da, &db, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<i32> = (0..N)
        .flat_map(|i| {
            let (x, y) = (a[i], b[i]);
            [x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y), x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y), x.wrapping_neg()]
        })
        .collect();
    expect("wrap_i32", &got, &want, |i| format!("a={} b={} op={}", a[i / 7], b[i / 7], i % 7));
}

// ------------------------------------------------------ division/remainder

/// WGSL semantics, which ld promises on both backends.
fn wgsl_udiv(x: u32, y: u32) -> (u32, u32) {
    (x.checked_div(y).unwrap_or(x), x.checked_rem(y).unwrap_or(0))
}
fn wgsl_idiv(x: i32, y: i32) -> (i32, i32) {
    if y == 0 {
        (x, 0)
    } else if x == i32::MIN && y == -1 {
        (i32::MIN, 0)
    } else {
        (x / y, x % y)
    }
}

#[ld::kernel(workgroup_size = 64)]
fn div_u32(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < a.len() {
        out[i * 4] = a[i] / b[i];
        out[i * 4 + 1] = a[i] % b[i];
        let mut q = a[i];
        q /= b[i];
        let mut r = a[i];
        r %= b[i];
        out[i * 4 + 2] = q;
        out[i * 4 + 3] = r;
    }
}

#[test]
fn u32_div_rem_including_zero() {
    let a = words(N, 13);
    let mut b = words(N, 17);
    for i in (0..N).step_by(5) {
        b[i] = 0; // every fifth divisor is zero
    }
    b[1] = 1;
    b[2] = u32::MAX;
    let got = both("div_u32", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<u32>(N * 4).unwrap();
        div_u32.launch(rt, ld::Grid::cover(N as u64, WG), &da, &db, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = (0..N)
        .flat_map(|i| {
            let (q, r) = wgsl_udiv(a[i], b[i]);
            [q, r, q, r]
        })
        .collect();
    expect("div_u32", &got, &want, |i| format!("{} / {} op={}", a[i / 4], b[i / 4], i % 4));
}

#[ld::kernel(workgroup_size = 64)]
fn div_i32(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = global_id().x;
    if i < a.len() {
        out[i * 4] = a[i] / b[i];
        out[i * 4 + 1] = a[i] % b[i];
        let mut q = a[i];
        q /= b[i];
        let mut r = a[i];
        r %= b[i];
        out[i * 4 + 2] = q;
        out[i * 4 + 3] = r;
    }
}

#[test]
fn i32_div_rem_zero_min_negative() {
    // Hand-picked edges first: /0, %0, MIN/-1, MIN%-1, truncation toward zero.
    let mut pairs: Vec<(i32, i32)> = vec![
        (7, 0),
        (-7, 0),
        (0, 0),
        (i32::MIN, 0),
        (i32::MAX, 0),
        (i32::MIN, -1),
        (i32::MIN, 1),
        (i32::MIN, 2),
        (i32::MAX, -1),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (7, 2),
        (-1, 2),
        (1, -2),
        (-9, 3),
        (-10, 3),
        (10, -3),
        (i32::MIN, i32::MIN),
        (i32::MIN, i32::MAX),
    ];
    let r1 = words(N, 19);
    let r2 = words(N, 23);
    let mut k = 0;
    while pairs.len() < N {
        let y = if k % 7 == 0 {
            0
        } else if k % 2 == 0 {
            (r2[k] % 2000) as i32 - 1000
        } else {
            r2[k] as i32
        };
        pairs.push((r1[k] as i32, y));
        k += 1;
    }
    let a: Vec<i32> = pairs.iter().map(|p| p.0).collect();
    let b: Vec<i32> = pairs.iter().map(|p| p.1).collect();
    let got = both("div_i32", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<i32>(N * 4).unwrap();
        div_i32.launch(rt, ld::Grid::cover(N as u64, WG), &da, &db, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    // spot checks of the promised rules, independent of wgsl_idiv
    assert_eq!(&got[0..2], &[7, 0], "7/0 == 7, 7%0 == 0");
    assert_eq!(&got[4..6], &[-7, 0], "-7/0 == -7");
    assert_eq!(&got[5 * 4..5 * 4 + 2], &[i32::MIN, 0], "MIN/-1 == MIN, MIN%-1 == 0");
    assert_eq!(&got[9 * 4..9 * 4 + 2], &[-3, -1], "-7/2 == -3 (toward zero), -7%2 == -1");
    assert_eq!(&got[10 * 4..10 * 4 + 2], &[-3, 1], "7/-2 == -3, 7%-2 == 1");
    let want: Vec<i32> = (0..N)
        .flat_map(|i| {
            let (q, r) = wgsl_idiv(a[i], b[i]);
            [q, r, q, r]
        })
        .collect();
    expect("div_i32", &got, &want, |i| format!("{} / {} op={}", a[i / 4], b[i / 4], i % 4));
}

// ------------------------------------------------------------------ shifts

#[ld::kernel(workgroup_size = 64)]
fn shifts(x: &[u32], s: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < x.len() {
        let v = x[i];
        let n = s[i];
        let iv = v as i32;
        out[i * 6] = v << n;
        out[i * 6 + 1] = v >> n;
        out[i * 6 + 2] = (iv >> n) as u32;
        out[i * 6 + 3] = (iv << n) as u32;
        let mut a = v;
        a <<= n;
        let mut b = iv;
        b >>= n;
        out[i * 6 + 4] = a;
        out[i * 6 + 5] = b as u32;
    }
}

#[test]
fn shifts_mask_amount_and_arithmetic_i32() {
    let x = words(N, 29);
    // every amount 0..=70 appears, so amounts >= 32 (masked to low 5 bits) are covered
    let s: Vec<u32> = (0..N as u32).map(|i| (i * 7) % 71).collect();
    let got = both("shifts", |rt| {
        let (dx, ds) = (rt.upload(&x).unwrap(), rt.upload(&s).unwrap());
        let mut out = rt.zeros::<u32>(N * 6).unwrap();
        shifts.launch(rt, ld::Grid::cover(N as u64, WG), &dx, &ds, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = (0..N)
        .flat_map(|i| {
            let (v, n) = (x[i], s[i] & 31);
            let iv = v as i32;
            [v << n, v >> n, (iv >> n) as u32, (iv << n) as u32, v << n, (iv >> n) as u32]
        })
        .collect();
    expect("shifts", &got, &want, |i| format!("x={:#x} s={} op={}", x[i / 6], s[i / 6], i % 6));
}

#[ld::kernel(workgroup_size = 64)]
fn shift_consts(out: &mut [u32]) {
    let i = global_id().x;
    if i == 0 {
        let x = 5u32;
        out[0] = x << 31u32;
        let h = 0x8000_0000u32;
        out[1] = h >> 3u32;
        let m = -16i32;
        out[2] = (m >> 2u32) as u32; // arithmetic: -4
        out[3] = (m >> 4u32) as u32; // -1
        out[4] = (i32::MIN >> 31u32) as u32; // -1
        out[5] = 1u32 << 31u32;
        let mut y = 3u32;
        y <<= 4u32;
        out[6] = y;
    }
}

#[test]
fn shifts_by_literal_amounts() {
    let got = both("shift_consts", |rt| {
        let mut out = rt.zeros::<u32>(7).unwrap();
        shift_consts.launch(rt, 1u32, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want = vec![5u32 << 31, 0x1000_0000, (-4i32) as u32, (-1i32) as u32, u32::MAX, 0x8000_0000, 48];
    expect("shift_consts", &got, &want, |i| format!("case {i}"));
}

#[ld::kernel(workgroup_size = 1)]
fn shift_literal_amount_ge_32(a: &[u32], out: &mut [u32]) {
    let x = a[0];
    out[0] = x << 33u32; // == x << 1
    out[1] = x >> 35u32; // == x >> 3
    out[2] = ((x as i32) >> 36u32) as u32; // == >> 4, arithmetic
    out[3] = 8u32 << 33u32; // == 16
}

#[test]
fn shifts_by_literal_amount_ge_32() {
    {
        let got = both("shift_literal_amount_ge_32", |rt| {
            let da = rt.upload(&[0x8000_0010u32]).unwrap();
            let mut out = rt.zeros::<u32>(4).unwrap();
            shift_literal_amount_ge_32.launch(rt, 1u32, &da, &mut out).run().unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(got, vec![0x20, 0x1000_0002, 0xf800_0001, 16]);
    }
}

// ---------------------------------------------------------------- bit ops

#[ld::kernel(workgroup_size = 64)]
fn bitops(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let ix = x as i32;
        let iy = y as i32;
        out[i * 10] = x & y;
        out[i * 10 + 1] = x | y;
        out[i * 10 + 2] = x ^ y;
        out[i * 10 + 3] = !x;
        out[i * 10 + 4] = (ix & iy) as u32;
        out[i * 10 + 5] = (ix | iy) as u32;
        out[i * 10 + 6] = (ix ^ iy) as u32;
        out[i * 10 + 7] = (!ix) as u32;
        let mut c = x;
        c &= y;
        c |= 0x100u32;
        c ^= x;
        out[i * 10 + 8] = c;
        // `!` on bool, and bool -> u32
        out[i * 10 + 9] = (!(x > y)) as u32;
    }
}

#[test]
fn bit_ops_and_not() {
    let a = words(N, 31);
    let b = words(N, 37);
    let got = both("bitops", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<u32>(N * 10).unwrap();
        bitops.launch(rt, ld::Grid::cover(N as u64, WG), &da, &db, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = (0..N)
        .flat_map(|i| {
            let (x, y) = (a[i], b[i]);
            let (ix, iy) = (x as i32, y as i32);
            [x & y, x | y, x ^ y, !x, (ix & iy) as u32, (ix | iy) as u32, (ix ^ iy) as u32, (!ix) as u32, ((x & y) | 0x100) ^ x, (x <= y) as u32]
        })
        .collect();
    expect("bitops", &got, &want, |i| format!("a={:#x} b={:#x} op={}", a[i / 10], b[i / 10], i % 10));
}

// ------------------------------------------------------------------- casts

#[ld::kernel(workgroup_size = 64)]
fn int_casts(a: &[u32], out_u: &mut [u32], out_i: &mut [i32], out_f: &mut [f32]) {
    let i = global_id().x;
    if i < a.len() {
        let u = a[i];
        let s = u as i32;
        out_i[i * 2] = s; // bits reinterpreted
        out_i[i * 2 + 1] = (s as u32) as i32;
        out_u[i * 3] = s as u32;
        out_u[i * 3 + 1] = (u > 1000u32) as u32;
        out_u[i * 3 + 2] = (s < 0) as u32 + (u == 0u32) as u32;
        out_f[i * 2] = s as f32;
        out_f[i * 2 + 1] = u as f32;
    }
}

#[test]
fn casts_between_ints_bool_and_float() {
    let a = words(N, 41);
    let got = both("int_casts", |rt| {
        let da = rt.upload(&a).unwrap();
        let mut ou = rt.zeros::<u32>(N * 3).unwrap();
        let mut oi = rt.zeros::<i32>(N * 2).unwrap();
        let mut of = rt.zeros::<f32>(N * 2).unwrap();
        int_casts.launch(rt, ld::Grid::cover(N as u64, WG), &da, &mut ou, &mut oi, &mut of).run().unwrap();
        // all three outputs as raw words, so a float's bits are compared exactly
        let mut w = ou.to_vec().unwrap();
        w.extend(oi.to_vec().unwrap().into_iter().map(|x| x as u32));
        w.extend(of.to_vec().unwrap().into_iter().map(|x| x.to_bits()));
        w
    });
    let mut want: Vec<u32> = (0..N).flat_map(|i| [a[i], (a[i] > 1000) as u32, ((a[i] as i32) < 0) as u32 + (a[i] == 0) as u32]).collect();
    want.extend((0..N).flat_map(|i| [a[i], a[i]]));
    // int -> float conversion is exact-or-rounded-to-nearest on both: i32/u32 -> f32
    want.extend((0..N).flat_map(|i| [(a[i] as i32 as f32).to_bits(), (a[i] as f32).to_bits()]));
    expect("int_casts", &got, &want, |i| format!("output word {i}"));
}

#[ld::kernel(workgroup_size = 64)]
fn float_to_int(x: &[f32], out_u: &mut [u32], out_i: &mut [i32]) {
    let i = global_id().x;
    if i < x.len() {
        out_u[i] = x[i] as u32;
        out_i[i] = x[i] as i32;
    }
}

#[test]
fn f32_to_int_truncates_in_range() {
    // in range of both u32 and i32 for out_i; out_u only checked where x >= 0
    let mut x: Vec<f32> = vec![0.0, -0.0, 0.5, 0.999, 1.0, 1.5, 2.5, -0.5, -1.5, -2.999, 123.75, 16777216.0, 2147483520.0, -2147483648.0, 1e-30, 65535.9];
    for k in 0..(256 - x.len()) {
        x.push((k as f32 - 100.0) * 3.37);
    }
    let n = x.len();
    let got = both("float_to_int", |rt| {
        let dx = rt.upload(&x).unwrap();
        let mut ou = rt.zeros::<u32>(n).unwrap();
        let mut oi = rt.zeros::<i32>(n).unwrap();
        float_to_int.launch(rt, ld::Grid::cover(n as u64, WG), &dx, &mut ou, &mut oi).run().unwrap();
        let mut w = ou.to_vec().unwrap();
        w.extend(oi.to_vec().unwrap().into_iter().map(|v| v as u32));
        w
    });
    for i in 0..n {
        if x[i] >= 0.0 {
            assert_eq!(got[i], x[i] as u32, "{} as u32", x[i]);
        }
        assert_eq!(got[n + i] as i32, x[i] as i32, "{} as i32", x[i]);
    }
}

#[test]
fn f32_to_int_clamps_out_of_range() {
    // KERNELS.md: `f32 as u32` / `as i32` round toward zero and clamp to the type's range.
    let x: Vec<f32> = vec![-1.0, -5.5, -1e20, 4294967296.0, 1e20, 2147483648.0, -2147483904.0, 3e9, f32::MAX, -f32::MAX];
    let n = x.len();
    let got = both("float_to_int(clamp)", |rt| {
        let dx = rt.upload(&x).unwrap();
        let mut ou = rt.zeros::<u32>(n).unwrap();
        let mut oi = rt.zeros::<i32>(n).unwrap();
        float_to_int.launch(rt, 1u32, &dx, &mut ou, &mut oi).run().unwrap();
        let mut w = ou.to_vec().unwrap();
        w.extend(oi.to_vec().unwrap().into_iter().map(|v| v as u32));
        w
    });
    // Rust's `as` saturates exactly like WGSL's clamp, except that WGSL clamps
    // to the largest *float representable* value below 2^32 / 2^31.
    let wgsl_u = |v: f32| {
        if v >= 4294967040.0 {
            4294967040u32
        } else {
            v as u32
        }
    };
    let wgsl_i = |v: f32| {
        if v >= 2147483520.0 {
            2147483520i32
        } else {
            v as i32
        }
    };
    for i in 0..n {
        let (gu, gi) = (got[i], got[n + i] as i32);
        // accept either Rust saturation or WGSL's float-representable clamp
        assert!(gu == x[i] as u32 || gu == wgsl_u(x[i]), "{} as u32 gave {gu}", x[i]);
        assert!(gi == x[i] as i32 || gi == wgsl_i(x[i]), "{} as i32 gave {gi}", x[i]);
    }
}

// ------------------------------------------------------------ bit counting

#[ld::kernel(workgroup_size = 64)]
fn bit_counts(a: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        let s = x as i32;
        out[i * 8] = x.count_ones();
        out[i * 8 + 1] = x.leading_zeros();
        out[i * 8 + 2] = x.trailing_zeros();
        out[i * 8 + 3] = x.reverse_bits();
        out[i * 8 + 4] = s.count_ones();
        out[i * 8 + 5] = s.leading_zeros();
        out[i * 8 + 6] = s.trailing_zeros();
        out[i * 8 + 7] = s.reverse_bits() as u32;
    }
}

#[test]
fn count_ones_leading_trailing_reverse() {
    let mut a = words(N, 43);
    a[0] = 0; // leading_zeros(0) == trailing_zeros(0) == 32
    a[1] = 1;
    a[2] = 0x8000_0000;
    a[3] = u32::MAX;
    let got = both("bit_counts", |rt| {
        let da = rt.upload(&a).unwrap();
        let mut out = rt.zeros::<u32>(N * 8).unwrap();
        bit_counts.launch(rt, ld::Grid::cover(N as u64, WG), &da, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = a
        .iter()
        .flat_map(|&x| {
            let s = x as i32;
            [
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                x.reverse_bits(),
                s.count_ones(),
                s.leading_zeros(),
                s.trailing_zeros(),
                s.reverse_bits() as u32,
            ]
        })
        .collect();
    expect("bit_counts", &got, &want, |i| format!("x={:#x} op={}", a[i / 8], i % 8));
}

// ----------------------------------------------------- min/max/clamp/abs

#[ld::kernel(workgroup_size = 64)]
fn int_minmax(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let ux = x as u32;
        let uy = y as u32;
        out[i * 8] = x.min(y);
        out[i * 8 + 1] = x.max(y);
        out[i * 8 + 2] = x.clamp(-100, 100);
        out[i * 8 + 3] = x.abs();
        out[i * 8 + 4] = ux.min(uy) as i32;
        out[i * 8 + 5] = ux.max(uy) as i32;
        out[i * 8 + 6] = ux.clamp(10u32, 0x8000_0000u32) as i32;
        out[i * 8 + 7] = (x % 1000).abs();
    }
}

#[test]
fn int_min_max_clamp_abs() {
    let mut a: Vec<i32> = words(N, 47).into_iter().map(|w| w as i32).collect();
    let b: Vec<i32> = words(N, 53).into_iter().map(|w| w as i32).collect();
    // i32::MIN.abs() is excluded here (Rust panics on it); see int_abs_of_min.
    for v in a.iter_mut() {
        if *v == i32::MIN {
            *v = i32::MIN + 1;
        }
    }
    let got = both("int_minmax", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<i32>(N * 8).unwrap();
        int_minmax.launch(rt, ld::Grid::cover(N as u64, WG), &da, &db, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<i32> = (0..N)
        .flat_map(|i| {
            let (x, y) = (a[i], b[i]);
            let (ux, uy) = (x as u32, y as u32);
            [x.min(y), x.max(y), x.clamp(-100, 100), x.abs(), ux.min(uy) as i32, ux.max(uy) as i32, ux.clamp(10, 0x8000_0000) as i32, (x % 1000).abs()]
        })
        .collect();
    expect("int_minmax", &got, &want, |i| format!("a={} b={} op={}", a[i / 8], b[i / 8], i % 8));
}

#[ld::kernel(workgroup_size = 1)]
fn int_abs_min(a: &[i32], out: &mut [i32]) {
    out[0] = a[0].abs();
}

#[test]
fn int_abs_of_min_wraps() {
    // WGSL: abs(i32::MIN) == i32::MIN (wrapping), no trap.
    let got = both("int_abs_min", |rt| {
        let da = rt.upload(&[i32::MIN]).unwrap();
        let mut out = rt.zeros::<i32>(1).unwrap();
        int_abs_min.launch(rt, 1u32, &da, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(got, vec![i32::MIN.wrapping_abs()]);
}

// --------------------------------------------------------- literal typing

const BIAS: u32 = 0xdead_0000;
const NEG: i32 = -77;

#[ld::kernel(workgroup_size = 64)]
fn literals(a: &[u32], out_u: &mut [u32], out_i: &mut [i32]) {
    let i = global_id().x;
    if i < a.len() {
        let k = 3; // i32 by default
        let m = 5; // becomes u32 from its use with a u32
        let big = 4000000000u32;
        out_u[i * 5] = a[i] + m;
        out_u[i * 5 + 1] = a[i] ^ 0xFFFF_FFFF;
        out_u[i * 5 + 2] = big + i;
        out_u[i * 5 + 3] = u32::MAX - a[i];
        out_u[i * 5 + 4] = (1 << 31) | i;
        out_i[i * 3] = k * -2;
        out_i[i * 3 + 1] = i32::MIN + (i as i32);
        out_i[i * 3 + 2] = i32::MAX - 0x7fff_fff0 + (i as i32) * -1;
    }
}

#[test]
fn literal_typing_and_const_limits() {
    let a = words(256, 59);
    let n = a.len();
    let got = both("literals", |rt| {
        let da = rt.upload(&a).unwrap();
        let mut ou = rt.zeros::<u32>(n * 5).unwrap();
        let mut oi = rt.zeros::<i32>(n * 3).unwrap();
        literals.launch(rt, ld::Grid::cover(n as u64, WG), &da, &mut ou, &mut oi).run().unwrap();
        let mut w = ou.to_vec().unwrap();
        w.extend(oi.to_vec().unwrap().into_iter().map(|v| v as u32));
        w
    });
    let mut want: Vec<u32> = (0..n as u32)
        .flat_map(|i| {
            let x = a[i as usize];
            [x.wrapping_add(5), x ^ 0xFFFF_FFFF, 4000000000u32.wrapping_add(i), u32::MAX - x, (1u32 << 31) | i]
        })
        .collect();
    want.extend((0..n as i32).flat_map(|i| [-6i32 as u32, (i32::MIN + i) as u32, (i32::MAX - 0x7fff_fff0 - i) as u32]));
    expect("literals", &got, &want, |i| format!("word {i}"));
}

#[ld::kernels]
mod consts_mod {
    const BIAS2: u32 = 0xdead_0000;
    const NEG2: i32 = -77;

    #[kernel(workgroup_size = 64)]
    pub fn use_consts(out: &mut [u32]) {
        let i = global_id().x;
        if i < out.len() {
            out[i] = BIAS2 + i + ((NEG2 * (i as i32)) as u32);
        }
    }
}

#[test]
fn module_consts_in_integer_exprs() {
    let _ = (BIAS, NEG);
    let n = 256usize;
    let got = both("use_consts", |rt| {
        let mut out = rt.zeros::<u32>(n).unwrap();
        consts_mod::use_consts.launch(rt, ld::Grid::cover(n as u64, WG), &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = (0..n as u32).map(|i| BIAS.wrapping_add(i).wrapping_add(NEG.wrapping_mul(i as i32) as u32)).collect();
    expect("use_consts", &got, &want, |i| format!("i={i}"));
}

// -------------------------------------------------- comparisons, && and ||

#[ld::kernel(workgroup_size = 64)]
fn compare(a: &[i32], out: &mut [u32], n: u32) {
    let i = global_id().x;
    // short-circuit: `a[i]` must not be evaluated when i >= a.len()
    // (the grid covers 2x the buffer, so half the invocations are out of range)
    if i < a.len() && a[i] > 0 {
        out[i] = 1;
    } else if i < a.len() && (a[i] == 0 || a[i] < -1000) {
        out[i] = 2;
    } else if i < n {
        let x = a[i];
        out[i] = (x <= -5) as u32 * 4 + (x >= -5) as u32 * 8 + (x != -5) as u32 * 16;
    }
}

#[test]
fn comparisons_and_short_circuit() {
    let n = 512usize;
    let a: Vec<i32> = (0..n as i32).map(|i| (i * 37 % 2003) - 1500).collect();
    let got = both("compare", |rt| {
        let da = rt.upload(&a).unwrap();
        let mut out = rt.zeros::<u32>(2 * n).unwrap();
        compare.launch(rt, ld::Grid::cover(2 * n as u64, WG), &da, &mut out, n as u32).run().unwrap();
        out.to_vec().unwrap()
    });
    let mut want = vec![0u32; 2 * n];
    for i in 0..n {
        let x = a[i];
        want[i] = if x > 0 {
            1
        } else if x == 0 || x < -1000 {
            2
        } else {
            (x <= -5) as u32 * 4 + (x >= -5) as u32 * 8 + (x != -5) as u32 * 16
        };
    }
    expect("compare", &got, &want, |i| format!("a={:?}", a.get(i)));
}
