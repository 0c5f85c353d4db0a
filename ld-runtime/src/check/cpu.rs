//! Check mode on the CPU reference executor: the same two levels, regions,
//! copies and sweeps as on the GPU, so the two reports are identical.

use super::report::{self, Level, Memory, Record, Report, Unit};
use super::sweep::{self, clone_words, Obs, Words};
use super::plan::{LevelPlan, Plan};
use super::{CheckOptions, Place, Regions, Target};
use crate::cpu::executor::{unlinear, AtomicLogs, CpuLaunch, RegionEnd, SharedSet, Workgroup, WorkgroupError};
use crate::cpu::twin::{BarrierKind, SharedMem, StorageView};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

/// Everything one check produces before it becomes a report.
pub(crate) struct Outcome {
    /// Detailed records (sorted); `total` counts every observation.
    pub records: Vec<Record>,
    pub total: u64,
    pub regions: Regions,
    pub level1_ran: bool,
}

struct Ctx<'l, 'a> {
    l: &'l CpuLaunch<'a>,
    targets: &'l [Target],
    opts: CheckOptions,
    warps: u32,
    /// Deterministic mode: level 2's first pass and merges only.
    deterministic: bool,
}

fn words_of(v: &StorageView) -> usize {
    (v.len * v.elem_words) as usize
}

/// Runs both levels; leaves in the user's buffers the merged level-2 result.
pub(crate) fn check(l: &CpuLaunch, targets: &[Target], opts: CheckOptions, plan: &Plan) -> Result<Outcome, WorkgroupError> {
    let wg_size = l.info.invocations_per_workgroup();
    let cx = Ctx { l, targets, opts, warps: wg_size.div_ceil(opts.warp_size), deterministic: false };
    let atomics = snapshot_atomics(l);
    let mut records = Vec::new();
    let mut regions = Regions::new();
    let level1_ran = plan.level1.is_some();
    if let Some(p1) = &plan.level1 {
        level1(&cx, p1, &atomics, &mut records)?;
        regions.raced[0] = !records.is_empty();
    }
    level2(&cx, &plan.level2, &atomics, &mut records, &mut regions)?;
    records.sort();
    let total = records.len() as u64;
    records.truncate(opts.max_records);
    Ok(Outcome { records, total, regions, level1_ran })
}

/// Deterministic mode: every warp runs each region once on its own copies
/// (seeing its own writes and what was committed before the region), then
/// the writes are merged in warp order at each barrier and in workgroup
/// order at the end; later units win conflicts. No second pass, no records.
pub(crate) fn deterministic(l: &CpuLaunch, targets: &[Target], opts: CheckOptions, plan: &Plan) -> Result<(), WorkgroupError> {
    let wg_size = l.info.invocations_per_workgroup();
    let cx = Ctx { l, targets, opts, warps: wg_size.div_ceil(opts.warp_size), deterministic: true };
    level2(&cx, &plan.level2, &snapshot_atomics(l), &mut Vec::new(), &mut Regions::new())
}

fn snapshot_atomics(l: &CpuLaunch) -> Vec<Option<Vec<u32>>> {
    l.info
        .params
        .iter()
        .zip(&l.storage)
        .map(|(p, v)| match (&p.kind, v) {
            (crate::kernel::ParamKind::Atomic { .. }, Some(v)) => Some(v.words.iter().map(|w| w.load(Relaxed)).collect()),
            _ => None,
        })
        .collect()
}

fn restore_atomics(l: &CpuLaunch, snap: &[Option<Vec<u32>>]) {
    for (s, v) in snap.iter().zip(&l.storage) {
        if let (Some(s), Some(v)) = (s, v) {
            for (w, x) in v.words.iter().zip(s) {
                w.store(*x, Relaxed);
            }
        }
    }
}

fn view_with<'a>(base: &StorageView<'a>, words: &'a [AtomicU32]) -> StorageView<'a> {
    StorageView { words, elem_words: base.elem_words, len: base.len }
}

// ------------------------------------------------------------------ level 1

/// One copy of every storage target per workgroup (one in total for
/// own-element buffers), the whole dispatch run twice.
/// Level 1's rounds: stops after the first that finds races (unless asked
/// for all).
/// Every round starts from the dispatch's atomics (`atomics`): a round's
/// pass 1 applies them once.
fn level1(cx: &Ctx, plan: &LevelPlan, atomics: &[Option<Vec<u32>>], records: &mut Vec<Record>) -> Result<(), WorkgroupError> {
    let mut progress = super::progress::Progress::new(plan.rounds_run as u64, format!("ld check `{}` level 1", cx.l.info.name));
    plan.run_rounds(cx.opts.all_rounds, |round| {
        progress.tick(round as u64 - 1);
        let before = records.len();
        restore_atomics(cx.l, atomics);
        level1_round(cx, plan, round, records)?;
        Ok(records.len() > before)
    })
}

/// One round: `plan.copies` copies of every storage target, workgroup `u`
/// on copy `plan.copy_of(u, round)`; the whole dispatch run twice.
fn level1_round(cx: &Ctx, plan: &LevelPlan, round: u32, records: &mut Vec<Record>) -> Result<(), WorkgroupError> {
    let l = cx.l;
    let n = l.workgroup_count();
    let storage: Vec<(usize, &Target)> = cx.targets.iter().enumerate().filter(|(_, t)| t.memory == Memory::Storage).collect();
    // copies[t][c]
    let copies: Vec<Vec<Vec<AtomicU32>>> = storage
        .iter()
        .map(|(_, t)| {
            let Place::Param(p) = t.place else { unreachable!() };
            let s = l.storage[p].as_ref().unwrap();
            let count = if t.single { 1 } else { plan.copies as usize };
            (0..count).map(|_| clone_words(s.words)).collect()
        })
        .collect();
    let views_for = |wg: u64| -> Vec<Option<StorageView>> {
        let mut v = l.storage.clone();
        for (si, (_, t)) in storage.iter().enumerate() {
            let Place::Param(p) = t.place else { unreachable!() };
            let c = if t.single { 0 } else { plan.copy_of(wg, round) as usize };
            v[p] = Some(view_with(l.storage[p].as_ref().unwrap(), &copies[si][c]));
        }
        v
    };
    let wg_size = l.info.invocations_per_workgroup() as usize;
    let logs: Vec<Mutex<AtomicLogs>> = (0..n).map(|_| Mutex::new(AtomicLogs::new(wg_size, cx.opts.atomic_log))).collect();
    let run_all = |replay: bool| -> Result<(), WorkgroupError> {
        let r = (0..n).into_par_iter().map(|wg| {
            let views = [views_for(wg)];
            let mut logs = logs[wg as usize].lock().unwrap();
            if replay {
                logs.replay()
            } else {
                logs.record()
            }
            let mut g = Workgroup::new(l, wg);
            let mut shared = SharedSet::native(l.info);
            loop {
                // Level 1 keeps the atomic log of the whole dispatch.
                if g.run_region(l, &views, wg_size as u32, &mut shared, &mut logs)? == RegionEnd::Done {
                    return Ok(());
                }
            }
        });
        match r.find_first(|r: &Result<(), WorkgroupError>| r.is_err()) {
            Some(Err(e)) => Err(e),
            _ => Ok(()),
        }
    };
    run_all(false)?;
    // Pass 1's copies stay; pass 2 runs on fresh ones (swapped in below).
    let mut unions = Vec::new();
    let mut pass1 = Vec::new();
    for (si, (ti, t)) in storage.iter().enumerate() {
        let Place::Param(p) = t.place else { unreachable!() };
        let s = l.storage[p].as_ref().unwrap();
        let cur: Vec<&Words> = copies[si].iter().map(|c| &c[..]).collect();
        let q: Vec<Vec<AtomicU32>> = cur.iter().map(|c| clone_words(c)).collect();
        let qr: Vec<&Words> = q.iter().map(|c| &c[..]).collect();
        let union = clone_words(s.words);
        let mut obs = Vec::new();
        let mut wrote = vec![false; cur.len()];
        sweep::merge(s.words, None, &cur, &union, &qr, 0..words_of(s), &mut obs, &mut wrote);
        push_l1(cx, plan, round, *ti, &obs, records);
        unions.push((union, wrote));
        pass1.push(q);
    }
    // Pass 2 runs on the Q copies: swap them into place, keep pass 1's aside.
    for (si, q) in pass1.iter_mut().enumerate() {
        for (c, qc) in copies[si].iter().zip(q.iter()) {
            for (a, b) in c.iter().zip(qc.iter()) {
                let (x, y) = (a.load(Relaxed), b.load(Relaxed));
                a.store(y, Relaxed);
                b.store(x, Relaxed);
            }
        }
    }
    run_all(true)?;
    for (si, (ti, t)) in storage.iter().enumerate() {
        let Place::Param(p) = t.place else { unreachable!() };
        let s = l.storage[p].as_ref().unwrap();
        let q: Vec<&Words> = copies[si].iter().map(|c| &c[..]).collect();
        let cur: Vec<&Words> = pass1[si].iter().map(|c| &c[..]).collect();
        let mut obs = Vec::new();
        sweep::compare(s.words, &unions[si].0, &cur, &q, 0..words_of(s), &unions[si].1, false, &mut obs);
        push_l1(cx, plan, round, *ti, &obs, records);
    }
    Ok(())
}

fn push_l1(cx: &Ctx, plan: &LevelPlan, round: u32, target: usize, obs: &[Obs], records: &mut Vec<Record>) {
    let t = &cx.targets[target];
    let unit = |c: u32, word: u32| {
        // The single copy of an own-element buffer belongs to the element's
        // owner; a shared copy is named by its first workgroup.
        let wg = if t.single { owner_workgroup(cx, target, word) } else { plan.first_unit(c as u64, round) };
        let w = unlinear(wg, cx.l.grid);
        Unit { workgroup: [w.x, w.y, w.z], warp: None }
    };
    for o in obs {
        let grouped = !t.single && !plan.exact(round);
        records.push(Record { kind: o.kind, level: Level::InterWorkgroup, target: target as u32, region: 0, round, grouped, unit_a: unit(o.a, o.word), unit_b: o.b.map(|b| unit(b, o.word)), word: o.word, cross: o.cross });
    }
}

fn owner_workgroup(cx: &Ctx, target: usize, word: u32) -> u64 {
    let Place::Param(p) = cx.targets[target].place else { return 0 };
    let ew = cx.l.storage[p].as_ref().unwrap().elem_words;
    (word / ew) as u64 / cx.l.info.invocations_per_workgroup() as u64
}

// ------------------------------------------------------------------ level 2

/// The copies of one memory inside one workgroup at level 2.
struct Copies {
    target: usize,
    /// Epoch base and union.
    base: Vec<AtomicU32>,
    union: Vec<AtomicU32>,
    /// Per warp: current copy (pass 1) and region-start / pass-2 copy.
    cur: Vec<Vec<AtomicU32>>,
    start: Vec<Vec<AtomicU32>>,
    /// Words this workgroup sweeps.
    range: std::ops::Range<usize>,
}

impl Copies {
    fn new(target: usize, init: &Words, warps: usize, range: std::ops::Range<usize>) -> Self {
        Copies { target, base: clone_words(init), union: clone_words(init), cur: (0..warps).map(|_| clone_words(init)).collect(), start: (0..warps).map(|_| clone_words(init)).collect(), range }
    }

    fn snapshot_start(&self) {
        for (s, c) in self.start.iter().zip(&self.cur) {
            sweep::copy(s, c, self.range.clone());
        }
    }

    fn merge(&self, obs: &mut Vec<Obs>) -> Vec<bool> {
        let cur: Vec<&Words> = self.cur.iter().map(|c| &c[..]).collect();
        let start: Vec<&Words> = self.start.iter().map(|c| &c[..]).collect();
        let mut wrote = vec![false; cur.len()];
        sweep::merge(&self.base, Some(&start), &cur, &self.union, &start, self.range.clone(), obs, &mut wrote);
        wrote
    }

    fn compare(&self, wrote_any: &[bool], obs: &mut Vec<Obs>) {
        let q: Vec<&Words> = self.start.iter().map(|c| &c[..]).collect();
        let cur: Vec<&Words> = self.cur.iter().map(|c| &c[..]).collect();
        sweep::compare(&self.base, &self.union, &cur, &q, self.range.clone(), wrote_any, true, obs);
    }

    /// End of the memory's epoch: everyone sees the union.
    fn commit(&self) {
        sweep::copy(&self.base, &self.union, self.range.clone());
        for c in &self.cur {
            sweep::copy(c, &self.union, self.range.clone());
        }
    }
}

/// Level 2's rounds over warps (one when every warp gets a copy); the
/// result of the last round run stays in the user's buffers.
fn level2(cx: &Ctx, plan: &LevelPlan, atomics: &[Option<Vec<u32>>], records: &mut Vec<Record>, regions: &mut Regions) -> Result<(), WorkgroupError> {
    // Every round runs on the dispatch's input; the last one's result stays.
    let mut result = Vec::new();
    plan.run_rounds(cx.opts.all_rounds, |round| {
        let before = records.len();
        restore_atomics(cx.l, atomics);
        result = level2_round(cx, plan, round, records, regions)?;
        Ok(records.len() > before)
    })?;
    for (p, words) in result {
        let s = cx.l.storage[p].as_ref().unwrap();
        for (d, v) in s.words.iter().zip(words) {
            d.store(v, Relaxed);
        }
    }
    Ok(())
}

/// One round of level 2; returns the folded result per written parameter.
fn level2_round(cx: &Ctx, plan: &LevelPlan, round: u32, records: &mut Vec<Record>, regions: &mut Regions) -> Result<Vec<(usize, Vec<u32>)>, WorkgroupError> {
    let l = cx.l;
    let n = l.workgroup_count();
    let wg_size = l.info.invocations_per_workgroup();
    // Own-element buffers: one set of copies for the whole grid; each
    // workgroup only sweeps its own elements.
    let singles: Vec<(usize, Copies)> = cx
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.single)
        .map(|(i, t)| {
            let Place::Param(p) = t.place else { unreachable!() };
            let s = l.storage[p].as_ref().unwrap();
            (p, Copies::new(i, s.words, 1, 0..words_of(s)))
        })
        .collect();
    let results: Vec<Result<(Vec<Record>, Vec<(Option<u32>, Option<u32>, bool)>, Vec<(usize, Vec<AtomicU32>)>), WorkgroupError>> =
        (0..n).into_par_iter().map(|wg| level2_workgroup(cx, wg, plan, round, wg_size, &singles)).collect();
    let mut finals: Vec<Vec<(usize, Vec<AtomicU32>)>> = Vec::new();
    for r in results {
        let (recs, regs, fin) = r?;
        // Workgroup-local region numbers become static region ids.
        let ids: Vec<u32> = regs
            .iter()
            .map(|&(from, to, raced)| {
                let id = regions.id(l.info, from, to);
                regions.raced[id as usize] |= raced;
                id
            })
            .collect();
        records.extend(recs.into_iter().map(|r| Record { region: ids[r.region as usize], ..r }));
        finals.push(fin);
    }
    // Level 2's result: every workgroup ran in isolation on the dispatch's
    // input; their writes are merged in workgroup order.
    let mut result = Vec::new();
    for (p, c) in &singles {
        result.push((*p, c.base.iter().map(|w| w.load(Relaxed)).collect()));
    }
    let storage: Vec<usize> = cx.targets.iter().filter(|t| t.memory == Memory::Storage && !t.single).map(|t| if let Place::Param(p) = t.place { p } else { 0 }).collect();
    for p in storage {
        let s = l.storage[p].as_ref().unwrap();
        let orig: Vec<u32> = s.words.iter().map(|w| w.load(Relaxed)).collect();
        let mut out = orig.clone();
        for fin in &finals {
            for (fp, words) in fin {
                if *fp == p {
                    for (k, w) in words.iter().enumerate() {
                        let v = w.load(Relaxed);
                        if v != orig[k] {
                            out[k] = v;
                        }
                    }
                }
            }
        }
        result.push((p, out));
    }
    Ok(result)
}

#[allow(clippy::type_complexity)]
fn level2_workgroup(
    cx: &Ctx,
    wg: u64,
    plan: &LevelPlan,
    round: u32,
    wg_size: u32,
    singles: &[(usize, Copies)],
) -> Result<(Vec<Record>, Vec<(Option<u32>, Option<u32>, bool)>, Vec<(usize, Vec<AtomicU32>)>), WorkgroupError> {
    let l = cx.l;
    let info = l.info;
    // Copies this round; warp w works on copy `plan.copy_of(w, round)`.
    let warps = plan.copies as usize;
    let copy_of: Vec<usize> = (0..cx.warps as u64).map(|w| plan.copy_of(w, round) as usize).collect();
    let mut g = Workgroup::new(l, wg);
    // Storage targets of this workgroup: one set of copies per target.
    let storage: Vec<(usize, Copies)> = cx
        .targets
        .iter()
        .enumerate()
        .filter(|(_, t)| t.memory == Memory::Storage && !t.single)
        .map(|(i, t)| {
            let Place::Param(p) = t.place else { unreachable!() };
            let s = l.storage[p].as_ref().unwrap();
            (p, Copies::new(i, s.words, warps, 0..words_of(s)))
        })
        .collect();
    let own_range = |p: usize| {
        let s = l.storage[p].as_ref().unwrap();
        let ew = s.elem_words as usize;
        let lo = (wg as usize * wg_size as usize * ew).min(words_of(s));
        let hi = ((wg as usize + 1) * wg_size as usize * ew).min(words_of(s));
        lo..hi
    };
    // Shared targets: the real arrays are the epoch base, copies per warp.
    let mut shared = SharedSet::native(info);
    shared.private = info.shared.iter().map(|s| s.target).collect();
    shared.copy_of = copy_of.clone();
    let shared_targets: Vec<(usize, usize)> = cx.targets.iter().enumerate().filter_map(|(i, t)| if let Place::Shared(a) = t.place { Some((i, a)) } else { None }).collect();
    let mut sh: Vec<(usize, Copies)> = shared_targets.iter().map(|&(i, a)| (a, Copies::new(i, &sweep::words_from(&shared.real[a].words), warps, 0..shared.real[a].words.len()))).collect();
    let mut logs = AtomicLogs::new(wg_size as usize, cx.opts.atomic_log);
    let mut records = Vec::new();
    let mut regions: Vec<(Option<u32>, Option<u32>, bool)> = Vec::new();
    let mut from: Option<u32> = None;
    loop {
        for (_, c) in storage.iter().chain(sh.iter()) {
            c.snapshot_start();
        }
        for (p, c) in singles {
            c.snapshot_start_range(own_range(*p));
        }
        let before = g.snapshot();
        // Pass 1 on each warp's current copies.
        logs.record();
        load_shared(&mut shared, &sh, warps, false);
        let views = warp_views(l, &storage, singles, &copy_of, false);
        let end = g.run_region(l, &views, cx.opts.warp_size, &mut shared, &mut logs)?;
        store_shared(&shared, &sh, warps, false);
        let after = g.snapshot();
        let mut obs_all: Vec<(usize, Vec<Obs>, Vec<bool>)> = Vec::new();
        for (_, c) in storage.iter().chain(sh.iter()) {
            let mut obs = Vec::new();
            let wrote = c.merge(&mut obs);
            obs_all.push((c.target, obs, wrote));
        }
        for (p, c) in singles {
            let mut obs = Vec::new();
            let wrote = c.merge_range(own_range(*p), &mut obs);
            obs_all.push((c.target, obs, wrote));
        }
        // Pass 2 from the region's start on the pass-2 copies.
        if !cx.deterministic {
            g.restore(&before);
            logs.replay();
            load_shared(&mut shared, &sh, warps, true);
            let views = warp_views(l, &storage, singles, &copy_of, true);
            g.run_region(l, &views, cx.opts.warp_size, &mut shared, &mut logs)?;
            store_shared(&shared, &sh, warps, true);
        }
        // "Did warp w write anything in this region", over every per-warp memory.
        let per_warp = storage.len() + sh.len();
        let wrote_any: Vec<bool> = (0..warps).map(|w| obs_all[..per_warp].iter().any(|(_, _, wrote)| wrote[w])).collect();
        let mut i = 0;
        for (_, c) in storage.iter().chain(sh.iter()) {
            let (_, obs, _) = &mut obs_all[i];
            c.compare(&wrote_any, obs);
            i += 1;
        }
        for (p, c) in singles {
            let (_, obs, wrote) = &mut obs_all[i];
            c.compare_range(own_range(*p), wrote, obs);
            i += 1;
        }
        if cx.deterministic {
            obs_all.iter_mut().for_each(|(_, obs, _)| obs.clear());
        }
        g.restore(&after);
        let (to, kind) = match end {
            RegionEnd::Barrier { kind, id } => (Some(id), Some(kind)),
            RegionEnd::Done => (None, None),
        };
        let region = regions.len() as u32;
        let raced = obs_all.iter().any(|(_, o, _)| !o.is_empty());
        regions.push((from, to, raced));
        for (t, obs, _) in &obs_all {
            for o in obs {
                let single = cx.targets[*t].single;
                // A shared copy is named by its first warp.
                let unit = |c: u32, word: u32| {
                    let warp = if single { own_warp(cx, *t, word, wg_size) } else { plan.first_unit(c as u64, round) as u32 };
                    Unit { workgroup: [g.wid.x, g.wid.y, g.wid.z], warp: Some(warp) }
                };
                let grouped = !single && !plan.exact(round);
                records.push(Record { kind: o.kind, level: Level::InterWarp, target: *t as u32, region, round, grouped, unit_a: unit(o.a, o.word), unit_b: o.b.map(|b| unit(b, o.word)), word: o.word, cross: o.cross });
            }
        }
        // Epoch ends: a barrier that orders the memory, or the kernel's end.
        for (_, c) in storage.iter() {
            if super::orders(kind, Memory::Storage) {
                c.commit();
            }
        }
        for (p, c) in singles {
            if super::orders(kind, Memory::Storage) {
                c.commit_range(own_range(*p));
            }
        }
        for (a, c) in sh.iter_mut() {
            if super::orders(kind, Memory::Workgroup) {
                c.commit();
                let real: Vec<u32> = c.base.iter().map(|w| w.load(Relaxed)).collect();
                shared.real[*a].words = real;
            }
        }
        if end == RegionEnd::Done {
            break;
        }
        from = to;
    }
    let finals = storage.into_iter().map(|(p, c)| (p, c.base)).collect();
    Ok((records, regions, finals))
}

fn own_warp(cx: &Ctx, target: usize, word: u32, wg_size: u32) -> u32 {
    let Place::Param(p) = cx.targets[target].place else { return 0 };
    let ew = cx.l.storage[p].as_ref().unwrap().elem_words;
    ((word / ew) % wg_size) / cx.opts.warp_size
}

impl Copies {
    fn snapshot_start_range(&self, r: std::ops::Range<usize>) {
        sweep::copy(&self.start[0], &self.cur[0], r);
    }
    fn merge_range(&self, r: std::ops::Range<usize>, obs: &mut Vec<Obs>) -> Vec<bool> {
        let mut wrote = vec![false; 1];
        sweep::merge(&self.base, Some(&[&self.start[0][..]]), &[&self.cur[0][..]], &self.union, &[&self.start[0][..]], r, obs, &mut wrote);
        wrote
    }
    fn compare_range(&self, r: std::ops::Range<usize>, wrote: &[bool], obs: &mut Vec<Obs>) {
        sweep::compare(&self.base, &self.union, &[&self.cur[0][..]], &[&self.start[0][..]], r, wrote, false, obs);
    }
    fn commit_range(&self, r: std::ops::Range<usize>) {
        sweep::copy(&self.base, &self.union, r.clone());
        sweep::copy(&self.cur[0], &self.union, r);
    }
}

/// Each warp's storage views: its copy (pass 1) or its pass-2 copy,
/// own-element buffers through their single copy.
fn warp_views<'a>(l: &CpuLaunch<'a>, storage: &'a [(usize, Copies)], singles: &'a [(usize, Copies)], copy_of: &[usize], pass2: bool) -> Vec<Vec<Option<StorageView<'a>>>> {
    copy_of
        .iter()
        .map(|&w| {
            let mut v = l.storage.clone();
            for (p, c) in storage {
                let words = if pass2 { &c.start[w] } else { &c.cur[w] };
                v[*p] = Some(view_with(l.storage[*p].as_ref().unwrap(), words));
            }
            for (p, c) in singles {
                let words = if pass2 { &c.start[0] } else { &c.cur[0] };
                v[*p] = Some(view_with(l.storage[*p].as_ref().unwrap(), words));
            }
            v
        })
        .collect()
}

/// Shared copies live in `SharedSet.copies` while the twin runs.
fn load_shared(shared: &mut SharedSet, sh: &[(usize, Copies)], warps: usize, pass2: bool) {
    if shared.copies.is_empty() {
        shared.copies = (0..warps).map(|_| shared.real.iter().map(|m| SharedMem { words: vec![], elem_words: m.elem_words, len: m.len }).collect()).collect();
    }
    for (a, c) in sh {
        for w in 0..warps {
            let src = if pass2 { &c.start[w] } else { &c.cur[w] };
            shared.copies[w][*a].words = src.iter().map(|x| x.load(Relaxed)).collect();
        }
    }
}

fn store_shared(shared: &SharedSet, sh: &[(usize, Copies)], warps: usize, pass2: bool) {
    for (a, c) in sh {
        for w in 0..warps {
            let dst = if pass2 { &c.start[w] } else { &c.cur[w] };
            for (d, s) in dst.iter().zip(&shared.copies[w][*a].words) {
                d.store(*s, Relaxed);
            }
        }
    }
}

/// Turns records into the report.
pub(crate) fn report(info: &crate::kernel::KernelInfo, targets: &[Target], out: Outcome, warp_size: u32, workgroups: u32, backend: String, elapsed_ms: f64, max_records: usize) -> Report {
    let has_sb = info.barriers.iter().any(|b| b.kind == BarrierKind::Storage);
    let names: Vec<(String, Memory)> = targets.iter().map(|t| (t.name.to_string(), t.memory)).collect();
    let total = out.total;
    let kept = &out.records[..out.records.len().min(max_records)];
    let races = report::aggregate(kept, &names, &out.regions.list, &|r| super::note(r.level, names[r.target as usize].1, r.cross, r.kind, has_sb));
    let mut units = std::collections::BTreeSet::new();
    let mut words = std::collections::BTreeSet::new();
    for r in kept {
        units.insert((r.level, r.unit_a));
        if let Some(b) = r.unit_b {
            units.insert((r.level, b));
        }
        words.insert((r.target, r.word));
    }
    let regions_with_races = out.regions.raced.iter().enumerate().filter(|(i, r)| **r && (*i > 0 || out.level1_ran)).count() as u32;
    let buffers = if total == 0 {
        "as after a native run (no race: every unit saw what it would see natively)".to_string()
    } else {
        "each workgroup and warp ran in isolation on its region's input; their writes were merged in unit order (later units win conflicts), as deterministic mode would".to_string()
    };
    Report {
        kernel: info.name.into(),
        backend,
        warp_size,
        workgroups,
        warps_per_workgroup: info.invocations_per_workgroup().div_ceil(warp_size),
        checked: super::checked(info, targets),
        regions_analyzed: out.regions.analysed(out.level1_ran),
        regions_with_races,
        units_with_races: units.len() as u32,
        words_with_races: words.len() as u64,
        race_records: total,
        records_dropped: total - kept.len() as u64,
        races,
        buffers,
        elapsed_ms,
        plan: None,
    }
}
