//! The harness of the tests of kernels with known race verdicts
//! (tests/suite/check_catalogue.rs, tests/suite/patterns.rs): every case runs in check
//! mode on the CPU reference executor and on the GPU runtime, natively,
//! under two copies, deterministically and in exact mode, and the results
//! are compared with each other and with the verdict the test states.

use ld::{Evidence, RaceKind, Report, Runtime};

#[derive(Clone, Copy, Debug)]
pub enum How {
    Native,
    Check(u32),
    /// Check mode with warp size `.0` and at most `.1` copies per workgroup:
    /// the warps are checked in memory-adaptive rounds.
    Capped(u32, u32),
    /// Deterministic mode at the default settings.
    Deterministic,
    /// Exact mode (access monitoring on the CPU) with warp size `.0`.
    Exact(u32),
}

/// Runs a launch natively or in check mode with warp size `w`.
pub fn go(l: ld::Launch<'_>, how: How) -> Option<Report> {
    match how {
        How::Native => {
            l.run().unwrap();
            None
        }
        How::Check(w) => Some(l.check_options(ld::CheckOptions::default().warp_size(w)).check().unwrap()),
        How::Deterministic => {
            l.mode(ld::Mode::Deterministic).run().unwrap();
            None
        }
        How::Exact(w) => Some(l.check_options(ld::CheckOptions::default().warp_size(w)).exact().unwrap()),
        How::Capped(w, copies) => Some(l.check_options(ld::CheckOptions::default().warp_size(w).copies(copies)).check().unwrap()),
    }
}

/// One backend's results of one case.
pub struct Outcome {
    pub backend: String,
    pub report: Report,
    /// The user's buffers (concatenated) after the check.
    pub checked: Vec<u32>,
    /// The same buffers after a native run on fresh inputs.
    pub native: Vec<u32>,
    /// The report and buffers of the check with two copies per workgroup
    /// (every pair of warps checked in rounds).
    pub capped: Report,
    pub capped_checked: Vec<u32>,
    /// The buffers after a deterministic run at the default settings.
    pub deterministic: Vec<u32>,
    /// Exact mode's report (access monitoring) and buffers.
    pub exact: Report,
    pub exact_buffers: Vec<u32>,
}

/// A case: builds fresh buffers on `rt`, launches (natively or checked) and
/// returns the report (check mode) and every written buffer, concatenated.
pub type Case<'a> = &'a dyn Fn(&Runtime, How) -> (Option<Report>, Vec<u32>);

/// Runs the case in check mode and natively on the CPU and on the GPU (when
/// there is one), prints the reports and asserts the GPU's verdict equals
/// the CPU's.
/// `normalize` maps outputs that depend on the order atomics are served in
/// to a canonical form (deterministic mode fixes the order of plain writes,
/// not of atomics).
pub fn check_both(name: &str, warp: u32, case: Case, normalize: fn(&mut Vec<u32>)) -> Vec<Outcome> {
    check_both_steered(name, warp, case, normalize, &[])
}

/// `check_both`, where the writes to the variables `steered` depend on a
/// racy read (`if v > best[0] { best[0] = v; best_i[0] = i }`): each unit
/// of a check reads the value memory held, so every one of them writes,
/// which is a real schedule; exact mode watches the one schedule its run
/// takes, where a unit that read another's larger value writes nothing, so
/// its report need not contain the races on them (README, "Exact mode").
pub fn check_both_steered(name: &str, warp: u32, case: Case, normalize: fn(&mut Vec<u32>), steered: &[&str]) -> Vec<Outcome> {
    // Exact mode runs on the CPU executor whatever the runtime: once, on the
    // CPU runtime, is the oracle for both backends' checks (the GPU
    // runtime's exact path, downloads and uploads, is tested in
    // `same_value_writes_are_seen_only_by_exact_mode`).
    let (exact, exact_buffers) = case(&super::cpu(), How::Exact(warp));
    let exact = exact.expect("exact mode gives a report");
    let one = |rt: &Runtime| {
        let (report, checked) = case(rt, How::Check(warp));
        let (_, native) = case(rt, How::Native);
        let (capped, capped_checked) = case(rt, How::Capped(warp, 2));
        let (_, deterministic) = case(rt, How::Deterministic);
        let report = report.expect("check mode gives a report");
        eprintln!("--- {name} (warp size {warp}) on {:?}:\n{report}", rt.backend());
        let capped = capped.expect("check mode gives a report");
        let (exact, exact_buffers) = (exact.clone(), exact_buffers.clone());
        Outcome { backend: format!("{:?}", rt.backend()), report, checked, native, capped, capped_checked, deterministic, exact, exact_buffers }
    };
    let mut outs = vec![one(&super::cpu())];
    if let Some(g) = super::gpu() {
        outs.push(one(&g));
    }
    let cpu = &outs[0];
    for o in &outs {
        // Value comparison sees a subset of what access monitoring sees:
        // every word it reports racing, exact mode reports too.
        for r in [&o.report, &o.capped] {
            let mut r = r.clone();
            r.races.retain(|x| !steered.contains(&x.variable.as_str()));
            super::contained_in_exact(&r, &o.exact).unwrap_or_else(|e| panic!("{name} on {}: {e}", o.backend));
        }
        // Every race of a check names the accesses behind it.
        for r in &o.report.races {
            assert!(r.accesses.iter().any(|a| a.line > 0), "{name} on {}: a race without its source accesses: {r:?}", o.backend);
        }
        // Under two copies, units sharing a copy in a round run natively
        // together, so a race inside such a group shows as each backend
        // interleaves it: there the verdict must hold, the detail need not.
        assert_eq!(
            o.capped.has_races(),
            o.report.has_races(),
            "{name} on {}: the verdict changes under two copies\n{}\n--- full privatization:\n{}",
            o.backend,
            o.capped,
            o.report
        );
    }
    for o in &outs[1..] {
        // Deterministic mode gives the same bits on every backend, racy or not.
        let (mut mine, mut cpus) = (o.deterministic.clone(), cpu.deterministic.clone());
        normalize(&mut mine);
        normalize(&mut cpus);
        assert!(mine == cpus, "{name}: deterministic output on {} differs from the CPU's", o.backend);
        // Where lanes of one warp race, what the warp computes depends on
        // the order the device runs its lanes in: both backends must say
        // so; the rest of the report may differ.
        assert_eq!(
            o.report.lane_order_dependent(),
            cpu.report.lane_order_dependent(),
            "{name}: only one backend saw lanes of a warp race\n{}\n--- CPU:\n{}",
            o.report,
            cpu.report
        );
        if cpu.report.lane_order_dependent() {
            continue;
        }
        assert_eq!(
            o.report.verdict(),
            cpu.report.verdict(),
            "{name}: the {} report's verdict differs from the CPU's\n{}\n--- CPU:\n{}",
            o.backend,
            o.report,
            cpu.report
        );
    }
    outs
}

/// A race-free kernel: no race on either backend, and the buffers after the
/// check equal a native run's on the CPU reference (after `normalize`, for
/// kernels whose native result depends on the order atomics are served
/// in). The CPU's, not the device's own: check and deterministic modes
/// compute floats as IEEE 754 does, where a GPU's native run may fuse a
/// product into a sum or divide within 2.5 ulp (NVIDIA's).
pub fn expect_clean_by(name: &str, warp: u32, case: Case, normalize: fn(&mut Vec<u32>)) {
    let outs = check_both(name, warp, case, normalize);
    let mut n = outs[0].native.clone();
    normalize(&mut n);
    for o in &outs {
        assert!(!o.report.has_races() && o.report.races.is_empty(), "{name}: FALSE POSITIVE on {}: a race-free kernel reported races\n{}", o.backend, o.report);
        assert!(!o.exact.has_races(), "{name} on {}: exact mode reports races in a race-free kernel\n{}", o.backend, o.exact);
        let (mut c, mut k) = (o.checked.clone(), o.capped_checked.clone());
        normalize(&mut c);
        normalize(&mut k);
        assert_eq!(c.len(), n.len(), "{name} on {}: buffer lengths", o.backend);
        for (i, (a, b)) in c.iter().zip(&n).enumerate() {
            assert_eq!(a, b, "{name} on {}: word {i} after the check is {a}, a native run on the CPU gives {b}", o.backend);
        }
        assert_eq!(k, n, "{name} on {}: the buffers after a check under two copies differ from a native run's", o.backend);
        let mut d = o.deterministic.clone();
        normalize(&mut d);
        assert_eq!(d, n, "{name} on {}: the buffers after deterministic mode differ from a native run's (race-free kernel)", o.backend);
        let mut e = o.exact_buffers.clone();
        normalize(&mut e);
        assert_eq!(e, n, "{name} on {}: the buffers after exact mode differ from a native run's", o.backend);
    }
    let mut cpu = outs[0].checked.clone();
    normalize(&mut cpu);
    for o in &outs[1..] {
        let mut g = o.checked.clone();
        normalize(&mut g);
        assert_eq!(g, cpu, "{name}: buffers after the check differ between {} and the CPU", o.backend);
    }
}

pub fn expect_clean(name: &str, warp: u32, case: Case) {
    expect_clean_by(name, warp, case, |_| {})
}

/// A race-free kernel at warp sizes 32, 4 and 1.
pub fn clean_all(name: &str, case: Case) {
    for w in [32, 4, 1] {
        expect_clean(name, w, case);
    }
}

pub fn clean_all_by(name: &str, case: Case, normalize: fn(&mut Vec<u32>)) {
    for w in [32, 4, 1] {
        expect_clean_by(name, w, case, normalize);
    }
}

/// Native results on both backends, for host comparison.
pub fn native_both(case: Case) -> Vec<Vec<u32>> {
    super::runtimes().iter().map(|rt| case(rt, How::Native).1).collect()
}

/// A racy kernel whose racing words depend on the order the atomics (or
/// the invocations) are served in, so exact mode (one schedule) and a check
/// (each unit on its region's input) may name different words: at each
/// warp size, exact mode must find a race, and every backend's check must
/// report one like each `want`.
pub fn racy_verdict(warps: &[u32], name: &str, case: Case, wants: &[Want]) {
    for &w in warps {
        let (exact, _) = case(&super::cpu(), How::Exact(w));
        let exact = exact.unwrap();
        assert!(exact.has_races(), "{name} (warp size {w}): exact mode finds no race\n{exact}");
        for rt in super::runtimes() {
            let (rep, _) = case(&rt, How::Check(w));
            let rep = rep.unwrap();
            eprintln!("--- {name} (warp size {w}) on {:?}:\n{rep}", rt.backend());
            assert!(rep.has_races(), "{name}: MISSED RACE on {:?} at warp size {w}\n{rep}", rt.backend());
            for want in wants {
                assert!(rep.races.iter().any(|r| matches(r, want)), "{name} on {:?} (warp size {w}): no race like {want:?} in\n{rep}", rt.backend());
            }
        }
    }
}

/// What one of the reported races must look like.
#[derive(Clone, Copy, Debug)]
pub struct Want {
    pub kind: RaceKind,
    /// "Workgroup" or "Storage" (the `Memory` enum is not re-exported by `ld`).
    pub memory: &'static str,
    /// "InterWarp" or "InterWorkgroup".
    pub level: &'static str,
    pub variable: &'static str,
    /// Substrings the race's note must contain (empty: no requirement).
    pub note: &'static [&'static str],
    /// How the race must have been seen (`None`: either way).
    pub evidence: Option<Evidence>,
}

pub const WG: &str = "Workgroup";
pub const ST: &str = "Storage";
pub const WARP: &str = "InterWarp";
pub const WGS: &str = "InterWorkgroup";
pub const INTRA: &str = "IntraWarp";

pub fn ww(memory: &'static str, level: &'static str, variable: &'static str) -> Want {
    Want { kind: RaceKind::WriteWrite, memory, level, variable, note: &[], evidence: None }
}

pub fn rw(memory: &'static str, level: &'static str, variable: &'static str) -> Want {
    Want { kind: RaceKind::ReadWrite, memory, level, variable, note: &[], evidence: None }
}

impl Want {
    pub fn note(self, note: &'static [&'static str]) -> Want {
        Want { note, ..self }
    }

    /// Seen at the read: the words named are the words read.
    pub fn read(self) -> Want {
        Want { evidence: Some(Evidence::Read), ..self }
    }
}

pub fn matches(r: &ld::Race, w: &Want) -> bool {
    r.kind == w.kind
        && format!("{:?}", r.memory) == w.memory
        && format!("{:?}", r.level) == w.level
        && r.variable == w.variable
        && w.note.iter().all(|s| r.note.as_deref().unwrap_or("").contains(s))
        && w.evidence.is_none_or(|e| e == r.evidence)
}

/// A racy kernel: races on both backends, and for every `Want` at least one
/// race matching it.
pub fn expect_race(name: &str, warp: u32, case: Case, wants: &[Want]) -> Vec<Outcome> {
    expect_steered_race(name, warp, case, wants, &[])
}

/// `expect_race`, where the writes to `steered` depend on a racy read
/// (see `check_both_steered`).
pub fn expect_steered_race(name: &str, warp: u32, case: Case, wants: &[Want], steered: &[&str]) -> Vec<Outcome> {
    let outs = check_both_steered(name, warp, case, |_| (), steered);
    for o in &outs {
        assert!(o.report.has_races() && !o.report.races.is_empty(), "{name}: MISSED RACE on {}\n{}", o.backend, o.report);
    }
    for o in &outs {
        for w in wants {
            assert!(o.report.races.iter().any(|r| matches(r, w)), "{name} on {}: no race like {w:?} in\n{}", o.backend, o.report);
        }
    }
    outs
}

/// A racy kernel whose race value comparison cannot see by construction
/// (the racing writes store the value already there, say): no race
/// reported on either backend, and exact mode, which watches accesses,
/// reports it.
pub fn expect_silent(name: &str, warp: u32, case: Case) {
    for o in check_both(name, warp, case, |_| ()) {
        assert!(!o.report.has_races(), "{name} on {}: expected no report at warp size {warp}\n{}", o.backend, o.report);
        assert!(o.exact.has_races(), "{name} on {}: exact mode misses a race value comparison cannot see\n{}", o.backend, o.exact);
    }
}

/// Float words as a buffer holds them.
pub fn f32s(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// `v` sorted within each run of `n` words: a workgroup's sort of its block.
pub fn sorted_chunks(v: &[u32], n: usize) -> Vec<u32> {
    v.chunks(n)
        .flat_map(|c| {
            let mut c = c.to_vec();
            c.sort();
            c
        })
        .collect()
}

pub fn iota(n: usize, k: u32) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2654435761).rotate_left(k) % 1000 + 1).collect()
}
