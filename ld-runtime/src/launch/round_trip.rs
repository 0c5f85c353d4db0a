//! The round trip (`LD_ROUND_TRIP=1`), ld's own test of its shader
//! front-end on every kernel its suite launches: a launch of a Rust kernel
//! also runs the kernel's plain WGSL (`KernelInfo::wgsl_plain`), read back
//! through the front-end under Rust's rule for indices out of bounds, on a
//! copy of the launch's input, in the same mode and on the same runtime.
//! The two must leave the same words in every buffer and report the same
//! races (variable, kind, level, units, words, places, region) or the same
//! fault; source lines differ by nature (a `.rs` file and a `.wgsl` one)
//! and are not compared.
//!
//! On the CPU reference both run on a thread of their own, workgroups in
//! order: the same schedule, so everything is compared. A GPU schedules
//! invocations as it likes, and what a racy kernel, or one with atomics,
//! leaves may differ from run to run (and differs between two programs
//! that time differently): there the round trip compares what no schedule
//! can change ([`Compared`]).

use super::{Arg, Grid, Launch, Mode, Run};
use crate::buffer::{Buffer, Store};
use crate::check::report::{Race, Report};
use crate::check::CheckOptions;
use crate::error::{Error, FaultKind, Result};
use crate::kernel::{Bounds, Kernel, KernelInfo, ParamKind};
use crate::runtime::Runtime;
use crate::shader::{Bindings, ShaderKernel};
use ld_compiler::front::Shader;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;

/// A launch's outcome and each buffer's words after it.
struct Ran {
    outcome: Result<Run>,
    words: Vec<Option<Vec<u32>>>,
}

impl Launch<'_> {
    /// Whether this launch is checked against its round trip: a Rust
    /// kernel's (loaded shaders follow WGSL's rule), on a backend the
    /// setting names.
    pub(super) fn round_trips(&self) -> Result<bool> {
        let on = crate::settings::Settings::get()?.round_trip;
        Ok(self.round_trip && self.info.bounds == Bounds::Fault && if self.rt.gpu.is_some() { on.gpu } else { on.cpu })
    }

    /// Runs the launch and its round trip; the launch's own outcome when
    /// they agree (or when the launch failed before running).
    pub(super) fn run_round_trip(self) -> Result<Run> {
        let stores: Vec<Option<&Store>> = self.args.iter().map(|a| if let Arg::Buffer(b) = a { Some(b.store) } else { None }).collect();
        let again = Again::new(&self, snapshot(&stores)?)?;
        let outcome = again.pool.install(|| self.run_in_mode());
        if let Err(e) = &outcome {
            if !matches!(e, Error::Fault { .. }) {
                return outcome;
            }
        }
        let mut ours = Ran { outcome, words: snapshot(&stores)? };
        let twin = ShaderKernel::under(&again.shader, "main", Bounds::Fault)?;
        let mut theirs = again.twin(twin)?;
        let names = names(again.info, twin.info());
        // Rust's `powi` is WGSL's `pow` in the plain kernel (`ld_powi`),
        // which the interpreter computes as `powf`: a float word may differ
        // in its last bits there (2 ulp), nowhere else.
        let ulps = if again.info.wgsl_plain.contains("fn ld_powi(") { 2 } else { 0 };
        let found = match compared(again.info, again.mode, &ours.outcome, again.rt.gpu.is_some()) {
            Compared::All => difference(&ours, &theirs, &names, ulps),
            Compared::Outcome => {
                ours.words.clear();
                theirs.words.clear();
                difference(&ours, &theirs, &names, ulps)
            }
            Compared::Counts => {
                let counts =
                    |r: &Ran| r.outcome.as_ref().ok().and_then(|r| r.report.as_ref()).map(|r| (r.regions_analyzed, r.regions_with_races, r.race_records));
                (counts(&ours) != counts(&theirs))
                    .then(|| format!("counted otherwise: {:?} where the Rust kernel counted {:?}", counts(&theirs), counts(&ours)))
            }
            Compared::Completion => completion(&ours.outcome, &theirs.outcome),
        };
        let Some(difference) = found else {
            return ours.outcome;
        };
        Err(Error::RoundTrip { kernel: again.info.name, mode: again.mode, difference })
    }
}

/// What running the launch's plain WGSL takes: the kernel, the launch's
/// settings, its scalars and its input.
struct Again<'a> {
    rt: &'a Runtime,
    info: &'static KernelInfo,
    grid: Grid,
    mode: Mode,
    check: CheckOptions,
    fuel: Option<u64>,
    /// The scalar arguments' words, as the plain WGSL's uniform block
    /// holds them.
    scalars: Vec<u8>,
    input: Vec<Option<Vec<u32>>>,
    shader: Shader,
    /// One thread on the CPU reference (workgroups in order); the
    /// default elsewhere.
    pool: rayon::ThreadPool,
}

impl<'a> Again<'a> {
    fn new(l: &Launch<'a>, input: Vec<Option<Vec<u32>>>) -> Result<Self> {
        let scalars = l.args.iter().filter_map(scalar_word).flat_map(u32::to_le_bytes).collect();
        let threads = if l.rt.gpu.is_none() { 1 } else { 0 };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::Unsupported(format!("the round trip's threads: {e}")))?;
        let shader = Shader::parse(l.info.wgsl_plain.to_string(), format!("{}.wgsl", l.info.name).as_ref())?;
        Ok(Again { rt: l.rt, info: l.info, grid: l.grid, mode: l.mode, check: l.check, fuel: l.fuel, scalars, input, shader, pool })
    }

    /// Fresh copies of the input.
    fn copies(&self) -> Result<Vec<Option<Buffer<u32>>>> {
        self.input.iter().map(|w| w.as_ref().map(|w| self.rt.upload(w)).transpose()).collect()
    }

    /// The plain WGSL, under Rust's rule, on copies of the input: its
    /// buffers bound in parameter order, its scalars as one uniform
    /// block after them.
    fn twin(&self, twin: ShaderKernel) -> Result<Ran> {
        let mut copies = self.copies()?;
        let mut bindings = Bindings::new();
        for (i, b) in copies.iter_mut().enumerate() {
            if let Some(b) = b {
                bindings = bindings.buffer(0, i as u32, b);
            }
        }
        if !self.scalars.is_empty() {
            bindings = bindings.uniform(0, self.info.params.len() as u32, &self.scalars);
        }
        let mut launch = twin.launch(self.rt, self.grid, bindings)?;
        (launch.mode, launch.check, launch.fuel, launch.round_trip) = (self.mode, self.check, self.fuel, false);
        let outcome = self.pool.install(|| launch.run_in_mode());
        let words = copies.iter().map(|b| b.as_ref().map(|b| b.to_vec()).transpose()).collect::<Result<_>>()?;
        Ok(Ran { outcome, words })
    }
}

/// What of a launch's results the round trip compares: what no schedule
/// can change.
#[derive(Debug, PartialEq, Eq)]
enum Compared {
    /// The buffers and the outcome: on the CPU reference (one schedule
    /// for both runs); on a GPU, a kernel without atomic memory in
    /// deterministic mode (which orders its plain accesses), or in check
    /// or exact mode where the report finds no race.
    All,
    /// The outcome, the report or the fault: a GPU's native run, or a
    /// racy one, of a kernel without atomic memory (a check runs each
    /// unit on its region's input, whatever the schedule).
    Outcome,
    /// The report's exact counts (regions, regions with races, race
    /// records): a GPU's check whose records overflowed the record
    /// buffer, where the schedule decides which records are kept in
    /// detail (and so the units and words a race names).
    Counts,
    /// Whether both ran or both faulted: a kernel with atomic memory on a
    /// GPU, whose atomics run live, in the order the GPU gives them (a
    /// ticket that elects the last workgroup, a slot from a counter).
    Completion,
}

fn compared(info: &KernelInfo, mode: Mode, outcome: &Result<Run>, gpu: bool) -> Compared {
    let atomics = info.params.iter().any(|p| matches!(p.kind, ParamKind::Atomic { .. })) || info.shared.iter().any(|s| !s.target);
    let races = matches!(outcome, Ok(Run { report: Some(r), .. }) if r.has_races());
    let dropped = matches!(outcome, Ok(Run { report: Some(r), .. }) if r.records_dropped > 0);
    match mode {
        _ if !gpu => Compared::All,
        _ if atomics => Compared::Completion,
        _ if dropped => Compared::Counts,
        Mode::Deterministic => Compared::All,
        Mode::Native => Compared::Outcome,
        _ if races => Compared::Outcome,
        _ => Compared::All,
    }
}

/// Whether one run completed where the other faulted.
fn completion(ours: &Result<Run>, theirs: &Result<Run>) -> Option<String> {
    match (ours, theirs) {
        (Ok(_), Err(e)) => Some(format!("failed: {e}")),
        (Err(e), Ok(_)) => Some(format!("ran where the Rust kernel failed: {e}")),
        _ => None,
    }
}

/// Each buffer's words, as they are now.
fn snapshot(stores: &[Option<&Store>]) -> Result<Vec<Option<Vec<u32>>>> {
    let words = |s: &Store| crate::exact::input::copy(s).map(|w| w.iter().map(|x| x.load(Relaxed)).collect());
    stores.iter().map(|s| s.map(words).transpose()).collect()
}

/// A scalar argument's word, as the plain WGSL's uniform block holds it.
fn scalar_word(a: &Arg) -> Option<u32> {
    match a {
        Arg::U32(x) => Some(*x),
        Arg::I32(x) => Some(*x as u32),
        Arg::F32(x) => Some(x.to_bits()),
        Arg::Buffer(_) => None,
    }
}

/// The Rust kernel's name of each memory the plain WGSL names otherwise
/// (a name WGSL reserves, as `off`, is written `off_`): its buffers in
/// binding order, its workgroup arrays in order.
fn names(rust: &KernelInfo, wgsl: &KernelInfo) -> HashMap<String, String> {
    let buffers = |k: &KernelInfo| k.params.iter().filter(|p| !matches!(p.kind, ParamKind::Uniform { .. })).map(|p| p.name).collect::<Vec<_>>();
    let pairs = buffers(wgsl).into_iter().zip(buffers(rust)).chain(wgsl.shared.iter().map(|s| s.name).zip(rust.shared.iter().map(|s| s.name)));
    pairs.filter(|(w, r)| w != r).map(|(w, r)| (w.to_string(), r.to_string())).collect()
}

/// What differs between the Rust kernel's run and its round trip's
/// (`names`: the round trip's names of memories, to the Rust kernel's).
fn difference(ours: &Ran, theirs: &Ran, names: &HashMap<String, String>, ulps: u32) -> Option<String> {
    let same = |x: &u32, y: &u32| x.abs_diff(*y) <= ulps;
    let same_words = |a: &Option<Vec<u32>>, b: &Option<Vec<u32>>| match (a, b) {
        (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (a, b) => a == b,
    };
    match (&ours.outcome, &theirs.outcome) {
        (Ok(a), Ok(b)) => {
            if let Some(p) = ours.words.iter().zip(&theirs.words).position(|(a, b)| !same_words(a, b)) {
                let (a, b) = (ours.words[p].as_deref().unwrap_or(&[]), theirs.words[p].as_deref().unwrap_or(&[]));
                let w = a.iter().zip(b).position(|(x, y)| !same(x, y)).unwrap_or(0);
                return Some(format!(
                    "left other words in parameter {p}: from word {w}, {:?} where the Rust kernel left {:?}",
                    &b[w..(w + 4).min(b.len())],
                    &a[w..(w + 4).min(a.len())]
                ));
            }
            let (x, y) = (a.report.as_ref().map(|x| verdict(x, &HashMap::new())), b.report.as_ref().map(|y| verdict(y, names)));
            let (Some(x), Some(y)) = (x, y) else { return None };
            let first = x.iter().zip(&y).find(|(p, q)| p != q).map_or_else(
                || format!("{} races where the Rust kernel has {}", y.len() - 1, x.len() - 1),
                |(p, q)| format!("{q}\nwhere the Rust kernel's is\n{p}"),
            );
            (x != y).then(|| {
                format!("reported otherwise: {first}\n\nits report:\n{}\nthe Rust kernel's:\n{}", b.report.as_ref().unwrap(), a.report.as_ref().unwrap())
            })
        }
        (Err(Error::Fault { kind: a, invocation: i, .. }), Err(Error::Fault { kind: b, invocation: j, .. })) => {
            (fault(a) != fault(b) || i != j).then(|| format!("faulted in {j} ({b:?}) where the Rust kernel faulted in {i} ({a:?})"))
        }
        (Ok(_), Err(e)) => Some(format!("failed: {e}")),
        (Err(e), Ok(_)) => Some(format!("ran where the Rust kernel failed: {e}")),
        (Err(_), Err(e)) => Some(format!("failed otherwise: {e}")),
    }
}

/// A fault without its source place (a line of the Rust kernel or of its
/// WGSL).
fn fault(k: &FaultKind) -> FaultKind {
    match k.clone() {
        FaultKind::OutOfBounds { array, index, len, .. } => FaultKind::OutOfBounds { array, index, len, line: 0, column: 0 },
        FaultKind::NonTermination { fuel, .. } => FaultKind::NonTermination { fuel, line: 0, column: 0 },
        other => other,
    }
}

/// A report's verdict without source places: each race's region as the
/// barriers' order numbers it, its memory by the Rust kernel's name.
fn verdict(r: &Report, names: &HashMap<String, String>) -> Vec<String> {
    let barrier = |line: Option<u32>| line.and_then(|l| r.barriers.iter().position(|b| b.line == l));
    let name = |v: &str| names.get(v).cloned().unwrap_or_else(|| v.to_string());
    let place = |p: &String| {
        let at = p.find(['[', '.']).unwrap_or(p.len());
        format!("{}{}", name(&p[..at]), &p[at..])
    };
    let race = |x: &Race| {
        let places: Vec<String> = x.places.iter().map(place).collect();
        format!(
            "{} {:?} {:?} {:?} {:?} {places:?} {:?} {:?}",
            name(&x.variable),
            x.kind,
            x.level,
            x.units,
            x.words,
            barrier(x.region.from_line),
            barrier(x.region.to_line)
        )
    };
    let mut v: Vec<String> = r.races.iter().map(race).collect();
    v.push(format!(
        "{} regions, {} with races, {} units, {} words, {} records",
        r.regions_analyzed, r.regions_with_races, r.units_with_races, r.words_with_races, r.race_records
    ));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Backend;
    use std::time::Duration;

    fn ran(words: &[u32]) -> Ran {
        let run = Run { backend: Backend::Cpu, mode: crate::Mode::Native, elapsed: Duration::ZERO, report: None, stats: None, out_of_bounds: vec![] };
        Ran { outcome: Ok(run), words: vec![Some(words.to_vec()), None] }
    }

    fn faulted(index: i64, line: u32, invocation: &str) -> Ran {
        let kind = FaultKind::OutOfBounds { array: "a".into(), index, len: 4, line, column: 9 };
        Ran { outcome: Err(Error::Fault { kernel: "k", invocation: invocation.into(), kind, message: String::new() }), words: vec![] }
    }

    #[test]
    fn a_word_that_differs_is_named_with_its_parameter() {
        let none = HashMap::new();
        assert_eq!(difference(&ran(&[1, 2, 3]), &ran(&[1, 2, 3]), &none, 0), None);
        let d = difference(&ran(&[1, 2, 3]), &ran(&[1, 5, 3]), &none, 0).unwrap();
        assert!(d.contains("parameter 0: from word 1, [5, 3] where the Rust kernel left [2, 3]"), "{d}");
        // The last bits of a float word, where the kernel calls `powi`.
        let (a, b) = (1.5f32.to_bits(), 1.5f32.to_bits() + 2);
        assert_eq!(difference(&ran(&[a]), &ran(&[b]), &none, 2), None);
        assert!(difference(&ran(&[a]), &ran(&[b + 1]), &none, 2).is_some());
    }

    #[test]
    fn faults_agree_but_for_their_source_place() {
        let none = HashMap::new();
        let inv = "global id (3, 0, 0)";
        assert_eq!(difference(&faulted(7, 12, inv), &faulted(7, 40, inv), &none, 0), None);
        assert!(difference(&faulted(7, 12, inv), &faulted(8, 12, inv), &none, 0).is_some());
        assert!(difference(&faulted(7, 12, inv), &faulted(7, 12, "global id (4, 0, 0)"), &none, 0).is_some());
        assert!(difference(&ran(&[1]), &faulted(7, 12, inv), &none, 0).unwrap().starts_with("failed: "));
    }
}
