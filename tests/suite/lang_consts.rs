//! Integer and float operations whose operands are constants keep
//! KERNELS.md's semantics: `x / 0 == x`, `x % 0 == 0`, `i32::MIN / -1 ==
//! i32::MIN`, `i32::MIN % -1 == 0`, wrapping `+ - *` and negation, shift
//! amounts taken mod 32, IEEE floats. WGSL's constant evaluation rejects
//! most of these at shader creation (and naga's validator a constant zero
//! divisor or shift amount of 32 or more even beside a run-time operand),
//! so these kernels did not build; the CPU twin always computed them.
//!
//! Each kernel runs natively, in check mode and in deterministic mode, on
//! the GPU and on the CPU twin; the outputs must be identical and equal the
//! documented values written out below.
use crate::support as common;

use common::{both, expect};
use ld::{Launch, Mode};

const MODES: [Mode; 3] = [Mode::Native, Mode::Check, Mode::Deterministic];

/// Runs a launch in `mode`; check mode must find no race. (The kernels
/// run one workgroup of 64 where invocation 0 does the work: check mode on
/// lavapipe stops a workgroup of one invocation at its loop limit.)
fn run_in(launch: Launch<'_>, mode: Mode) {
    let run = launch.mode(mode).run().unwrap();
    if let Some(r) = run.report {
        assert!(!r.has_races(), "{r}");
    }
}

#[ld::kernel(workgroup_size = 64)]
fn i32_consts(out: &mut [i32]) {
    if global_id().x == 0 {
        out[0] = i32::MIN / -1;
        out[1] = i32::MIN % -1;
        out[2] = 7 / 0;
        out[3] = 7 / 0i32.max(0);
        out[4] = -7 % 0;
        out[5] = 7 % 0i32.min(0);
        out[6] = i32::MAX + 1;
        out[7] = i32::MIN - 1;
        out[8] = i32::MAX * 2;
        out[9] = i32::MIN.wrapping_mul(-1);
        out[10] = -i32::MIN;
        out[11] = 1 << 35;
        out[12] = -8 >> 33;
        out[13] = 1 << 31;
        out[14] = 3 << 30;
        out[15] = i32::MIN >> 40;
        out[16] = 1 << -1;
        out[17] = 1 << 32u32;
        // Compound assignments: a local, a local array element, memory.
        let mut q = 7;
        q /= 0;
        out[18] = q;
        let mut r = [i32::MIN, 5];
        r[0] %= -1;
        r[1] <<= 33;
        out[19] = r[0];
        out[20] = r[1];
        out[21] = i32::MIN;
        out[21] /= -1;
        out[22] = -1;
        out[22] >>= 64;
        // A run-time dividend beside a constant zero divisor.
        out[23] = out[6] / 0;
        out[24] = out[6] % 0;
        out[25] = out[6] << 32;
    }
}

#[test]
fn i32_constant_division_overflow_and_shifts() {
    let want: Vec<i32> = vec![
        i32::MIN,       // MIN / -1
        0,              // MIN % -1
        7,              // 7 / 0
        7,              // 7 / 0.max(0)
        0,              // -7 % 0
        0,              // 7 % 0.min(0)
        i32::MIN,       // MAX + 1
        i32::MAX,       // MIN - 1
        -2,             // MAX * 2
        i32::MIN,       // MIN.wrapping_mul(-1)
        i32::MIN,       // -MIN
        8,              // 1 << 35 == 1 << 3
        -4,             // -8 >> 33 == -8 >> 1
        i32::MIN,       // 1 << 31
        -1_073_741_824, // 3 << 30
        -8_388_608,     // MIN >> 40 == MIN >> 8
        i32::MIN,       // 1 << -1 == 1 << 31
        1,              // 1 << 32u32 == 1 << 0
        7,              // q /= 0
        0,              // r[0] %= -1
        10,             // r[1] <<= 33
        i32::MIN,       // out[21] /= -1
        -1,             // out[22] >>= 64
        i32::MIN,       // out[6] / 0
        0,              // out[6] % 0
        i32::MIN,       // out[6] << 32
    ];
    for mode in MODES {
        let what = format!("i32_consts, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<i32>(want.len()).unwrap();
            run_in(i32_consts.launch(rt, 1u32, &mut out), mode);
            out.to_vec().unwrap()
        });
        expect(&what, &got, &want);
    }
}

#[ld::kernel(workgroup_size = 64)]
fn u32_consts(out: &mut [u32]) {
    if global_id().x == 0 {
        out[0] = 7u32 / 0;
        out[1] = 7u32 % 0;
        out[2] = 7u32 / 0u32.max(0);
        out[3] = u32::MAX + 1;
        out[4] = 0u32 - 1;
        out[5] = 65536u32 * 65536;
        out[6] = 1u32 << 32;
        out[7] = 0x8000_0000u32 >> 63;
        out[8] = u32::MAX << 4;
        out[9] = 3u32 << 31;
        out[10] = 1u32 << 37i32;
        let mut q = 9u32;
        q %= 0;
        out[11] = q;
        out[12] = 40;
        out[12] >>= 36;
        out[13] = out[12] / 0;
    }
}

#[test]
fn u32_constant_division_overflow_and_shifts() {
    let want: Vec<u32> = vec![
        7,           // 7 / 0
        0,           // 7 % 0
        7,           // 7 / 0.max(0)
        0,           // MAX + 1
        u32::MAX,    // 0 - 1
        0,           // 65536 * 65536
        1,           // 1 << 32 == 1 << 0
        1,           // 0x8000_0000 >> 63 == >> 31
        0xffff_fff0, // MAX << 4
        0x8000_0000, // 3 << 31
        32,          // 1 << 37i32 == 1 << 5
        0,           // q %= 0
        2,           // 40 >>= 36 == >> 4
        2,           // out[12] / 0
    ];
    for mode in MODES {
        let what = format!("u32_consts, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<u32>(want.len()).unwrap();
            run_in(u32_consts.launch(rt, 1u32, &mut out), mode);
            out.to_vec().unwrap()
        });
        expect(&what, &got, &want);
    }
}

#[ld::kernels]
mod module_consts {
    const N: i32 = 7;
    const D: i32 = 0;
    const M: i32 = -2147483648;
    const S: u32 = 33;
    const U: u32 = 10;
    const Z: u32 = 0;

    /// `#[ld::kernels]` consts reach WGSL as literals.
    #[kernel(workgroup_size = 64)]
    pub fn divide(out: &mut [i32], uout: &mut [u32]) {
        if global_id().x == 0 {
            out[0] = N / D;
            out[1] = N % D;
            out[2] = M / -1;
            out[3] = N << S;
            out[4] = M >> S;
            uout[0] = U / Z;
            uout[1] = U % Z;
            uout[2] = U << S;
            uout[3] = (U - 11) / Z;
        }
    }
}

#[test]
fn module_consts_divided_by_zero() {
    let want_i: Vec<i32> = vec![7, 0, i32::MIN, 14, -1_073_741_824];
    let want_u: Vec<u32> = vec![10, 0, 20, u32::MAX];
    for mode in MODES {
        let what = format!("module_consts::divide, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<i32>(want_i.len()).unwrap();
            let mut uout = rt.zeros::<u32>(want_u.len()).unwrap();
            run_in(module_consts::divide.launch(rt, 1u32, &mut out, &mut uout), mode);
            vec![(out.to_vec().unwrap(), uout.to_vec().unwrap())]
        });
        expect(&format!("{what}: i32"), &got[0].0, &want_i);
        expect(&format!("{what}: u32"), &got[0].1, &want_u);
    }
}

/// Constant float operations whose result is not finite (WGSL's constant
/// evaluation rejects them) and one that is (it stays a constant). Each is
/// one operation on finite constants: WGSL lets a GPU assume no infinity or
/// NaN reaches an operation at run time (lavapipe folds `inf * 0.0` to 0),
/// so none is fed one.
#[ld::kernel(workgroup_size = 64)]
fn f32_consts(out: &mut [f32]) {
    if global_id().x == 0 {
        out[0] = 1.0 / 0.0;
        out[1] = -1.0 / 0.0;
        out[2] = f32::MAX * 2.0;
        out[3] = f32::MAX + f32::MAX;
        out[4] = -(f32::MAX * 4.0);
        out[5] = 0.0 / 0.0;
        out[6] = 1.0 % 0.0;
        out[7] = (-1.0f32).sqrt();
        out[8] = 100.0f32.exp();
        out[9] = 2.0f32.powf(200.0);
        out[10] = 9.5 * 0.5;
    }
}

#[test]
fn f32_constant_overflow_and_nan() {
    let want =
        [f32::INFINITY, f32::NEG_INFINITY, f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::NAN, f32::NAN, f32::INFINITY, f32::INFINITY, 4.75];
    // NaN's sign and payload are the hardware's: every NaN reads as one.
    let canonical = |x: &f32| common::canonical_nan(x.to_bits());
    let want: Vec<u32> = want.iter().map(canonical).collect();
    for mode in MODES {
        let what = format!("f32_consts, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<f32>(want.len()).unwrap();
            run_in(f32_consts.launch(rt, 1u32, &mut out), mode);
            out.to_vec().unwrap().iter().map(canonical).collect()
        });
        expect(&what, &got, &want);
    }
}

/// Module consts initialized from the standard library's constants, as a
/// hash table's empty key or a reduction's identity is written.
#[ld::kernels]
mod named {
    const EMPTY: u32 = u32::MAX;
    const HALF_MAX: f32 = f32::MAX / 2.0;
    const LOWEST: i32 = i32::MIN + 1;
    const TWO_PI: f32 = 2.0 * core::f32::consts::PI;

    #[kernel(workgroup_size = 64)]
    pub fn named_consts(out: &mut [u32]) {
        if global_id().x == 0 {
            out[0] = EMPTY;
            out[1] = HALF_MAX.to_bits();
            out[2] = LOWEST as u32;
            out[3] = TWO_PI.to_bits();
        }
    }
}

#[test]
fn consts_initialized_from_named_constants() {
    let want = [u32::MAX, (f32::MAX / 2.0).to_bits(), (i32::MIN + 1) as u32, (2.0 * std::f32::consts::PI).to_bits()];
    for mode in MODES {
        let what = format!("named_consts, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<u32>(want.len()).unwrap();
            run_in(named::named_consts.launch(rt, 1u32, &mut out), mode);
            out.to_vec().unwrap()
        });
        expect(&what, &got, &want);
    }
}
