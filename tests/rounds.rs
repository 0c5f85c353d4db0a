//! Memory-adaptive checking (paper section 4.5, Fig. 5): under a budget of
//! M copies the units are checked in rounds, unit `u` on the copy of its
//! round's base-M digit; a race between two units is found in the first
//! round where their digits differ, and the verdicts equal full
//! privatization's.

mod common;

use ld::{CheckOptions, Error, Mode, RaceKind, Report, Runtime};

/// Workgroups `a` and `b` both write word 0 (a write-write race between
/// exactly those two units); every workgroup also writes its own word.
#[ld::kernel(workgroup_size = 32)]
fn pair_race(out: &mut [u32], a: u32, b: u32) {
    let wg = workgroup_id().x;
    if local_index() == 0 {
        out[1 + wg] = wg + 100;
        if wg == a || wg == b {
            out[0] = wg + 1;
        }
    }
}

/// Bytes that give level 1 exactly `m` copies of a `words`-word target.
fn budget_for(m: u64, words: u64) -> u64 {
    4 * (2 + 2 * m) * words
}

fn runtimes() -> Vec<Runtime> {
    let mut v = vec![common::cpu()];
    v.extend(common::gpu());
    v
}

fn check(rt: &Runtime, a: u32, b: u32, budget: Option<u64>) -> ld::Result<Report> {
    let mut out = rt.zeros::<u32>(9)?;
    let opts = CheckOptions { memory_budget: budget, ..Default::default() };
    Ok(rt.launch(pair_race, 8u32, (&mut out, a, b)).mode(Mode::Check).check_options(opts).run()?.report.unwrap())
}

#[test]
fn figure5_a_pair_is_found_in_the_first_round_where_its_digits_differ() {
    for rt in runtimes() {
        for (a, b, round, named) in [(1, 5, 1, (0, 4)), (1, 3, 2, (0, 2)), (0, 1, 3, (0, 1))] {
            let r = check(&rt, a, b, Some(budget_for(2, 9))).unwrap();
            let plan = r.plan.as_ref().unwrap().level1.unwrap();
            assert_eq!((plan.units, plan.copies, plan.rounds), (8, 2, 3), "{r}");
            let ww = r.races.iter().find(|x| x.kind == RaceKind::WriteWrite).unwrap_or_else(|| panic!("{a}-{b}: no race\n{r}"));
            assert_eq!(ww.round, round, "{a}-{b} on {}:\n{r}", rt.backend());
            assert!(ww.grouped, "{r}");
            assert_eq!((ww.units[0].workgroup[0], ww.units[1].workgroup[0]), named, "{r}");
            assert_eq!(ww.words, vec![(0, 1)]);
        }
    }
}

#[test]
fn full_privatization_names_the_exact_pair_in_one_round() {
    for rt in runtimes() {
        let r = check(&rt, 1, 5, None).unwrap();
        let ww = r.races.iter().find(|x| x.kind == RaceKind::WriteWrite).unwrap();
        assert_eq!((ww.round, ww.grouped), (1, false), "{r}");
        assert_eq!((ww.units[0].workgroup[0], ww.units[1].workgroup[0]), (1, 5));
    }
}

#[test]
fn verdicts_do_not_depend_on_the_budget() {
    for rt in runtimes() {
        let mut verdicts = Vec::new();
        // 8 copies: 1 round; 3 copies: 2 rounds; 2 copies: 3 rounds.
        for m in [8, 3, 2] {
            let racy = check(&rt, 2, 6, Some(budget_for(m, 9))).unwrap();
            let clean = check(&rt, 3, 3, Some(budget_for(m, 9))).unwrap();
            assert_eq!(racy.plan.as_ref().unwrap().level1.unwrap().copies, m);
            assert!(racy.has_races(), "m = {m}:\n{racy}");
            assert!(!clean.has_races(), "false positive with m = {m}:\n{clean}");
            verdicts.push((racy.has_races(), clean.has_races()));
        }
        assert!(verdicts.iter().all(|v| *v == verdicts[0]));
    }
}

#[test]
fn gpu_and_cpu_plans_and_reports_agree_under_a_budget() {
    let Some(gpu) = common::gpu() else { return };
    let c = check(&common::cpu(), 1, 3, Some(budget_for(2, 9))).unwrap();
    let g = check(&gpu, 1, 3, Some(budget_for(2, 9))).unwrap();
    assert_eq!(c.verdict(), g.verdict());
    assert_eq!(c.plan, g.plan);
}

#[test]
fn a_budget_too_small_for_two_copies_names_the_bytes_needed() {
    for rt in runtimes() {
        let e = check(&rt, 1, 5, Some(100)).unwrap_err();
        let s = e.to_string();
        assert!(matches!(e, Error::CheckBudget { needed: 216, budget: 100, .. }), "{s}");
        assert!(s.contains("216 bytes") && s.contains("--memory-budget"), "{s}");
    }
}

/// Invocations 3 and 40 of each workgroup write the same shared word: with
/// one invocation per unit (W = 1) that is a race between units 3 and 40.
#[ld::kernel(workgroup_size = 64)]
fn lanes_race(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    tile[lid] = lid;
    if lid == 3 || lid == 40 {
        tile[0] = lid + 1000;
    }
    barrier();
    out[global_id().x] = tile[lid];
}

fn lanes(rt: &Runtime, budget: Option<u64>) -> Report {
    let mut out = rt.zeros::<u32>(4 * 64).unwrap();
    let opts = CheckOptions { warp_size: 1, memory_budget: budget, ..Default::default() };
    rt.launch(lanes_race, 4u32, (&mut out,)).mode(Mode::Check).check_options(opts).run().unwrap().report.unwrap()
}

#[test]
fn one_invocation_per_unit_in_rounds_and_batches_finds_the_lane_race() {
    for rt in runtimes() {
        let full = lanes(&rt, None);
        // Level 2 needs, per workgroup, (2 + 2 x 64) copies of the 64-word
        // tile (33 KiB) besides 4 copies of `out` (4 KiB); 8 KiB forces
        // rounds over the 64 invocations.
        let tight = lanes(&rt, Some(8192));
        let p = tight.plan.as_ref().unwrap();
        assert!(p.level2.copies < 64 && p.level2.rounds > 1 && p.level2_batch == 1, "{}", p);
        for r in [&full, &tight] {
            let ww = r.races.iter().find(|x| x.kind == RaceKind::WriteWrite && x.variable == "tile").unwrap_or_else(|| panic!("{r}"));
            assert_eq!(ww.workgroups.len(), 4, "{r}");
        }
        assert!(full.races.iter().any(|x| x.kind == RaceKind::WriteWrite && x.units.iter().map(|u| u.warp.unwrap()).collect::<Vec<_>>() == vec![3, 40]), "{full}");
        assert!(p.level2_bytes <= 8192, "{p}");
    }
}

/// Every workgroup writes the whole buffer, and workgroups 5 and 60 write
/// word 17 last with different values: a write-write race between them.
#[ld::kernel(workgroup_size = 64)]
fn sweep_all(out: &mut [u32]) {
    let wg = workgroup_id().x;
    let mut i = local_index();
    while i < out.len() {
        if i != 17 {
            out[i] = i * 2;
        }
        i += 64u32;
    }
    if (wg == 5 || wg == 60) && local_index() == 0 {
        out[17] = wg;
    }
}

#[test]
fn sixteen_times_over_budget_is_checked_within_it_with_the_same_verdict() {
    for rt in runtimes() {
        let run = |budget: Option<u64>| {
            let mut out = rt.zeros::<u32>(4096).unwrap();
            let opts = CheckOptions { memory_budget: budget, ..Default::default() };
            let r = rt.launch(sweep_all, 64u32, (&mut out,)).mode(Mode::Check).check_options(opts).run().unwrap();
            (r.report.unwrap(), out.to_vec().unwrap())
        };
        let (full, full_out) = run(None);
        let full_plan = full.plan.clone().unwrap();
        // Full privatization of level 1: 64 copies of 16 KiB (and level 2 the same);
        // a budget 16 times smaller.
        let need = full_plan.level1_bytes.max(full_plan.level2_bytes);
        let budget = need / 16;
        let (small, small_out) = run(Some(budget));
        let p = small.plan.clone().unwrap();
        assert!(p.level1_bytes <= budget && p.level2_bytes <= budget, "{p}");
        assert!(p.level1.unwrap().rounds > 1, "{p}");
        assert_eq!(full.has_races(), small.has_races());
        let ww = |r: &Report| r.races.iter().any(|x| x.kind == RaceKind::WriteWrite && x.words == vec![(17, 18)]);
        assert!(ww(&full) && ww(&small), "{full}\n{small}");
        assert_eq!(full_out, small_out, "the merged result must not depend on the budget");
    }
}
