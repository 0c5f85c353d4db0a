//! Differential tests of control flow: if/else chains and `if` as a value,
//! `while`, `loop`/`break`, `for` over every range form (including empty
//! ranges and ranges ending at u32::MAX), `continue`, nested loops, early
//! `return`, helper functions (values, slices, windows, helpers calling
//! helpers), local arrays with dynamic indexing, and consts.
//!
//! Each test runs the kernel on the GPU runtime and on the CPU executor,
//! asserts identical output, and checks it against the same computation in
//! plain Rust on the host.
use crate::support as common;

use common::{both, expect};
use ld::Runtime;

const WG: u32 = 64;

/// Launches a `(input: &[u32], out: &mut [u32])` kernel over `input`.
fn run_u32<K: ld::Kernel>(rt: &Runtime, k: K, input: &[u32], out_len: usize) -> Vec<u32> {
    let d = rt.upload(input).unwrap();
    let mut out = rt.zeros::<u32>(out_len).unwrap();
    rt.launch(k, ld::Grid::cover(input.len() as u64, WG), (&d, &mut out)).run().unwrap();
    out.to_vec().unwrap()
}

// ------------------------------------------------------------------ if/else

#[ld::kernel(workgroup_size = 64)]
fn branches(a: &[i32], out: &mut [i32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        // else-if chain
        let class: i32;
        if x < -100 {
            class = 0;
        } else if x < 0 {
            class = 1;
        } else if x == 0 {
            class = 2;
        } else if x <= 100 {
            class = 3;
        } else {
            class = 4;
        }
        // if as a value, nested
        let m = if x > 50 {
            x - 50
        } else if x < -50 {
            x + 50
        } else {
            0
        };
        let sign = if x > 0 {
            1
        } else {
            if x < 0 {
                -1
            } else {
                0
            }
        };
        // if without else that mutates
        let mut y = x;
        if y % 2 == 0 {
            y = y / 2;
        }
        out[i * 4] = class;
        out[i * 4 + 1] = m;
        out[i * 4 + 2] = sign;
        out[i * 4 + 3] = y;
    }
}

#[test]
fn if_else_chains_and_if_as_value() {
    let a: Vec<i32> = (-300..300).map(|i| i * 3 % 401).chain([0, 100, 101, -100, -101, 50, 51, -50, -51]).collect();
    let got = both("branches", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut out = rt.zeros::<i32>(a.len() * 4).unwrap();
        branches.launch(rt, ld::Grid::cover(a.len() as u64, WG), &d, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<i32> = a
        .iter()
        .flat_map(|&x| {
            let class = if x < -100 {
                0
            } else if x < 0 {
                1
            } else if x == 0 {
                2
            } else if x <= 100 {
                3
            } else {
                4
            };
            let m = if x > 50 {
                x - 50
            } else if x < -50 {
                x + 50
            } else {
                0
            };
            [class, m, x.signum(), if x % 2 == 0 { x / 2 } else { x }]
        })
        .collect();
    expect("branches", &got, &want);
}

// -------------------------------------------------------- while and loop

#[ld::kernel(workgroup_size = 64)]
fn while_loop(n: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < n.len() {
        // while: sum of 0..n
        let mut k = 0u32;
        let mut s = 0u32;
        while k < n[i] {
            s += k;
            k += 1;
        }
        // loop + break: Collatz steps to reach 1 (n >= 1)
        let mut c = n[i] + 1;
        let mut steps = 0u32;
        loop {
            if c == 1 {
                break;
            }
            if c % 2 == 0 {
                c = c / 2;
            } else {
                c = 3 * c + 1;
            }
            steps += 1;
        }
        // loop with break after the body and a continue
        let mut j = 0u32;
        let mut odd = 0u32;
        loop {
            j += 1;
            if j > n[i] {
                break;
            }
            if j % 2 == 0 {
                continue;
            }
            odd += j;
        }
        out[i * 3] = s;
        out[i * 3 + 1] = steps;
        out[i * 3 + 2] = odd;
    }
}

#[test]
fn while_and_loop_break_continue() {
    let n: Vec<u32> = (0..512).map(|i| (i * 7) % 300).collect();
    let got = both("while_loop", |rt| run_u32(rt, while_loop, &n, n.len() * 3));
    let want: Vec<u32> = n
        .iter()
        .flat_map(|&v| {
            let mut c = v + 1;
            let mut steps = 0;
            while c != 1 {
                c = if c % 2 == 0 { c / 2 } else { 3 * c + 1 };
                steps += 1;
            }
            [(0..v).sum::<u32>(), steps, (1..=v).filter(|j| j % 2 == 1).sum()]
        })
        .collect();
    expect("while_loop", &got, &want);
}

// ---------------------------------------------------------------- for ranges

#[ld::kernel(workgroup_size = 64)]
fn for_ranges(n: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < n.len() {
        let v = n[i];
        let o = i * 8;
        // a..b
        let mut s = 0u32;
        for k in 3..v {
            s += k;
        }
        out[o] = s;
        // a..=b
        let mut t = 0u32;
        for k in 3..=v {
            t += k;
        }
        out[o + 1] = t;
        // step_by, order-sensitive hash
        let mut h = 7u32;
        for k in (1..v).step_by(3) {
            h = h * 31 + k;
        }
        out[o + 2] = h;
        // rev, order-sensitive hash
        let mut r = 7u32;
        for k in (2..v).rev() {
            r = r * 31 + k;
        }
        out[o + 3] = r;
        // continue inside for: must still advance
        let mut c = 0u32;
        for k in 0..v {
            if k % 3 == 0 {
                continue;
            }
            c += k;
        }
        out[o + 4] = c;
        // break inside for
        let mut b = 0u32;
        for k in 0..1000u32 {
            if k * k > v {
                break;
            }
            b = k;
        }
        out[o + 5] = b;
        // rev over an inclusive range, and step_by over an inclusive range
        let mut q = 1u32;
        for k in (1..=v).rev() {
            q = q * 3 + k;
        }
        out[o + 6] = q;
        let mut p = 0u32;
        for k in (0..=v).step_by(5) {
            p = p * 7 + k;
        }
        out[o + 7] = p;
    }
}

#[test]
fn for_ranges_step_rev_continue_break() {
    let n: Vec<u32> = (0..256).map(|i| (i * 13) % 120).collect();
    let got = both("for_ranges", |rt| run_u32(rt, for_ranges, &n, n.len() * 8));
    let want: Vec<u32> = n
        .iter()
        .flat_map(|&v| {
            let h = (1..v).step_by(3).fold(7u32, |h, k| h.wrapping_mul(31).wrapping_add(k));
            let r = (2..v).rev().fold(7u32, |h, k| h.wrapping_mul(31).wrapping_add(k));
            let b = (0..1000u32).take_while(|k| k * k <= v).last().unwrap();
            let q = (1..=v).rev().fold(1u32, |h, k| h.wrapping_mul(3).wrapping_add(k));
            let p = (0..=v).step_by(5).fold(0u32, |h, k| h.wrapping_mul(7).wrapping_add(k));
            [(3..v).sum::<u32>(), (3..=v).sum(), h, r, (0..v).filter(|k| k % 3 != 0).sum(), b, q, p]
        })
        .collect();
    expect("for_ranges", &got, &want);
}

/// Range edges. Every loop also counts its iterations against a guard so a
/// wrong lowering (e.g. `k <= u32::MAX` never false) ends instead of hanging.
#[ld::kernel(workgroup_size = 1)]
fn range_edges(lo: &[u32], out: &mut [u32]) {
    let l = lo[0]; // 5, from the host, so nothing is constant-folded
    let mut c0 = 0u32;
    for _k in l..l {
        c0 += 1;
    }
    out[0] = c0; // empty: 0
    let mut c1 = 0u32;
    for _k in l..=(l - 1) {
        c1 += 1;
    }
    out[1] = c1; // empty inclusive: 0
    let mut c2 = 0u32;
    for _k in (l..l).rev() {
        c2 += 1;
    }
    out[2] = c2; // empty rev: 0
    let mut c3 = 0u32;
    for _k in (l + 3..l).step_by(2) {
        c3 += 1;
    }
    out[3] = c3; // start > end: 0
    let mut c4 = 0u32;
    let mut s4 = 0u32;
    for k in (u32::MAX - l)..=u32::MAX {
        c4 += 1;
        s4 ^= k;
        if c4 > 100 {
            break;
        }
    }
    out[4] = c4; // 6 iterations, terminates
    out[5] = s4;
    let mut c6 = 0u32;
    for _k in (u32::MAX - l)..u32::MAX {
        c6 += 1;
        if c6 > 100 {
            break;
        }
    }
    out[6] = c6; // 5
    let mut c7 = 0u32;
    let mut s7 = 0u32;
    for k in ((u32::MAX - 10)..u32::MAX).step_by(4) {
        c7 += 1;
        s7 = s7 * 3 + k;
        if c7 > 100 {
            break;
        }
    }
    out[7] = c7; // MAX-10, MAX-6, MAX-2: 3 (no wrap-around past MAX)
    out[8] = s7;
    let mut c9 = 0u32;
    let mut s9 = 0u32;
    for k in ((u32::MAX - l)..=u32::MAX).rev() {
        c9 += 1;
        s9 = s9 * 3 + k;
        if c9 > 100 {
            break;
        }
    }
    out[9] = c9; // 6
    out[10] = s9;
    let mut c11 = 0u32;
    for _k in (0..=l).rev() {
        c11 += 1;
        if c11 > 100 {
            break;
        }
    }
    out[11] = c11; // 6: rev down to 0 does not wrap
    let mut c12 = 0i32;
    let mut s12 = 0i32;
    for k in -3..=(l as i32) {
        c12 += 1;
        s12 = s12 * 2 + k;
    }
    out[12] = c12 as u32; // 9: i32 range through negatives
    out[13] = s12 as u32;
    let mut c14 = 0u32;
    for _k in (i32::MAX - 2)..=i32::MAX {
        c14 += 1;
        if c14 > 100 {
            break;
        }
    }
    out[14] = c14; // 3
}

/// Ranges whose bounds come from a buffer, so the end may be u32::MAX at run
/// time: `lo..=hi` and `(lo..=hi).step_by(s)`, `(lo..=hi).rev()` with hi == u32::MAX must stop
/// after the last element, not wrap. Guarded against hanging.
#[ld::kernel(workgroup_size = 64)]
fn dynamic_ranges(lo: &[u32], hi: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < lo.len() {
        let mut c = 0u32;
        let mut s = 0u32;
        for k in lo[i]..=hi[i] {
            c += 1;
            s = s * 5 + k;
            if c > 1000 {
                break;
            }
        }
        let mut c2 = 0u32;
        let mut s2 = 0u32;
        for k in (lo[i]..=hi[i]).step_by(3) {
            c2 += 1;
            s2 = s2 * 5 + k;
            if c2 > 1000 {
                break;
            }
        }
        let mut c3 = 0u32;
        let mut s3 = 0u32;
        for k in (lo[i]..=hi[i]).rev() {
            c3 += 1;
            s3 = s3 * 5 + k;
            if c3 > 1000 {
                break;
            }
        }
        out[i * 6] = c;
        out[i * 6 + 1] = s;
        out[i * 6 + 2] = c2;
        out[i * 6 + 3] = s2;
        out[i * 6 + 4] = c3;
        out[i * 6 + 5] = s3;
    }
}

#[test]
fn dynamic_ranges_up_to_u32_max() {
    let mut lo = vec![];
    let mut hi = vec![];
    for d in 0..40u32 {
        // near the top of u32, empty (lo > hi) and ordinary ranges
        lo.push(u32::MAX - d);
        hi.push(u32::MAX);
        lo.push(u32::MAX - d);
        hi.push(u32::MAX - 20);
        lo.push(d * 3);
        hi.push(d * 5 + 1);
    }
    let got = both("dynamic_ranges", |rt| {
        let (dl, dh) = (rt.upload(&lo).unwrap(), rt.upload(&hi).unwrap());
        let mut out = rt.zeros::<u32>(lo.len() * 6).unwrap();
        dynamic_ranges.launch(rt, ld::Grid::cover(lo.len() as u64, WG), &dl, &dh, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let fold5 = |it: &mut dyn Iterator<Item = u32>| it.fold((0u32, 0u32), |(c, s), k| (c + 1, s.wrapping_mul(5).wrapping_add(k)));
    let want: Vec<u32> = lo
        .iter()
        .zip(&hi)
        .flat_map(|(&l, &h)| {
            let a = fold5(&mut (l..=h));
            let b = fold5(&mut (l..=h).step_by(3));
            let c = fold5(&mut (l..=h).rev());
            [a.0, a.1, b.0, b.1, c.0, c.1]
        })
        .collect();
    expect("dynamic_ranges", &got, &want);
}

#[test]
fn range_edges_empty_and_ending_at_max() {
    let got = both("range_edges", |rt| {
        let d = rt.upload(&[5u32]).unwrap();
        let mut out = rt.zeros::<u32>(15).unwrap();
        range_edges.launch(rt, 1u32, &d, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let l = 5u32;
    let fold3 = |it: &mut dyn Iterator<Item = u32>| it.fold(0u32, |s, k| s.wrapping_mul(3).wrapping_add(k));
    let want = vec![
        0,
        0,
        0,
        0,
        6,
        ((u32::MAX - l)..=u32::MAX).fold(0, |s, k| s ^ k),
        5,
        3,
        fold3(&mut ((u32::MAX - 10)..u32::MAX).step_by(4)),
        6,
        fold3(&mut ((u32::MAX - l)..=u32::MAX).rev()),
        6,
        9,
        (-3..=5i32).fold(0i32, |s, k| s * 2 + k) as u32,
        3,
    ];
    expect("range_edges", &got, &want);
}

// ------------------------------------------------------------ nested loops

#[ld::kernel(workgroup_size = 64)]
fn nested(n: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    if i < n.len() {
        let v = n[i];
        // count pairs (a, b), a < b < v, a + b prime-ish filter, with an
        // inner break and continue and an outer continue
        let mut pairs = 0u32;
        let mut acc = 0u32;
        for a in 0..v {
            if a % 5 == 4 {
                continue;
            }
            for b in (a + 1)..v {
                if (a + b) % 3 == 0 {
                    continue;
                }
                if b > a + 6 {
                    break;
                }
                pairs += 1;
                acc = acc * 17 + a * 8 + b;
            }
        }
        // while inside for inside while
        let mut w = 0u32;
        let mut x = 0u32;
        while w < v / 10 {
            for y in 0..3u32 {
                let mut z = y;
                while z > 0 {
                    x += z + w;
                    z -= 1;
                }
            }
            w += 1;
        }
        out[i * 3] = pairs;
        out[i * 3 + 1] = acc;
        out[i * 3 + 2] = x;
    }
}

#[test]
fn nested_loops_with_break_and_continue() {
    let n: Vec<u32> = (0..256).map(|i| (i * 11) % 60).collect();
    let got = both("nested", |rt| run_u32(rt, nested, &n, n.len() * 3));
    let want: Vec<u32> = n
        .iter()
        .flat_map(|&v| {
            let (mut pairs, mut acc) = (0u32, 0u32);
            for a in 0..v {
                if a % 5 == 4 {
                    continue;
                }
                for b in (a + 1)..v {
                    if (a + b) % 3 == 0 {
                        continue;
                    }
                    if b > a + 6 {
                        break;
                    }
                    pairs += 1;
                    acc = acc.wrapping_mul(17).wrapping_add(a * 8 + b);
                }
            }
            let mut x = 0u32;
            for w in 0..v / 10 {
                for y in 0..3u32 {
                    for z in (1..=y).rev() {
                        x += z + w;
                    }
                }
            }
            [pairs, acc, x]
        })
        .collect();
    expect("nested", &got, &want);
}

// ------------------------------------------------------------- early return

#[ld::kernel(workgroup_size = 64)]
fn early_return(a: &[u32], out: &mut [u32], n: u32) {
    let i = global_id().x;
    if i >= n {
        return;
    }
    out[i] = 1;
    if a[i] % 4 == 0 {
        return;
    }
    out[i] = 2;
    for k in 0..a[i] {
        if k == 10 {
            out[i] = 100 + k;
            return;
        }
    }
    out[i] = 3;
}

#[test]
fn early_return_from_kernel_and_loop() {
    let n = 500usize;
    let a: Vec<u32> = (0..n as u32).map(|i| (i * 7) % 23).collect();
    // out is longer than n: invocations past n return before writing
    let got = both("early_return", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut out = rt.upload(&vec![9u32; n + 12]).unwrap();
        early_return.launch(rt, ld::Grid::cover(n as u64 + 12, WG), &d, &mut out, n as u32).run().unwrap();
        out.to_vec().unwrap()
    });
    let mut want: Vec<u32> = a
        .iter()
        .map(|&v| {
            if v % 4 == 0 {
                1
            } else if v > 10 {
                110
            } else {
                3
            }
        })
        .collect();
    want.extend([9; 12]);
    expect("early_return", &got, &want);
}

// ------------------------------------------------------------------ helpers

#[ld::kernel(workgroup_size = 64)]
fn helpers(a: &[u32], out: &mut [u32]) {
    fn sq(x: u32) -> u32 {
        x * x
    }
    fn sum3(v: &[u32]) -> u32 {
        v[0] + v[1] + v[2]
    }
    // calls another helper, with a window of its own slice parameter
    fn weighted(v: &[u32], w: u32) -> u32 {
        sq(w) + sum3(v) + sum3(&v[1..])
    }
    fn clamp_sub(a: u32, b: u32) -> u32 {
        if a > b {
            return a - b;
        }
        0
    }
    fn put2(o: &mut [u32], x: u32) {
        o[0] = x;
        o[1] = x + 1;
    }
    let i = global_id().x;
    if i + 4 <= a.len() {
        let base = &a[i..];
        let o = i * 6;
        out[o] = sq(a[i]);
        out[o + 1] = sum3(&a[i..]);
        out[o + 2] = weighted(base, i);
        out[o + 3] = clamp_sub(a[i], a[i + 1]);
        // a writable window passed to a helper that writes through it
        let s = sq(2);
        let v = sq(s);
        put2(&mut out[o + 4..], v);
    }
}

#[ld::kernel(workgroup_size = 1)]
fn nested_helper_call(out: &mut [u32]) {
    fn sq(x: u32) -> u32 {
        x * x
    }
    out[0] = sq(sq(2));
}

#[test]
fn helper_call_as_helper_argument() {
    {
        let got = both("nested_helper_call", |rt| {
            let mut out = rt.zeros::<u32>(1).unwrap();
            nested_helper_call.launch(rt, 1u32, &mut out).run().unwrap();
            out.to_vec().unwrap()
        });
        expect("nested_helper_call", &got, &[16]);
    }
}

#[ld::kernels]
mod helper_chain {
    const SCALE: u32 = 3;

    fn inner(x: u32) -> u32 {
        x * SCALE + 1
    }

    fn middle(x: u32, v: &[u32]) -> u32 {
        inner(x) + inner(v[0]) + v.len()
    }

    fn outer(v: &[u32], k: u32) -> u32 {
        let mut s = 0u32;
        for j in 0..k {
            s += middle(j, &v[j..]);
        }
        s
    }

    #[kernel(workgroup_size = 64)]
    pub fn chain(a: &[u32], out: &mut [u32]) {
        let i = global_id().x;
        if i < out.len() {
            out[i] = outer(&a[i..], 4);
        }
    }
}

#[test]
fn helpers_calling_helpers_in_module() {
    let a: Vec<u32> = (0..260u32).map(|i| i * 5 % 17).collect();
    let n = 256usize;
    let got = both("chain", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut out = rt.zeros::<u32>(n).unwrap();
        helper_chain::chain.launch(rt, ld::Grid::cover(n as u64, WG), &d, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let inner = |x: u32| x * 3 + 1;
    let want: Vec<u32> = (0..n).map(|i| (0..4usize).map(|j| inner(j as u32) + inner(a[i + j]) + (a.len() - i - j) as u32).sum()).collect();
    expect("chain", &got, &want);
}

// ------------------------------------------------------------ local arrays

#[ld::kernel(workgroup_size = 64)]
fn local_arrays(a: &[u32], out: &mut [u32]) {
    fn total(v: [u32; 8]) -> u32 {
        let mut s = 0u32;
        for k in 0..8u32 {
            s += v[k];
        }
        s
    }
    let i = global_id().x;
    if i < out.len() / 9 {
        // fill with dynamic indices, then insertion-sort in place
        let mut v = [0u32; 8];
        for k in 0..8u32 {
            v[k] = a[(i * 8 + k) % a.len()];
        }
        let mut k = 1u32;
        while k < 8 {
            let x = v[k];
            let mut j = k;
            while j > 0 && v[j - 1] > x {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = x;
            k += 1;
        }
        for k in 0..8u32 {
            out[i * 9 + k] = v[k];
        }
        // an array passed by value to a helper, and an f32 array read at a
        // data-dependent index
        let w = [1.5f32, 2.5, -3.0, 4.25];
        out[i * 9 + 8] = total(v) + (w[a[i] % 4] * 4.0) as u32;
    }
}

#[test]
fn local_arrays_dynamic_indexing() {
    let a: Vec<u32> = (0..512u32).map(|i| i.wrapping_mul(2654435761u32) >> 24).collect();
    let n = 256usize;
    let got = both("local_arrays", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut out = rt.zeros::<u32>(n * 9).unwrap();
        local_arrays.launch(rt, ld::Grid::cover(n as u64, WG), &d, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let w = [1.5f32, 2.5, -3.0, 4.25];
    let want: Vec<u32> = (0..n)
        .flat_map(|i| {
            let mut v: Vec<u32> = (0..8).map(|k| a[(i * 8 + k) % a.len()]).collect();
            v.sort();
            let t: u32 = v.iter().sum::<u32>() + (w[(a[i] % 4) as usize] * 4.0).max(0.0) as u32;
            v.push(t);
            v
        })
        .collect();
    // (w * 4.0) as u32 for -3.0 clamps to 0 in WGSL and saturates in Rust: same
    expect("local_arrays", &got, &want);
}

#[ld::kernel(workgroup_size = 64)]
fn local_2d(a: &[f32], out: &mut [f32]) {
    let i = global_id().x;
    if i < out.len() {
        // a 3x3 matrix as [f32; 9], multiplied by itself with computed indices
        let mut m = [0.0f32; 9];
        for k in 0..9u32 {
            m[k] = a[(i + k) % a.len()];
        }
        let mut p = [0.0f32; 9];
        for r in 0..3u32 {
            for c in 0..3u32 {
                let mut s = 0.0f32;
                for k in 0..3u32 {
                    s += m[r * 3 + k] * m[k * 3 + c];
                }
                p[r * 3 + c] = s;
            }
        }
        out[i] = p[i % 9] + p[(i + 4) % 9];
    }
}

#[test]
fn local_array_matrix_product() {
    // small integers in f32: all products and sums exact
    let a: Vec<f32> = (0..100).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let n = 256usize;
    let got = both("local_2d", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut out = rt.zeros::<f32>(n).unwrap();
        local_2d.launch(rt, ld::Grid::cover(n as u64, WG), &d, &mut out).run().unwrap();
        out.to_vec().unwrap().into_iter().map(f32::to_bits).collect()
    });
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let m: Vec<f32> = (0..9).map(|k| a[(i + k) % a.len()]).collect();
            let p = |r: usize, c: usize| (0..3).map(|k| m[r * 3 + k] * m[k * 3 + c]).sum::<f32>();
            let pi = |j: usize| p(j / 3, j % 3);
            (pi(i % 9) + pi((i + 4) % 9)).to_bits()
        })
        .collect();
    expect("local_2d", &got, &want);
}

// ------------------------------------------------------------------- consts

#[ld::kernel(workgroup_size = 64)]
fn consts_in_body(out: &mut [u32]) {
    const STRIDE: u32 = 3;
    const OFFSET: u32 = 1000;
    const TABLE_LEN: u32 = STRIDE * 4;
    let i = global_id().x;
    if i < out.len() {
        let t = [7u32; 4];
        out[i] = i * STRIDE + OFFSET + TABLE_LEN + t[i % 4];
    }
}

#[test]
fn consts_inside_kernel_body() {
    let n = 300usize;
    let got = both("consts_in_body", |rt| {
        let mut out = rt.zeros::<u32>(n).unwrap();
        consts_in_body.launch(rt, ld::Grid::cover(n as u64, WG), &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
    let want: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1000 + 12 + 7).collect();
    expect("consts_in_body", &got, &want);
}

/// `workgroup_size()` is the kernel's attribute, on every backend and mode;
/// a 3-D workgroup of 24 invocations whose rows are shorter than lavapipe's
/// 8 lanes.
#[ld::kernel(workgroup_size = (4, 2, 3))]
fn wg_size(out: &mut [u32]) {
    let s = workgroup_size();
    let i = local_index() + workgroup_id().x * s.x * s.y * s.z;
    out[i] = s.x * 100 + s.y * 10 + s.z + local_id().z * 1000;
}

#[test]
fn workgroup_size_builtin() {
    let want: Vec<u32> = (0..48u32).map(|i| 423 + (i % 24) / 8 * 1000).collect();
    for mode in [ld::Mode::Native, ld::Mode::Check, ld::Mode::Deterministic] {
        let got = common::both("workgroup_size()", |rt| {
            let mut out = rt.zeros::<u32>(48).unwrap();
            wg_size.launch(rt, 2u32, &mut out).mode(mode).run().unwrap();
            out.to_vec().unwrap()
        });
        common::expect("workgroup_size()", &got, &want);
    }
}
