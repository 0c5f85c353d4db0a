//! Memory-adaptive checking (paper section 4.5, Fig. 5) at level 2: with M
//! copies for a workgroup's N warps, round r gives warp u the copy of its
//! r-th base-M digit; a race between two warps is found in the first round
//! where their digits differ, and the verdicts equal full privatization's.
//! Level 1 always runs in one round (each workgroup's copy holds only the
//! pages it accesses).

use crate::support as common;

use ld::{CheckOptions, Error, Mode, RaceKind, Report, Runtime};

/// Units `a` and `b` (one invocation each, at warp size 1) both write word
/// 0 of a shared tile: a write-write race between exactly those two units.
#[ld::kernel(workgroup_size = 8)]
fn pair_race(out: &mut [u32], a: u32, b: u32) {
    let tile = shared::<[u32; 16]>();
    let lid = local_index();
    tile[1 + lid] = lid + 100;
    if lid == a || lid == b {
        tile[0] = lid + 1;
    }
    barrier();
    out[lid] = tile[1 + lid];
    if lid == 0 {
        out[8] = tile[0];
    }
}

use common::runtimes;

fn check(rt: &Runtime, a: u32, b: u32, copies: Option<u32>) -> (Report, Vec<u32>) {
    let mut out = rt.zeros::<u32>(9).unwrap();
    let opts = CheckOptions::default().warp_size(1).copies(copies);
    let report = pair_race.launch(rt, 1u32, &mut out, a, b).check_options(opts).check().unwrap();
    (report, out.to_vec().unwrap())
}

fn ww(r: &Report) -> &ld::Race {
    r.races.iter().find(|x| x.kind == RaceKind::WriteWrite).unwrap_or_else(|| panic!("no write-write race:\n{r}"))
}

#[test]
fn figure5_a_pair_is_found_in_the_first_round_where_its_digits_differ() {
    for rt in runtimes() {
        // Fig. 5: N = 8 units, M = 2 copies, 3 rounds.
        for (a, b, round, named) in [(1, 5, 1, (0, 4)), (1, 3, 2, (0, 2)), (0, 1, 3, (0, 1))] {
            let (r, _) = check(&rt, a, b, Some(2));
            let plan = r.plan.as_ref().unwrap().level2;
            assert_eq!((plan.units, plan.copies, plan.rounds), (8, 2, 3), "{r}");
            let race = ww(&r);
            assert_eq!(race.round, round, "{a}-{b} on {}:\n{r}", rt.backend());
            assert!(race.grouped, "{r}");
            assert_eq!((race.units[0].warp, race.units[1].warp), (Some(named.0), Some(named.1)), "{r}");
            assert_eq!(race.words, vec![(0, 1)]);
        }
    }
}

#[test]
fn full_privatization_names_the_exact_pair_in_one_round() {
    for rt in runtimes() {
        let (r, _) = check(&rt, 1, 5, None);
        let race = ww(&r);
        assert_eq!((race.round, race.grouped), (1, false), "{r}");
        assert_eq!((race.units[0].warp, race.units[1].warp), (Some(1), Some(5)), "{r}");
    }
}

#[test]
fn verdicts_and_results_do_not_depend_on_the_copies() {
    for rt in runtimes() {
        let mut outs = Vec::new();
        // 8 copies: 1 round; 3 copies: 2 rounds; 2 copies: 3 rounds.
        for (m, rounds) in [(8, 1), (3, 2), (2, 3)] {
            let (racy, _) = check(&rt, 2, 6, Some(m));
            let (clean, out) = check(&rt, 3, 3, Some(m));
            assert_eq!(racy.plan.as_ref().unwrap().level2.rounds, rounds, "{racy}");
            assert!(racy.has_races(), "m = {m}:\n{racy}");
            assert!(!clean.has_races(), "false positive with m = {m}:\n{clean}");
            outs.push(out);
        }
        assert!(outs.iter().all(|o| *o == outs[0]), "a race-free result must not depend on the copies: {outs:?}");
        assert_eq!(outs[0][8], 4);
    }
}

#[test]
fn gpu_and_cpu_plans_and_reports_agree_in_rounds() {
    let Some(gpu) = common::gpu() else { return };
    for (a, b) in [(1, 3), (0, 7)] {
        let (c, _) = check(&common::cpu(), a, b, Some(2));
        let (g, _) = check(&gpu, a, b, Some(2));
        assert_eq!(c.verdict(), g.verdict());
        assert_eq!(c.plan, g.plan);
    }
}

#[test]
fn a_budget_for_fewer_copies_runs_rounds_and_one_too_small_names_the_bytes() {
    for rt in runtimes() {
        let run = |budget: u64, plan_only: bool| {
            let mut out = rt.zeros::<u32>(9).unwrap();
            let opts = CheckOptions::default().warp_size(1).memory_budget(budget);
            let l = pair_race.launch(&rt, 1u32, &mut out, 1u32, 5u32).mode(Mode::Check).check_options(opts);
            if plan_only {
                return l.plan().map(|p| (Some(p), None));
            }
            l.run().map(|r| (None, r.report))
        };
        let full = run(1 << 30, true).unwrap().0.unwrap();
        assert_eq!((full.level2.copies, full.level2.rounds), (8, 1), "{full}");
        // Shrink the budget until full privatization no longer fits: fewer
        // copies, more rounds, within the budget.
        let mut budget = full.bytes;
        let tight = loop {
            budget = budget * 7 / 8;
            let p = run(budget, true).unwrap().0.unwrap();
            if p.level2.copies < 8 {
                break p;
            }
        };
        assert!(tight.level2.rounds > 1 && tight.bytes <= budget, "{tight}");
        let r = run(budget, false).unwrap().1.unwrap();
        assert_eq!(ww(&r).words, vec![(0, 1)], "{r}");
        let e = run(64, false).unwrap_err();
        let s = e.to_string();
        assert!(matches!(e, Error::CheckMemory { limit: 64, .. }), "{s}");
        assert!(s.contains("memory budget") && s.contains("64"), "{s}");
    }
}
