//! The check engine on the CPU reference executor: the same steps as the
//! instrumented WGSL (per workgroup: each region's run, check and commit;
//! then level 1's records and merge), so both
//! backends record the same races. Workgroups run in parallel (rayon);
//! their results are combined in workgroup order.

use super::engine::{Backend, Stats, Status};
use super::layout::Layout;
use super::records::Raw;
use super::sweep::{self, Entry, Seen};
use crate::bounds::OutOfBounds;
use crate::cpu::executor::{CpuLaunch, RegionEnd, SharedSet, Workgroup, WorkgroupError};
use crate::cpu::twin::{BarrierKind, Mem, Targets};
use crate::error::{Error, Result};
use crate::kernel::TargetPlace;
use ld_shaders::abi::{record, status, Roles, MODE_CHECK, MODE_DETERMINISTIC, NONE, PAGE};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;

const P: usize = PAGE as usize;

/// A workgroup's final page of a storage target, published for level 1,
/// and (check mode) the words of it the workgroup read and those its lanes
/// wrote.
#[derive(Clone)]
struct Published {
    target: u32,
    page: u32,
    workgroup: u32,
    values: [u32; P],
    read: u64,
    wrote: u64,
}

impl Published {
    /// Whether the workgroup's lanes wrote word w the value it held (`b`),
    /// without reading it (level1.wgsl's `ld_silent`).
    fn silent(&self, w: u32, b: u32) -> bool {
        self.kept(w, b) && self.read >> w & 1 == 0
    }

    /// Whether it read word w and wrote it the value it held (level1.wgsl's
    /// `ld_quiet_bits`): a write all the same, racing with others' reads.
    fn quiet(&self, w: u32, b: u32) -> bool {
        self.kept(w, b) && self.read >> w & 1 != 0
    }

    /// Whether its lanes wrote word w and left it at `b`.
    fn kept(&self, w: u32, b: u32) -> bool {
        self.wrote >> w & 1 != 0 && self.values[w as usize] == b
    }
}

pub(crate) struct CpuBackend<'l, 'a> {
    l: &'l CpuLaunch<'a>,
    fault: &'l (dyn Fn(WorkgroupError) -> Error + Sync),
    layout: Option<Layout>,
    /// The snapshot of the buffers a run writes as it goes (`Backend::snapshot`).
    live: Vec<(usize, Vec<u32>)>,
    raw: Raw,
    round: u32,
    published: Vec<Published>,
    /// Level 1: records of each (target, page), and the page's union.
    by_page: HashMap<(u32, u32), Vec<usize>>,
    union: HashMap<(u32, u32), [u32; P]>,
    status: Status,
    stats: Stats,
}

impl<'l, 'a> CpuBackend<'l, 'a> {
    pub fn new(l: &'l CpuLaunch<'a>, fault: &'l (dyn Fn(WorkgroupError) -> Error + Sync)) -> Self {
        CpuBackend {
            l,
            fault,
            layout: None,
            live: vec![],
            raw: Raw::default(),
            round: 1,
            published: vec![],
            by_page: HashMap::new(),
            union: HashMap::new(),
            status: Status::default(),
            stats: Stats::default(),
        }
    }

    fn layout(&self) -> &Layout {
        self.layout.as_ref().expect("prepared")
    }

    /// Word k of storage target t's user buffer (0 past its end).
    fn user(&self, t: u32, k: u32) -> u32 {
        let TargetPlace::Param(p) = self.l.info.targets[t as usize] else {
            return 0;
        };
        self.l.storage[p].as_ref().unwrap().words.get(k as usize).map_or(0, |w| w.load(Relaxed))
    }

    fn set_user(&self, t: u32, k: u32, v: u32) {
        let TargetPlace::Param(p) = self.l.info.targets[t as usize] else {
            return;
        };
        if let Some(w) = self.l.storage[p].as_ref().unwrap().words.get(k as usize) {
            w.store(v, Relaxed);
        }
    }

    fn run_workgroup(&self, wg: u64, mode: u32, round: u32) -> std::result::Result<WorkgroupRun, WorkgroupError> {
        let (l, lay) = (self.l, self.layout());
        let info = l.info;
        let n = info.invocations_per_workgroup();
        let nb = info.barriers.len() as u32;
        let p2 = lay.plan.level2;
        let div = p2.divisor(round.min(p2.rounds));
        let copy_of: Vec<u32> = (0..n).map(|li| ((li / lay.warp_size) as u64 / div % lay.roles.copies as u64) as u32).collect();
        let wgl = wg as u32;
        let under = |t: u32, k: u32| self.user(t, k);
        let mut mem = Copies::new(lay, &copy_of, &under);
        mem.check_tags = mode == MODE_CHECK;
        let mut g = Workgroup::new(l, wg);
        let mut shared = SharedSet::native(info);
        let mut out = WorkgroupRun::default();
        let mut from = nb;
        loop {
            let end = g.run_region(l, &l.storage, &mut shared, Some(&mut mem), None)?;
            let (to, kind) = match end {
                RegionEnd::Barrier { kind, id } => (id, Some(kind)),
                RegionEnd::Done => (nb, None),
            };
            out.regions.push((from, to));
            let region = (from.min(record::NO_BARRIER) << 16) | if to == nb { record::NO_BARRIER } else { to };
            let mut seen = Vec::new();
            if mode == MODE_CHECK {
                mem.check(kind, &mut seen);
            } else {
                mem.fold(kind);
                if mem.det_tags {
                    mem.det_clear(kind);
                }
            }
            for (t, (kind, a, b, k)) in seen {
                out.records.push([kind, t, wgl, a, b, k, region, round]);
            }
            if end == RegionEnd::Done {
                break;
            }
            from = to;
        }
        for FinalPage { target: t, page, values, read, wrote, folded } in mem.final_pages() {
            // Deterministic mode publishes the pages a fold changed a word
            // of (as `ld_publish`: a page changed and changed back holds
            // the user's words, which level 1's fold passes over).
            let changed = if mode == MODE_CHECK {
                (0..P as u32).any(|w| page * PAGE + w < lay.shapes[t as usize].words() && values[w as usize] != self.user(t, page * PAGE + w))
            } else {
                folded
            };
            if changed || read != 0 || wrote != 0 {
                out.published.push(Published { target: t, page, workgroup: wgl, values, read, wrote });
            }
        }
        out.full = mem.full;
        out.lanes = mem.lanes;
        Ok(out)
    }
}

#[derive(Default)]
struct WorkgroupRun {
    records: Vec<[u32; record::WORDS as usize]>,
    regions: Vec<(u32, u32)>,
    published: Vec<Published>,
    /// Bit t: target t's table was full (as the GPU's would be).
    full: u32,
    /// Deterministic mode: lanes of a warp shared a word in a region.
    lanes: bool,
}

impl Backend for CpuBackend<'_, '_> {
    fn prepare(&mut self, layout: &Layout) -> Result<()> {
        self.raw = Raw::new(layout.barriers());
        self.status = Status::default();
        self.published.clear();
        self.by_page.clear();
        self.union.clear();
        self.stats.bytes_allocated = self.stats.bytes_allocated.max(layout.plan.bytes);
        self.layout = Some(layout.clone());
        Ok(())
    }

    fn snapshot(&mut self, live: &[usize]) -> Result<()> {
        let storage = &self.l.storage;
        self.live = live.iter().map(|&p| (p, storage[p].as_ref().unwrap().words.iter().map(|w| w.load(Relaxed)).collect())).collect();
        Ok(())
    }

    fn restore(&mut self) -> Result<()> {
        for (p, s) in &self.live {
            self.l.storage[*p].as_ref().unwrap().words.iter().zip(s).for_each(|(w, x)| w.store(*x, Relaxed));
        }
        Ok(())
    }

    fn native(&mut self) -> Result<()> {
        self.stats.dispatches += 1;
        crate::cpu::executor::run(self.l).map_err(self.fault)
    }

    fn run(&mut self, mode: u32, round: u32) -> Result<()> {
        self.stats.dispatches += 1;
        self.round = round;
        let n = self.l.workgroup_count();
        let runs: Vec<_> = (0..n).into_par_iter().map(|wg| self.run_workgroup(wg, mode, round)).collect();
        let mut published = Vec::new();
        for r in runs {
            let r = r.map_err(self.fault)?;
            if r.full != 0 {
                self.status.bits |= status::TABLE_FULL;
                self.status.full_tables |= r.full;
            }
            if r.lanes {
                self.status.bits |= status::LANES;
            }
            let nb = self.layout().barriers();
            for (from, to) in r.regions {
                self.raw.regions[(from * (nb + 1) + to) as usize] = true;
            }
            self.raw.total += r.records.len() as u64;
            self.raw.records.extend(r.records);
            published.extend(r.published);
        }
        if published.len() > self.layout().caps.l1 as usize {
            self.status.bits |= status::L1_FULL;
            self.status.l1_need = published.len() as u32;
            published.truncate(self.layout().caps.l1 as usize);
        }
        self.published = published;
        self.by_page.clear();
        for (i, r) in self.published.iter().enumerate() {
            self.by_page.entry((r.target, r.page)).or_default().push(i);
        }
        self.union.clear();
        Ok(())
    }

    fn level1(&mut self, mode: u32) -> Result<()> {
        self.stats.dispatches += 1;
        let region = (record::NO_BARRIER << 16) | record::NO_BARRIER;
        let mut pages: Vec<(&(u32, u32), &Vec<usize>)> = self.by_page.iter().collect();
        pages.sort();
        let mut union = HashMap::new();
        let mut records = Vec::new();
        for (&(t, page), list) in pages {
            let mut writers: Vec<&Published> = list.iter().map(|&i| &self.published[i]).collect();
            writers.sort_by_key(|r| r.workgroup);
            let mut u = [0u32; P];
            for w in 0..PAGE {
                let k = page * PAGE + w;
                if k >= self.layout().shapes[t as usize].words() {
                    break;
                }
                let b0 = self.user(t, k);
                let mut v = b0;
                // Every later writer races with the first (as level1.wgsl),
                // and so does every silent writer.
                let mut first = None;
                for r in &writers {
                    let x = r.values[w as usize];
                    if x != b0 {
                        if let (Some(a), true) = (first, mode == MODE_CHECK) {
                            records.push([record::LEVEL1, t, a, a, r.workgroup, k, region, self.round]);
                        }
                        first.get_or_insert(r.workgroup);
                        v = x;
                    }
                }
                if let (Some(a), true) = (first, mode == MODE_CHECK) {
                    for r in writers.iter().filter(|r| r.silent(w, b0)) {
                        let (x, y) = (a.min(r.workgroup), a.max(r.workgroup));
                        records.push([record::LEVEL1, t, x, x, y, k, region, self.round]);
                    }
                }
                // A reader that left the word as it was races with its
                // writers (one that wrote it races write-write), silent
                // ones too, and with another reader that wrote it the
                // value it held.
                let silent = writers.iter().any(|r| r.silent(w, b0));
                let quiet = writers.iter().filter(|r| r.quiet(w, b0)).count();
                for r in writers.iter().filter(|r| mode == MODE_CHECK && r.read >> w & 1 != 0 && r.values[w as usize] == b0) {
                    if first.is_some() || silent || quiet > usize::from(r.quiet(w, b0)) {
                        let kind = record::RW | record::LEVEL1 | record::READ;
                        records.push([kind, t, r.workgroup, r.workgroup, NONE, k, region, self.round]);
                    }
                }
                u[w as usize] = v;
                if mode == MODE_DETERMINISTIC {
                    self.set_user(t, k, v);
                }
            }
            union.insert((t, page), u);
        }
        self.raw.total += records.len() as u64;
        self.raw.records.extend(records);
        self.union = union;
        Ok(())
    }

    fn fold(&mut self) -> Result<()> {
        for (&(t, page), u) in &self.union {
            for w in 0..PAGE {
                let k = page * PAGE + w;
                if k < self.layout().shapes[t as usize].words() {
                    self.set_user(t, k, u[w as usize]);
                }
            }
        }
        Ok(())
    }

    fn status(&mut self) -> Result<Status> {
        Ok(Status { records: self.raw.total, ..self.status })
    }

    fn records(&mut self, _: &Status) -> Result<Raw> {
        Ok(self.raw.clone())
    }

    fn stats(&self) -> Stats {
        self.stats
    }

    fn out_of_bounds(&mut self, _lens: &[u32]) -> Result<Vec<OutOfBounds>> {
        Ok(self.l.oob.take())
    }
}

/// A workgroup's storage page after its last region: the base, the
/// workgroup's accesses (check mode) and whether a fold changed a word
/// (deterministic mode).
struct FinalPage {
    target: u32,
    page: u32,
    values: [u32; P],
    read: u64,
    wrote: u64,
    folded: bool,
}

/// One target of a workgroup: its entries by page.
struct TargetMem {
    storage: bool,
    words: u32,
    /// Epochs of this memory span regions (barriers of the other kind split them).
    spans: bool,
    entries: HashMap<u32, Entry>,
}

/// A workgroup's copies of every target, as the running invocation sees them.
struct Copies<'x> {
    roles: Roles,
    targets: Vec<TargetMem>,
    mems: Vec<Mem>,
    copy_of: &'x [u32],
    under: &'x dyn Fn(u32, u32) -> u32,
    role: usize,
    /// Table capacities (storage targets), and which ran full.
    caps: Vec<u32>,
    full: u32,
    /// The running invocation.
    local: usize,
    warp_size: u32,
    /// Check mode's lane tags (see `ld_on_read`); deterministic mode's
    /// (see `ld_det_access`), and whether two lanes of a copy shared a word
    /// in a region (found at its end: `det_clear`).
    check_tags: bool,
    det_tags: bool,
    lane_safe: u32,
    /// The targets left in place (`Layout::in_place`): the twin accesses
    /// the user's buffer.
    in_place: u32,
    lanes: bool,
}

impl<'x> Copies<'x> {
    fn new(lay: &Layout, copy_of: &'x [u32], under: &'x dyn Fn(u32, u32) -> u32) -> Self {
        let info = lay.info;
        let has = |k: BarrierKind| info.barriers.iter().any(|b| b.kind == k);
        let mut targets = Vec::new();
        let mut mems = Vec::new();
        for (t, place) in info.targets.iter().enumerate() {
            let words = lay.shapes[t].words();
            let (storage, mem) = match place {
                TargetPlace::Param(p) => (true, Mem::Storage(*p)),
                TargetPlace::Shared(a) => (false, Mem::Shared(*a)),
            };
            let mut entries = HashMap::new();
            if !storage {
                for page in 0..words.div_ceil(PAGE) {
                    entries.insert(page, Entry::new(lay.roles, [0; P]));
                }
            }
            targets.push(TargetMem { storage, words, spans: has(if storage { BarrierKind::Workgroup } else { BarrierKind::Storage }), entries });
            mems.push(mem);
        }
        Copies {
            roles: lay.roles,
            targets,
            mems,
            copy_of,
            under,
            role: 0,
            caps: lay.caps.entries.clone(),
            full: 0,
            local: 0,
            warp_size: lay.warp_size,
            check_tags: false,
            det_tags: lay.deterministic && lay.roles.tag_groups != 0,
            lane_safe: info.lane_safe,
            in_place: lay.in_place,
            lanes: false,
        }
    }

    /// The target `mem` is, unless the launch left it in place.
    fn target(&self, mem: Mem) -> Option<usize> {
        self.mems.iter().position(|m| *m == mem).filter(|&t| self.in_place >> t & 1 == 0)
    }

    /// The entry of a page, claimed if new; `None` (and the table marked
    /// full) when a storage table has no room, as on the GPU, where the
    /// engine then grows it.
    fn claim(&mut self, t: usize, page: u32) -> Option<&mut Entry> {
        let (roles, under, words) = (self.roles, self.under, self.targets[t].words);
        if self.targets[t].storage && !self.targets[t].entries.contains_key(&page) && self.targets[t].entries.len() >= self.caps[t] as usize {
            self.full |= 1 << t;
            return None;
        }
        Some(self.targets[t].entries.entry(page).or_insert_with(|| {
            Entry::new(roles, std::array::from_fn(|w| if page * PAGE + (w as u32) < words { under(t as u32, page * PAGE + w as u32) } else { 0 }))
        }))
    }

    /// A read that tags (see `ld_storage_read`, `ld_on_read`): the page is
    /// claimed, the access tagged, the entry marked for the region's end.
    fn tagged_read(&mut self, t: usize, word: u32) -> u32 {
        let (roles, role, det) = (self.roles, self.role, self.det_tags);
        let (c, lane) = (self.copy_of[self.local], sweep::tag_lane(self.local as u32, self.warp_size));
        let lane_safe = self.lane_safe & (1 << t) != 0;
        let Some(e) = self.claim(t, word / PAGE) else {
            return (self.under)(t as u32, word);
        };
        let w = (word % PAGE) as usize;
        // A deterministic read of a target lanes cannot conflict on claims
        // its page and leaves no tag or mark (`KernelInfo::lane_safe`, the
        // engine's `ld_det_access`).
        if det && lane_safe {
            return e.roles[role][w];
        }
        sweep::tag(e, roles, w, c, lane, false);
        if !det {
            e.read |= 1 << w;
        }
        e.dirty1 = true;
        e.roles[role][w]
    }

    /// Deterministic mode at a region's end (a barrier of `kind`, `None`:
    /// the kernel's end): the tags of workgroup arrays are done, and
    /// storage's where the storage epoch ends (lanes of a warp share its
    /// copy of storage across workgroup barriers: two of them touching a
    /// word in one storage epoch, one writing, is a conflict too); `lanes`
    /// records whether lanes of a copy shared a word.
    fn det_clear(&mut self, kind: Option<BarrierKind>) {
        for tm in self.targets.iter_mut().filter(|tm| !tm.storage || orders(kind, true)) {
            for e in tm.entries.values_mut() {
                self.lanes |= sweep::det_clear(e);
            }
        }
    }

    /// Every storage page's final base, and the words of it read and
    /// written.
    fn final_pages(&self) -> Vec<FinalPage> {
        let mut out = Vec::new();
        for (t, tm) in self.targets.iter().enumerate().filter(|(_, tm)| tm.storage) {
            for (page, e) in &tm.entries {
                out.push(FinalPage { target: t as u32, page: *page, values: e.roles[0], read: e.read, wrote: e.wrote, folded: e.changed });
            }
        }
        out.sort_by_key(|f| (f.target, f.page));
        out
    }

    fn words(&self, t: usize, page: u32) -> impl Iterator<Item = (usize, u32)> {
        let words = self.targets[t].words;
        (0..P).map(move |w| (w, page * PAGE + w as u32)).filter(move |(_, k)| *k < words)
    }

    /// At a region's end (see `ld_check_word`): every entry accessed in
    /// the epoch, checked; its epoch ends where the barrier orders it.
    fn check(&mut self, kind: Option<BarrierKind>, seen: &mut Vec<(u32, Seen)>) {
        let r = self.roles;
        for t in 0..self.targets.len() {
            let (spans, commit) = (self.targets[t].spans, orders(kind, self.targets[t].storage));
            let mut found = Vec::new();
            let pages: Vec<u32> = self.targets[t].entries.iter().filter(|(_, e)| e.dirty1).map(|(p, _)| *p).collect();
            for page in pages {
                let ws: Vec<(usize, u32)> = self.words(t, page).collect();
                let e = self.targets[t].entries.get_mut(&page).unwrap();
                for (w, k) in ws {
                    sweep::check_word(e, r, w, k, spans, commit, &mut found);
                }
                e.dirty1 &= !commit;
            }
            seen.extend(found.into_iter().map(|s| (t as u32, s)));
        }
    }

    fn fold(&mut self, kind: Option<BarrierKind>) {
        let r = self.roles;
        for t in 0..self.targets.len() {
            if !orders(kind, self.targets[t].storage) {
                continue;
            }
            let pages: Vec<u32> = self.targets[t].entries.iter().filter(|(_, e)| e.dirty1).map(|(p, _)| *p).collect();
            for page in pages {
                let ws: Vec<(usize, u32)> = self.words(t, page).collect();
                let e = self.targets[t].entries.get_mut(&page).unwrap();
                for (w, _) in ws {
                    sweep::fold_word(e, r, w);
                }
                e.dirty1 = false;
            }
        }
    }
}

/// Whether a region ending at a barrier of `kind` (`None`: the kernel's end)
/// ends the epoch of storage (`storage`) or workgroup memory.
fn orders(kind: Option<BarrierKind>, storage: bool) -> bool {
    match kind {
        None => true,
        Some(BarrierKind::Storage) => storage,
        Some(BarrierKind::Workgroup) => !storage,
    }
}

impl Targets for Copies<'_> {
    fn enter(&mut self, local_index: u32) {
        self.local = local_index as usize;
        self.role = (self.roles.p + self.copy_of[local_index as usize]) as usize;
    }

    fn owns(&self, mem: Mem) -> bool {
        self.target(mem).is_some()
    }

    fn read(&mut self, mem: Mem, word: u32) -> u32 {
        let t = self.target(mem).unwrap();
        if self.check_tags || self.det_tags {
            return self.tagged_read(t, word);
        }
        let Some(e) = self.targets[t].entries.get(&(word / PAGE)) else {
            return (self.under)(t as u32, word);
        };
        e.roles[self.role][(word % PAGE) as usize]
    }

    fn read_settled(&mut self, mem: Mem, word: u32) -> u32 {
        let t = self.target(mem).unwrap();
        // (A helper's read is settled for the workgroup arrays its slice is
        // bound to, never for a buffer.)
        if self.targets[t].storage {
            return self.read(mem, word);
        }
        let role = self.role;
        match self.claim(t, word / PAGE) {
            Some(e) => e.roles[role][(word % PAGE) as usize],
            None => (self.under)(t as u32, word),
        }
    }

    fn write(&mut self, mem: Mem, word: u32, value: u32) {
        let t = self.target(mem).unwrap();
        let roles = self.roles;
        let (c, lane, det) = (self.copy_of[self.local], sweep::tag_lane(self.local as u32, self.warp_size), self.det_tags);
        let storage = self.targets[t].storage;
        let lane_safe = self.lane_safe & (1 << t) != 0;
        let Some(e) = self.claim(t, word / PAGE) else {
            return;
        };
        // (A target lanes cannot conflict on is not tagged:
        // `KernelInfo::lane_safe`.)
        if det && !lane_safe {
            sweep::tag(e, roles, (word % PAGE) as usize, c, lane, true);
        }
        let e = self.targets[t].entries.get_mut(&(word / PAGE)).unwrap();
        e.roles[self.role][(word % PAGE) as usize] = value;
        if self.check_tags {
            sweep::tag(e, roles, (word % PAGE) as usize, c, lane, true);
            e.wrote |= 1 << (word % PAGE);
            // The GPU's written flags (storage), or its touched masks' high
            // halves (up to `abi::WROTE_MASK_COPIES` copies).
            if storage || roles.copies <= ld_shaders::abi::WROTE_MASK_COPIES {
                e.wrote_epoch[c as usize] |= 1 << (word % PAGE);
            }
        }
        e.dirty1 = true;
    }
}
