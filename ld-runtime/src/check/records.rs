//! From what the engine records to what the user reads: raw race records
//! (`ld_shaders::abi::record`, the same on both backends) become `Record`s
//! in canonical order, regions get their source lines, and the report
//! counts units, words and regions.

use super::plan::{LevelPlan, Plan};
use super::report::{self, BarrierLine, Buffers, Evidence, Level, Memory, RaceKind, Record, Region, Report, Unit};
use super::Target;
use crate::cpu::executor::unlinear;
use crate::cpu::twin::BarrierKind;
use crate::kernel::KernelInfo;
use crate::launch::Mode;
use crate::runtime::Backend;
use ld_shaders::abi::{record, NONE};

/// What a backend recorded.
#[derive(Clone, Debug, Default)]
pub(crate) struct Raw {
    /// Race records kept, [`record::WORDS`] words each.
    pub records: Vec<[u32; record::WORDS as usize]>,
    /// Race records counted (more than kept when the buffer overflowed).
    pub total: u64,
    /// `(from, to)` of every region some workgroup ran, barrier indices
    /// (`barriers` for the kernel's start or end): `from * (barriers + 1) + to`.
    pub regions: Vec<bool>,
}

impl Raw {
    pub fn new(barriers: u32) -> Self {
        Raw { records: vec![], total: 0, regions: vec![false; ((barriers + 1) * (barriers + 1)) as usize] }
    }
}

/// The static regions of a check: region 0 is level 1's whole dispatch,
/// then every (opening, closing) barrier pair that ran, in source order.
struct Regions {
    keys: Vec<(u32, u32)>,
    list: Vec<Region>,
}

impl Regions {
    fn new(info: &KernelInfo, raw: &Raw) -> Self {
        let nb = info.barriers.len() as u32;
        let line = |b: u32| (b < nb).then(|| info.barriers[b as usize].line);
        let mut keys: Vec<(u32, u32)> = (0..raw.regions.len() as u32).filter(|i| raw.regions[*i as usize]).map(|i| (i / (nb + 1), i % (nb + 1))).collect();
        // The kernel's start before any barrier, its end after.
        keys.sort_by_key(|&(from, to)| (if from == nb { -1 } else { from as i64 }, to));
        let mut list = vec![Region { from_line: None, to_line: None }];
        list.extend(keys.iter().map(|&(from, to)| Region { from_line: line(from), to_line: line(to) }));
        Regions { keys, list }
    }

    fn id(&self, region: u32, nb: u32) -> u32 {
        let (from, to) = (region >> 16, region & 0xffff);
        let clamp = |b: u32| if b == record::NO_BARRIER { nb } else { b };
        self.keys.iter().position(|k| *k == (clamp(from), clamp(to))).map_or(0, |i| i as u32 + 1)
    }
}

/// The report of a check (`plan`), or of exact mode's access monitoring
/// (no plan: every unit is itself, and the evidence is the accesses).
#[allow(clippy::too_many_arguments)]
pub(crate) fn report(
    info: &KernelInfo,
    grid: [u32; 3],
    targets: &[Target],
    raw: &Raw,
    plan: Option<&Plan>,
    warp_size: u32,
    max_records: usize,
    backend: Backend,
    elapsed_ms: f64,
) -> Report {
    let nb = info.barriers.len() as u32;
    let regions = Regions::new(info, raw);
    let p2 = plan.map(|p| p.level2);
    let mut records: Vec<Record> = raw
        .records
        .iter()
        .map(|r| {
            let level1 = r[record::KIND as usize] & record::LEVEL1 != 0;
            let round = r[record::ROUND as usize];
            let unit = |x: u32| -> Option<Unit> {
                if x == NONE {
                    return None;
                }
                Some(if level1 {
                    let w = unlinear(x as u64, grid);
                    Unit { workgroup: [w.x, w.y, w.z], warp: None }
                } else {
                    let w = unlinear(r[record::WG as usize] as u64, grid);
                    Unit { workgroup: [w.x, w.y, w.z], warp: Some(p2.map_or(x, |p2| p2.first_unit(x as u64, round) as u32)) }
                })
            };
            let kind = r[record::KIND as usize];
            Record {
                kind: if kind & record::RW != 0 { RaceKind::ReadWrite } else { RaceKind::WriteWrite },
                evidence: if p2.is_none() {
                    Evidence::Access
                } else if kind & record::INTRA != 0 {
                    Evidence::Lanes
                } else if kind & record::BEFORE != 0 {
                    Evidence::ReadBefore
                } else if kind & record::READ != 0 {
                    Evidence::Read
                } else {
                    Evidence::Writes
                },
                level: if level1 {
                    Level::InterWorkgroup
                } else if kind & record::INTRA != 0 {
                    Level::IntraWarp
                } else {
                    Level::InterWarp
                },
                target: r[record::TARGET as usize],
                region: if level1 { 0 } else { regions.id(r[record::REGION as usize], nb) },
                unit_a: unit(r[record::A as usize]).unwrap(),
                unit_b: unit(r[record::B as usize]),
                word: r[record::WORD as usize],
                cross: kind & record::CROSS != 0,
                round,
                grouped: !level1 && p2.is_some_and(|p2| !p2.exact(round)),
            }
        })
        .collect();
    let total = raw.total.max(records.len() as u64);
    // The first `max_records` in order are kept; the grouping puts the rest
    // in order itself (a racy kernel gives tens of thousands of records,
    // too many to sort whole at every check).
    if records.len() > max_records {
        records.select_nth_unstable(max_records);
        records.truncate(max_records);
    }
    let has_sb = info.barriers.iter().any(|b| b.kind == BarrierKind::Storage);
    let names: Vec<(String, Memory)> = targets.iter().map(|t| (t.name.to_string(), t.memory)).collect();
    let note = |r: &Record| {
        // Exact mode watches lanes one by one: nothing depends on their order.
        if r.evidence == Evidence::Access && r.level == Level::IntraWarp {
            None
        } else {
            super::note(r.level, names[r.target as usize].1, r.cross, r.kind, r.evidence == Evidence::ReadBefore, has_sb)
        }
    };
    let mut races = report::aggregate(&records, &names, &regions.list, &note);
    // Named once per word: races share words (a racy kernel can give tens
    // of thousands of races on a thousand words, too many names to format
    // race by race).
    let mut named: rustc_hash::FxHashMap<(usize, u32), String> = rustc_hash::FxHashMap::default();
    for race in &mut races {
        if let Some(i) = targets.iter().position(|t| t.name == race.variable && t.memory == race.memory) {
            let place = |w: u32| named.entry((i, w)).or_insert_with(|| targets[i].place(w)).clone();
            race.places = race.words.iter().flat_map(|&(a, b)| a..b).take(report::PLACES).map(place).collect();
        }
    }
    let mut units = rustc_hash::FxHashSet::default();
    let mut words = rustc_hash::FxHashSet::default();
    let mut raced = rustc_hash::FxHashSet::default();
    for r in &records {
        units.insert((r.level, r.unit_a));
        if let Some(b) = r.unit_b {
            units.insert((r.level, b));
        }
        words.insert((r.target, r.word));
        raced.insert(r.region);
    }
    let level1_ran = plan.is_none_or(|p| p.level1.is_some());
    // Rounds cut short (`max_rounds`) leave some pairs of warps unseparated.
    let partial = p2.filter(LevelPlan::cut_short);
    let buffers = if let (0, Some(p)) = (total, partial) {
        Buffers::AsNativeIfUnchecked { not_checked: p.rounds - p.rounds_run, rounds: p.rounds }
    } else if total == 0 {
        Buffers::AsNative
    } else {
        Buffers::Merged
    };
    Report {
        kernel: info.name.into(),
        backend,
        mode: Mode::Check,
        warp_size,
        workgroups: grid.iter().product(),
        warps_per_workgroup: info.invocations_per_workgroup().div_ceil(warp_size),
        checked: super::checked(info, grid, targets),
        barriers: info
            .barriers
            .iter()
            .map(|b| BarrierLine {
                line: b.line,
                kind: match b.kind {
                    BarrierKind::Workgroup => Memory::Workgroup,
                    BarrierKind::Storage => Memory::Storage,
                },
            })
            .collect(),
        regions_analyzed: regions.list.len() as u32 - (!level1_ran) as u32,
        regions_with_races: raced.len() as u32,
        units_with_races: units.len() as u32,
        words_with_races: words.len() as u64,
        race_records: total,
        records_dropped: total - records.len() as u64,
        races,
        buffers,
        elapsed_ms,
        plan: plan.cloned(),
        stats: None,
        out_of_bounds: vec![],
    }
}
