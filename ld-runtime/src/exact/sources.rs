//! Source locations of races: which accesses, where in the kernel, by
//! which invocations. Exact mode has them from its own log; a check finds
//! racing words by value and gets them by running the racing workgroups
//! again on the CPU from the launch's input, monitoring only those words.

use super::{Only, Pair};
use crate::check::report::{Access, AccessKind, Level, Race, RaceKind, Report, Unit};
use crate::check::Target;
use crate::cpu::executor::{linear, unlinear, CpuLaunch, WorkgroupError};
use crate::kernel::KernelInfo;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Racing words and workgroups re-run at most, however many raced: the
/// sources of the first ones are what a person reads.
const MAX_WORDS: usize = 1 << 16;
const MAX_WORKGROUPS: usize = 64;
/// Workgroups re-run to find the writer a racy read between workgroups
/// read from (the check names only the reader).
const MAX_SEARCH: u64 = 256;
/// Access sites listed per race.
const MAX_SITES: usize = 8;

/// Finds the accesses behind a check's races: runs the racing workgroups
/// on the CPU (`l` holds the launch's input) watching the racing words,
/// and attaches them to the report's races.
pub(crate) fn locate(report: &mut Report, l: &CpuLaunch, targets: &[Target], warp_size: u32) -> Result<(), WorkgroupError> {
    let only = only(report, l, targets);
    if only.workgroups.is_empty() {
        return Ok(());
    }
    let start = std::time::Instant::now();
    let seen = super::run(l, warp_size, Some(&only))?;
    attach(report, &seen.pairs, l.info, l.grid, targets, warp_size);
    log::debug!(
        "ld: the sources of `{}`'s races: {} workgroups run again on the CPU, watching {} words, in {:.1?}",
        l.info.name,
        only.workgroups.len(),
        only.words.len(),
        start.elapsed()
    );
    Ok(())
}

fn only(report: &Report, l: &CpuLaunch, targets: &[Target]) -> Only {
    let mut words = HashSet::default();
    let mut workgroups = Vec::new();
    let mut search = false;
    for r in &report.races {
        let Some(t) = targets.iter().position(|t| t.name == r.variable) else { continue };
        for &(a, b) in &r.words {
            for w in a..b {
                if words.len() < MAX_WORDS {
                    words.insert((t as u32, w));
                }
            }
        }
        // A race between workgroups needs both; one inside a workgroup,
        // the first it happened in: `attach` looks there for its own units
        // (a second one would re-run the workgroup again, as much again as
        // the report costs, for the same accesses).
        let wgs: Vec<[u32; 3]> = match r.level {
            Level::InterWorkgroup => r.units.iter().map(|u| u.workgroup).collect(),
            _ => r.workgroups.iter().copied().chain(r.units.iter().map(|u| u.workgroup)).take(1).collect(),
        };
        search |= r.level == Level::InterWorkgroup && r.units.len() < 2;
        for w in wgs {
            let w = linear(w, l.grid);
            if !workgroups.contains(&w) && workgroups.len() < MAX_WORKGROUPS {
                workgroups.push(w);
            }
        }
    }
    if search {
        workgroups.extend((0..l.workgroup_count().min(MAX_SEARCH)).filter(|w| !workgroups.contains(w)).collect::<Vec<_>>());
    }
    workgroups.sort();
    Only::new(words, workgroups, targets.len())
}

/// Gives every race the access sites of the pairs on its words: those of
/// its own units where the monitor saw them, else any on those words.
pub(crate) fn attach(report: &mut Report, pairs: &[Pair], info: &KernelInfo, grid: [u32; 3], targets: &[Target], warp_size: u32) {
    let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
    // The pairs by word, so each race looks at its own (a report may hold
    // thousands of races over millions of pairs).
    let mut by_word: HashMap<(u32, u32), Vec<&Pair>> = HashMap::default();
    // Level 2's by target, word and workgroup: only its own workgroup's
    // pairs can be a level-2 race's own (a word can hold thousands of
    // pairs, too many for each of its races to look at them all).
    let mut within: HashMap<(u32, u32, u32), Vec<&Pair>> = HashMap::default();
    // Level 1's by target and workgroups: a race between two workgroups
    // finds its own pairs there (backprop: 50 races, each on the same 256
    // words as all the others, 12,800 pairs).
    let mut between: HashMap<(u32, u32, u32), Vec<&Pair>> = HashMap::default();
    for p in pairs {
        by_word.entry((p.target, p.word)).or_default().push(p);
        if p.level1 {
            between.entry((p.target, p.workgroups.0, p.workgroups.1)).or_default().push(p);
        } else {
            within.entry((p.target, p.word, p.workgroups.0)).or_default().push(p);
        }
    }
    let mut lines = Lines { info, text: HashMap::default() };
    // A race with no pair of its own units (between its two workgroups, of
    // its kind on its words; or in its workgroup, between its warps): no
    // pair elsewhere has its units either, so its best pairs (of its kind
    // elsewhere, or of its level) depend on its words, level and kind
    // alone, and races that share those share their accesses (a word's
    // many races between warps need not each look at all of its pairs).
    let mut alike: HashMap<Alike, Vec<Access>> = HashMap::default();
    for race in &mut report.races {
        let Some(t) = targets.iter().position(|t| t.name == race.variable) else { continue };
        let t = t as u32;
        if let Some(chosen) = own_between(race, t, &between, grid) {
            race.accesses = accesses(&chosen, &mut lines, grid, warp_size, &names);
            continue;
        }
        let fits = Fits { race, own: Own::of(race, grid), info, grid, warp_size };
        // A level-2 race's own units are in its first workgroup: the best
        // fit there, if it is its own units, is the best of all.
        if race.level != Level::InterWorkgroup {
            let wg = fits.own.workgroup;
            let (best, there) = fits.best(|w| within.get(&(t, w, wg)));
            if best <= Fit::OwnUnits {
                race.accesses = accesses(&there, &mut lines, grid, warp_size, &names);
                continue;
            }
        }
        // (A race between workgroups that names one alone takes any pair
        // with it: its best depends on its unit.)
        let level1 = race.level == Level::InterWorkgroup;
        let key = (!level1 || race.units.len() == 2).then(|| (t, race.words.clone(), level1, race.kind));
        if let Some(found) = key.as_ref().and_then(|k| alike.get(k)) {
            race.accesses = found.clone();
            continue;
        }
        let chosen = fits.best(|w| by_word.get(&(t, w))).1;
        race.accesses = accesses(&chosen, &mut lines, grid, warp_size, &names);
        if let Some(k) = key {
            alike.insert(k, race.accesses.clone());
        }
    }
}

/// What the accesses of a race with no pair of its own units depend on
/// (`attach`): its target, words, level (between workgroups or not) and
/// kind.
type Alike = (u32, Vec<(u32, u32)>, bool, RaceKind);

/// How well pairs fit one race.
struct Fits<'r> {
    race: &'r Race,
    own: Own,
    info: &'r KernelInfo,
    grid: [u32; 3],
    warp_size: u32,
}

impl Fits<'_> {
    /// The pairs on the race's words (`pairs`: a word's) that fit it best
    /// (`Fit`), in one pass, the race's warps collected once: a report's
    /// races can number tens of thousands over as many pairs.
    fn best<'p, 'i>(&self, pairs: impl Fn(u32) -> Option<&'i Vec<&'p Pair>>) -> (Fit, Vec<&'p Pair>)
    where
        'p: 'i,
    {
        let (mut best, mut chosen) = (Fit::Word, Vec::new());
        for &p in self.race.words.iter().flat_map(|&(a, b)| a..b).take(MAX_WORDS).filter_map(pairs).flatten() {
            let fit = fit(self.race, &self.own, p, self.info, self.grid, self.warp_size);
            if fit < best {
                best = fit;
                chosen.clear();
            }
            if fit == best {
                chosen.push(p);
            }
        }
        (best, chosen)
    }
}

/// A race between two workgroups: the pairs between them on its words
/// and of its kind, in word order (level 1's pairs come sorted by word),
/// where there are any: they are the best fit (`Fit::OwnRegion`: level 1
/// has no regions).
fn own_between<'p>(race: &Race, t: u32, between: &'p HashMap<(u32, u32, u32), Vec<&'p Pair>>, grid: [u32; 3]) -> Option<Vec<&'p Pair>> {
    let [a, b] = race.units.as_slice() else { return None };
    if race.level != Level::InterWorkgroup {
        return None;
    }
    let (a, b) = (linear(a.workgroup, grid) as u32, linear(b.workgroup, grid) as u32);
    let on = between.get(&(t, a.min(b), a.max(b)))?;
    // The words `attach` looks at: the race's first MAX_WORDS.
    let last = race.words.iter().flat_map(|&(a, b)| a..b).take(MAX_WORDS).last()?;
    let on_race = |w: u32| w <= last && race.words.get(race.words.partition_point(|&(_, b)| b <= w)).is_some_and(|&(a, _)| a <= w);
    let ww = race.kind == RaceKind::WriteWrite;
    let own: Vec<&Pair> = on.iter().copied().filter(|p| (p.first.write && p.second.write) == ww && on_race(p.word)).collect();
    (!own.is_empty()).then_some(own)
}

/// How well a pair on a race's words stands for the race, best first: in
/// the race's own region, between its own units, of its kind, of its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    OwnRegion,
    OwnUnits,
    Kind,
    Level,
    Word,
}

fn fit(race: &Race, own: &Own, p: &Pair, info: &KernelInfo, grid: [u32; 3], warp_size: u32) -> Fit {
    if p.level1 != (race.level == Level::InterWorkgroup) {
        Fit::Word
    } else if (p.first.write && p.second.write) != (race.kind == RaceKind::WriteWrite) {
        Fit::Level
    } else if !own_units(race, own, p, grid, warp_size) {
        Fit::Kind
    } else if !in_region(race, p, info) {
        Fit::OwnUnits
    } else {
        Fit::OwnRegion
    }
}

/// The kernel's source lines, each read once per report.
struct Lines<'i> {
    info: &'i KernelInfo,
    text: HashMap<u32, String>,
}

impl Lines<'_> {
    fn line(&mut self, line: u32) -> String {
        let info = self.info;
        self.text.entry(line).or_insert_with(|| info.source.line(line).unwrap_or_default()).clone()
    }
}

/// Whether a pair's second access lies in the race's region.
fn in_region(race: &Race, p: &Pair, info: &KernelInfo) -> bool {
    if p.level1 {
        return true;
    }
    let line = |b: u32| info.barriers.get(b as usize).map(|x| x.line);
    (line(p.region >> 16), line(p.region & 0xffff)) == (race.region.from_line, race.region.to_line)
}

fn unit(wg: u32, li: u32, level1: bool, grid: [u32; 3], warp_size: u32) -> Unit {
    unit_at(wg, (!level1).then_some(li / warp_size), grid)
}

/// The unit of a linear workgroup and (level 2) a warp.
fn unit_at(wg: u32, warp: Option<u32>, grid: [u32; 3]) -> Unit {
    let w = unlinear(wg as u64, grid);
    Unit { workgroup: [w.x, w.y, w.z], warp }
}

/// A race's units as `own_units` compares them, taken once per race.
struct Own {
    /// Level 2: the workgroup the race names first, linear (as pairs name
    /// theirs).
    workgroup: u32,
    /// Level 2: the units' warps (one or two).
    warps: [Option<u32>; 2],
    count: usize,
}

impl Own {
    fn of(race: &Race, grid: [u32; 3]) -> Own {
        let mut warps = [None; 2];
        for (w, u) in warps.iter_mut().zip(&race.units) {
            *w = u.warp;
        }
        let workgroup = race.units.first().map_or(0, |u| linear(u.workgroup, grid) as u32);
        Own { workgroup, warps, count: race.units.len() }
    }
}

/// Whether a pair is between the race's own units.
fn own_units(race: &Race, own: &Own, p: &Pair, grid: [u32; 3], ws: u32) -> bool {
    if race.level == Level::InterWorkgroup {
        let a = unit(p.workgroups.0, p.first.li, p.level1, grid, ws);
        let b = unit(p.workgroups.1, p.second.li, p.level1, grid, ws);
        return race.units.iter().all(|u| *u == a || *u == b);
    }
    // In the first workgroup the race names, between its warps (both
    // accesses of a level-2 pair are in one workgroup).
    if p.workgroups.0 != own.workgroup {
        return false;
    }
    let (a, b) = (Some(p.first.li / ws), Some(p.second.li / ws));
    let pair = [a, b];
    match (race.level, own.count) {
        (Level::IntraWarp, 1) => pair == [own.warps[0], own.warps[0]],
        (_, 2) => a != b && (pair == own.warps || pair == [own.warps[1], own.warps[0]]),
        // The reader only: whoever wrote, from another warp.
        (_, 1) => a != b && pair.contains(&own.warps[0]),
        _ => false,
    }
}

/// The distinct (kind, site, unit) of the pairs' accesses, each with one
/// invocation that made it and how many accesses in the pairs it stands for.
fn accesses(pairs: &[&Pair], lines: &mut Lines, grid: [u32; 3], ws: u32, names: &[&str]) -> Vec<Access> {
    let info = lines.info;
    let level1 = pairs.first().is_some_and(|p| p.level1);
    // (kind, line, column, unit, target) -> (an invocation, accesses):
    // hashed by linear workgroup, then put in order (a race's pairs can
    // number tens of thousands, and a tree is too slow for that).
    type Site = (AccessKind, u32, u32, Unit, u32);
    // The site with the unit as (linear workgroup, warp).
    type Hashed = (AccessKind, u32, u32, u32, Option<u32>, u32);
    let mut counted: HashMap<Hashed, (u32, u32)> = HashMap::default();
    for p in pairs {
        for (wg, acc) in [(p.workgroups.0, p.first), (p.workgroups.1, p.second)] {
            let kind = if acc.write { AccessKind::Write } else { AccessKind::Read };
            let warp = (!level1).then_some(acc.li / ws);
            counted.entry((kind, acc.site.0, acc.site.1, wg, warp, p.target)).or_insert((acc.li, 0)).1 += 1;
        }
    }
    let mut sites: Vec<(Site, (u32, u32))> =
        counted.into_iter().map(|((kind, line, column, wg, warp, target), v)| ((kind, line, column, unit_at(wg, warp, grid), target), v)).collect();
    sites.sort_unstable_by_key(|&(k, _)| k);
    let wg_size = info.workgroup_size;
    sites
        .into_iter()
        .take(MAX_SITES)
        .map(|((kind, line, column, u, target), (li, count))| {
            let lid = unlinear(li as u64, wg_size);
            let w = u.workgroup;
            Access {
                kind,
                variable: names[target as usize].to_string(),
                file: info.source.file.to_string(),
                line,
                column,
                source: lines.line(line),
                unit: u,
                global_id: [w[0] * wg_size[0] + lid.x, w[1] * wg_size[1] + lid.y, w[2] * wg_size[2] + lid.z],
                local_id: [lid.x, lid.y, lid.z],
                count,
            }
        })
        .collect()
}
