//! One workgroup's access log: every access to a target word, with the
//! invocation, its source site and the region it happened in, checked as
//! it happens against the accesses of the same epoch (level 2 and inside
//! a warp) and summarised per word for the comparison across workgroups.

use crate::cpu::twin::{BarrierKind, Mem, Monitor};
use crate::kernel::{KernelInfo, TargetPlace};
// Every monitored access hashes its word two or three times: FxHash, not
// SipHash, which would be a large part of a source re-run's time.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// One access, as the log keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Acc {
    /// The invocation's local index.
    pub li: u32,
    pub write: bool,
    /// Source (line, column).
    pub site: (u32, u32),
    /// The barrier that opened its region (`barriers`: the kernel's start).
    pub from: u32,
}

/// Two accesses to one word that race: `first` came first in the
/// executor's order. At level 2 both workgroups are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Pair {
    pub target: u32,
    pub word: u32,
    pub workgroups: (u32, u32),
    pub first: Acc,
    pub second: Acc,
    pub level1: bool,
    /// The second access's region, as the engine's records name it
    /// (`abi::record::REGION`: opening barrier << 16 | closing barrier).
    pub region: u32,
}

/// Which words and workgroups a monitored run looks at (the source re-run
/// of a check looks only at the words that raced).
#[derive(Clone, Debug, Default)]
pub(crate) struct Only {
    /// (target, word) pairs.
    pub words: HashSet<(u32, u32)>,
    pub workgroups: Vec<u64>,
    /// Per target, whether any of its words is watched (`Only::new`).
    pub targets: Vec<bool>,
}

impl Only {
    pub fn new(words: HashSet<(u32, u32)>, workgroups: Vec<u64>, targets: usize) -> Only {
        let mut watched = vec![false; targets];
        for &(t, _) in &words {
            watched[t as usize] = true;
        }
        Only { words, workgroups, targets: watched }
    }
}

/// A word's accesses in the current epoch: up to two distinct invocations
/// of each kind, which is enough to find a partner for any later access.
/// (Held in place: two vectors a word would be most of the allocations of
/// a source re-run.)
#[derive(Default)]
struct Word {
    epoch: u32,
    writers: Two,
    readers: Two,
}

/// Up to two accesses by distinct invocations, in order.
#[derive(Default, Clone, Copy)]
struct Two([Option<Acc>; 2]);

impl Two {
    /// The first access by another invocation than `li`.
    fn other(&self, li: u32) -> Option<Acc> {
        self.0.iter().flatten().find(|a| a.li != li).copied()
    }

    /// Keeps `acc` if there is room and its invocation is not there yet.
    fn note(&mut self, acc: Acc) {
        if self.0.iter().flatten().all(|a| a.li != acc.li) {
            if let Some(free) = self.0.iter_mut().find(|a| a.is_none()) {
                *free = Some(acc);
            }
        }
    }
}

/// A storage word's first write and first read in the whole dispatch
/// (what level 1 compares across workgroups).
pub(crate) type Summary = HashMap<(u32, u32), (Option<Acc>, Option<Acc>)>;

pub(crate) struct WorkgroupLog<'o> {
    wg: u32,
    /// Per target: its memory, whether it is a buffer, and whether any of
    /// its words is watched (a check's source re-run watches the racing
    /// words alone, and a kernel's reads, millions a launch, need not each
    /// look their word up in `only` where no word of their target raced).
    targets: Vec<(Mem, bool, bool)>,
    only: Option<&'o HashSet<(u32, u32)>>,
    li: u32,
    /// Barriers passed that order storage, and workgroup memory.
    epochs: [u32; 2],
    from: u32,
    barriers: u32,
    words: HashMap<(u32, u32), Word>,
    pub summary: Summary,
    /// Races of the current region (their closing barrier is not known yet).
    open: Vec<Pair>,
    pub pairs: Vec<Pair>,
    seen: HashSet<(u32, u32, Acc, Acc)>,
    /// Regions run, as (opening, closing) barrier indices.
    pub regions: Vec<(u32, u32)>,
}

impl<'o> WorkgroupLog<'o> {
    pub fn new(info: &KernelInfo, wg: u32, only: Option<&'o Only>) -> Self {
        let targets = info
            .targets
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let watched = only.is_none_or(|o| o.targets[i]);
                match *t {
                    TargetPlace::Param(p) => (Mem::Storage(p), true, watched),
                    TargetPlace::Shared(a) => (Mem::Shared(a), false, watched),
                }
            })
            .collect();
        let nb = info.barriers.len() as u32;
        WorkgroupLog {
            wg,
            targets,
            only: only.map(|o| &o.words),
            li: 0,
            epochs: [0; 2],
            from: nb,
            barriers: nb,
            words: HashMap::default(),
            summary: HashMap::default(),
            open: vec![],
            pairs: vec![],
            seen: HashSet::default(),
            regions: vec![],
        }
    }

    /// The workgroup passed barrier `id`: the region ends, and the epoch of
    /// the memory the barrier orders.
    pub fn barrier(&mut self, kind: BarrierKind, id: u32) {
        self.close(id);
        self.epochs[(kind == BarrierKind::Workgroup) as usize] += 1;
        self.from = id;
    }

    /// The workgroup finished.
    pub fn finish(&mut self) {
        self.close(self.barriers);
    }

    fn close(&mut self, to: u32) {
        self.regions.push((self.from, to));
        let key = region_key(self.from, to, self.barriers);
        for mut p in self.open.drain(..) {
            p.region = key;
            self.pairs.push(p);
        }
    }

    fn race(&mut self, target: u32, word: u32, first: Acc, second: Acc) {
        if self.seen.insert((target, word, first, second)) {
            self.open.push(Pair { target, word, workgroups: (self.wg, self.wg), first, second, level1: false, region: 0 });
        }
    }

    fn word(&mut self, target: u32, storage: bool, word: u32, write: bool, site: (u32, u32)) {
        if self.only.is_some_and(|o| !o.contains(&(target, word))) {
            return;
        }
        let acc = Acc { li: self.li, write, site, from: self.from };
        if storage {
            let s = self.summary.entry((target, word)).or_default();
            let slot = if write { &mut s.0 } else { &mut s.1 };
            slot.get_or_insert(acc);
        }
        let epoch = self.epochs[!storage as usize];
        let w = self.words.entry((target, word)).or_default();
        if w.epoch != epoch {
            *w = Word { epoch, ..Word::default() };
        }
        let partner = match write {
            true => w.writers.other(acc.li).or_else(|| w.readers.other(acc.li)),
            false => w.writers.other(acc.li),
        };
        let list = if write { &mut w.writers } else { &mut w.readers };
        list.note(acc);
        if let Some(first) = partner {
            self.race(target, word, first, acc);
        }
    }
}

impl Monitor for WorkgroupLog<'_> {
    fn enter(&mut self, local_index: u32) {
        self.li = local_index;
    }

    fn watches(&self, mem: Mem) -> bool {
        self.targets.iter().any(|&(m, _, watched)| m == mem && watched)
    }

    fn access(&mut self, mem: Mem, word: u32, words: u32, write: bool, site: (u32, u32)) {
        let Some(t) = self.targets.iter().position(|(m, _, _)| *m == mem) else { return };
        let (_, storage, watched) = self.targets[t];
        if !watched {
            return;
        }
        for k in 0..words {
            self.word(t as u32, storage, word + k, write, site);
        }
    }
}

/// A workgroup's first write and first read of a word.
type Touch = (u32, Option<Acc>, Option<Acc>);

/// Races between workgroups: per storage word, every workgroup that
/// accessed it against the first workgroup that wrote it (in workgroup
/// order), from each workgroup's summary.
pub(crate) fn across(summaries: &[(u32, Summary)]) -> Vec<Pair> {
    let mut by_word: HashMap<(u32, u32), Vec<Touch>> = HashMap::default();
    for (wg, s) in summaries {
        for (&k, &(w, r)) in s {
            by_word.entry(k).or_default().push((*wg, w, r));
        }
    }
    let mut out = Vec::new();
    for ((target, word), mut list) in by_word {
        list.sort_by_key(|e| e.0);
        let Some(&(w0, Some(first), _)) = list.iter().find(|e| e.1.is_some()) else { continue };
        for &(wg, w, r) in &list {
            if wg == w0 {
                continue;
            }
            if let Some(second) = w.or(r) {
                let (a, b) = if wg < w0 { ((wg, second), (w0, first)) } else { ((w0, first), (wg, second)) };
                out.push(Pair { target, word, workgroups: (a.0, b.0), first: a.1, second: b.1, level1: true, region: 0 });
            }
        }
    }
    out.sort_by_key(|p| (p.target, p.word, p.workgroups));
    out
}

/// A region as the engine's race records name it.
pub(crate) fn region_key(from: u32, to: u32, barriers: u32) -> u32 {
    use ld_shaders::abi::record::NO_BARRIER;
    let clamp = |b: u32| if b == barriers { NO_BARRIER } else { b };
    (clamp(from) << 16) | clamp(to)
}
