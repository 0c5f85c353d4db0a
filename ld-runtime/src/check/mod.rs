//! Check mode: the LDetector two-pass, value-based race detection.
//!
//! Level 1 runs the whole dispatch twice with one private copy of every
//! storage target per workgroup; level 2 runs it again, region by region
//! (between barriers), with one copy per warp of every target, re-running
//! each region from its start. `sweep` holds the word-level algorithm the
//! CPU runs and `shaders/` the same algorithm in WGSL; `cpu` and `gpu`
//! drive them; `report` is what the user reads.

pub mod cpu;
pub mod gpu;
pub mod plan;
mod progress;
pub mod report;
pub mod sweep;

use crate::cpu::twin::BarrierKind;
use crate::kernel::{CheckClass, KernelInfo, ParamKind};
use report::{Checked, Memory, Region};

/// Knobs of a check.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Invocations per warp (level-2 unit): a power of two up to the
    /// workgroup size. 1 checks every invocation against every other.
    pub warp_size: u32,
    /// Race records kept in detail; the total count stays exact.
    pub max_records: usize,
    /// Atomic results one invocation may use per region (they are replayed
    /// in pass 2).
    pub atomic_log: usize,
    /// Bytes each level's private copies may take: level 1 then checks the
    /// workgroups in rounds, level 2 the workgroups in batches and, if need
    /// be, the warps in rounds. Default: 128 MiB (or the device's buffer
    /// limit if smaller), the same on every backend so that GPU and CPU
    /// reports compare.
    pub memory_budget: Option<u64>,
    /// Rounds per level at most (trading coverage for time; see `Plan`).
    pub max_rounds: Option<u32>,
    /// Run every round even after one has found races.
    pub all_rounds: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { warp_size: 32, max_records: 1 << 18, atomic_log: 16, memory_budget: None, max_rounds: None, all_rounds: false }
    }
}

/// `LD_CHECK_COPIES=m` caps the copies per level whatever the budget: the
/// test suite uses it to run the verdict catalogue in several rounds.
fn copies_cap() -> u64 {
    std::env::var("LD_CHECK_COPIES").ok().and_then(|s| s.parse().ok()).filter(|&m| m >= 2).unwrap_or(u64::MAX)
}

/// Default budget for the private copies of one level.
pub const DEFAULT_BUDGET: u64 = 128 << 20;

/// The plan of a launch: how many copies and rounds each level gets under
/// the budget. `words[t]` are target `t`'s words; `device_limit` the largest
/// buffer the device binds.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan(info: &KernelInfo, grid: [u32; 3], targets: &[Target], words: &[u64], opts: CheckOptions, device_limit: u64, deterministic: bool) -> Result<plan::Plan, crate::Error> {
    let budget = opts.memory_budget.unwrap_or(DEFAULT_BUDGET.min(device_limit));
    let n: u64 = grid.iter().map(|&d| d as u64).product();
    let wc = info.invocations_per_workgroup().div_ceil(opts.warp_size) as u64;
    // Level 1: copy sets [base, union, M copies, M pass-2 copies] of every
    // storage target; own-element buffers keep one copy (4 slots).
    let many: u64 = targets.iter().zip(words).filter(|(t, _)| t.memory == Memory::Storage && !t.single).map(|(_, w)| *w).sum();
    let fixed: u64 = targets.iter().zip(words).filter(|(t, _)| t.single).map(|(_, w)| 4 * w).sum();
    let largest = targets.iter().zip(words).filter(|(t, _)| t.memory == Memory::Storage && !t.single).map(|(_, w)| *w).max().unwrap_or(0);
    let level1 = if many + fixed > 0 && n > 1 {
        let room = budget.saturating_sub(4 * fixed) / 4;
        let by_budget = if many == 0 { n } else { (room / (2 * many)).saturating_sub(1) };
        let by_device = if largest == 0 { n } else { (device_limit / 4 / (2 * largest)).saturating_sub(1) };
        let m = by_budget.min(by_device).min(n).min(copies_cap());
        if m < 2 && many > 0 {
            return Err(crate::Error::CheckBudget { kernel: info.name, budget, needed: 4 * (6 * many + fixed), level: "level 1 (between workgroups)" });
        }
        Some(plan::LevelPlan::new(n, m.max(1), opts.max_rounds))
    } else {
        None
    };
    let level1_bytes = level1.map_or(0, |p| 4 * ((2 + 2 * p.copies) * many + fixed));
    // Level 2: per workgroup [base, union, warps' copies, warps' pass-2
    // copies] of every per-warp memory, for every workgroup at once.
    let shared: u64 = info.shared.iter().filter(|s| s.target).map(|s| (s.len * s.elem_words) as u64).sum();
    // Level 2: per workgroup in a batch, [base, union, copies, pass-2 copies]
    // of every per-warp memory. Workgroups were shown independent by level 1
    // (or run in isolation in deterministic mode), so they are checked in
    // batches; warps get their own copies if one workgroup's fit, else rounds.
    let per_copy = many + shared;
    let largest2 = targets.iter().zip(words).filter(|(t, _)| !t.single).map(|(_, w)| *w).max().unwrap_or(0);
    let fits = |m: u64, b: u64| 4 * (b * (2 + 2 * m) * per_copy + fixed) <= budget && 4 * b * (2 + 2 * m) * largest2 <= device_limit;
    let cap = copies_cap();
    let (m2, batch) = if (fits(wc, 1) || per_copy == 0) && (wc <= cap || deterministic) {
        let mut b = n;
        while b > 1 && !fits(wc, b) {
            b = b.div_ceil(2);
        }
        (wc, b)
    } else if deterministic {
        return Err(crate::Error::CheckBudget { kernel: info.name, budget, needed: 4 * ((2 + 2 * wc) * per_copy + fixed), level: "deterministic mode's (a copy per warp of one workgroup)" });
    } else {
        match (2..wc).rev().find(|&m| m <= cap && fits(m, 1)) {
            Some(m) => (m, 1),
            None => return Err(crate::Error::CheckBudget { kernel: info.name, budget, needed: 4 * (6 * per_copy + fixed), level: "level 2 (between warps)" }),
        }
    };
    let level2_bytes = 4 * (batch * (2 + 2 * m2) * per_copy + fixed);
    let level2 = plan::LevelPlan::new(wc, m2, if deterministic { None } else { opts.max_rounds });
    Ok(plan::Plan { budget, level1, level1_bytes, level2, level2_bytes, level2_batch: batch })
}

/// What is privatized, and how.
#[derive(Clone, Debug)]
pub struct Target {
    pub name: &'static str,
    pub memory: Memory,
    pub place: Place,
    /// One copy shared by all units (own-element buffers) instead of one per unit.
    pub single: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Param(usize),
    Shared(usize),
}

/// The targets of a launch. Own-element buffers only stay single-copy on a
/// 1-D grid (elsewhere `global_id().x` repeats across rows).
pub fn targets(info: &KernelInfo, grid: [u32; 3]) -> Vec<Target> {
    let one_d = grid[1] == 1 && grid[2] == 1;
    let mut out = Vec::new();
    for (i, p) in info.params.iter().enumerate() {
        let single = match p.check {
            CheckClass::Target => false,
            CheckClass::OwnElement => one_d,
            _ => continue,
        };
        out.push(Target { name: p.name, memory: Memory::Storage, place: Place::Param(i), single });
    }
    for (i, s) in info.shared.iter().enumerate() {
        if s.target {
            out.push(Target { name: s.name, memory: Memory::Workgroup, place: Place::Shared(i), single: false });
        }
    }
    out
}

pub(crate) fn checked(info: &KernelInfo, targets: &[Target]) -> Vec<Checked> {
    let mut out = Vec::new();
    for t in targets {
        let treatment = if t.single { "own element: one shared copy" } else { "privatized" };
        out.push(Checked { name: t.name.into(), memory: t.memory, treatment: treatment.into() });
    }
    for p in info.params {
        let treatment = match (&p.kind, p.check) {
            (ParamKind::Uniform { .. }, _) => continue,
            (_, CheckClass::ReadOnly) => "read-only: cannot race",
            (_, CheckClass::Atomic) => "atomic: never a data race; results replayed",
            _ => continue,
        };
        out.push(Checked { name: p.name.into(), memory: Memory::Storage, treatment: treatment.into() });
    }
    for s in info.shared.iter().filter(|s| !s.target) {
        out.push(Checked { name: s.name.into(), memory: Memory::Workgroup, treatment: "atomic: never a data race; results replayed".into() });
    }
    out
}

/// Static regions, numbered as they are first met: region 0 is level 1's
/// whole dispatch; level-2 regions are (opening barrier, closing barrier).
#[derive(Default)]
pub(crate) struct Regions {
    pub keys: Vec<(Option<u32>, Option<u32>)>,
    pub list: Vec<Region>,
    pub raced: Vec<bool>,
}

impl Regions {
    pub fn new() -> Self {
        let mut r = Regions::default();
        r.keys.push((None, None));
        r.list.push(Region { from_line: None, to_line: None });
        r.raced.push(false);
        r
    }

    pub fn id(&mut self, info: &KernelInfo, from: Option<u32>, to: Option<u32>) -> u32 {
        if let Some(i) = self.keys.iter().skip(1).position(|k| *k == (from, to)) {
            return i as u32 + 1;
        }
        let line = |id: Option<u32>| id.and_then(|id| info.barriers.iter().find(|b| b.id == id)).map(|b| b.line);
        self.keys.push((from, to));
        self.list.push(Region { from_line: line(from), to_line: line(to) });
        self.raced.push(false);
        self.list.len() as u32 - 1
    }

    /// Regions actually analysed (level 1 counts once when it ran).
    pub fn analysed(&self, level1_ran: bool) -> u32 {
        self.list.len() as u32 - (!level1_ran) as u32
    }
}

/// Whether a barrier ends the epoch of a memory (orders it).
pub(crate) fn orders(kind: Option<BarrierKind>, memory: Memory) -> bool {
    match (kind, memory) {
        (None, _) => true,
        (Some(BarrierKind::Workgroup), Memory::Workgroup) | (Some(BarrierKind::Storage), Memory::Storage) => true,
        _ => false,
    }
}

/// The sentence that explains a race whose cause is a barrier's kind or scope.
pub(crate) fn note(level: report::Level, memory: Memory, cross: bool, kind: report::RaceKind, has_storage_barrier: bool) -> Option<String> {
    use report::{Level, RaceKind};
    match level {
        Level::InterWorkgroup if has_storage_barrier => Some(
            "no barrier orders memory between workgroups of one dispatch: storage_barrier() (storageBarrier) only orders storage within a workgroup".into(),
        ),
        Level::InterWorkgroup => Some("no barrier orders memory between workgroups of one dispatch".into()),
        Level::InterWarp if !cross => None,
        Level::InterWarp => Some(match (memory, kind) {
            (Memory::Storage, RaceKind::ReadWrite) => "storage written before a workgroupBarrier and read after it: workgroupBarrier does not order storage memory (use storage_barrier())".into(),
            (Memory::Storage, RaceKind::WriteWrite) => "storage written on both sides of a workgroupBarrier: workgroupBarrier does not order storage memory (use storage_barrier())".into(),
            (Memory::Workgroup, RaceKind::ReadWrite) => "workgroup memory written before a storageBarrier and read after it: storageBarrier does not order workgroup memory (use barrier())".into(),
            (Memory::Workgroup, RaceKind::WriteWrite) => "workgroup memory written on both sides of a storageBarrier: storageBarrier does not order workgroup memory (use barrier())".into(),
        }),
    }
}
