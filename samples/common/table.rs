//! Table VI of the paper, measured: one row per program from its check reports.

use super::app::{App, Flags, PaperRow};
use ld::{Mode, RaceKind, Report, Runtime};
use std::collections::BTreeSet;

/// A program's check-mode findings in the paper's columns.
pub struct Row {
    pub name: &'static str,
    pub paper: PaperRow,
    pub differs: &'static str,
    pub race: bool,
    pub kinds: BTreeSet<&'static str>,
    pub scopes: BTreeSet<&'static str>,
    pub units: u32,
    pub analysed: u32,
    pub with_races: u32,
    pub words: u64,
    pub native_ms: f64,
    pub check_ms: f64,
    /// Deterministic mode on the same inputs, in the same process.
    pub det_ms: f64,
    /// Exact mode (access monitoring on the CPU), when measured.
    pub exact_ms: Option<f64>,
}

impl Row {
    pub fn from_reports<A: App>(reports: &[Report], native_ms: f64, check_ms: f64, det_ms: f64) -> Row {
        let mut kinds = BTreeSet::new();
        let mut scopes = BTreeSet::new();
        for r in reports.iter().flat_map(|r| &r.races) {
            kinds.insert(match r.kind {
                RaceKind::WriteWrite => "ww",
                RaceKind::ReadWrite => "rw",
            });
            scopes.insert(match format!("{:?}", r.memory).as_str() {
                "Workgroup" => "shared",
                _ => "global",
            });
        }
        Row {
            name: A::NAME,
            paper: A::PAPER,
            differs: A::DIFFERS,
            race: reports.iter().any(|r| r.has_races()),
            kinds,
            scopes,
            units: reports.iter().map(|r| r.units_with_races).sum(),
            analysed: reports.iter().map(|r| r.regions_analyzed).sum(),
            with_races: reports.iter().map(|r| r.regions_with_races).sum(),
            words: reports.iter().map(|r| r.words_with_races).sum(),
            native_ms,
            check_ms,
            det_ms,
            exact_ms: None,
        }
    }

    pub fn kind(&self) -> String {
        self.kinds.iter().copied().collect::<Vec<_>>().join(",")
    }

    pub fn scope(&self) -> String {
        self.scopes.iter().copied().collect::<Vec<_>>().join(",")
    }

    /// Race?, Type, Scope agree with the paper.
    pub fn matches(&self) -> (bool, bool, bool) {
        let race = self.race == self.paper.race;
        let kind = !self.paper.race || self.kind() == self.paper.kind;
        let scope = !self.paper.race || self.scope() == self.paper.scope;
        (race, kind, scope)
    }
}

/// Runs one program natively, in check mode and in deterministic mode (the
/// racy variant, as the paper ran it), on the same inputs.
pub fn measure<A: App>(rt: &Runtime, flags: &Flags) -> ld::Result<Row> {
    let mut app = A::new(rt, flags)?;
    let mut timed = super::app::timed_interleaved(&mut app, rt, flags, &[Mode::Native, Mode::Check, Mode::Deterministic])?.into_iter();
    let (native, _) = timed.next().unwrap();
    let (check, reports) = timed.next().unwrap();
    let (det, _) = timed.next().unwrap();
    let mut row = Row::from_reports::<A>(&reports, super::ms(native), super::ms(check), super::ms(det));
    if flags.exact {
        let (exact, _) = super::app::timed(&mut app, rt, flags, Mode::Exact)?;
        row.exact_ms = Some(super::ms(exact));
    }
    Ok(row)
}

/// Geometric mean and maximum of ratios.
pub fn geomean_max(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let xs: Vec<f64> = xs.collect();
    let g = (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len().max(1) as f64).exp();
    (g, xs.iter().cloned().fold(0.0, f64::max))
}

fn yes_no(race: bool, injected: bool) -> &'static str {
    match (race, injected) {
        (true, true) => "yes*",
        (true, false) => "yes",
        _ => "no",
    }
}

/// The table, the notes on differences and failures, and last the summary
/// line over the programs measured.
pub fn print(rows: &[Row], failed: &[(&str, String)], backend: &str) {
    println!("Table VI, measured by ld check mode on {backend}  (* = race injected, as in the paper)");
    println!(
        "{:<13} {:<5} {:<6} {:<7} {:>7} {:>10} {:>8}   {:<22} {:<9} {:>9} {:>10} {:>8} {:>9} {:>8}",
        "program",
        "race?",
        "type",
        "scope",
        "#units",
        "#ana,#race",
        "#words",
        "paper (race type scope)",
        "match",
        "native ms",
        "check ms",
        "slowdown",
        "det ms",
        "det x"
    );
    for r in rows {
        let (a, b, c) = r.matches();
        let m = if a && b && c {
            "yes".to_string()
        } else {
            format!("{}{}{}", if a { "" } else { "RACE? " }, if b { "" } else { "TYPE " }, if c { "" } else { "SCOPE" })
        };
        let paper = format!(
            "{} {} {}",
            yes_no(r.paper.race, r.paper.injected),
            if r.paper.kind.is_empty() { "-" } else { r.paper.kind },
            if r.paper.scope.is_empty() { "-" } else { r.paper.scope }
        );
        println!(
            "{:<13} {:<5} {:<6} {:<7} {:>7} {:>10} {:>8}   {:<22} {:<9} {:>9.2} {:>10.2} {:>7.1}x {:>9.2} {:>7.1}x",
            r.name,
            yes_no(r.race, r.paper.injected && r.race),
            if r.race { r.kind() } else { "-".into() },
            if r.race { r.scope() } else { "-".into() },
            if r.race { r.units.to_string() } else { "-".into() },
            format!("{}, {}", r.analysed, r.with_races),
            if r.race { r.words.to_string() } else { "-".into() },
            paper,
            m,
            r.native_ms,
            r.check_ms,
            r.check_ms / r.native_ms,
            r.det_ms,
            r.det_ms / r.native_ms
        );
    }
    if rows.iter().any(|r| r.exact_ms.is_some()) {
        println!("\nexact mode (access monitoring on the CPU executor: every access watched) beside check mode (value comparison):");
        println!("{:<13} {:>10} {:>10} {:>9} {:>12} {:>9}", "program", "native ms", "check ms", "check x", "exact ms", "exact x");
        for r in rows {
            let e = r.exact_ms.unwrap_or(f64::NAN);
            println!("{:<13} {:>10.2} {:>10.2} {:>8.1}x {:>12.2} {:>8.1}x", r.name, r.native_ms, r.check_ms, r.check_ms / r.native_ms, e, e / r.native_ms);
        }
    }
    for r in rows.iter().filter(|r| !r.differs.is_empty()) {
        println!("  {}: {}", r.name, r.differs);
    }
    for (name, e) in failed {
        println!("  {name}: not measured: {e}");
    }
    let (cg, cm) = geomean_max(rows.iter().map(|r| r.check_ms / r.native_ms));
    let (dg, dm) = geomean_max(rows.iter().map(|r| r.det_ms / r.native_ms));
    let over = if failed.is_empty() { String::new() } else { format!(" (over the {} programs measured)", rows.len()) };
    let exact = if rows.iter().all(|r| r.exact_ms.is_some()) && !rows.is_empty() {
        let (eg, em) = geomean_max(rows.iter().map(|r| r.exact_ms.unwrap() / r.native_ms));
        format!("; exact (access monitoring) slowdown geomean {eg:.1}x max {em:.1}x")
    } else {
        String::new()
    };
    println!("summary: check slowdown geomean {cg:.1}x max {cm:.1}x; deterministic slowdown geomean {dg:.1}x max {dm:.1}x{exact}{over}");
}
