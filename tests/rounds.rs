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
