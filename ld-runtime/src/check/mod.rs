//! Check mode: the LDetector two-pass, value-based race detection, and the
//! engine deterministic mode shares with it.
//!
//! The instrumented kernel checks itself at its barriers (`ld-shaders`'
//! `wgsl/engine/`; `sweep` is the same per-word algorithm on the CPU): every
//! warp runs each region on its own copies of the targets, the workgroup
//! finds write-write races while merging them, runs the region again from
//! its start on the union minus the warp's own writes, and finds read-write
//! races by comparing. That is level 2 (between the warps of a workgroup).
//! Level 1 (between workgroups) takes its first pass from the same run (each
//! workgroup's final pages), merges them across workgroups and runs the
//! kernel once more with each workgroup seeing the others' writes.
//!
//! - `engine` drives both levels and both modes over a `Backend`: `gpu`
//!   (wgpu) and `cpu` (the reference executor) supply the steps;
//! - `layout` turns a `plan` into capacities and the engine's memory layout;
//! - `records` turns what the backends record into a `report`;
//! - `html` draws reports as one self-contained HTML page.

/// Level 1's sweep against a shader copy (`benches/check.rs`).
pub mod bench;
pub(crate) mod cpu;
pub(crate) mod engine;
pub(crate) mod findings;
pub(crate) mod gpu;
pub(crate) mod html;
pub(crate) mod layout;
pub mod plan;
mod progress;
pub(crate) mod records;
pub mod report;
pub(crate) mod sweep;
pub(crate) mod text;

use crate::kernel::{CheckClass, KernelInfo, ParamKind, TargetPlace};
use report::{Checked, Memory, Treatment};

/// Knobs of a check: `CheckOptions::default()` then the builder methods
/// below, e.g. `CheckOptions::default().warp_size(1).memory_budget(64 << 20)`.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Invocations per warp (level-2 unit): a power of two up to the
    /// workgroup size. 1 checks every invocation against every other.
    /// Default: the largest power of two no larger than 32 or the
    /// workgroup ([`CheckOptions::warp_size_for`]).
    pub warp_size: Option<u32>,
    /// Race records kept in detail; the total count stays exact.
    pub max_records: usize,
    /// Bytes the engine may allocate for copies, tables and records
    /// (default: 1 GiB, or less where the device allows less).
    pub memory_budget: Option<u64>,
    /// Copies per workgroup at level 2 (default: one per warp, or as many
    /// as the budget allows; at least two). Fewer copies check the warps in
    /// rounds.
    pub copies: Option<u32>,
    /// Rounds at level 2 at most (trading coverage for time; see `Plan`).
    pub max_rounds: Option<u32>,
    /// Run every round even after one has found races.
    pub all_rounds: bool,
    /// Progress: a bar on stderr, when it is a terminal, for checks of
    /// several rounds that take more than a second; else an info-level
    /// `log` record (`ld: checking KERNEL: round i/n, 12.3 s`) once a
    /// check has taken 2 s, then every 5 s. Each round is also logged
    /// (`log` at info level) whatever this says.
    pub progress: bool,
    /// After a check that found races, run the racing workgroups again on
    /// the CPU from the launch's input to find the source line of every
    /// racing access (`Race::accesses`). The input of the buffers the
    /// kernel writes is kept for that, on the device, for the check's
    /// duration.
    pub sources: bool,
    /// Run the kernel once on the user's buffers first, every access to a
    /// memory it writes tagged with its invocation (the probe,
    /// `ld_shaders::abi::probe`; GPUs only). Where no two invocations
    /// shared a word, one writing, no check can find a race and the run's
    /// result is deterministic mode's: the launch is done, at about twice
    /// a native run's cost. Else the engine runs, and later launches of the
    /// kernel skip the probe. False: the engine always runs.
    pub probe: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            warp_size: None,
            max_records: 1 << 18,
            memory_budget: None,
            copies: None,
            max_rounds: None,
            all_rounds: false,
            progress: true,
            sources: true,
            probe: true,
        }
    }
}

impl CheckOptions {
    /// Sets [`CheckOptions::warp_size`] (`None`: the default).
    pub fn warp_size(mut self, w: impl Into<Option<u32>>) -> Self {
        self.warp_size = w.into();
        self
    }

    /// Sets [`CheckOptions::max_records`].
    pub fn max_records(mut self, n: usize) -> Self {
        self.max_records = n;
        self
    }

    /// Sets [`CheckOptions::memory_budget`] in bytes (`None`: the default).
    pub fn memory_budget(mut self, bytes: impl Into<Option<u64>>) -> Self {
        self.memory_budget = bytes.into();
        self
    }

    /// Sets [`CheckOptions::copies`] (`None`: the default).
    pub fn copies(mut self, n: impl Into<Option<u32>>) -> Self {
        self.copies = n.into();
        self
    }

    /// Sets [`CheckOptions::max_rounds`] (`None`: every round).
    pub fn max_rounds(mut self, n: impl Into<Option<u32>>) -> Self {
        self.max_rounds = n.into();
        self
    }

    /// Sets [`CheckOptions::all_rounds`].
    pub fn all_rounds(mut self, on: bool) -> Self {
        self.all_rounds = on;
        self
    }

    /// Sets [`CheckOptions::progress`].
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// Sets [`CheckOptions::sources`].
    pub fn sources(mut self, on: bool) -> Self {
        self.sources = on;
        self
    }

    /// Sets [`CheckOptions::probe`].
    pub fn probe(mut self, on: bool) -> Self {
        self.probe = on;
        self
    }

    /// Values that would make a check do something else than asked.
    pub(crate) fn validate(&self) -> crate::Result<()> {
        let bad = |option, value: String, problem| Err(crate::Error::BadOption { option, value, problem });
        if self.max_rounds == Some(0) {
            return bad("max_rounds", "Some(0)".into(), "a check runs at least one round; use None for all rounds");
        }
        if self.max_records == 0 {
            return bad("max_records", "0".into(), "at least one race record is needed to report a race (the total count is exact whatever the cap)");
        }
        if self.copies.is_some_and(|c| c < 2) {
            return bad("copies", format!("{:?}", self.copies), "level 2 compares warps pairwise: at least two copies");
        }
        if self.memory_budget == Some(0) {
            return bad("memory_budget", "Some(0)".into(), "no memory at all cannot hold a check; use None for the default");
        }
        Ok(())
    }

    /// The warp size a check of a kernel with `invocations` per workgroup
    /// uses: the one chosen, else [`ld_shaders::abi::DEFAULT_WARP_SIZE`] or
    /// the largest power of two in a smaller workgroup.
    pub fn warp_size_for(&self, invocations: u32) -> u32 {
        self.warp_size.unwrap_or_else(|| {
            let cap = invocations.clamp(1, ld_shaders::abi::DEFAULT_WARP_SIZE);
            1 << (31 - cap.leading_zeros())
        })
    }
}

/// Default budget for everything the engine allocates.
pub const DEFAULT_BUDGET: u64 = 1 << 30;

/// What is privatized: the kernel's targets, in target order.
#[derive(Clone)]
pub struct Target {
    pub name: &'static str,
    pub memory: Memory,
    /// Words per element.
    pub elem_words: u32,
    /// Names a word offset within an element (`Words::place`).
    pub place: crate::kernel::PlaceFn,
    /// `place` names a word of the whole variable (`ElemInfo::whole`).
    pub whole: bool,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("name", &self.name).field("memory", &self.memory).field("elem_words", &self.elem_words).finish()
    }
}

impl Target {
    /// Word `word` of the variable by element and field: `bodies[65].mass`,
    /// `particles[3].pos[1]`, `hist[17]`.
    pub fn place(&self, word: u32) -> String {
        let mut out = self.name.to_string();
        if self.whole {
            (self.place)(word, &mut out);
            return out;
        }
        let each = self.elem_words.max(1);
        out.push_str(&format!("[{}]", word / each));
        (self.place)(word % each, &mut out);
        out
    }
}

pub fn targets(info: &KernelInfo) -> Vec<Target> {
    info.targets
        .iter()
        .map(|&place| match place {
            TargetPlace::Param(p) => {
                let (elem_words, place, whole) = match &info.params[p].kind {
                    ParamKind::Storage { elem, .. } | ParamKind::Atomic { elem } => (elem.words, elem.place, elem.whole),
                    ParamKind::Uniform { .. } => {
                        let none: crate::kernel::PlaceFn = &|_, _| {};
                        (1, none, false)
                    }
                };
                Target { name: info.params[p].name, memory: Memory::Storage, elem_words, place, whole }
            }
            TargetPlace::Shared(a) => {
                let s = &info.shared[a];
                Target { name: s.name, memory: Memory::Workgroup, elem_words: s.elem_words, place: s.place, whole: s.whole }
            }
        })
        .collect()
}

pub(crate) fn checked(info: &KernelInfo, grid: [u32; 3], targets: &[Target]) -> Vec<Checked> {
    let mut out = Vec::new();
    let in_place = layout::in_place(info, grid);
    for (i, t) in targets.iter().enumerate() {
        let treatment = if in_place >> i & 1 != 0 { Treatment::InPlace } else { Treatment::Privatized };
        out.push(Checked { name: t.name.into(), memory: t.memory, treatment, words: None });
    }
    for p in info.params {
        let treatment = match (&p.kind, p.check) {
            (ParamKind::Uniform { .. }, _) => continue,
            (_, CheckClass::ReadOnly) => Treatment::ReadOnly,
            (_, CheckClass::Atomic) => Treatment::Atomic,
            _ => continue,
        };
        out.push(Checked { name: p.name.into(), memory: Memory::Storage, treatment, words: None });
    }
    for s in info.shared.iter().filter(|s| !s.target) {
        out.push(Checked { name: s.name.into(), memory: Memory::Workgroup, treatment: Treatment::Atomic, words: None });
    }
    out
}

/// The sentence that explains a race whose cause is a barrier's kind or
/// scope (`before`: the read came first, a write after the barrier).
pub(crate) fn note(level: report::Level, memory: Memory, cross: bool, kind: report::RaceKind, before: bool, has_storage_barrier: bool) -> Option<String> {
    use report::{Level, RaceKind};
    match level {
        Level::InterWorkgroup if has_storage_barrier => Some(
            "no barrier orders memory between workgroups of one dispatch: storage_barrier() (storageBarrier) only orders storage within a workgroup".into(),
        ),
        Level::InterWorkgroup => Some("no barrier orders memory between workgroups of one dispatch".into()),
        Level::IntraWarp => Some(
            "lanes of one warp share its copy: what the warp computes depends on the order the device runs its lanes in, so other entries of this report and deterministic output at this warp size may differ between devices (check with warp_size 1 to see every invocation on its own)"
                .into(),
        ),
        Level::InterWarp if !cross => None,
        Level::InterWarp => Some(match (memory, kind) {
            (Memory::Storage, RaceKind::ReadWrite) if before => {
                "storage read before a workgroupBarrier and written after it: workgroupBarrier does not order storage memory (use storage_barrier())".into()
            }
            (Memory::Workgroup, RaceKind::ReadWrite) if before => {
                "workgroup memory read before a storageBarrier and written after it: storageBarrier does not order workgroup memory (use barrier())".into()
            }
            (Memory::Storage, RaceKind::ReadWrite) => {
                "storage written before a workgroupBarrier and read after it: workgroupBarrier does not order storage memory (use storage_barrier())".into()
            }
            (Memory::Storage, RaceKind::WriteWrite) => {
                "storage written on both sides of a workgroupBarrier: workgroupBarrier does not order storage memory (use storage_barrier())".into()
            }
            (Memory::Workgroup, RaceKind::ReadWrite) => {
                "workgroup memory written before a storageBarrier and read after it: storageBarrier does not order workgroup memory (use barrier())".into()
            }
            (Memory::Workgroup, RaceKind::WriteWrite) => {
                "workgroup memory written on both sides of a storageBarrier: storageBarrier does not order workgroup memory (use barrier())".into()
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::CheckOptions;

    #[test]
    fn default_warp_size_is_the_largest_power_of_two_that_fits() {
        let d = CheckOptions::default();
        let got: Vec<u32> = [1, 3, 8, 20, 32, 33, 64, 1024].iter().map(|&n| d.warp_size_for(n)).collect();
        assert_eq!(got, [1, 2, 8, 16, 32, 32, 32, 32]);
        assert_eq!(CheckOptions { warp_size: Some(4), ..d }.warp_size_for(1024), 4);
    }
}
