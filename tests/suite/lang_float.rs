//! Differential tests of f32 arithmetic and the f32 methods of the kernel
//! language. Each test runs the kernel on the GPU runtime and on the CPU
//! executor, compares the two, and compares both against the same function
//! computed by Rust's std on the host.
//!
//! ULP bounds. Each is at or inside WGSL's accuracy requirement for the
//! operation, and passes lavapipe with margin (measured max error in
//! brackets; run with LD_ULP_REPORT=1 to print it again). The CPU executor
//! uses Rust's std functions, so it matched the host with 0 ULP throughout,
//! except powi (2 ULP: the CPU computes powf(x, n as f32), the host powi).
//! - EXACT = 0 ULP: `+ - *`, unary `-`, abs, min, max, clamp, floor, ceil,
//!   trunc, round, round_ties_even, fract, to_bits/from_bits, and float `%`,
//!   `/`, mul_add and exp2/log2 on inputs whose exact result is
//!   representable. WGSL requires these correctly rounded [0].
//! - DIV_ULPS = 3: `/` and `recip` (WGSL: 2.5 ULP) [0].
//! - SQRT_ULPS = 3: sqrt (WGSL: inherited from 1/inverseSqrt) [0].
//! - EXP_ULPS = 23: exp/exp2 on [-10, 10] (WGSL: 3 + 2|x| ULP) [exp 9, exp2 3].
//! - LOG_ULPS = 3 / LOG_ABS = 2^-21: ln/log2 on [0.01, 1000], exactly
//!   WGSL's bound: 3 ULP outside [0.5, 2], 2^-21 absolute inside
//!   [1 ULP outside; 1.8e-7 absolute inside, measured on 2^16 points].
//! - POW_ULPS = 32: powf on x in [0.25, 4], y in [-4, 4], powi with
//!   n in [-5, 5] (WGSL: inherited from exp2(y * log2(x)); |y log2 x| <= 8
//!   gives ~3 + 2*8 + log-error ULP) [powf 6, powi 12].
//! - TRIG_ABS = 2^-11: sin/cos on [-pi, pi], WGSL's bound [6e-8, 1 ULP].
//! - TAN_ULPS = 8 (or TAN_ABS = 1e-5): tan on [-1.2, 1.2] (WGSL: inherited
//!   from sin/cos, which would allow ~4e-3 here) [2 ULP].
//! - ATAN2_ULPS = 1024 (or ATAN2_ABS = 1e-5): atan2 on [-3, 3]^2 (WGSL:
//!   4096 ULP) [303 ULP max; 3.3e-6 max absolute].
use crate::support as common;

use ld::Runtime;

const EXACT: u32 = 0;
const DIV_ULPS: u32 = 3;
const SQRT_ULPS: u32 = 3;
const EXP_ULPS: u32 = 23;
const LOG_ULPS: u32 = 3;
const LOG_ABS: f32 = 1.0 / 2_097_152.0; // 2^-21
const POW_ULPS: u32 = 32;
const TRIG_ABS: f32 = 4.8828125e-4; // 2^-11
const TAN_ULPS: u32 = 8;
const TAN_ABS: f32 = 1e-5;
const ATAN2_ULPS: u32 = 1024;
const ATAN2_ABS: f32 = 1e-5;

/// Runs `f` on the CPU executor and the GPU runtime (when there is one).
/// Asserts each backend is within the bound of the host expectation `want`,
/// and the two backends within the bound of each other.
fn both(what: &str, max_ulps: u32, abs_tol: f32, want: &[f32], f: impl Fn(&Runtime) -> Vec<f32>) {
    let c = f(&common::cpu());
    report(what, "cpu", &c, want);
    common::assert_close(&c, want, max_ulps, abs_tol, &format!("{what} (cpu vs host)"));
    if let Some(g) = common::gpu() {
        let gv = f(&g);
        report(what, "gpu", &gv, want);
        common::assert_close(&gv, want, max_ulps, abs_tol, &format!("{what} (gpu vs host)"));
        common::assert_close(&gv, &c, max_ulps, abs_tol, &format!("{what} (gpu vs cpu)"));
    }
}

/// With LD_ULP_REPORT=1, prints the largest ULP and absolute error seen.
fn report(what: &str, backend: &str, got: &[f32], want: &[f32]) {
    if std::env::var("LD_ULP_REPORT").as_deref() == Ok("1") {
        let u = got.iter().zip(want).map(|(g, w)| common::ulps(*g, *w)).max().unwrap_or(0);
        let a = got.iter().zip(want).map(|(g, w)| (g - w).abs()).fold(0.0f32, f32::max);
        eprintln!("ULP-REPORT {what:<24} {backend}: max {u} ulps, max abs {a:e}");
    }
}

/// `n` points spread evenly over [lo, hi].
fn span(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    (0..n).map(|i| lo + (hi - lo) * (i as f32 / (n - 1) as f32)).collect()
}

const WG: u32 = 64;

/// One kernel for all unary functions: `op` picks the function (uniform, so
/// every invocation takes the same branch).
#[ld::kernel(workgroup_size = 64)]
fn unary(x: &[f32], out: &mut [f32], op: u32) {
    let i = global_id().x;
    if i < x.len() {
        let v = x[i];
        let r: f32;
        if op == 0 {
            r = v.sqrt();
        } else if op == 1 {
            r = v.exp();
        } else if op == 2 {
            r = v.exp2();
        } else if op == 3 {
            r = v.ln();
        } else if op == 4 {
            r = v.log2();
        } else if op == 5 {
            r = v.sin();
        } else if op == 6 {
            r = v.cos();
        } else if op == 7 {
            r = v.tan();
        } else if op == 8 {
            r = v.recip();
        } else {
            r = 0.0;
        }
        out[i] = r;
    }
}

fn run_unary(rt: &Runtime, x: &[f32], op: u32) -> Vec<f32> {
    let dx = rt.upload(x).unwrap();
    let mut out = rt.zeros::<f32>(x.len()).unwrap();
    unary.launch(rt, ld::Grid::cover(x.len() as u64, WG), &dx, &mut out, op).run().unwrap();
    out.to_vec().unwrap()
}

fn unary_case(what: &str, op: u32, x: &[f32], host: fn(f32) -> f32, ulps: u32, abs: f32) {
    let want: Vec<f32> = x.iter().map(|&v| host(v)).collect();
    both(what, ulps, abs, &want, |rt| run_unary(rt, x, op));
}

#[test]
fn sqrt_within_bound() {
    let mut x = span(0.0, 1000.0, 2048);
    x.extend([1e-20, 2.0, 4.0, 0.25, 1e30, 3.0]);
    unary_case("sqrt", 0, &x, f32::sqrt, SQRT_ULPS, 0.0);
}

#[test]
fn exp_and_exp2_within_bound() {
    let x = span(-10.0, 10.0, 2048);
    unary_case("exp", 1, &x, f32::exp, EXP_ULPS, 0.0);
    unary_case("exp2", 2, &x, f32::exp2, EXP_ULPS, 0.0);
    // exact powers of two: exp2 of an integer must be exact on both
    let ints: Vec<f32> = (-20..=20).map(|i| i as f32).collect();
    unary_case("exp2(int)", 2, &ints, f32::exp2, EXACT, 0.0);
}

#[test]
fn ln_and_log2_within_bound() {
    let mut x = span(0.01, 1000.0, 2048);
    x.extend(span(0.5, 2.0, 512)); // the absolute-error interval
    unary_case("ln", 3, &x, f32::ln, LOG_ULPS, LOG_ABS);
    unary_case("log2", 4, &x, f32::log2, LOG_ULPS, LOG_ABS);
    let pow2: Vec<f32> = (-20..=20).map(|i| (i as f32).exp2()).collect();
    // WGSL promises log2 within 3 ulp here, not exact at powers of two
    // (NVIDIA's log2(2^-20) is 1 ulp off).
    unary_case("log2(2^k)", 4, &pow2, f32::log2, LOG_ULPS, 0.0);
}

#[test]
fn sin_cos_within_2_pow_minus_11_on_pi_interval() {
    let pi = core::f32::consts::PI;
    let x = span(-pi, pi, 2048);
    unary_case("sin", 5, &x, f32::sin, 0, TRIG_ABS);
    unary_case("cos", 6, &x, f32::cos, 0, TRIG_ABS);
}

#[test]
fn tan_within_bound() {
    let x = span(-1.2, 1.2, 2048);
    unary_case("tan", 7, &x, f32::tan, TAN_ULPS, TAN_ABS);
}

#[test]
fn division_and_recip_within_bound() {
    let mut x = span(-100.0, 100.0, 2000);
    x.retain(|v| *v != 0.0);
    x.extend([1.0, 2.0, 4.0, 0.5, 3.0, -7.0, 1e-10, 1e10]);
    unary_case("recip", 8, &x, |v| 1.0 / v, DIV_ULPS, 0.0);
    let y: Vec<f32> = x.iter().map(|v| v * 0.37 + 1.0).collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a / b).collect();
    both("div", DIV_ULPS, 0.0, &want, |rt| run_binary(rt, &x, &y, 6));
    // quotients of small integers that are exact must be exact
    let a: Vec<f32> = (0..256).map(|i| (i * 3) as f32).collect();
    let b: Vec<f32> = (0..256).map(|i| [1.0f32, 2.0, 4.0, 0.5, 8.0, 0.25][i % 6]).collect();
    let want: Vec<f32> = a.iter().zip(&b).map(|(a, b)| a / b).collect();
    both("div(exact)", EXACT, 0.0, &want, |rt| run_binary(rt, &a, &b, 6));
}

#[ld::kernel(workgroup_size = 64)]
fn binary(x: &[f32], y: &[f32], out: &mut [f32], op: u32) {
    let i = global_id().x;
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let mut r = 0.0;
        if op == 0 {
            r = a.powf(b);
        } else if op == 1 {
            r = a.atan2(b);
        } else if op == 2 {
            r = a % b;
        } else if op == 3 {
            r = a.min(b);
        } else if op == 4 {
            r = a.max(b);
        } else if op == 5 {
            r = a.powi(b as i32);
        } else if op == 6 {
            r = a / b;
        } else if op == 7 {
            let mut t = a;
            t %= b;
            r = t;
        }
        out[i] = r;
    }
}

fn run_binary(rt: &Runtime, x: &[f32], y: &[f32], op: u32) -> Vec<f32> {
    let (dx, dy) = (rt.upload(x).unwrap(), rt.upload(y).unwrap());
    let mut out = rt.zeros::<f32>(x.len()).unwrap();
    binary.launch(rt, ld::Grid::cover(x.len() as u64, WG), &dx, &dy, &mut out, op).run().unwrap();
    out.to_vec().unwrap()
}

fn grid2(xs: &[f32], ys: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let mut a = vec![];
    let mut b = vec![];
    for &x in xs {
        for &y in ys {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

#[test]
fn powf_within_bound() {
    let (x, y) = grid2(&span(0.25, 4.0, 48), &span(-4.0, 4.0, 41));
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.powf(*b)).collect();
    both("powf", POW_ULPS, 0.0, &want, |rt| run_binary(rt, &x, &y, 0));
}

#[test]
fn powi_positive_base_within_bound() {
    let ns: Vec<f32> = (-5..=5).map(|n| n as f32).collect();
    let (x, y) = grid2(&span(0.25, 4.0, 64), &ns);
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.powi(*b as i32)).collect();
    both("powi", POW_ULPS, 0.0, &want, |rt| run_binary(rt, &x, &y, 5));
}

#[test]
fn powi_negative_base() {
    // Rust: (-2.0f32).powi(3) == -8.0. An integer power of a negative base is
    // well defined and KERNELS.md lists `powi` without restriction.
    let x = vec![-2.0f32, -2.0, -2.0, -1.5, -3.0, -0.5, -1.0, -1.0];
    let y = vec![3.0f32, 2.0, 0.0, 2.0, 3.0, -2.0, 7.0, 8.0];
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a.powi(*b as i32)).collect();
    both("powi(neg base)", POW_ULPS, 0.0, &want, |rt| run_binary(rt, &x, &y, 5));
}

#[test]
fn atan2_within_bound() {
    let (y, x) = grid2(&span(-3.0, 3.0, 45), &span(-3.0, 3.0, 46)); // 46 points: no exact 0
    let want: Vec<f32> = y.iter().zip(&x).map(|(a, b)| a.atan2(*b)).collect();
    both("atan2", ATAN2_ULPS, ATAN2_ABS, &want, |rt| run_binary(rt, &y, &x, 1));
}

#[test]
fn float_rem_min_max() {
    // `%` on values where the quotient is small and all results are exact
    // (multiples of 1/8): must match Rust's fmod (sign of the dividend).
    let (a, b) = grid2(&span(-20.0, 20.0, 81), &[2.0, -2.0, 0.75, -3.5, 1.25, 8.0, 0.125]);
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x % y).collect();
    both("rem", EXACT, 0.0, &want, |rt| run_binary(rt, &a, &b, 2));
    both("rem_assign", EXACT, 0.0, &want, |rt| run_binary(rt, &a, &b, 7));
    assert_eq!(-7.5f32 % 2.0, -1.5);
    let (a, b) = grid2(&span(-5.0, 5.0, 33), &span(-4.0, 4.5, 17));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x.min(*y)).collect();
    both("min", EXACT, 0.0, &want, |rt| run_binary(rt, &a, &b, 3));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x.max(*y)).collect();
    both("max", EXACT, 0.0, &want, |rt| run_binary(rt, &a, &b, 4));
}

/// Operations WGSL requires to be correctly rounded: compared bit-exactly.
#[ld::kernel(workgroup_size = 64)]
fn exact_ops(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = global_id().x;
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 16;
        out[o] = a + b;
        out[o + 1] = a - b;
        out[o + 2] = a * b;
        out[o + 3] = -a;
        out[o + 4] = a.abs();
        out[o + 5] = a.clamp(-1.5, 2.25);
        out[o + 6] = a.floor();
        out[o + 7] = a.ceil();
        out[o + 8] = a.trunc();
        out[o + 9] = a.round();
        out[o + 10] = a.round_ties_even();
        out[o + 11] = a.fract();
        out[o + 12] = f32::from_bits(a.to_bits() ^ 0x8000_0000);
        out[o + 13] = a.to_bits() as f32;
        let mut c = a;
        c += b;
        c *= 2.0;
        c -= a;
        c /= 2.0;
        out[o + 14] = c;
        out[o + 15] = f32::from_bits(b.to_bits() & 0x7fff_ffff);
    }
}

fn host_exact(a: f32, b: f32) -> [f32; 16] {
    let mut c = a;
    c += b;
    c *= 2.0;
    c -= a;
    c /= 2.0;
    [
        a + b,
        a - b,
        a * b,
        -a,
        a.abs(),
        a.clamp(-1.5, 2.25),
        a.floor(),
        a.ceil(),
        a.trunc(),
        a.round(),
        a.round_ties_even(),
        a.fract(),
        f32::from_bits(a.to_bits() ^ 0x8000_0000),
        a.to_bits() as f32,
        c,
        b.abs(),
    ]
}

#[test]
fn exact_arith_rounding_fract_bits() {
    // halves and quarters exercise round's tie rule; negatives exercise fract
    let mut a: Vec<f32> = vec![
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -2.5,
        3.5,
        -3.5,
        0.49999997,
        -0.49999997,
        8388609.0,
        -8388609.0,
        1.25,
        -1.25,
        -0.75,
        0.0,
        -0.0,
        1e-38,
        123456.78,
        -98765.43,
    ];
    a.extend(span(-10.0, 10.0, 201));
    a.extend((0..300).map(|i| (i as f32 * 1.618034).sin() * 1e4));
    let b: Vec<f32> = (0..a.len()).map(|i| (i as f32 * 0.707).cos() * 37.5).collect();
    let want: Vec<f32> = a.iter().zip(&b).flat_map(|(x, y)| host_exact(*x, *y)).collect();
    // spot checks of the rules KERNELS.md states
    assert_eq!(host_exact(0.5, 0.0)[9], 1.0);
    assert_eq!(host_exact(2.5, 0.0)[9], 3.0);
    assert_eq!(host_exact(-2.5, 0.0)[9], -3.0);
    assert_eq!(host_exact(2.5, 0.0)[10], 2.0);
    assert_eq!(host_exact(-1.25, 0.0)[11], -0.25);
    let run = |rt: &Runtime| {
        let (dx, dy) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<f32>(a.len() * 16).unwrap();
        exact_ops.launch(rt, ld::Grid::cover(a.len() as u64, WG), &dx, &dy, &mut out).run().unwrap();
        out.to_vec().unwrap()
    };
    let cpu = run(&common::cpu());
    common::assert_close(&cpu, &want, EXACT, 0.0, "exact_ops (cpu vs host)");
    // WGSL lets a device flush subnormal operands and results to zero
    // (NVIDIA's does): there a GPU may give the flushed computation.
    let ftz = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
    if let Some(g) = common::gpu() {
        for (i, (got, w)) in run(&g).iter().zip(&want).enumerate() {
            let (x, y) = (a[i / 16], b[i / 16]);
            let flushed = ftz(host_exact(ftz(x), ftz(y))[i % 16]);
            let ok = got.to_bits() == w.to_bits() || got.to_bits() == flushed.to_bits() || (ftz(*w) == 0.0 && *got == 0.0);
            assert!(ok, "exact_ops[{i}] of {x:e}, {y:e} on {}: {got:e}, the host gives {w:e} ({flushed:e} flushing subnormals)", g.backend());
        }
    }
}

#[test]
fn negative_zero_bits_survive() {
    // -0.0 and 0.0 compare equal; compare bits via to_bits in the kernel.
    let a = vec![-0.0f32, 0.0, -1.0, 1.0];
    let b = vec![0.0f32; 4];
    let got: Vec<Vec<f32>> = {
        let mut v = vec![];
        let c = common::cpu();
        let gpu = common::gpu();
        for rt in std::iter::once(&c).chain(gpu.as_ref()) {
            let (dx, dy) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
            let mut out = rt.zeros::<f32>(a.len() * 16).unwrap();
            exact_ops.launch(rt, 1u32, &dx, &dy, &mut out).run().unwrap();
            v.push(out.to_vec().unwrap());
        }
        v
    };
    for g in &got {
        // to_bits of -0.0 is 0x8000_0000; `-a` of 0.0 is -0.0
        assert_eq!(g[13], 0x8000_0000u32 as f32);
        assert_eq!(g[16 + 3].to_bits(), 0x8000_0000);
    }
}

#[ld::kernel(workgroup_size = 64)]
fn fma_k(x: &[f32], y: &[f32], z: &[f32], out: &mut [f32]) {
    let i = global_id().x;
    if i < x.len() {
        out[i] = x[i].mul_add(y[i], z[i]);
    }
}

#[test]
fn mul_add_exact_on_representable_products() {
    // products of numbers with few significant bits are exact, so fused and
    // unfused evaluation agree and the result must be exact
    let n = 1024;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 512.0) * 0.125).collect();
    let y: Vec<f32> = (0..n).map(|i| ((i * 7) % 64) as f32 * 0.5 - 16.0).collect();
    let z: Vec<f32> = (0..n).map(|i| ((i * 13) % 1000) as f32 * 0.25 - 100.0).collect();
    let want: Vec<f32> = (0..n).map(|i| x[i].mul_add(y[i], z[i])).collect();
    both("mul_add", EXACT, 0.0, &want, |rt| {
        let (dx, dy, dz) = (rt.upload(&x).unwrap(), rt.upload(&y).unwrap(), rt.upload(&z).unwrap());
        let mut out = rt.zeros::<f32>(n).unwrap();
        fma_k.launch(rt, ld::Grid::cover(n as u64, WG), &dx, &dy, &dz, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
}

#[ld::kernel(workgroup_size = 64)]
fn float_consts(out: &mut [f32]) {
    let i = global_id().x;
    if i == 0 {
        out[0] = core::f32::consts::PI;
        out[1] = f32::EPSILON;
        out[2] = f32::MAX;
        out[3] = 1.0e-3;
        out[4] = 2.5 * 4.0;
        out[5] = core::f32::consts::E;
        out[6] = -f32::MAX;
        out[7] = 0.1 + 0.2;
    }
}

#[test]
fn float_constants_and_literals() {
    let want = vec![core::f32::consts::PI, f32::EPSILON, f32::MAX, 1.0e-3, 10.0, core::f32::consts::E, -f32::MAX, 0.1f32 + 0.2f32];
    both("float_consts", EXACT, 0.0, &want, |rt| {
        let mut out = rt.zeros::<f32>(8).unwrap();
        float_consts.launch(rt, 1u32, &mut out).run().unwrap();
        out.to_vec().unwrap()
    });
}
