//! Targets left in place (`KernelInfo::in_place`): a storage buffer the
//! kernel accesses only at each invocation's own element of the dispatch
//! is read and written directly, unchecked, on both backends; on a grid
//! where its index no longer tells invocations apart it is privatized and
//! checked again; every round, retry and failure starts from the input.

use crate::support as common;

use common::runtimes;
use ld::{CheckOptions, Error, Mode, RaceKind, Report, Runtime, Treatment};

/// `y = y * 3 + x`, one element per invocation at `global_id().x`.
#[ld::kernel(workgroup_size = 64)]
fn scale(x: &[u32], y: &mut [u32]) {
    let i = global_id().x;
    if i < y.len() {
        y[i] = y[i] * 3 + x[i];
    }
}

/// `scale` over a grid of one plane, in the form that covers more than
/// 65535 workgroups.
#[ld::kernel(workgroup_size = 64)]
fn scale_plane(x: &[u32], y: &mut [u32]) {
    let i = global_id().x + global_id().y * num_workgroups().x * 64;
    if i < y.len() {
        y[i] = y[i] * 3 + x[i];
    }
}

/// Each invocation swaps the two words of its own pair (`y[2i]`, `y[2i+1]`:
/// one stride, offsets below it).
#[ld::kernel(workgroup_size = 64)]
fn swap_pairs(x: &[u32], y: &mut [u32]) {
    let i = global_id().x;
    let j = 2 * i;
    if j + 1 < y.len() {
        let a = y[j];
        y[j] = y[j + 1] + x[i];
        y[j + 1] = a;
    }
}

/// Each invocation bumps its own element of `y` (in place) and, across
/// warps, the shared tile's word 0 where `racy` (a write-write race
/// between every pair of warps): rounds and reruns must not bump `y` twice.
#[ld::kernel(workgroup_size = 64)]
fn bump_and_race(y: &mut [u32], out: &mut [u32], racy: u32) {
    let tile = shared::<[u32; 65]>();
    let lid = local_index();
    let i = global_id().x;
    y[i] += 1;
    tile[1 + lid] = lid;
    if racy == 1 {
        tile[0] = lid + 1;
    }
    barrier();
    if lid == 0 {
        out[workgroup_id().x] = tile[0] + tile[64];
    }
}

fn treatment(r: &Report, name: &str) -> Treatment {
    r.checked.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no `{name}`:\n{r}")).treatment
}

fn input(n: u32) -> (Vec<u32>, Vec<u32>) {
    let x: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let y: Vec<u32> = (0..n).map(|i| i ^ 0x5a5a).collect();
    (x, y)
}

fn run(rt: &Runtime, k: impl ld::Kernel, grid: impl Into<ld::Grid>, x: &[u32], y: &[u32], mode: Mode) -> (Option<Report>, Vec<u32>) {
    let bx = rt.upload(x).unwrap();
    let mut by = rt.upload(y).unwrap();
    let run = rt.launch(k, grid, (&bx, &mut by)).mode(mode).run().unwrap();
    (run.report, by.to_vec().unwrap())
}

#[test]
fn own_elements_are_left_in_place_and_give_the_native_result() {
    let (x, y) = input(1000);
    let want: Vec<u32> = x.iter().zip(&y).map(|(x, y)| y.wrapping_mul(3).wrapping_add(*x)).collect();
    for rt in runtimes() {
        let (r, got) = run(&rt, scale, 16u32, &x, &y, Mode::Check);
        let r = r.unwrap();
        assert!(!r.has_races(), "{}: false positive:\n{r}", rt.backend());
        assert!(treatment(&r, "y") == Treatment::InPlace, "{}:\n{r}", rt.backend());
        // Every target in place: nothing can race, and the kernel runs as
        // written, one dispatch (no level 1, no engine).
        assert!(r.plan.as_ref().unwrap().level1.is_none(), "{r}");
        assert_eq!((r.stats.unwrap().dispatches, r.regions_analyzed), (1, 0), "{}:\n{r}", rt.backend());
        assert_eq!(got, want, "{}: check mode", rt.backend());
        let (_, got) = run(&rt, scale, 16u32, &x, &y, Mode::Deterministic);
        assert_eq!(got, want, "{}: deterministic mode", rt.backend());
        // The plane form, on a grid of 8 x 2 workgroups.
        let (r, got) = run(&rt, scale_plane, (8u32, 2u32), &x, &y, Mode::Check);
        let r = r.unwrap();
        assert!(!r.has_races() && treatment(&r, "y") == Treatment::InPlace, "{}:\n{r}", rt.backend());
        assert_eq!(got, want, "{}: plane", rt.backend());
        // Pairs: one stride, each offset below it.
        let pairs: Vec<u32> = (0..2 * x.len()).map(|k| k as u32 * 5).collect();
        let want_pairs: Vec<u32> = (0..2 * x.len()).map(|k| if k % 2 == 0 { pairs[k + 1] + x[k / 2] } else { pairs[k - 1] }).collect();
        for mode in [Mode::Check, Mode::Deterministic] {
            let (r, got) = run(&rt, swap_pairs, 16u32, &x, &pairs, mode);
            if let Some(r) = r {
                assert!(!r.has_races() && treatment(&r, "y") == Treatment::InPlace, "{}:\n{r}", rt.backend());
            }
            assert_eq!(got, want_pairs, "{} {mode:?}: pairs", rt.backend());
        }
    }
}

#[test]
fn on_a_grid_where_the_index_repeats_the_target_is_checked_and_races() {
    // `global_id().x` on a grid of two rows: invocations (i, 0) and (i, 1)
    // both update y[i], a write-write race between workgroups.
    let (x, y) = input(512);
    for rt in runtimes() {
        let (r, _) = run(&rt, scale, (8u32, 2u32), &x, &y, Mode::Check);
        let r = r.unwrap();
        assert_eq!(treatment(&r, "y"), Treatment::Privatized, "{}:\n{r}", rt.backend());
        let race = r.races.iter().find(|x| x.variable == "y").unwrap_or_else(|| panic!("{}: the race on y is missed:\n{r}", rt.backend()));
        assert_eq!(race.kind, RaceKind::WriteWrite, "{r}");
        assert_eq!(race.level, ld::Level::InterWorkgroup, "{r}");
    }
}

#[test]
fn rounds_reruns_and_failures_start_from_the_input() {
    let n = 4 * 64;
    let y0: Vec<u32> = (0..n).map(|i| i * 7).collect();
    let bumped: Vec<u32> = y0.iter().map(|v| v + 1).collect();
    for rt in runtimes() {
        // Two copies for 8 warps of 8: 3 rounds, every one of them run;
        // `y` is bumped once.
        let opts = CheckOptions::default().warp_size(8).copies(2).all_rounds(true);
        let mut y = rt.upload(&y0).unwrap();
        let mut out = rt.zeros::<u32>(4).unwrap();
        let run = bump_and_race.launch(&rt, 4u32, &mut y, &mut out, 1u32).mode(Mode::Check).check_options(opts).run().unwrap();
        let r = run.report.unwrap();
        assert_eq!(r.plan.as_ref().unwrap().level2.rounds_run, 3, "{r}");
        assert!(r.races.iter().any(|x| x.variable == "tile"), "{r}");
        assert!(treatment(&r, "y") == Treatment::InPlace, "{r}");
        assert_eq!(y.to_vec().unwrap(), bumped, "{}: check mode's rounds", rt.backend());

        // Deterministic mode's engine runs again at one invocation per
        // warp where lanes of a warp wrote one word (tile[0]); its probe
        // defers the array of that word (at once: the check's probe saw
        // it shared).
        for probe in [false, true] {
            let mut y = rt.upload(&y0).unwrap();
            let mut out = rt.zeros::<u32>(4).unwrap();
            let opts = CheckOptions::default().probe(probe);
            let run = bump_and_race.launch(&rt, 4u32, &mut y, &mut out, 1u32).mode(Mode::Deterministic).check_options(opts).run().unwrap();
            let st = run.stats.unwrap();
            assert!(if st.probed { st.deferred >= 1 } else { st.retries >= 1 }, "{}: {st:?}", rt.backend());
            assert_eq!(y.to_vec().unwrap(), bumped, "{}: deterministic mode's second run (probe {probe})", rt.backend());
        }

        // A kernel that runs as written and faults (`x` is shorter than
        // `y`) leaves `y` as it was too.
        for mode in [Mode::Check, Mode::Deterministic] {
            let x = rt.upload(&y0[..n as usize - 1]).unwrap();
            let mut y = rt.upload(&y0).unwrap();
            let e = scale.launch(&rt, 4u32, &x, &mut y).mode(mode).run().unwrap_err();
            assert!(matches!(e, Error::Fault { .. }), "{}: {e}", rt.backend());
            assert_eq!(y.to_vec().unwrap(), y0, "{} {mode:?}: a native run that failed is put back", rt.backend());
        }

        // A fault (out of bounds: `out` has 3 words for 4 workgroups) fails
        // the launch and leaves `y` as it was, though the kernel wrote it.
        for mode in [Mode::Check, Mode::Deterministic] {
            let mut y = rt.upload(&y0).unwrap();
            let mut out = rt.zeros::<u32>(3).unwrap();
            let e = bump_and_race.launch(&rt, 4u32, &mut y, &mut out, 0u32).mode(mode).run().unwrap_err();
            assert!(matches!(e, Error::Fault { .. }), "{}: {e}", rt.backend());
            assert_eq!(y.to_vec().unwrap(), y0, "{} {mode:?}: the buffer a failed run wrote is put back", rt.backend());
        }
    }
}
