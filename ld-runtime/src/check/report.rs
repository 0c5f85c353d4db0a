//! The check report: what was checked, and every race seen, in a canonical
//! order so the GPU's and the CPU's reports compare equal.

use crate::launch::Mode;
use crate::runtime::Backend;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::fmt;

/// Which accesses raced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum RaceKind {
    /// Two writes.
    #[serde(rename = "ww")]
    WriteWrite,
    /// A read and a write.
    #[serde(rename = "rw")]
    ReadWrite,
}

/// The address space a race happened in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Memory {
    /// `var<workgroup>`: a kernel's `shared` arrays.
    Workgroup,
    /// `var<storage>`: the kernel's buffers.
    Storage,
}

/// Between which units a race happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Between two workgroups of the dispatch.
    InterWorkgroup,
    /// Between two warps of one workgroup.
    InterWarp,
    /// Between lanes of one warp, which share its copy: seen by the lane
    /// tags. What such a warp computes depends on the order the hardware
    /// runs its lanes in, so the rest of the report (and deterministic
    /// mode's output at this warp size) may differ between devices.
    IntraWarp,
}

/// How value comparison saw a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// The paper's check: what a unit wrote differs (ww: two units wrote a
    /// word, changing it; rw, between workgroups: a workgroup's written
    /// words changed when it ran on the others' writes). `words` are the
    /// words written.
    Writes,
    /// A unit read a word another unit wrote in the same epoch (between
    /// warps: a read of a word another warp's copy changed, or whose lanes
    /// wrote it the value it held in the read's region; between
    /// workgroups: a read of a word another workgroup changed or wrote, by
    /// a workgroup that left it as it was), whatever the value went into
    /// next (registers, atomics, branches, memory). `words` are the words
    /// read; `units` is the reader.
    Read,
    /// A unit read a word (or wrote it with the value it held) in an
    /// earlier region of the epoch, across a barrier that does not order
    /// that memory, and another unit wrote it in this region (write after
    /// read): nothing ordered the read before the write. `words` are the
    /// words read; `units` is the reader.
    ReadBefore,
    /// Two lanes of one warp accessed the word in one region, at least one
    /// writing (ww: both wrote; rw: one read what another wrote), whatever
    /// the values: lanes share their warp's copy, so values cannot tell.
    Lanes,
    /// Exact mode: access monitoring saw both accesses (any values, any
    /// lanes). `units` are the first access's unit, then the second's.
    Access,
}

/// A static AP region: from one barrier (or the kernel's start) to the next.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Region {
    /// Source line of the barrier that opens it (`None`: kernel start).
    pub from_line: Option<u32>,
    /// Source line of the barrier that closes it (`None`: kernel end).
    pub to_line: Option<u32>,
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from_line, self.to_line) {
            (None, None) => write!(f, "whole dispatch"),
            (a, b) => write!(
                f,
                "{} to {}",
                a.map(|l| format!("barrier at line {l}")).unwrap_or_else(|| "kernel start".into()),
                b.map(|l| format!("barrier at line {l}")).unwrap_or_else(|| "kernel end".into())
            ),
        }
    }
}

/// A unit: a workgroup (level 1) or one warp of a workgroup (level 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Unit {
    /// The workgroup's id.
    pub workgroup: [u32; 3],
    /// The warp within it (`None`: the whole workgroup, at level 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warp: Option<u32>,
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        let wg = if y == 0 && z == 0 { format!("wg {x}") } else { format!("wg ({x},{y},{z})") };
        match self.warp {
            Some(w) => write!(f, "{wg} warp {w}"),
            None => f.write_str(&wg),
        }
    }
}

/// One race: all words of one variable where the same units raced the
/// same way in the same region.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Race {
    /// Write-write or read-write.
    pub kind: RaceKind,
    /// How value comparison saw it.
    pub evidence: Evidence,
    /// The address space.
    pub memory: Memory,
    /// The racing parameter or shared array.
    pub variable: String,
    /// Between workgroups, warps or lanes.
    pub level: Level,
    /// The barrier interval it happened in.
    pub region: Region,
    /// ww: the two writers (in unit order); rw: the reader. At level 2 the
    /// workgroup is the first
    /// of `workgroups`, every one of which had this same race.
    pub units: Vec<Unit>,
    /// Level 2: the workgroups where these warps raced on these words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workgroups: Vec<[u32; 3]>,
    /// Word offsets into the variable, as half-open ranges.
    pub words: Vec<(u32, u32)>,
    /// The first racing words (up to 8, in `words` order) named
    /// by element and field: `bodies[1].mass`, `hist[17]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub places: Vec<String>,
    /// Why, in words, when the cause is a barrier of the wrong kind or scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The memory-adaptive round that found it.
    pub round: u32,
    /// Under a memory budget a round's copy holds a group of units: the
    /// units named are the first of their groups.
    pub grouped: bool,
    /// The accesses that raced, in the source: the racing region of the
    /// racing workgroups run again on the CPU, monitoring these words (exact
    /// mode monitors every word). Writes first, then by line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accesses: Vec<Access>,
}

/// Whether an access read or wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessKind {
    /// A store (or an atomic's write).
    Write,
    /// A load.
    Read,
}

/// One racing access site: where in the source, and one invocation that
/// made it (of `count` that made it to the race's words).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Access {
    /// Read or write.
    pub kind: AccessKind,
    /// The memory accessed (where a racy value went elsewhere, the memory
    /// raced on, which the race's own `variable` is not).
    pub variable: String,
    /// The source file.
    pub file: String,
    /// Its line (1-based).
    pub line: u32,
    /// Its column (1-based).
    pub column: u32,
    /// The text of the source line (empty when it cannot be found).
    pub source: String,
    /// The unit of the invocation named.
    pub unit: Unit,
    /// That invocation's `global_id()`.
    pub global_id: [u32; 3],
    /// That invocation's `local_id()`.
    pub local_id: [u32; 3],
    /// Invocations that made this access to the race's words.
    pub count: u32,
}

/// How many racing words a [`Race`] names in `places`.
pub const PLACES: usize = 8;

/// A barrier statement of the kernel, in the order of the kernel body
/// (the barrier index): its source line and the memory it orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BarrierLine {
    /// Its source line.
    pub line: u32,
    /// `workgroup` for `barrier()`, `storage` for `storage_barrier()`.
    pub kind: Memory,
}

/// A memory check mode looked at, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Checked {
    /// The parameter's or workgroup array's name.
    pub name: String,
    /// Where it lives.
    pub memory: Memory,
    /// How the check treated it.
    pub treatment: Treatment,
    /// A privatized variable's extent in 32-bit words (a workgroup array's
    /// per workgroup), which race word offsets index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub words: Option<u64>,
}

/// What a check (or exact mode) found in one launch: what it looked at,
/// every race in canonical order, and what the user's buffers hold now.
/// `Display` renders it for a person, [`Report::to_json`] for a program.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// The kernel's name.
    pub kernel: String,
    /// Where the kernel ran.
    pub backend: Backend,
    /// [`Mode::Check`], or [`Mode::Exact`] for access monitoring.
    pub mode: Mode,
    /// Invocations per warp, the level-2 unit.
    pub warp_size: u32,
    /// Workgroups in the dispatch.
    pub workgroups: u32,
    /// Warps in each workgroup.
    pub warps_per_workgroup: u32,
    /// Every memory the kernel accesses, and how the check treated it.
    pub checked: Vec<Checked>,
    /// The kernel's barriers, in source order (the regions' ends).
    pub barriers: Vec<BarrierLine>,
    /// Static regions analysed, and how many had a race (Table VI's #ana, #race).
    pub regions_analyzed: u32,
    /// Of those, the regions with a race.
    pub regions_with_races: u32,
    /// Distinct units and words involved in races (Table VI's #units,
    /// #words), counted over the detailed records: where the record buffer
    /// overflowed (`records_dropped`), at least these.
    pub units_with_races: u32,
    /// Distinct words involved in races (see `units_with_races`).
    pub words_with_races: u64,
    /// Exact number of racing (unit, word) observations, even when the
    /// record buffer overflowed.
    pub race_records: u64,
    /// Race records counted but not kept in detail (beyond
    /// `CheckOptions::max_records`).
    pub records_dropped: u64,
    /// Every race, in canonical order (the same on every backend).
    pub races: Vec<Race>,
    /// What the user's buffers hold now.
    pub buffers: Buffers,
    /// Time the check took, in milliseconds.
    pub elapsed_ms: f64,
    /// The plan the check ran under.
    pub plan: Option<super::plan::Plan>,
    /// What the check cost.
    pub stats: Option<super::engine::Stats>,
    /// Where invocations indexed out of bounds and the run went on, as
    /// WGSL allows (a loaded shader; see [`crate::Run::out_of_bounds`]).
    pub out_of_bounds: Vec<crate::OutOfBounds>,
}

/// The parts of a [`Report`] that must agree between backends: not timing,
/// adapter or plan.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verdict {
    /// Every race.
    pub races: Vec<Race>,
    /// Static regions analysed.
    pub regions_analyzed: u32,
    /// Regions with a race.
    pub regions_with_races: u32,
    /// Distinct units involved in races.
    pub units_with_races: u32,
    /// Distinct words involved in races.
    pub words_with_races: u64,
    /// Racing (unit, word) observations.
    pub race_records: u64,
    /// Where invocations indexed out of bounds.
    pub out_of_bounds: Vec<crate::OutOfBounds>,
}

impl Report {
    /// Whether the check saw any race.
    pub fn has_races(&self) -> bool {
        self.race_records > 0
    }

    /// Lanes of one warp raced ([`Level::IntraWarp`]): the other entries
    /// and deterministic mode's output at this warp size depend on the
    /// order the hardware runs a warp's lanes in. Warp size 1 checks every
    /// invocation on its own.
    pub fn lane_order_dependent(&self) -> bool {
        self.races.iter().any(|r| r.level == Level::IntraWarp && r.evidence != Evidence::Access)
    }

    /// The parts that must agree between backends (not timing or adapter).
    pub fn verdict(&self) -> Verdict {
        Verdict {
            races: self.races.clone(),
            regions_analyzed: self.regions_analyzed,
            regions_with_races: self.regions_with_races,
            units_with_races: self.units_with_races,
            words_with_races: self.words_with_races,
            race_records: self.race_records,
            out_of_bounds: self.out_of_bounds.clone(),
        }
    }

    /// The report as pretty-printed JSON (the schema `REPORT_SCHEMA` names).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}

/// How a check treated a memory of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Treatment {
    /// Each unit ran on its own copy, compared at barriers.
    Privatized,
    /// Accessed in place: each invocation accesses only its own element,
    /// so nothing can race on it.
    InPlace,
    /// Only read: cannot race.
    ReadOnly,
    /// Only accessed by atomics: never a data race, run once, live.
    Atomic,
}

impl fmt::Display for Treatment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Treatment::Privatized => "privatized",
            Treatment::InPlace => "in place: each invocation accesses only its own element, cannot race",
            Treatment::ReadOnly => "read-only: cannot race",
            Treatment::Atomic => "atomic: never a data race; run once, live",
        })
    }
}

/// What the user's buffers hold after a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Buffers {
    /// No race: as after a native run (every unit saw what it would see
    /// natively).
    AsNative,
    /// No race in the rounds checked: as after a native run if none hides
    /// in the rounds not checked (`CheckOptions::max_rounds`).
    AsNativeIfUnchecked {
        /// Rounds not checked.
        not_checked: u32,
        /// Rounds in all.
        rounds: u32,
    },
    /// Races: each unit ran in isolation on its region's input, and their
    /// writes were merged in unit order, as deterministic mode would.
    Merged,
    /// Exact mode: as after a native run on the CPU executor.
    AsNativeOnCpu,
}

impl fmt::Display for Buffers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Buffers::AsNative => f.write_str("as after a native run (no race: every unit saw what it would see natively)"),
            Buffers::AsNativeIfUnchecked { not_checked, rounds } => write!(
                f,
                "as after a native run, if no race hides in the {not_checked} of {rounds} rounds not checked (CheckOptions::max_rounds): warps that shared a copy in every round checked ran together, as natively"
            ),
            Buffers::Merged => f.write_str(
                "each workgroup and warp ran in isolation on its region's input; their writes were merged in unit order (later units win conflicts), as deterministic mode would",
            ),
            Buffers::AsNativeOnCpu => {
                f.write_str("as after a native run on the CPU executor (exact mode runs the kernel as written, watching every access)")
            }
        }
    }
}

/// Serialized as the sentence `Display` gives: a person reads it in the
/// JSON report too.
macro_rules! serialize_as_display {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
serialize_as_display!(Treatment, Buffers, Backend);

impl Memory {
    /// `workgroup` or `storage`, as WGSL names the address space.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Workgroup => "workgroup",
            Memory::Storage => "storage",
        }
    }
}

impl Level {
    /// `inter-workgroup`, `inter-warp` or `intra-warp`.
    pub fn name(self) -> &'static str {
        match self {
            Level::InterWorkgroup => "inter-workgroup",
            Level::InterWarp => "inter-warp",
            Level::IntraWarp => "intra-warp",
        }
    }
}

/// One racing (unit, word) observation, as the sweeps produce them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Record {
    pub kind: RaceKind,
    pub evidence: Evidence,
    pub level: Level,
    /// Index into the check's list of targets.
    pub target: u32,
    /// Static region id (index into the check's region list).
    pub region: u32,
    pub unit_a: Unit,
    pub unit_b: Option<Unit>,
    pub word: u32,
    /// The accesses lie on both sides of a barrier that does not order this memory.
    pub cross: bool,
    /// The memory-adaptive round that saw it (1 with full privatization).
    pub round: u32,
    /// The units are groups sharing a copy in that round, named by their first unit.
    pub grouped: bool,
}

/// Groups records into races with word ranges, in canonical order.
pub fn aggregate(records: &[Record], targets: &[(String, Memory)], regions: &[Region], note: &dyn Fn(&Record) -> Option<String>) -> Vec<Race> {
    type Key = (Level, u32, u32, u32, bool, RaceKind, Evidence, Unit, Option<Unit>);
    let key = |r: &Record| -> Key { (r.level, r.round, r.region, r.target, r.grouped, r.kind, r.evidence, r.unit_a, r.unit_b) };
    // Hashed to a group number, then put in order: a racy kernel gives tens
    // of thousands of records (em: 98,304), which a tree of sets took 20 ms
    // to group. The groups' words are placed by a counting sort into one
    // list, each group's run then sorted (records come in word order, so
    // mostly sorted already): bplustree's 28,000 records in 21,000 groups
    // took 16 ms with a vector of words per group, em's 98,304 in a few
    // groups 5 ms more as one sort of all. Per group its least record (its
    // note is the group's, whatever order the records come in).
    let mut index: FxHashMap<Key, u32> = FxHashMap::default();
    // Per group its least record, which also holds the group's key.
    let mut groups: Vec<Record> = Vec::new();
    let mut of: Vec<u32> = Vec::with_capacity(records.len());
    for r in records {
        let g = *index.entry(key(r)).or_insert_with(|| {
            groups.push(*r);
            groups.len() as u32 - 1
        });
        let least = &mut groups[g as usize];
        *least = (*least).min(*r);
        of.push(g);
    }
    drop(index);
    // Each group's words, as a range of `words`.
    let mut count = vec![0usize; groups.len()];
    for &g in &of {
        count[g as usize] += 1;
    }
    let starts: Vec<usize> = count
        .iter()
        .scan(0, |at, &n| {
            *at += n;
            Some(*at - n)
        })
        .collect();
    // Where each group's next word goes; once filled, where its run ends.
    let mut ends = starts.clone();
    let mut words = vec![0u32; records.len()];
    for (r, &g) in records.iter().zip(&of) {
        words[ends[g as usize]] = r.word;
        ends[g as usize] += 1;
    }
    for (&from, &to) in starts.iter().zip(&ends) {
        words[from..to].sort_unstable();
    }
    let mut order: Vec<u32> = (0..groups.len() as u32).collect();
    order.sort_unstable_by_key(|&g| key(&groups[g as usize]));
    let mut merged = Merged::default();
    for g in order {
        let least = groups[g as usize];
        let (level, round, region, target, grouped, kind, evidence, a, b) = key(&least);
        let (from, to) = (starts[g as usize], ends[g as usize]);
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for &w in &words[from..to] {
            match ranges.last_mut() {
                // A word recorded twice.
                Some(last) if w < last.1 => {}
                Some(last) if last.1 == w => last.1 = w + 1,
                _ => ranges.push((w, w + 1)),
            }
        }
        let units: Vec<Unit> = std::iter::once(a).chain(b).collect();
        let region = &regions[region as usize];
        if merged.join(&Shape { target, level, kind, evidence, region, words: &ranges, units: &units }) {
            continue;
        }
        let (variable, memory) = targets[target as usize].clone();
        let race = Race {
            kind,
            evidence,
            memory,
            variable,
            level,
            region: region.clone(),
            units,
            workgroups: vec![],
            words: ranges,
            places: vec![],
            note: note(&least),
            round,
            grouped,
            accesses: vec![],
        };
        merged.add(target, race);
    }
    merged.races
}

/// Level-2 races that differ only in their workgroup become one entry (in
/// the order of their first workgroup). Indexed by the hash of a race's
/// `Shape`, compared in place: a kernel whose every workgroup races on
/// words of its own makes tens of thousands of entries, and a key of its
/// own per race (two vectors) was 27-42 ms of bplustree's 21,000.
#[derive(Default)]
struct Merged {
    races: Vec<Race>,
    /// Per race, its target.
    targets: Vec<u32>,
    /// Per shape's hash, the level-2 races with it.
    index: FxHashMap<u64, Vec<u32>>,
}

/// What a level-2 race is but its workgroup: level, kind, evidence,
/// variable (its target), region, word ranges and the units' warps.
struct Shape<'r> {
    target: u32,
    level: Level,
    kind: RaceKind,
    evidence: Evidence,
    region: &'r Region,
    words: &'r [(u32, u32)],
    units: &'r [Unit],
}

impl Shape<'_> {
    fn of(target: u32, r: &Race) -> Shape<'_> {
        Shape { target, level: r.level, kind: r.kind, evidence: r.evidence, region: &r.region, words: &r.words, units: &r.units }
    }

    fn hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        (self.target, self.level, self.kind, self.evidence, self.region, self.words).hash(&mut h);
        for u in self.units {
            u.warp.hash(&mut h);
        }
        h.finish()
    }

    fn same(&self, o: &Shape) -> bool {
        (self.target, self.level, self.kind, self.evidence, self.region, self.words) == (o.target, o.level, o.kind, o.evidence, o.region, o.words)
            && self.units.len() == o.units.len()
            && self.units.iter().zip(o.units).all(|(x, y)| x.warp == y.warp)
    }
}

impl Merged {
    /// Adds a level-2 race's workgroup to the race of its shape already
    /// listed, if there is one.
    fn join(&mut self, shape: &Shape) -> bool {
        if shape.level == Level::InterWorkgroup {
            return false;
        }
        let Some(list) = self.index.get(&shape.hash()) else { return false };
        let same = |i: &&u32| shape.same(&Shape::of(self.targets[**i as usize], &self.races[**i as usize]));
        let Some(&i) = list.iter().find(same) else { return false };
        self.races[i as usize].workgroups.push(shape.units[0].workgroup);
        true
    }

    /// Lists a race `join` did not take.
    fn add(&mut self, target: u32, mut r: Race) {
        let i = self.races.len() as u32;
        if r.level != Level::InterWorkgroup {
            self.index.entry(Shape::of(target, &r).hash()).or_default().push(i);
            r.workgroups = vec![r.units[0].workgroup];
        }
        self.races.push(r);
        self.targets.push(target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(wg: u32, warp: Option<u32>) -> Unit {
        Unit { workgroup: [wg, 0, 0], warp }
    }

    fn record(level: Level, target: u32, a: Unit, b: Option<Unit>, word: u32) -> Record {
        Record {
            kind: RaceKind::WriteWrite,
            evidence: Evidence::Writes,
            level,
            target,
            region: 1,
            unit_a: a,
            unit_b: b,
            word,
            cross: false,
            round: 1,
            grouped: false,
        }
    }

    fn races(records: &[Record]) -> Vec<Race> {
        let targets = vec![("a".to_string(), Memory::Storage), ("b".to_string(), Memory::Workgroup)];
        let regions = vec![Region { from_line: None, to_line: None }, Region { from_line: Some(3), to_line: None }];
        // The note names the group's least record's word: it must not
        // depend on the records' order.
        aggregate(records, &targets, &regions, &|r: &Record| Some(format!("least word {}", r.word)))
    }

    #[test]
    fn a_groups_words_become_ranges_once_each_and_its_note_comes_from_its_least_record() {
        let (a, b) = (unit(0, Some(0)), Some(unit(0, Some(1))));
        let words = [6, 1, 0, 5, 1, 9, 0];
        let recs: Vec<Record> = words.iter().map(|&w| record(Level::InterWarp, 0, a, b, w)).collect();
        let r = races(&recs);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].words, vec![(0, 2), (5, 7), (9, 10)]);
        assert_eq!(r[0].note.as_deref(), Some("least word 0"));
        assert_eq!(r[0].workgroups, vec![[0, 0, 0]]);
    }

    #[test]
    fn level_two_races_that_differ_only_in_their_workgroup_are_one_entry() {
        let warps = |wg| (unit(wg, Some(0)), Some(unit(wg, Some(1))));
        let mut recs = Vec::new();
        // Workgroups 2 and 0 race on words 4..6 between warps 0 and 1;
        // workgroup 1 on other words; workgroup 3 between other warps.
        for wg in [2, 0] {
            let (a, b) = warps(wg);
            recs.extend([4, 5].map(|w| record(Level::InterWarp, 0, a, b, w)));
        }
        let (a, b) = warps(1);
        recs.push(record(Level::InterWarp, 0, a, b, 7));
        recs.push(record(Level::InterWarp, 0, unit(3, Some(0)), Some(unit(3, Some(2))), 4));
        // Level 1 is never merged: two pairs of workgroups on one word.
        recs.push(record(Level::InterWorkgroup, 0, unit(0, None), Some(unit(1, None)), 8));
        recs.push(record(Level::InterWorkgroup, 0, unit(0, None), Some(unit(2, None)), 8));
        let r = races(&recs);
        type Entry = (Level, Vec<(u32, u32)>, Vec<[u32; 3]>);
        let shapes: Vec<Entry> = r.iter().map(|x| (x.level, x.words.clone(), x.workgroups.clone())).collect();
        assert_eq!(
            shapes,
            vec![
                (Level::InterWorkgroup, vec![(8, 9)], vec![]),
                (Level::InterWorkgroup, vec![(8, 9)], vec![]),
                (Level::InterWarp, vec![(4, 6)], vec![[0, 0, 0], [2, 0, 0]]),
                (Level::InterWarp, vec![(7, 8)], vec![[1, 0, 0]]),
                (Level::InterWarp, vec![(4, 5)], vec![[3, 0, 0]]),
            ]
        );
        // The merged entry names its first workgroup's units.
        assert_eq!(r[2].units, vec![unit(0, Some(0)), unit(0, Some(1))]);
    }

    #[test]
    fn the_races_do_not_depend_on_the_records_order() {
        let mut recs = Vec::new();
        for wg in 0..5 {
            for w in [3, 1, 2, 1, 8] {
                recs.push(record(Level::InterWarp, wg % 2, unit(wg, Some(wg % 3)), Some(unit(wg, Some(3))), w + wg));
                recs.push(record(Level::IntraWarp, 1, unit(wg, Some(1)), None, w));
            }
        }
        let forward = races(&recs);
        recs.reverse();
        assert_eq!(races(&recs), forward);
        recs.rotate_left(7);
        assert_eq!(races(&recs), forward);
    }
}
