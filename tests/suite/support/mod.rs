//! Shared by the integration tests: the two runtimes a differential test
//! compares, the GPU-vs-CPU comparison itself, and float comparison with a
//! stated bound.
#![allow(dead_code)]

pub mod verdicts;

use ld::Runtime;

/// The GPU runtime (lavapipe on machines without a GPU). With
/// `LD_REQUIRE_GPU=1` a missing adapter fails the test; otherwise the test
/// says so on stderr and gets `None`.
pub fn gpu() -> Option<Runtime> {
    match Runtime::gpu() {
        Ok(rt) => Some(rt),
        Err(e) if ld::Settings::get().map_or(true, |s| s.require_gpu) => {
            panic!("LD_REQUIRE_GPU=1 but: {e}")
        }
        Err(e) => {
            eprintln!("note: GPU half of this differential test not run: {e}");
            None
        }
    }
}

pub fn cpu() -> Runtime {
    Runtime::cpu()
}

/// The CPU reference, then the GPU runtime when there is one (see [`gpu`]).
pub fn runtimes() -> Vec<Runtime> {
    let mut v = vec![cpu()];
    v.extend(gpu());
    v
}

/// A float's bits with any NaN as the one quiet NaN: IEEE 754 leaves a
/// NaN's payload and sign to the device (NVIDIA's `x * -1.0` flips a NaN's
/// sign, x86's keeps it).
pub fn canonical_nan(bits: u32) -> u32 {
    if f32::from_bits(bits).is_nan() {
        0x7fc00000
    } else {
        bits
    }
}

/// A float buffer's words as any device may give them: NaNs as
/// [`canonical_nan`], subnormals as zeros of their sign (WGSL lets a device
/// flush them; NVIDIA's does, operands and results). A `normalize` of the
/// verdict harness.
pub fn canonical_specials(words: &mut Vec<u32>) {
    for w in words {
        let x = f32::from_bits(*w);
        *w = if x.is_subnormal() { *w & 0x8000_0000 } else { canonical_nan(*w) };
    }
}

/// Distance in units in the last place between two finite floats.
pub fn ulps(a: f32, b: f32) -> u32 {
    if a == b {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN.wrapping_sub(i)
        } else {
            i
        }
    };
    (key(a) as i64 - key(b) as i64).unsigned_abs().min(u32::MAX as u64) as u32
}

/// Asserts two float slices agree within `max_ulps` (or an absolute `abs_tol`
/// for values near zero, where ULPs are meaningless after cancellation).
pub fn assert_close(gpu: &[f32], cpu: &[f32], max_ulps: u32, abs_tol: f32, what: &str) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths differ");
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let ok = ulps(*g, *c) <= max_ulps || (g - c).abs() <= abs_tol;
        assert!(ok, "{what}[{i}]: gpu {g} vs cpu {c} ({} ulps, bound {max_ulps} ulps / {abs_tol} abs)", ulps(*g, *c));
    }
}

/// Runs `f` on the CPU executor and on the GPU runtime (when there is one),
/// asserts both outputs are identical and returns the CPU one.
pub fn both<T: PartialEq + std::fmt::Debug>(what: &str, f: impl Fn(&Runtime) -> Vec<T>) -> Vec<T> {
    let c = f(&cpu());
    if let Some(g) = gpu() {
        let gv = f(&g);
        assert_eq!(gv.len(), c.len(), "{what}: GPU and CPU output lengths differ");
        for (i, (a, b)) in gv.iter().zip(&c).enumerate() {
            assert_eq!(a, b, "{what}[{i}]: GPU {a:?} vs CPU {b:?}");
        }
    }
    c
}

/// Asserts the kernels' output equals the host computation, element by
/// element, naming the first index that differs.
pub fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{what}[{i}]: kernels gave {g:?}, host expects {w:?}");
    }
}

/// A check sees a subset of what access monitoring sees: every race of a
/// check is in exact mode's report, on the same words.
pub fn contained_in_exact(check: &ld::Report, exact: &ld::Report) -> Result<(), String> {
    use std::collections::BTreeSet;
    let words: BTreeSet<(&str, u32)> =
        exact.races.iter().flat_map(|x| x.words.iter().flat_map(move |&(a, b)| (a..b).map(move |w| (x.variable.as_str(), w)))).collect();
    for r in &check.races {
        let ok = r.words.iter().all(|&(a, b)| (a..b).all(|w| words.contains(&(r.variable.as_str(), w))));
        if !ok {
            return Err(format!("exact mode does not contain {r:?}\n{check}\n--- exact:\n{exact}"));
        }
    }
    Ok(())
}
