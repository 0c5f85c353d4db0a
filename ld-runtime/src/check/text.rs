//! A report as a person reads it: a summary first, then the races grouped
//! by what a programmer fixes (variable, kind, level, region and the source
//! sites of the accesses), each group one diagnostic rendered as rustc
//! renders its own (codespan-reporting: the source lines with the racing
//! accesses marked), up to a cap; the exact totals are always printed.

use super::report::{Access, AccessKind, Evidence, Level, Race, RaceKind, Report, Unit};
use crate::launch::Mode;
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use std::fmt::{self, Write};

/// Groups shown in detail; the others are counted.
const MAX_GROUPS: usize = 12;
/// Units, workgroups and word ranges named per group.
const SHOWN: usize = 4;

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.mode == Mode::Exact { " (exact mode: access monitoring on the CPU)" } else { "" };
        writeln!(f, "ld check: kernel `{}` on {}{how}", self.kernel, self.backend)?;
        writeln!(f, "  units: {} workgroups x {} warps of {} invocations", self.workgroups, self.warps_per_workgroup, self.warp_size)?;
        let checked: Vec<String> = self.checked.iter().map(|c| format!("{} ({}, {})", c.name, c.memory.name(), c.treatment)).collect();
        writeln!(f, "  checked: {}", if checked.is_empty() { "nothing (no memory is written)".into() } else { checked.join(", ") })?;
        if let Some(p) = self.plan.as_ref().map(|p| p.level2).filter(|p| p.cut_short()) {
            writeln!(
                f,
                "  coverage: {} of {} rounds checked (CheckOptions::max_rounds): a race between two warps that shared a copy in every round checked is not seen; P(found) for one racing pair {:.0}%",
                p.rounds_run,
                p.rounds,
                100.0 * p.p_within(p.rounds_run)
            )?;
        }
        if !self.has_races() {
            writeln!(f, "  no races found ({} regions analysed)", self.regions_analyzed)?;
        } else if self.races.is_empty() {
            writeln!(
                f,
                "  RACES: {} racing unit-word records, none detailed: the record buffer had no room for one (raise CheckOptions::max_records to see them)",
                self.race_records
            )?;
        } else {
            let groups = groups(&self.races);
            writeln!(f, "  RACES: {}", summary(self, &groups))?;
            for g in groups.iter().take(MAX_GROUPS) {
                writeln!(f)?;
                f.write_str(&diagnostic(g))?;
            }
            if groups.len() > MAX_GROUPS {
                let rest: usize = groups[MAX_GROUPS..].iter().map(|g| g.len()).sum();
                writeln!(f, "\n  ({} more groups of {rest} races not shown: `Report::races` and the JSON report have every one)", groups.len() - MAX_GROUPS)?;
            }
            if self.records_dropped > 0 {
                writeln!(f, "  ({} race records beyond the record buffer were counted but not detailed)", self.records_dropped)?;
            }
        }
        if !self.out_of_bounds.is_empty() {
            writeln!(f)?;
        }
        for o in &self.out_of_bounds {
            f.write_str(&o.diagnostic())?;
        }
        write!(f, "  buffers: {}", self.buffers)
    }
}

type Sites = Vec<(AccessKind, u32, u32)>;

/// Races that differ only in their units and words, in report order.
fn groups(races: &[Race]) -> Vec<Vec<&Race>> {
    let sites = |r: &Race| -> Sites {
        let mut s: Sites = r.accesses.iter().map(|a| (a.kind, a.line, a.column)).collect();
        s.dedup();
        s
    };
    let key = |r: &Race| (r.variable.clone(), r.kind, r.evidence, r.level, r.region.clone(), r.note.clone(), sites(r));
    let mut out: Vec<Vec<&Race>> = Vec::new();
    for r in races {
        match out.iter_mut().find(|g| key(g[0]) == key(r)) {
            Some(g) => g.push(r),
            None => out.push(vec![r]),
        }
    }
    out
}

/// One paragraph: totals, then each variable's groups.
fn summary(r: &Report, groups: &[Vec<&Race>]) -> String {
    // Units and words are counted over the detailed records: past a full
    // record buffer, a lower bound.
    let at_least = if r.records_dropped > 0 { "at least " } else { "" };
    let mut s = format!(
        "{} races in {} ({} racing unit-word records) in {} of {} regions analysed; {at_least}{} units and {} words involved.",
        r.races.len(),
        if groups.len() == 1 { "1 group".to_string() } else { format!("{} groups", groups.len()) },
        r.race_records,
        r.regions_with_races,
        r.regions_analyzed,
        r.units_with_races,
        r.words_with_races
    );
    let mut vars: Vec<&str> = groups.iter().map(|g| g[0].variable.as_str()).collect();
    vars.dedup();
    for v in vars {
        let kinds: Vec<String> =
            groups.iter().filter(|g| g[0].variable == v).map(|g| format!("{} {}{} x{}", kind(g[0]).0, g[0].level.name(), lines(g[0]), g.len())).collect();
        let _ = write!(s, " `{v}`: {}.", kinds.join(", "));
    }
    if r.lane_order_dependent() {
        s.push_str(" Lanes of one warp raced: the other entries may differ between devices.");
    }
    s
}

/// ` at lines 43, 69`: the lines of a race's accesses.
fn lines(r: &Race) -> String {
    let mut l: Vec<u32> = r.accesses.iter().map(|a| a.line).collect();
    l.sort();
    l.dedup();
    match l.len() {
        0 => String::new(),
        1 => format!(" at line {}", l[0]),
        _ => format!(" at lines {}", l.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

fn kind(r: &Race) -> (&'static str, &'static str) {
    match (r.kind, r.evidence) {
        (RaceKind::WriteWrite, _) => ("write-write", "words"),
        (RaceKind::ReadWrite, Evidence::Writes) => ("read-write", "words written"),
        (RaceKind::ReadWrite, Evidence::Read | Evidence::ReadBefore | Evidence::Lanes) => ("read-write", "words read"),
        (RaceKind::ReadWrite, Evidence::Access) => ("read-write", "words"),
    }
}

/// Who raced, as the level names its units.
fn who(r: &Race) -> String {
    let units: Vec<String> = match r.level {
        Level::InterWarp => r.units.iter().map(|u| format!("warp {}", u.warp.unwrap_or(0))).collect(),
        Level::IntraWarp => r.units.iter().map(|u| format!("lanes of warp {}", u.warp.unwrap_or(0))).collect(),
        Level::InterWorkgroup => r.units.iter().map(|u| u.to_string()).collect(),
    };
    match (r.evidence, units.as_slice()) {
        (Evidence::Read, [reader]) if r.level == Level::InterWarp => format!("{reader} read another warp's write"),
        (Evidence::Read, [reader]) => format!("{reader} read another workgroup's write"),
        (Evidence::ReadBefore, [reader]) => format!("{reader} read a word another warp wrote after the barrier"),
        _ => units.join(" and "),
    }
}

fn workgroups(g: &[&Race]) -> String {
    let mut wgs: Vec<[u32; 3]> = g.iter().flat_map(|r| r.workgroups.iter().copied()).collect();
    wgs.sort();
    wgs.dedup();
    let named = |w: &[u32; 3]| Unit { workgroup: *w, warp: None }.to_string();
    match wgs.len() {
        0 => String::new(),
        1 => format!(", in {}", named(&wgs[0])),
        n => format!(", in {n} workgroups ({}{})", wgs.iter().take(SHOWN).map(named).collect::<Vec<_>>().join(", "), if n > SHOWN { ", ..." } else { "" }),
    }
}

/// The group's header: kind, memory, variable, level, and who.
fn header(g: &[&Race]) -> String {
    let r = g[0];
    let mut all: Vec<String> = g.iter().map(|r| who(r)).collect();
    all.dedup();
    let who = match all.len() {
        1 if g.len() == 1 => all.remove(0),
        1 => format!("{} ({} races)", all[0], g.len()),
        n => format!("{n} pairs: {}{}", all[..n.min(SHOWN)].join("; "), if n > SHOWN { "; ..." } else { "" }),
    };
    format!("{} race on {} `{}` ({}): {who}{}", kind(r).0, r.memory.name(), r.variable, r.level.name(), workgroups(g))
}

/// The words of a group's races as one set of ranges, and how many.
fn union(g: &[&Race]) -> (Vec<(u32, u32)>, u64) {
    let mut all: Vec<(u32, u32)> = g.iter().flat_map(|r| r.words.iter().copied()).collect();
    all.sort();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (a, b) in all {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    let count = out.iter().map(|(a, b)| (b - a) as u64).sum();
    (out, count)
}

/// The places of a group's races, as many as one race names at most: the
/// group's words line is their union, so its places line is too.
fn places<'a>(g: &[&'a Race]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for p in g.iter().flat_map(|r| &r.places) {
        if out.len() == super::report::PLACES {
            break;
        }
        if !out.contains(&p.as_str()) {
            out.push(p);
        }
    }
    out
}

fn ranges(words: &[(u32, u32)]) -> String {
    let shown: Vec<String> = words.iter().take(8).map(|(a, b)| if b - a == 1 { format!("{a}") } else { format!("{a}..{b}") }).collect();
    let more = if words.len() > 8 { format!(" (+{} more ranges)", words.len() - 8) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// The group as a diagnostic: header, the racing accesses marked in the
/// source, then region, words and notes.
fn diagnostic(g: &[&Race]) -> String {
    let r = g[0];
    let mut notes = vec![format!("region: {}", r.region)];
    let (words, count) = union(g);
    notes.push(format!("{}: {} ({count} in all)", kind(r).1, ranges(&words)));
    let places = places(g);
    if !places.is_empty() {
        let more = if count > places.len() as u64 { ", ..." } else { "" };
        notes.push(format!("places: {}{more}", places.join(", ")));
    }
    if let Some(n) = &r.note {
        notes.push(format!("note: {n}"));
    }
    if r.grouped {
        notes.push(format!("found in round {} under the memory budget: each unit named stands for the group sharing its copy in that round", r.round));
    }
    if r.accesses.is_empty() && r.evidence != Evidence::Access {
        notes.push("source lines: not found (CheckOptions::sources is off, or re-running the racing workgroups natively on the CPU did not reach these words: where a racy read steers the writes, the native run read another value than the check's warps, each on its own copy, did)".into());
    }
    let mut files = SimpleFiles::new();
    let labels = labels(&r.accesses, &r.variable, &mut files);
    let d = Diagnostic::warning().with_message(header(g)).with_labels(labels).with_notes(notes);
    let config = term::Config::default();
    term::emit_into_string(&config, &files, &d).unwrap_or_else(|e| format!("warning: {} ({e})\n", header(g)))
}

/// Each access as a label under its expression: the first write primary.
fn labels(accesses: &[Access], variable: &str, files: &mut SimpleFiles<String, String>) -> Vec<Label<usize>> {
    let mut by_file: Vec<(String, usize, Vec<&Access>)> = Vec::new();
    for a in accesses {
        match by_file.iter_mut().find(|(f, _, _)| *f == a.file) {
            Some(e) => e.2.push(a),
            None => by_file.push((a.file.clone(), 0, vec![a])),
        }
    }
    let mut labels = Vec::new();
    for (file, _, list) in &by_file {
        // The file as far as these lines, with the lines not shown empty:
        // codespan numbers lines from the text.
        let last = list.iter().map(|a| a.line).max().unwrap_or(1) as usize;
        let mut lines = vec![String::new(); last];
        for a in list {
            lines[a.line as usize - 1] = a.source.clone();
        }
        let mut starts = Vec::with_capacity(last);
        let mut text = String::new();
        for l in &lines {
            starts.push(text.len());
            text.push_str(l);
            text.push('\n');
        }
        let id = files.add(file.clone(), text);
        for a in list {
            let line = &lines[a.line as usize - 1];
            let (from, to) = expression(line, a.column);
            let start = starts[a.line as usize - 1];
            let what = match a.kind {
                AccessKind::Write => "write",
                AccessKind::Read => "read",
            };
            let [x, y, z] = a.global_id;
            let ids = |[x, y, z]: [u32; 3]| if y == 0 && z == 0 { format!("{x}") } else { format!("({x},{y},{z})") };
            let gid = format!("{}, local id {}", ids([x, y, z]), ids(a.local_id));
            let of = if a.variable == variable { String::new() } else { format!(" of `{}`", a.variable) };
            let msg = format!("{what}{of} by {} (global id {gid}){}", a.unit, if a.count > 1 { format!(", {} times", a.count) } else { String::new() });
            let primary = labels.is_empty();
            let label = if primary { Label::primary(id, start + from..start + to) } else { Label::secondary(id, start + from..start + to) };
            labels.push(label.with_message(msg));
        }
    }
    labels
}

/// The byte range of the expression starting at 1-based char `column`: a
/// path with its index brackets (`s[i + 1].x`), or one character.
pub(crate) fn expression(line: &str, column: u32) -> (usize, usize) {
    let Some((from, _)) = line.char_indices().nth(column.saturating_sub(1) as usize) else { return (0, 0) };
    let bytes = line.as_bytes();
    let mut end = from;
    let mut depth = 0;
    while end < bytes.len() {
        let c = bytes[end];
        match c {
            b'[' | b'(' => depth += 1,
            b']' | b')' if depth > 0 => depth -= 1,
            b']' | b')' => break,
            _ if depth > 0 => {}
            b'.' => {}
            _ if c.is_ascii_alphanumeric() || c == b'_' => {}
            _ => break,
        }
        end += 1;
    }
    (from, end.max(from + 1).min(bytes.len().max(from)))
}

#[cfg(test)]
mod tests {
    use super::expression;

    #[test]
    fn expressions_extend_over_paths_and_indices() {
        let l = "    s[i + 1].x = a[j] * 2;";
        assert_eq!(&l[expression(l, 5).0..expression(l, 5).1], "s[i + 1].x");
        assert_eq!(&l[expression(l, 18).0..expression(l, 18).1], "a[j]");
        assert_eq!(expression("", 3), (0, 0));
    }
}
