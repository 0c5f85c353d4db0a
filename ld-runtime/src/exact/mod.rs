//! Exact mode: access monitoring on the CPU executor. Every access to a
//! target word is logged with its invocation, source site and region, and
//! two accesses race when different invocations made them, one writing,
//! with no barrier between them that orders their memory (inside a
//! workgroup), or from different workgroups (nothing orders those in a
//! dispatch). It finds what value comparison cannot (a write of the value
//! already there, a read that influences nothing, lanes of one warp at any
//! warp size) at the cost of watching every access: it is the oracle of
//! the tests and the access-monitoring baseline of `table6 --exact`.
//!
//! The same monitor, restricted to the words a check found racing and the
//! workgroups that raced on them, gives every race of a check its source
//! locations (`sources::locate`).

pub(crate) mod input;
mod log;
pub(crate) mod sources;

use crate::check::records::Raw;
use crate::cpu::executor::{CpuLaunch, RegionEnd, SharedSet, Workgroup, WorkgroupError};
use crate::cpu::twin::{Mem, StorageView, Targets};
use crate::kernel::ParamKind;
use ld_shaders::abi::{record, NONE};
pub(crate) use log::{Only, Pair};
use log::{Summary, WorkgroupLog};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::atomic::Ordering::Relaxed;

/// What a monitored run saw: race records in the engine's format (so one
/// report builder serves both; none where the run watched `Only` some
/// words), and the pairs of accesses behind them.
pub(crate) struct Monitored {
    pub raw: Raw,
    pub pairs: Vec<Pair>,
}

/// What one workgroup's log leaves: its index, pairs, summary and regions.
type Logged = (u32, Vec<Pair>, Summary, Vec<(u32, u32)>);

/// Runs the launch's workgroups (or `only`'s) natively on the CPU with
/// every access to the targets monitored. The buffers end as after a
/// native CPU run of those workgroups.
pub(crate) fn run(l: &CpuLaunch, warp_size: u32, only: Option<&Only>) -> Result<Monitored, WorkgroupError> {
    let nb = l.info.barriers.len() as u32;
    let workgroups: Vec<u64> = match only {
        Some(o) => o.workgroups.clone(),
        None => (0..l.workgroup_count()).collect(),
    };
    // A check's sources: each workgroup runs from the launch's input, its
    // writes to the buffers kept to itself, as the check ran it (its copies
    // read the input where they did not write). What a workgroup sees, and
    // so its accesses, is then the same on every run, in parallel: the
    // GPU's and the CPU's reports get the same sources. Atomics are never
    // privatized (a check runs them on the buffers): where a kernel has
    // atomic buffers the workgroups run one after another instead, in
    // workgroup order, for the same reason.
    let atomics = l.info.params.iter().any(|p| matches!(p.kind, ParamKind::Atomic { .. }));
    let isolate = only.is_some() && !atomics;
    let one = |&wg: &u64| -> Result<Logged, WorkgroupError> {
        let log = workgroup(l, wg, only, isolate)?;
        Ok((wg as u32, log.pairs, log.summary, log.regions))
    };
    let logs: Vec<_> = if only.is_some() && atomics { workgroups.iter().map(one).collect() } else { workgroups.par_iter().map(one).collect() };
    let mut raw = Raw::new(nb);
    let mut pairs = Vec::new();
    let mut summaries = Vec::new();
    for r in logs {
        let (wg, p, summary, regions) = r?;
        for (from, to) in regions {
            raw.regions[(from * (nb + 1) + to) as usize] = true;
        }
        pairs.extend(p);
        summaries.push((wg, summary));
    }
    pairs.extend(log::across(&summaries));
    // Exact mode reports the pairs as records; a check's source re-run
    // reads the pairs alone (bfs's `expand`: 13,738 pairs a launch).
    if only.is_none() {
        let mut records: Vec<[u32; record::WORDS as usize]> = pairs.iter().map(|p| record_of(p, warp_size)).collect();
        records.sort_unstable();
        records.dedup();
        raw.total = records.len() as u64;
        raw.records = records;
    }
    Ok(Monitored { raw, pairs })
}

fn workgroup<'o>(l: &CpuLaunch, wg: u64, only: Option<&'o Only>, isolate: bool) -> Result<WorkgroupLog<'o>, WorkgroupError> {
    let mut g = Workgroup::new(l, wg);
    let mut shared = SharedSet::native(l.info);
    let mut log = WorkgroupLog::new(l.info, wg as u32, only);
    let mut own = isolate.then(|| Isolated::new(l));
    loop {
        let targets = own.as_mut().map(|o| o as &mut dyn Targets);
        match g.run_region(l, &l.storage, &mut shared, targets, Some(&mut log))? {
            RegionEnd::Barrier { kind, id } => log.barrier(kind, id),
            RegionEnd::Done => {
                log.finish();
                return Ok(log);
            }
        }
    }
}

/// A workgroup's writes to the launch's writable buffers, kept to itself
/// over the buffers it reads through.
struct Isolated<'l, 'a> {
    storage: &'l [Option<StorageView<'a>>],
    writable: Vec<bool>,
    writes: FxHashMap<(usize, u32), u32>,
}

impl<'l, 'a> Isolated<'l, 'a> {
    fn new(l: &'l CpuLaunch<'a>) -> Self {
        let writable = l.info.params.iter().map(|p| matches!(p.kind, ParamKind::Storage { writable: true, .. })).collect();
        Isolated { storage: &l.storage, writable, writes: FxHashMap::default() }
    }
}

impl Targets for Isolated<'_, '_> {
    fn enter(&mut self, _local_index: u32) {}

    fn owns(&self, mem: Mem) -> bool {
        matches!(mem, Mem::Storage(p) if self.writable[p])
    }

    fn read(&mut self, mem: Mem, word: u32) -> u32 {
        let Mem::Storage(p) = mem else { unreachable!("only buffers are isolated") };
        match self.writes.get(&(p, word)) {
            Some(v) => *v,
            None => self.storage[p].as_ref().expect("a bound buffer").words[word as usize].load(Relaxed),
        }
    }

    fn read_settled(&mut self, mem: Mem, word: u32) -> u32 {
        self.read(mem, word)
    }

    fn write(&mut self, mem: Mem, word: u32, value: u32) {
        let Mem::Storage(p) = mem else { unreachable!("only buffers are isolated") };
        self.writes.insert((p, word), value);
    }
}

/// A pair of accesses as a race record: level 1 names both workgroups,
/// level 2 both warps, inside a warp the warp.
fn record_of(p: &Pair, warp_size: u32) -> [u32; record::WORDS as usize] {
    let mut r = [0u32; record::WORDS as usize];
    let mut kind = if p.first.write && p.second.write { 0 } else { record::RW };
    let (a, b) = if p.level1 {
        kind |= record::LEVEL1;
        p.workgroups
    } else {
        let (wa, wb) = (p.first.li / warp_size, p.second.li / warp_size);
        if p.first.from != p.second.from {
            kind |= record::CROSS;
        }
        if wa == wb {
            kind |= record::INTRA;
            (wa, NONE)
        } else {
            (wa, wb)
        }
    };
    r[record::KIND as usize] = kind;
    r[record::TARGET as usize] = p.target;
    r[record::WG as usize] = p.workgroups.0;
    r[record::A as usize] = a;
    r[record::B as usize] = b;
    r[record::WORD as usize] = p.word;
    r[record::REGION as usize] = if p.level1 { 0 } else { p.region };
    r[record::ROUND as usize] = 1;
    r
}
