//! What a new user meets past the kernels themselves: deterministic mode
//! on racy kernels (the same bits on every run and backend), bad input and
//! its errors, reports (units, lines, JSON, HTML), check mode on bigger
//! inputs, several launches on one runtime.

use crate::support as common;

use ld::{CheckOptions, Error, FaultKind, Grid, Mode, Report, Runtime};

fn rts() -> Vec<Runtime> {
    common::runtimes()
}

fn line_of(needle: &str) -> u32 {
    include_str!("probes.rs").lines().position(|l| l.contains(needle) && !l.contains("line_of(")).expect(needle) as u32 + 1
}

fn opts_w(w: u32) -> CheckOptions {
    CheckOptions::default().warp_size(w)
}

/// Runs `f` five times on every backend; every output must be bit-identical.
fn five(what: &str, f: &dyn Fn(&Runtime) -> Vec<u32>) -> Vec<u32> {
    let mut outs: Vec<(String, Vec<u32>)> = Vec::new();
    for rt in rts() {
        for _ in 0..5 {
            outs.push((rt.backend().to_string(), f(&rt)));
        }
    }
    for (b, o) in &outs[1..] {
        if o != &outs[0].1 {
            let first = o.iter().zip(&outs[0].1).position(|(a, b)| a != b);
            panic!("{what}: {b} differs from {} (first word {first:?}: {:?} vs {:?})", outs[0].0, first.map(|i| o[i]), first.map(|i| outs[0].1[i]));
        }
    }
    outs.swap_remove(0).1
}

fn check(rt: &Runtime, l: ld::Launch<'_>, o: CheckOptions) -> Report {
    let _ = rt;
    l.check_options(o).check().unwrap()
}

// =====================================================================
// 1. Deterministic mode on racy kernels
// =====================================================================

/// Lanes of one warp race on out[0] and on out[1 + lid/2]; workgroups race
/// on all of them.
#[ld::kernel(workgroup_size = 64)]
fn d_intra(out: &mut [u32]) {
    let l = local_index();
    out[0] = global_id().x + 1;
    out[1 + l / 2] = l + workgroup_id().x * 1000;
}

#[test]
fn det_intra_warp_race_all_warp_sizes() {
    for w in [None, Some(32), Some(8), Some(2), Some(1)] {
        let got = five(&format!("d_intra w={w:?}"), &|rt| {
            let mut out = rt.zeros::<u32>(33).unwrap();
            d_intra.launch(rt, 3u32, &mut out).mode(Mode::Deterministic).check_options(CheckOptions::default().warp_size(w)).run().unwrap();
            out.to_vec().unwrap()
        });
        // The last invocation of the last workgroup wins every word.
        let mut want = vec![192u32];
        want.extend((0..32).map(|k| 2 * k + 1 + 2000));
        assert_eq!(got, want, "w={w:?}");
    }
}

/// Every invocation writes its neighbours' sum into its own word: reads of
/// words other lanes, warps and workgroups write.
#[ld::kernel(workgroup_size = 64)]
fn d_neighbors(data: &mut [u32], n: u32) {
    let i = global_id().x;
    if i < n {
        let l = if i == 0 { n - 1 } else { i - 1 };
        data[i] = data[l] * 3 + data[(i + 1) % n];
    }
}

#[test]
fn det_neighbors_matches_model_under_budgets() {
    let n = 64 * 300u32;
    let input: Vec<u32> = common::verdicts::iota(n as usize, 3);
    let want: Vec<u32> = (0..n as usize).map(|i| input[(i + n as usize - 1) % n as usize] * 3 + input[(i + 1) % n as usize]).collect();
    for budget in [None, Some(8u64 << 20), Some(1 << 20)] {
        let got = five(&format!("d_neighbors budget {budget:?}"), &|rt| {
            let mut d = rt.upload(&input).unwrap();
            let l = d_neighbors
                .launch(rt, Grid::cover(n as u64, 64), &mut d, n)
                .mode(Mode::Deterministic)
                .check_options(CheckOptions::default().memory_budget(budget));
            if budget == Some(1 << 20) {
                eprintln!("plan {budget:?}: {}", l.plan().unwrap());
            }
            l.run().unwrap_or_else(|e| panic!("{budget:?}: {e}"));
            d.to_vec().unwrap()
        });
        assert_eq!(got, want, "budget {budget:?}");
    }
}

/// Write-write between workgroups, many workgroups: the last wins.
#[ld::kernel(workgroup_size = 32)]
fn d_last_wg(out: &mut [u32]) {
    let w = workgroup_id().x + workgroup_id().y * num_workgroups().x;
    out[local_index() % 4] = w * 100 + local_index();
}

#[test]
fn det_ww_between_many_workgroups() {
    for grid in [Grid([5000, 1, 1]), Grid([300, 7, 1]), Grid([3, 4, 5])] {
        let got = five(&format!("d_last_wg {grid:?}"), &|rt| {
            let mut out = rt.zeros::<u32>(4).unwrap();
            d_last_wg.launch(rt, grid, &mut out).mode(Mode::Deterministic).run().unwrap();
            out.to_vec().unwrap()
        });
        // Workgroup order: x fastest, then y, then z (z folded into w by y
        // only here, so compute the last workgroup's w directly).
        let [x, y, _z] = grid.0;
        let last_w = (x - 1) + (y - 1) * x;
        let want: Vec<u32> = (0..4).map(|k| last_w * 100 + 28 + k).collect();
        assert_eq!(got, want, "{grid:?}");
    }
}

/// A write before a `barrier()` (which does not order storage) and a read
/// of another warp's word after it; with `storage_barrier()` it is ordered.
#[ld::kernel(workgroup_size = 64)]
fn d_wrong_barrier(data: &mut [u32], out: &mut [u32]) {
    let lid = local_index();
    let i = global_id().x;
    data[i] = data[i] + 100;
    barrier();
    out[i] = data[workgroup_id().x * 64 + (lid + 32) % 64];
}

#[ld::kernel(workgroup_size = 64)]
fn d_right_barrier(data: &mut [u32], out: &mut [u32]) {
    let lid = local_index();
    let i = global_id().x;
    data[i] = data[i] + 100;
    storage_barrier();
    out[i] = data[workgroup_id().x * 64 + (lid + 32) % 64];
}

#[test]
fn det_read_write_across_barriers() {
    let input: Vec<u32> = (0..256u32).map(|i| i * 7 + 1).collect();
    for (wrong, name) in [(true, "wrong barrier"), (false, "right barrier")] {
        let got = five(name, &|rt| {
            let mut d = rt.upload(&input).unwrap();
            let mut o = rt.zeros::<u32>(256).unwrap();
            let l = if wrong { d_wrong_barrier.launch(rt, 4u32, &mut d, &mut o) } else { d_right_barrier.launch(rt, 4u32, &mut d, &mut o) };
            l.mode(Mode::Deterministic).run().unwrap();
            let mut v = d.to_vec().unwrap();
            v.extend(o.to_vec().unwrap());
            v
        });
        let mut want: Vec<u32> = input.iter().map(|x| x + 100).collect();
        let add = if wrong { 0 } else { 100 };
        want.extend((0..256usize).map(|i| input[i / 64 * 64 + (i % 64 + 32) % 64] + add));
        assert_eq!(got, want, "{name}");
    }
}

/// Atomics whose results go nowhere, mixed with racy plain writes.
#[ld::kernel(workgroup_size = 64)]
fn d_atomic_mix(cnt: &[AtomicU32], out: &mut [u32]) {
    let i = global_id().x;
    cnt[0].fetch_add(1);
    cnt[1 + i % 4].fetch_max(i);
    out[i % 16] = i;
    out[16 + i % 3] += 1;
}

#[test]
fn det_atomics_mixed_with_plain_writes() {
    let got = five("d_atomic_mix", &|rt| {
        let mut c = rt.zeros::<u32>(5).unwrap();
        let mut o = rt.zeros::<u32>(19).unwrap();
        d_atomic_mix.launch(rt, 4u32, &mut c, &mut o).mode(Mode::Deterministic).run().unwrap();
        let mut v = c.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        v
    });
    let mut want = vec![256, 252, 253, 254, 255];
    want.extend((0..16).map(|j| 240 + j));
    want.extend([1, 1, 1]);
    assert_eq!(got, want);
}

/// Control flow and loop bounds depend on racy values (from storage other
/// workgroups write, and from shared memory other warps write).
#[ld::kernel(workgroup_size = 64)]
fn d_flow(data: &mut [u32], out: &mut [u32]) {
    let i = global_id().x;
    let n = data.len();
    let lid = local_index();
    let tile = shared::<[u32; 64]>();
    data[i] = data[i] * 5 + 1;
    tile[lid] = data[(i + 64) % n];
    let v = tile[(lid + 13) % 64] + data[(i + 64) % n];
    let mut s = 0u32;
    let mut k = 0u32;
    while k < v % 17 {
        s += k * v;
        k += 1;
    }
    if v % 2 == 0 {
        data[(i + 7) % n] = s;
    } else {
        out[i] = s + 1;
    }
    barrier();
    out[i] += tile[63 - lid];
}

#[test]
fn det_control_flow_on_racy_values() {
    let n = 64 * 9;
    let input: Vec<u32> = common::verdicts::iota(n, 5);
    for w in [None, Some(1), Some(16)] {
        five(&format!("d_flow w={w:?}"), &|rt| {
            let mut d = rt.upload(&input).unwrap();
            let mut o = rt.zeros::<u32>(n).unwrap();
            d_flow.launch(rt, 9u32, &mut d, &mut o).mode(Mode::Deterministic).check_options(CheckOptions::default().warp_size(w)).run().unwrap();
            let mut v = d.to_vec().unwrap();
            v.extend(o.to_vec().unwrap());
            v
        });
    }
}

/// Racy float accumulation across warps and barriers (shared and storage).
#[ld::kernel(workgroup_size = 128)]
fn d_float_acc(x: &[f32], acc: &mut [f32]) {
    let s = shared::<[f32; 4]>();
    let lid = local_index();
    s[lid % 4] += x[global_id().x];
    barrier();
    s[(lid + 1) % 4] = s[(lid + 1) % 4] * 0.5 + s[lid % 4];
    barrier();
    if lid < 4 {
        acc[lid] += s[lid];
    }
}

#[test]
fn det_float_accumulation() {
    let x: Vec<f32> = (0..128 * 40).map(|i| (i as f32 * 0.37).sin()).collect();
    for w in [None, Some(1)] {
        five(&format!("d_float_acc w={w:?}"), &|rt| {
            let xb = rt.upload(&x).unwrap();
            let mut a = rt.upload(&[1.5f32; 4]).unwrap();
            d_float_acc.launch(rt, 40u32, &xb, &mut a).mode(Mode::Deterministic).check_options(CheckOptions::default().warp_size(w)).run().unwrap();
            a.words().unwrap()
        });
    }
}

// =====================================================================
// 2. Bad input and errors
// =====================================================================

#[ld::kernel(workgroup_size = 64)]
fn e_copy(src: &[u32], dst: &mut [u32]) {
    let i = global_id().x;
    dst[i] = src[i];
}

#[test]
fn err_zero_and_huge_grids_in_every_mode() {
    for rt in rts() {
        let src = rt.upload(&[3u32; 64]).unwrap();
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            for g in [Grid([1, 0, 1]), Grid([1, 1, 0]), Grid([65536, 1, 1]), Grid([1, 70000, 1]), Grid([1, 1, u32::MAX])] {
                let mut dst = rt.zeros::<u32>(64).unwrap();
                let e = e_copy.launch(&rt, g, &src, &mut dst).mode(mode).run().expect_err("bad grid");
                let s = e.to_string();
                assert!(matches!(e, Error::Grid { .. }), "{:?} {mode:?} {g:?}: {s}", rt.backend());
                assert_eq!(dst.to_vec().unwrap(), vec![0; 64]);
            }
        }
    }
}

#[test]
fn err_plan_of_huge_3d_grid_does_not_panic() {
    for rt in rts() {
        let src = rt.upload(&[3u32; 64]).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let g = Grid([65535, 65535, 65535]);
        let r =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| e_copy.launch(&rt, g, &src, &mut dst).mode(Mode::Check).plan().map(|p| p.to_string())));
        match r {
            Ok(Ok(p)) => eprintln!("plan of {g:?}: {p}"),
            Ok(Err(e)) => eprintln!("plan of {g:?}: error {e}"),
            Err(_) => panic!("{:?}: plan() of a huge 3-D grid panicked", rt.backend()),
        }
    }
}

/// A too-short output buffer is an out-of-bounds fault in every mode; in
/// check, deterministic and exact modes the buffers are as they were.
#[test]
fn err_short_buffer_in_every_mode() {
    for rt in rts() {
        let src = rt.upload(&(0..256u32).collect::<Vec<_>>()).unwrap();
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let mut dst = rt.upload(&vec![9u32; 200]).unwrap();
            let e = e_copy.launch(&rt, 4u32, &src, &mut dst).mode(mode).run().expect_err("short buffer");
            let s = e.to_string();
            let what = format!("{:?} {mode:?}", rt.backend());
            assert!(matches!(e, Error::Fault { kind: FaultKind::OutOfBounds { ref array, len: 200, .. }, .. } if array == "dst"), "{what}: {s}");
            if mode != Mode::Native {
                assert_eq!(dst.to_vec().unwrap(), vec![9u32; 200], "{what}: buffers as they were: {s}");
                assert!(s.contains("as they were"), "{what}: {s}");
            } else {
                assert!(s.contains("partial"), "{what}: {s}");
            }
        }
    }
}

#[ld::kernel(workgroup_size = 64)]
fn e_spin(flag: &[AtomicU32], out: &mut [u32]) {
    let i = global_id().x;
    while flag[0].load() == 0 {}
    out[i] = 1;
}

#[ld::kernel(workgroup_size = 64)]
fn e_spin_plain(flag: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    let mut x = 0u32;
    while flag[0] == 0 {
        x += 1;
    }
    out[i] = x;
}

#[test]
fn err_spin_lock_in_exact_mode() {
    let (line, column) = (line_of("while flag[0].load() == 0 {}"), 5);
    for rt in rts() {
        let mut flag = rt.zeros::<u32>(1).unwrap();
        let mut out = rt.upload(&[7u32; 128]).unwrap();
        let start = std::time::Instant::now();
        let e = e_spin.launch(&rt, 2u32, &mut flag, &mut out).mode(Mode::Exact).max_loop_iterations(3000).run().expect_err("spins");
        assert!(start.elapsed().as_secs() < 60);
        assert!(
            matches!(e, Error::Fault { kind: FaultKind::NonTermination { fuel: 3000, line: l, column: c }, .. } if l == line && c == column),
            "{:?}: {e}",
            rt.backend()
        );
        assert_eq!(out.to_vec().unwrap(), vec![7u32; 128], "{:?}: exact mode: a fault leaves them as they were", rt.backend());
        let flag = rt.zeros::<u32>(1).unwrap();
        let e = e_spin_plain.launch(&rt, 2u32, &flag, &mut out).mode(Mode::Exact).max_loop_iterations(3000).run().expect_err("spins");
        assert!(matches!(e, Error::Fault { kind: FaultKind::NonTermination { fuel: 3000, .. }, .. }), "{:?}: {e}", rt.backend());
        assert_eq!(out.to_vec().unwrap(), vec![7u32; 128], "{:?}", rt.backend());
    }
}

/// Only one workgroup of many spins: the fault names it, in every mode.
#[ld::kernel(workgroup_size = 32)]
fn e_spin_one(flag: &[u32], out: &mut [u32]) {
    let i = global_id().x;
    let mut x = 0u32;
    if workgroup_id().x == 37 {
        while flag[0] == 0 {
            x += 1;
        }
    }
    out[i] = x + 1;
}

#[test]
fn err_spin_in_one_workgroup_every_mode() {
    for rt in rts() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let flag = rt.zeros::<u32>(1).unwrap();
            let mut out = rt.zeros::<u32>(64 * 32).unwrap();
            let e = e_spin_one.launch(&rt, 64u32, &flag, &mut out).mode(mode).max_loop_iterations(1000).run().expect_err("spins");
            let what = format!("{:?} {mode:?}", rt.backend());
            match &e {
                Error::Fault { invocation, kind: FaultKind::NonTermination { fuel: 1000, .. }, .. } => {
                    assert!(invocation.contains("workgroup (37, 0, 0)"), "{what}: {e}")
                }
                _ => panic!("{what}: {e}"),
            }
            if mode != Mode::Native {
                assert_eq!(out.to_vec().unwrap(), vec![0; 64 * 32], "{what}");
            }
        }
    }
}

#[ld::kernel(workgroup_size = 64)]
fn e_tile(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let l = local_index();
    tile[l] = l;
    barrier();
    out[global_id().x] = tile[63 - l];
}

#[test]
fn err_bad_check_options_in_det_and_exact() {
    for rt in rts() {
        for mode in [Mode::Check, Mode::Deterministic, Mode::Exact] {
            for (w, what) in [(0u32, "zero"), (3, "non power"), (128, "bigger than wg")] {
                let mut out = rt.zeros::<u32>(64).unwrap();
                let e = e_tile.launch(&rt, 1u32, &mut out).mode(mode).check_options(opts_w(w)).run().expect_err(what);
                let s = e.to_string();
                assert!(s.contains("warp size") && s.contains("power of two"), "{:?} {mode:?} w={w}: {s}", rt.backend());
                assert_eq!(out.to_vec().unwrap(), vec![0; 64]);
            }
            for o in [CheckOptions::default().max_rounds(0), CheckOptions::default().copies(0), CheckOptions::default().memory_budget(0)] {
                let mut out = rt.zeros::<u32>(64).unwrap();
                let e = e_tile.launch(&rt, 1u32, &mut out).mode(mode).check_options(o).run().expect_err("bad option");
                assert!(matches!(e, Error::BadOption { .. }), "{:?} {mode:?}: {e}", rt.backend());
            }
        }
    }
}

#[test]
fn err_tiny_budget_deterministic_leaves_buffers() {
    for rt in rts() {
        for mode in [Mode::Check, Mode::Deterministic] {
            let mut out = rt.upload(&vec![5u32; 64 * 16]).unwrap();
            let e = e_tile
                .launch(&rt, 16u32, &mut out)
                .mode(mode)
                .check_options(CheckOptions::default().memory_budget(100))
                .run()
                .expect_err("budget of 100 bytes");
            let s = e.to_string();
            assert!(matches!(e, Error::CheckMemory { limit: 100, .. }) && s.contains("needs"), "{:?} {mode:?}: {s}", rt.backend());
            assert_eq!(out.to_vec().unwrap(), vec![5u32; 64 * 16]);
        }
    }
}

/// copies larger than the warps, odd copies, max_rounds 1.
#[ld::kernel(workgroup_size = 256)]
fn e_pair(out: &mut [u32], a: u32, b: u32) {
    let tile = shared::<[u32; 4]>();
    let w = local_index() / 32;
    if local_index() % 32 == 0 && (w == a || w == b) {
        tile[0] = w + 1;
    }
    barrier();
    out[global_id().x] = tile[0];
}

#[test]
fn err_copies_and_rounds() {
    for rt in rts() {
        // 8 warps; warps 0 and 1 race (digit 0 differs), warps 0 and 2 race
        // (differ in digit 1 of base 2).
        for (copies, max_rounds, a, b, must_find) in [
            (Some(1000u32), None, 0u32, 7u32, true),
            (Some(3), None, 0, 7, true),
            (Some(3), None, 1, 4, true),
            (Some(2), None, 0, 4, true),
            (Some(2), Some(1), 0, 4, true),
            (Some(7), None, 2, 5, true),
        ] {
            let mut out = rt.zeros::<u32>(512).unwrap();
            let o = CheckOptions::default().copies(copies).max_rounds(max_rounds);
            let l = e_pair.launch(&rt, 2u32, &mut out, a, b).mode(Mode::Check).check_options(o);
            let plan = l.plan();
            let r = e_pair.launch(&rt, 2u32, &mut out, a, b).mode(Mode::Check).check_options(o).run();
            let what = format!("{:?} copies {copies:?} rounds {max_rounds:?} warps {a},{b}", rt.backend());
            let r = r.unwrap_or_else(|e| panic!("{what}: {e}"));
            let rep = r.report.unwrap();
            if must_find {
                assert!(rep.has_races(), "{what}: missed\nplan {:?}\n{rep}", plan.map(|p| p.to_string()));
                let race = &rep.races[0];
                let warps: Vec<_> = race.units.iter().map(|u| u.warp).collect();
                if !race.grouped {
                    assert_eq!(warps, vec![Some(a), Some(b)], "{what}: {rep}");
                }
                let mut aw: Vec<_> = race.accesses.iter().map(|x| x.unit.warp).collect();
                aw.sort();
                aw.dedup();
                assert_eq!(aw, vec![Some(a), Some(b)], "{what}: accesses name the racing warps\n{rep}");
            }
        }
    }
}

#[test]
fn err_max_records_one_keeps_totals() {
    for rt in rts() {
        let mut out = rt.zeros::<u32>(64).unwrap();
        let full = check(&rt, d_intra.launch(&rt, 8u32, &mut out), CheckOptions::default());
        let mut out = rt.zeros::<u32>(64).unwrap();
        let one = check(&rt, d_intra.launch(&rt, 8u32, &mut out), CheckOptions::default().max_records(1));
        assert_eq!(full.race_records, one.race_records, "{:?}", rt.backend());
        assert!(one.records_dropped > 0, "{:?}: {one}", rt.backend());
    }
}

#[ld::kernels]
pub mod structs {
    pub struct P {
        pub a: u32,
        pub b: f32,
    }
    #[kernel(workgroup_size = 32)]
    pub fn bump(ps: &mut [P]) {
        let i = global_id().x;
        if i < ps.len() {
            ps[i].a += 1;
        }
    }
}

#[test]
fn err_wrong_argument_types_via_vec() {
    for rt in rts() {
        // A u32 buffer for a struct parameter.
        let mut b = rt.zeros::<u32>(64).unwrap();
        let e = rt.launch(structs::bump, 1u32, (&mut b,)).run().expect_err("type");
        assert!(matches!(e, Error::Arg { index: 0, .. }), "{e}");
        // A scalar for a buffer.
        let e = rt.launch(structs::bump, 1u32, vec![ld::Arg::U32(3)]).run().expect_err("scalar");
        assert!(matches!(e, Error::Arg { index: 0, .. }), "{e}");
        // Too many.
        let mut ps = rt.zeros::<structs::P>(32).unwrap();
        let e = rt.launch(structs::bump, 1u32, (&mut ps, 5u32)).run().expect_err("count");
        assert!(matches!(e, Error::ArgCount { expected: 1, given: 2, .. }), "{e}");
        // An i32 buffer for a u32 one.
        let src = rt.zeros::<i32>(64).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let e = rt.launch(e_copy, 1u32, (&src, &mut dst)).mode(Mode::Check).run().expect_err("i32");
        assert!(matches!(e, Error::Arg { index: 0, .. }), "{e}");
        structs::bump.launch(&rt, 1u32, &mut ps).mode(Mode::Check).run().unwrap();
        assert!(ps.to_vec().unwrap().iter().all(|p| p.a == 1));
    }
}

// =====================================================================
// 3. Reports
// =====================================================================

/// Warp 1 overwrites warp 0's shared words in the same region (ww), then a
/// read across workgroups in storage.
#[ld::kernel(workgroup_size = 64)]
fn r_racy(data: &mut [u32], out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let l = local_index();
    tile[l % 32] = l; // RWW
    barrier();
    out[global_id().x] = tile[l % 32];
    if workgroup_id().x == 1 && l == 5 {
        data[3] = 77; // RSW
    }
    if workgroup_id().x == 0 && l == 9 {
        out[200] = data[3]; // RSR
    }
}

#[test]
fn rep_lines_units_json_display_html() {
    let mut reports = Vec::new();
    for rt in rts() {
        let mut d = rt.upload(&[1u32; 16]).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let rep = check(&rt, r_racy.launch(&rt, 3u32, &mut d, &mut o), CheckOptions::default());
        eprintln!("{rep}");
        let what = format!("{:?}", rt.backend());
        assert!(!rep.lane_order_dependent(), "{what}");
        // The shared ww race: warp 0 and warp 1, line of tile[l % 32] = l.
        for r in &rep.races {
            eprintln!("RACE {:?} {:?} {:?} units {:?} words {:?}", r.variable, r.kind, r.evidence, r.units, r.words);
        }
        let ww = rep.races.iter().find(|r| r.variable == "tile").unwrap_or_else(|| panic!("{what}: {rep}"));
        assert_eq!(ww.kind, ld::RaceKind::WriteWrite, "{what}");
        let mut tw: Vec<(u32, u32)> = rep.races.iter().filter(|r| r.variable == "tile").flat_map(|r| r.words.clone()).collect();
        tw.sort();
        // Word 0 (warp 0 writes the 0 it held) groups with the others: its
        // writers come in unit order too.
        assert_eq!(tw, vec![(0, 32)], "{what}");
        assert_eq!(ww.workgroups.len(), 3, "{what}");
        let wl = line_of("tile[l % 32] = l; // RWW");
        assert!(ww.accesses.iter().all(|a| a.line == wl && a.kind == ld::AccessKind::Write), "{what}: {:?}", ww.accesses);
        assert!(ww.accesses.iter().all(|a| a.file.ends_with("probes.rs") && a.source.contains("tile[l % 32] = l;")), "{what}: {:?}", ww.accesses);
        // The storage rw race between workgroup 0 (reader) and 1 (writer).
        let rw = rep.races.iter().find(|r| r.variable == "data").unwrap_or_else(|| panic!("{what}: {rep}"));
        assert_eq!(rw.kind, ld::RaceKind::ReadWrite, "{what}");
        assert_eq!(rw.words, vec![(3, 4)], "{what}");
        let lines: Vec<_> = rw.accesses.iter().map(|a| (a.kind, a.line, a.global_id)).collect();
        assert!(lines.contains(&(ld::AccessKind::Write, line_of("data[3] = 77; // RSW"), [69, 0, 0])), "{what}: {lines:?}");
        assert!(lines.contains(&(ld::AccessKind::Read, line_of("out[200] = data[3]; // RSR"), [9, 0, 0])), "{what}: {lines:?}");
        // JSON both ways.
        let j: serde_json::Value = serde_json::from_str(&rep.to_json()).unwrap();
        let j2: serde_json::Value = serde_json::from_str(&serde_json::to_string(&rep).unwrap()).unwrap();
        assert_eq!(j, j2);
        assert_eq!(j["kernel"], "r_racy");
        assert_eq!(j["workgroups"], 3);
        let text = rep.to_string();
        assert!(text.contains(&format!(":{wl}:")), "{what}: {text}");
        reports.push(rep);
    }
    if reports.len() == 2 {
        assert_eq!(reports[0].verdict(), reports[1].verdict(), "GPU/CPU verdict");
    }
    let html = ld::html_report(&reports);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("r_racy"));
    let doc = ld::report_document(&reports).to_value();
    assert_eq!(doc["launches"].as_array().unwrap().len(), reports.len());
    let html2 = ld::html_report_json(&ld::report_document(&reports).to_json());
    assert!(html2.starts_with("<!DOCTYPE html>"));
}

/// Race-free, many regions, 2-D grid: identical reports on both backends.
#[ld::kernel(workgroup_size = (8, 4))]
fn r_clean2d(data: &mut [f32], out: &mut [f32]) {
    let tile = shared::<[f32; 32]>();
    let l = local_index();
    let g = global_id().x + global_id().y * num_workgroups().x * 8;
    tile[l] = data[g];
    barrier();
    for k in 0..5u32 {
        let v = tile[(l + k) % 32];
        barrier();
        tile[l] = v * 0.5 + 1.0;
        barrier();
    }
    out[g] = tile[31 - l];
    storage_barrier();
    data[g] = out[g] + 1.0;
}

#[test]
fn rep_clean_identical_on_both() {
    let n = 8 * 4 * 12 * 3;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let mut reps = Vec::new();
    let mut outs = Vec::new();
    for rt in rts() {
        let mut d = rt.upload(&input).unwrap();
        let mut o = rt.zeros::<f32>(n).unwrap();
        let rep = check(&rt, r_clean2d.launch(&rt, (12u32, 3u32), &mut d, &mut o), opts_w(4));
        assert!(!rep.has_races(), "{:?}: FALSE POSITIVE\n{rep}", rt.backend());
        outs.push((d.words().unwrap(), o.words().unwrap()));
        let mut d = rt.upload(&input).unwrap();
        let mut o = rt.zeros::<f32>(n).unwrap();
        r_clean2d.launch(&rt, (12u32, 3u32), &mut d, &mut o).run().unwrap();
        assert_eq!(outs.last().unwrap(), &(d.words().unwrap(), o.words().unwrap()), "check vs native");
        reps.push(rep);
    }
    if reps.len() == 2 {
        assert_eq!(reps[0].verdict(), reps[1].verdict());
        let strip = |r: &Report| {
            let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
            for k in ["backend", "elapsed_ms", "stats", "plan"] {
                v.as_object_mut().unwrap().remove(k);
            }
            v
        };
        assert_eq!(strip(&reps[0]), strip(&reps[1]));
        assert_eq!(outs[0], outs[1]);
    }
}

/// A ww race between workgroups of a 3-D grid names both workgroups.
#[ld::kernel(workgroup_size = 16)]
fn r_3d(out: &mut [u32]) {
    let w = workgroup_id();
    if w.x == 1 && w.y == 2 && w.z == 1 && local_index() == 0 {
        out[0] = 5; // R3A
    }
    if w.x == 0 && w.y == 0 && w.z == 2 && local_index() == 3 {
        out[0] = 6; // R3B
    }
}

#[test]
fn rep_3d_units() {
    let mut reps = Vec::new();
    for rt in rts() {
        let mut o = rt.zeros::<u32>(4).unwrap();
        let rep = check(&rt, r_3d.launch(&rt, (2u32, 3u32, 3u32), &mut o), CheckOptions::default());
        let what = format!("{:?}", rt.backend());
        assert_eq!(rep.races.len(), 1, "{what}: {rep}");
        let r = &rep.races[0];
        let wgs: Vec<_> = r.units.iter().map(|u| u.workgroup).collect();
        assert_eq!(wgs, vec![[1, 2, 1], [0, 0, 2]], "{what}: {rep}");
        let mut lines: Vec<_> = r.accesses.iter().map(|a| (a.line, a.global_id)).collect();
        lines.sort();
        assert_eq!(lines, vec![(line_of("out[0] = 5; // R3A"), [16, 2, 1]), (line_of("out[0] = 6; // R3B"), [3, 0, 2])], "{what}: {rep}");
        assert_eq!(o.to_vec().unwrap()[0], 6, "{what}: later workgroup wins");
        reps.push(rep);
    }
    if reps.len() == 2 {
        assert_eq!(reps[0].verdict(), reps[1].verdict());
    }
}

// =====================================================================
// 4. Check mode on bigger inputs
// =====================================================================

/// Every invocation writes its own words; one invocation of workgroup
/// `bad` also writes the first word of the next workgroup's block.
#[ld::kernel(workgroup_size = 64)]
fn b_one_bad(data: &mut [u32], bad: u32, per: u32) {
    let w = workgroup_id().x;
    let l = local_index();
    let mut k = 0u32;
    while k < per {
        data[w * 64 * per + k * 64 + l] = data[w * 64 * per + k * 64 + l] + w + 1;
        k += 1;
    }
    if w == bad && l == 17 {
        data[(w + 1) * 64 * per % data.len() + 5] = 12345; // BAD
    }
}

#[test]
fn big_race_in_one_of_thousands() {
    // 4096 workgroups x 64 x 4 words = 4 MiB.
    let per = 4u32;
    let wgs = 4096u32;
    let n = (wgs * 64 * per) as usize;
    for rt in rts() {
        for bad in [2731u32, wgs - 1] {
            let mut d = rt.zeros::<u32>(n).unwrap();
            let t = std::time::Instant::now();
            let rep = check(&rt, b_one_bad.launch(&rt, wgs, &mut d, bad, per), CheckOptions::default());
            let what = format!("{:?} bad {bad}", rt.backend());
            eprintln!("{what}: {:?}\n{rep}", t.elapsed());
            assert!(rep.has_races(), "{what}: MISSED");
            assert_eq!(rep.races.len(), 1, "{what}: {rep}");
            let r = &rep.races[0];
            let other = (bad + 1) % wgs;
            let mut wg: Vec<u32> = r.units.iter().map(|u| u.workgroup[0]).collect();
            wg.sort();
            let mut want = vec![bad, other];
            want.sort();
            assert_eq!(wg, want, "{what}: {rep}");
            let word = other * 64 * per + 5;
            assert_eq!(r.words, vec![(word, word + 1)], "{what}");
            assert!(r.accesses.iter().any(|a| a.line == line_of("= 12345; // BAD")), "{what}: {:?}", r.accesses);
        }
    }
}

/// Many barriers; a race only in the last region of the last workgroup.
#[ld::kernel(workgroup_size = 128)]
fn b_late(out: &mut [u32], rounds: u32) {
    let tile = shared::<[u32; 128]>();
    let l = local_index();
    tile[l] = l;
    barrier();
    for r in 0..rounds {
        let v = tile[(l + 1) % 128];
        barrier();
        tile[l] = v + r;
        barrier();
    }
    if workgroup_id().x == num_workgroups().x - 1 && l == 100 {
        tile[3] = 999; // LATE
    }
    out[global_id().x] = tile[l];
}

#[test]
fn big_race_in_last_region_of_last_workgroup() {
    for rt in rts() {
        // 301 barriers in each of 400 workgroups: enough to reach the last
        // workgroup's last region, without more compile or run time.
        let wgs = 400u32;
        let mut o = rt.zeros::<u32>((wgs * 128) as usize).unwrap();
        let t = std::time::Instant::now();
        let r = b_late.launch(&rt, wgs, &mut o, 150u32).mode(Mode::Check).run();
        let what = format!("{:?}", rt.backend());
        let rep = match r {
            Ok(r) => r.report.unwrap(),
            Err(e) => panic!("{what}: {e}"),
        };
        eprintln!("{what}: {:?}\n{rep}", t.elapsed());
        assert!(rep.has_races(), "{what}: MISSED");
        let race = &rep.races[0];
        assert_eq!(race.variable, "tile");
        assert_eq!(race.workgroups, vec![[wgs - 1, 0, 0]], "{what}");
        assert_eq!(race.words, vec![(3, 4)], "{what}");
        let lines: Vec<u32> = race.accesses.iter().map(|a| a.line).collect();
        assert!(lines.contains(&line_of("tile[3] = 999; // LATE")), "{what}: {lines:?}");
    }
}

#[ld::kernel(workgroup_size = 256)]
fn b_stream(a: &[f32], out: &mut [f32], n: u32) {
    let i = global_id().x + global_id().y * num_workgroups().x * 256;
    if i < n {
        out[i] = a[i] * 2.0 + 1.0;
    }
}

#[test]
fn big_16mib_clean() {
    let n = 4 << 20; // 16 MiB of f32
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    for rt in rts() {
        let ab = rt.upload(&a).unwrap();
        let mut o = rt.zeros::<f32>(n).unwrap();
        let g = Grid::cover_2d(n as u64, 256);
        let t = std::time::Instant::now();
        let rep = check(&rt, b_stream.launch(&rt, g, &ab, &mut o, n as u32), CheckOptions::default());
        eprintln!("{:?}: 16 MiB check {:?}", rt.backend(), t.elapsed());
        assert!(!rep.has_races(), "{:?}: FALSE POSITIVE {rep}", rt.backend());
        let got = o.to_vec().unwrap();
        assert!(got.iter().zip(&a).all(|(g, x)| *g == x * 2.0 + 1.0));
    }
}

/// A grid beyond 65535 in x spread over y, race-free, in check mode.
#[ld::kernel(workgroup_size = 1)]
fn b_tiny(out: &mut [u32]) {
    let i = global_id().x + global_id().y * num_workgroups().x;
    if i < out.len() {
        out[i] = i + 1;
    }
}

#[test]
fn big_2d_grid_of_70000_workgroups_checked() {
    let items = 70000u64;
    for rt in rts() {
        let g = Grid::cover_2d(items, 1);
        let mut o = rt.zeros::<u32>(items as usize).unwrap();
        let t = std::time::Instant::now();
        let rep = check(&rt, b_tiny.launch(&rt, g, &mut o), CheckOptions::default());
        eprintln!("{:?}: {g:?} {:?}", rt.backend(), t.elapsed());
        assert!(!rep.has_races(), "{rep}");
        assert_eq!(rep.workgroups as u64, g.workgroups());
        assert!(o.to_vec().unwrap().iter().enumerate().all(|(i, &v)| v == i as u32 + 1));
    }
}

// =====================================================================
// 5. Multiple launches / session use
// =====================================================================

#[ld::kernel(workgroup_size = 64)]
fn m_scale(data: &mut [u32], k: u32) {
    let i = global_id().x;
    data[i] = data[i] * k + i;
}

#[ld::kernel(workgroup_size = 64)]
fn m_sum(data: &[u32], out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let l = local_index();
    tile[l] = data[global_id().x];
    barrier();
    let mut s = 32u32;
    while s > 0 {
        if l < s {
            tile[l] += tile[l + s];
        }
        barrier();
        s >>= 1;
    }
    if l == 0 {
        out[workgroup_id().x] = tile[0];
    }
}

#[test]
fn multi_launch_sequence_in_check_mode() {
    for rt in rts() {
        let run = |mode: Mode| {
            let mut d = rt.upload(&(0..1024u32).collect::<Vec<_>>()).unwrap();
            let mut o = rt.zeros::<u32>(16).unwrap();
            for k in 2..5u32 {
                let r = m_scale.launch(&rt, 16u32, &mut d, k).mode(mode).run().unwrap();
                if let Some(rep) = r.report {
                    assert!(!rep.has_races(), "{rep}");
                }
                let r = m_sum.launch(&rt, 16u32, &d, &mut o).mode(mode).run().unwrap();
                if let Some(rep) = r.report {
                    assert!(!rep.has_races(), "{rep}");
                }
            }
            // A racy launch in between, then the buffers are still usable.
            let mut junk = rt.zeros::<u32>(33).unwrap();
            d_intra.launch(&rt, 2u32, &mut junk).mode(mode).run().unwrap();
            drop(junk);
            m_sum.launch(&rt, 16u32, &d, &mut o).mode(mode).run().unwrap();
            (d.to_vec().unwrap(), o.to_vec().unwrap())
        };
        let native = run(Mode::Native);
        assert_eq!(run(Mode::Check), native, "{:?} check", rt.backend());
        assert_eq!(run(Mode::Deterministic), native, "{:?} det", rt.backend());
        assert_eq!(run(Mode::Exact), native, "{:?} exact", rt.backend());
    }
}

#[test]
fn multi_runtime_reuse_after_errors() {
    for rt in rts() {
        let mut d = rt.upload(&vec![1u32; 100]).unwrap();
        // Fault, budget error, bad option, then a good launch on the same runtime/buffers.
        assert!(m_scale.launch(&rt, 2u32, &mut d, 3u32).mode(Mode::Check).run().is_err());
        assert_eq!(d.to_vec().unwrap(), vec![1u32; 100]);
        let mut e = rt.upload(&vec![1u32; 128]).unwrap();
        assert!(m_scale.launch(&rt, 2u32, &mut e, 3u32).mode(Mode::Check).check_options(CheckOptions::default().memory_budget(10)).run().is_err());
        let r = m_scale.launch(&rt, 2u32, &mut e, 3u32).mode(Mode::Check).run().unwrap();
        assert!(!r.report.unwrap().has_races());
        assert_eq!(e.to_vec().unwrap(), (0..128u32).map(|i| 3 + i).collect::<Vec<_>>(), "{:?}", rt.backend());
    }
    // Buffers outlive their runtime.
    if let Some(g) = common::gpu() {
        let b = g.upload(&[4u32; 8]).unwrap();
        drop(g);
        assert_eq!(b.to_vec().unwrap(), vec![4u32; 8]);
    }
}

/// max_rounds = 1 trades coverage for time: a race the skipped rounds
/// would find is not reported; the report should say the check was partial.
#[test]
fn rounds_limited_report_says_partial() {
    for rt in rts() {
        for (a, b) in [(0u32, 1u32), (0, 2), (0, 4)] {
            let mut out = rt.zeros::<u32>(512).unwrap();
            let o = CheckOptions::default().copies(2).max_rounds(1);
            let rep = check(&rt, e_pair.launch(&rt, 2u32, &mut out, a, b), o);
            let plan = rep.plan.as_ref().map(|p| p.to_string());
            eprintln!("{:?} warps {a},{b}: found {} plan {plan:?}\n{rep}", rt.backend(), rep.has_races());
            let text = rep.to_string();
            assert!(text.contains("coverage: 1 of 3 rounds checked"), "{:?} warps {a},{b}: a check that ran 1 of 3 rounds says only:\n{text}", rt.backend());
            if !rep.has_races() {
                assert_eq!(rep.buffers, ld::Buffers::AsNativeIfUnchecked { not_checked: 2, rounds: 3 }, "{:?}: {}", rt.backend(), rep.buffers);
            }
        }
    }
}

// =====================================================================
// 6. More: deterministic options, lane-order faults, huge buffers
// =====================================================================

/// Deterministic mode must not trade copies for rounds (warps sharing a
/// copy would see each other's writes in device order): `copies`,
/// `max_rounds` and a small budget either change nothing or fail.
#[test]
fn det_copies_rounds_budget_do_not_change_bits() {
    let n = 64 * 9;
    let input: Vec<u32> = common::verdicts::iota(n, 5);
    let run = |rt: &Runtime, o: CheckOptions| -> ld::Result<Vec<u32>> {
        let mut d = rt.upload(&input).unwrap();
        let mut out = rt.zeros::<u32>(n).unwrap();
        d_flow.launch(rt, 9u32, &mut d, &mut out).mode(Mode::Deterministic).check_options(o).run()?;
        let mut v = d.to_vec().unwrap();
        v.extend(out.to_vec().unwrap());
        Ok(v)
    };
    let base = run(&common::cpu(), CheckOptions::default()).unwrap();
    for rt in rts() {
        for o in [
            CheckOptions::default().copies(2),
            CheckOptions::default().copies(2).max_rounds(1),
            CheckOptions::default().memory_budget(64 << 10),
            CheckOptions::default().memory_budget(600 << 10),
            CheckOptions::default().memory_budget(3 << 20),
        ] {
            match run(&rt, o) {
                Ok(v) => assert!(v == base, "{:?} {o:?}: deterministic bits differ from the default run", rt.backend()),
                Err(e) => eprintln!("{:?} {o:?}: error (acceptable): {e}", rt.backend()),
            }
        }
    }
}

/// Lane 1 writes shared word 0, lane 0 reads it as an index: whether lane
/// 0 sees the write depends on lane order (1000 is out of bounds). At one
/// invocation per warp lane 0 sees 0. Deterministic mode must give one
/// outcome on both backends.
#[ld::kernel(workgroup_size = 32)]
fn d_fault_lane(out: &mut [u32]) {
    let tile = shared::<[u32; 32]>();
    let l = local_index();
    if l == 1 {
        tile[0] = 1000;
    }
    if l == 0 {
        out[tile[0]] = 7; // LANEFAULT
    }
}

/// The same with lane 0 the writer and lane 1 the reader.
#[ld::kernel(workgroup_size = 32)]
fn d_fault_lane2(out: &mut [u32]) {
    let tile = shared::<[u32; 32]>();
    let l = local_index();
    if l == 0 {
        tile[0] = 1000;
    }
    if l == 1 {
        out[tile[0]] = 7;
    }
}

#[test]
fn det_lane_order_fault_is_backend_independent() {
    let mut failures = Vec::new();
    for (name, k) in [("d_fault_lane", 0), ("d_fault_lane2", 1)] {
        let mut results = Vec::new();
        for rt in rts() {
            for _ in 0..3 {
                let mut out = rt.zeros::<u32>(64).unwrap();
                let l = if k == 0 { d_fault_lane.launch(&rt, 1u32, &mut out) } else { d_fault_lane2.launch(&rt, 1u32, &mut out) };
                let r = l.mode(Mode::Deterministic).run();
                let res = match r {
                    Ok(_) => format!("ok {:?}", &out.to_vec().unwrap()[..2]),
                    Err(e) => format!("err {e}"),
                };
                results.push((rt.backend().to_string(), res));
            }
        }
        eprintln!("{name}: {results:#?}");
        for rt in rts() {
            let mut out = rt.zeros::<u32>(64).unwrap();
            let l = if k == 0 { d_fault_lane.launch(&rt, 1u32, &mut out) } else { d_fault_lane2.launch(&rt, 1u32, &mut out) };
            match l.mode(Mode::Check).run() {
                Ok(r) => eprintln!(
                    "{name} check on {:?}: lane_order_dependent {}\n{}",
                    rt.backend(),
                    r.report.as_ref().unwrap().lane_order_dependent(),
                    r.report.unwrap()
                ),
                Err(e) => eprintln!("{name} check on {:?}: error {e}", rt.backend()),
            }
            let mut out = rt.zeros::<u32>(64).unwrap();
            let l = if k == 0 { d_fault_lane.launch(&rt, 1u32, &mut out) } else { d_fault_lane2.launch(&rt, 1u32, &mut out) };
            let r = l.mode(Mode::Deterministic).check_options(opts_w(1)).run();
            eprintln!("{name} det w=1 on {:?}: {:?} {:?}", rt.backend(), r.map(|_| ()), out.to_vec().unwrap()[..2].to_vec());
        }
        for (b, r) in &results[1..] {
            if r != &results[0].1 {
                failures.push(format!("{name}: deterministic mode on {b} gave:\n{r}\nbut on {}:\n{}", results[0].0, results[0].1));
            }
        }
        if !(results[0].1.starts_with("ok [7, 0]") || results[0].1.starts_with("ok [0, 7]")) {
            failures.push(format!("{name}: {}", results[0].1));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A shared-memory spin wait on another warp's flag (no barrier): in
/// deterministic mode the waiter never sees the flag. Same fault on both.
#[ld::kernel(workgroup_size = 64)]
fn d_spin_shared(out: &mut [u32]) {
    let flag = shared::<[u32; 1]>();
    let l = local_index();
    if l == 40 {
        flag[0] = 1;
    }
    if l == 0 {
        while flag[0] == 0 {}
    }
    out[l] = 1;
}

#[test]
fn det_spin_on_other_warps_flag() {
    let mut res = Vec::new();
    for rt in rts() {
        let mut out = rt.zeros::<u32>(64).unwrap();
        let r = d_spin_shared.launch(&rt, 1u32, &mut out).mode(Mode::Deterministic).max_loop_iterations(5000).run();
        let s = match r {
            Err(Error::Fault { kind, .. }) => format!("{kind:?}"),
            Err(e) => format!("other error {e}"),
            Ok(_) => "ok".into(),
        };
        assert_eq!(out.to_vec().unwrap(), vec![0; 64], "{:?}", rt.backend());
        res.push(s);
    }
    eprintln!("{res:?}");
    assert!(res[0].contains("NonTermination"), "{res:?}");
    assert!(res.windows(2).all(|w| w[0] == w[1]), "{res:?}");
}

/// An OOB write in the last workgroup while batches run under a budget:
/// nothing reaches the buffers.
#[ld::kernel(workgroup_size = 64)]
fn e_oob_last(data: &mut [u32]) {
    let i = global_id().x;
    data[i] = data[i] + 1;
    if workgroup_id().x == num_workgroups().x - 1 && local_index() == 0 {
        data[i + 64] = 3;
    }
}

#[test]
fn err_oob_in_last_batch_leaves_buffers() {
    for rt in rts() {
        for mode in [Mode::Check, Mode::Deterministic] {
            let mut d = rt.upload(&vec![10u32; 64 * 512]).unwrap();
            let o = CheckOptions::default().memory_budget(1 << 20);
            let l = e_oob_last.launch(&rt, 512u32, &mut d).mode(mode).check_options(o);
            let plan = l.plan().map(|p| p.batch);
            let e = l.run().expect_err("oob");
            assert!(matches!(e, Error::Fault { kind: FaultKind::OutOfBounds { .. }, .. }), "{:?} {mode:?}: {e}", rt.backend());
            assert!(d.to_vec().unwrap().iter().all(|&x| x == 10), "{:?} {mode:?} (batch {plan:?}): buffer half-written after: {e}", rt.backend());
        }
    }
}

#[test]
fn err_huge_buffer_sizes() {
    if let Some(g) = common::gpu() {
        for len in [1usize << 40, usize::MAX / 2] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g.zeros::<u32>(len).map(|b| b.len())));
            match r {
                Ok(Err(e)) => assert!(e.to_string().contains("limit"), "{len}: {e}"),
                Ok(Ok(n)) => panic!("GPU zeros({len}) succeeded with {n}"),
                Err(_) => panic!("GPU zeros({len}) panicked"),
            }
        }
    }
}

/// Prints the messages of the errors a new user meets, for reading.
#[test]
fn err_messages_print() {
    for rt in rts() {
        let src = rt.upload(&[3u32; 64]).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let msgs = [
            e_copy.launch(&rt, Grid([1, 0, 1]), &src, &mut dst).run().unwrap_err().to_string(),
            e_copy.launch(&rt, Grid([70000, 1, 1]), &src, &mut dst).mode(Mode::Check).run().unwrap_err().to_string(),
            e_copy.launch(&rt, 1u32, &src, &mut dst).mode(Mode::Deterministic).check_options(opts_w(3)).run().unwrap_err().to_string(),
            e_copy
                .launch(&rt, 1u32, &src, &mut dst)
                .mode(Mode::Deterministic)
                .check_options(CheckOptions::default().memory_budget(100))
                .run()
                .unwrap_err()
                .to_string(),
            e_copy.launch(&rt, 2u32, &src, &mut dst).mode(Mode::Exact).run().unwrap_err().to_string(),
            e_copy.launch(&rt, 2u32, &src, &mut dst).mode(Mode::Deterministic).run().unwrap_err().to_string(),
        ];
        for m in msgs {
            eprintln!("{:?}: {m}", rt.backend());
        }
    }
}

// =====================================================================
// 7. Check vs exact: racy kernels value comparison should see
// =====================================================================

use common::verdicts::{expect_race, go, How, Want, ST, WARP, WG, WGS};

/// Warp 1 reads a shared word warp 0 writes in the same region; the read
/// value goes only into a branch that writes a constant.
#[ld::kernel(workgroup_size = 64)]
fn x_dead_read(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let l = local_index();
    if l < 32 {
        tile[l] = l + 1;
    } else {
        let v = tile[l - 32];
        if v > 100 {
            out[0] = 1;
        }
    }
    barrier();
    out[global_id().x + 1] = tile[l % 32];
}

/// Read before a workgroup barrier, another warp's storage write after it
/// (barrier() does not order storage).
#[ld::kernel(workgroup_size = 64)]
fn x_read_before(data: &mut [u32], out: &mut [u32]) {
    let l = local_index();
    let base = workgroup_id().x * 64;
    out[base + l] = data[base + (l + 32) % 64];
    barrier();
    data[base + l] = l * 3 + 1;
}

/// Two workgroups write the same new value to one word.
#[ld::kernel(workgroup_size = 32)]
fn x_same_value(out: &mut [u32]) {
    if local_index() == 0 && workgroup_id().x < 2 {
        out[0] = 5;
    }
    out[1 + global_id().x] = 1;
}

/// Workgroup 1 reads what workgroup 0 writes, in a page workgroup 1 does
/// not write; the value only steers a loop count, whose result is stored.
#[ld::kernel(workgroup_size = 32)]
fn x_wg_read_flow(data: &mut [u32], out: &mut [u32]) {
    let w = workgroup_id().x;
    let l = local_index();
    if w == 0 && l == 4 {
        data[1000] = 9;
    }
    if w == 1 && l == 0 {
        let mut k = 0u32;
        while k < data[1000] {
            k += 1;
        }
        out[0] = k;
    }
}

fn run1(rt: &Runtime, how: How, k: u32) -> (Option<ld::Report>, Vec<u32>) {
    let mut a = rt.upload(&vec![2u32; 2048]).unwrap();
    let mut b = rt.zeros::<u32>(2048).unwrap();
    let l = match k {
        0 => x_dead_read.launch(rt, 2u32, &mut b),
        1 => x_read_before.launch(rt, 2u32, &mut a, &mut b),
        2 => x_same_value.launch(rt, 4u32, &mut b),
        _ => x_wg_read_flow.launch(rt, 2u32, &mut a, &mut b),
    };
    let r = go(l, how);
    let mut v = a.to_vec().unwrap();
    v.extend(b.to_vec().unwrap());
    (r, v)
}

#[test]
fn x_dead_read_found() {
    let w: Want = common::verdicts::rw(WG, WARP, "tile");
    for warp in [32, 4] {
        expect_race("x_dead_read", warp, &|rt, h| run1(rt, h, 0), &[w]);
    }
}

#[test]
fn x_read_before_found() {
    expect_race("x_read_before", 32, &|rt, h| run1(rt, h, 1), &[common::verdicts::rw(ST, WARP, "data")]);
}

#[test]
fn x_same_value_found() {
    expect_race("x_same_value", 32, &|rt, h| run1(rt, h, 2), &[common::verdicts::ww(ST, WGS, "out")]);
}

#[test]
fn x_wg_read_flow_found() {
    expect_race("x_wg_read_flow", 32, &|rt, h| run1(rt, h, 3), &[common::verdicts::rw(ST, WGS, "data")]);
}

// =====================================================================
// 8. Places, unit order, 3-D workgroups in deterministic mode
// =====================================================================

#[ld::kernels]
pub mod bodies {
    pub struct Body {
        pub pos: [f32; 3],
        pub mass: f32,
    }
    #[kernel(workgroup_size = 32)]
    pub fn touch(bs: &mut [Body]) {
        let w = workgroup_id().x;
        if local_index() == 0 {
            bs[3].mass = (w + 1) as f32; // PLACE
            bs[5].pos[2] = (w + 2) as f32;
        }
    }
}

#[test]
fn rep_struct_places_and_unit_order() {
    let mut reps = Vec::new();
    for rt in rts() {
        let mut b = rt.zeros::<bodies::Body>(8).unwrap();
        let rep = check(&rt, bodies::touch.launch(&rt, 3u32, &mut b), CheckOptions::default());
        let mut places: Vec<String> = rep.races.iter().flat_map(|r| r.places.clone()).collect();
        places.sort();
        places.dedup();
        assert_eq!(places, vec!["bs[3].mass".to_string(), "bs[5].pos[2]".to_string()], "{:?}\n{rep}", rt.backend());
        let mut words: Vec<(u32, u32)> = rep.races.iter().flat_map(|r| r.words.clone()).collect();
        words.sort();
        words.dedup();
        assert_eq!(words, vec![(15, 16), (22, 23)], "{:?}", rt.backend());
        let b = b.to_vec().unwrap();
        assert_eq!((b[3].mass, b[5].pos[2]), (3.0, 4.0), "{:?}: later workgroup wins", rt.backend());
        reps.push(rep);
    }
    if reps.len() == 2 {
        assert_eq!(reps[0].verdict(), reps[1].verdict());
    }
}

/// ww races list their two writers in unit order (Race::units docs).
#[test]
fn rep_ww_units_in_unit_order() {
    for rt in rts() {
        let mut d = rt.upload(&[1u32; 16]).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let rep = check(&rt, r_racy.launch(&rt, 3u32, &mut d, &mut o), CheckOptions::default());
        for r in rep.races.iter().filter(|r| r.kind == ld::RaceKind::WriteWrite) {
            let key = |u: &ld::Unit| (u.workgroup[2], u.workgroup[1], u.workgroup[0], u.warp);
            assert!(
                key(&r.units[0]) < key(&r.units[1]),
                "{:?}: ww units not in unit order: {:?} words {:?} evidence {:?}",
                rt.backend(),
                r.units,
                r.words,
                r.evidence
            );
        }
    }
}

/// 3-D workgroup; warps span rows; racy reads of neighbours.
#[ld::kernel(workgroup_size = (4, 4, 4))]
fn d_3d(data: &mut [u32]) {
    let g = global_id();
    let nx = num_workgroups().x * 4;
    let ny = num_workgroups().y * 4;
    let i = g.x + g.y * nx + g.z * nx * ny;
    let n = data.len();
    data[i] = data[(i + 1) % n] + data[(i + nx) % n] * 2 + local_index();
}

#[test]
fn det_3d_workgroups() {
    let n = 8 * 8 * 8;
    let input = common::verdicts::iota(n, 2);
    for w in [None, Some(1), Some(16)] {
        let got = five(&format!("d_3d {w:?}"), &|rt| {
            let mut d = rt.upload(&input).unwrap();
            d_3d.launch(rt, (2u32, 2u32, 2u32), &mut d).mode(Mode::Deterministic).check_options(CheckOptions::default().warp_size(w)).run().unwrap();
            d.to_vec().unwrap()
        });
        // Every invocation reads only the input (others' writes are unseen).
        let want: Vec<u32> = (0..n)
            .map(|i| {
                let (x, y, z) = (i % 8, i / 8 % 8, i / 64);
                let lid = (x % 4) + (y % 4) * 4 + (z % 4) * 16;
                input[(i + 1) % n] + input[(i + 8) % n] * 2 + lid as u32
            })
            .collect();
        assert_eq!(got, want, "{w:?}");
    }
}

/// Lane 0 waits for lane 1's shared flag: at one invocation per warp it
/// never sees it. Deterministic mode must give the same outcome on both
/// backends.
#[ld::kernel(workgroup_size = 32)]
fn d_spin_lane(out: &mut [u32]) {
    let flag = shared::<[u32; 1]>();
    let l = local_index();
    if l == 1 {
        flag[0] = 1;
    }
    if l == 0 {
        while flag[0] == 0 {}
    }
    out[l] = 1;
}

#[test]
fn det_spin_on_lane_flag_backend_independent() {
    let mut res = Vec::new();
    for rt in rts() {
        let mut out = rt.zeros::<u32>(32).unwrap();
        let r = d_spin_lane.launch(&rt, 1u32, &mut out).mode(Mode::Deterministic).max_loop_iterations(5000).run();
        res.push(match r {
            Err(Error::Fault { kind, .. }) => format!("{kind:?}"),
            Err(e) => format!("error {e}"),
            Ok(_) => format!("ok {:?}", out.to_vec().unwrap()),
        });
    }
    assert!(res.windows(2).all(|w| w[0] == w[1]), "{res:?}");
}

/// Check mode on the same lane-order race: where the device's lane order
/// makes the kernel fault (lavapipe runs lane 1's write first), the check
/// runs again with one invocation per warp; both backends report the race
/// (the CPU, whose lanes run in order, as an intra-warp race), neither a
/// fault.
#[test]
fn check_of_a_lane_order_fault_reports_the_race() {
    for rt in rts() {
        let mut out = rt.zeros::<u32>(64).unwrap();
        let run = d_fault_lane.launch(&rt, 1u32, &mut out).mode(Mode::Check).run().unwrap_or_else(|e| panic!("{:?}: {e}", rt.backend()));
        let report = run.report.unwrap();
        assert!(report.has_races(), "{:?}:\n{report}", rt.backend());
        assert!(report.races.iter().all(|r| r.variable == "tile"), "{:?}:\n{report}", rt.backend());
    }
}
