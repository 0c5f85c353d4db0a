//! The round trip (`LD_ROUND_TRIP=1`), ld's own test of its shader
//! front-end on every kernel its suite launches: a launch of a Rust kernel
//! also runs the kernel's plain WGSL (`KernelInfo::wgsl_plain`), read back
//! through the front-end under Rust's rule for indices out of bounds, on a
//! copy of the launch's input, in the same mode and on the same runtime.
//! The two must leave the same words in every buffer and report the same
//! races (variable, kind, level, units, words, places, region) or the same
//! fault; source lines differ by nature (a `.rs` file and a `.wgsl` one)
//! and are not compared. The schedule must be deterministic for buffers to
//! agree in every mode: only launches on the CPU reference round-trip, and
//! both runs take a thread of their own, workgroups in order.

use super::{Arg, Launch, Run};
use crate::buffer::{Buffer, Store};
use crate::check::report::{Race, Report};
use crate::error::{Error, FaultKind, Result};
use crate::kernel::{Bounds, Kernel, KernelInfo, ParamKind};
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
    /// kernel's (loaded shaders follow WGSL's rule) on the CPU reference
    /// (a GPU's schedule differs from run to run), under the setting.
    pub(super) fn round_trips(&self) -> Result<bool> {
        Ok(self.round_trip && self.info.bounds == Bounds::Fault && self.rt.gpu.is_none() && crate::settings::Settings::get()?.round_trip)
    }

    /// Runs the launch and its round trip; the launch's own outcome when
    /// they agree (or when the launch failed before running).
    pub(super) fn run_round_trip(self) -> Result<Run> {
        let (rt, info) = (self.rt, self.info);
        let stores: Vec<Option<&Store>> = self.args.iter().map(|a| if let Arg::Buffer(b) = a { Some(b.store) } else { None }).collect();
        let input = snapshot(&stores)?;
        let scalars: Vec<u8> = self.args.iter().filter_map(scalar_word).flat_map(u32::to_le_bytes).collect();
        // Both run on one thread of their own, workgroups strictly in
        // order: the same schedule, whatever else the process runs.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| Error::Unsupported(format!("the round trip's thread: {e}")))?;
        let (grid, mode, check, fuel) = (self.grid, self.mode, self.check, self.fuel);
        let ours = Ran { outcome: pool.install(|| self.run_in_mode()), words: snapshot(&stores)? };
        if let Err(e) = &ours.outcome {
            if !matches!(e, Error::Fault { .. }) {
                return ours.outcome;
            }
        }
        // The plain WGSL, under Rust's rule, on copies of the input.
        let shader = Shader::parse(info.wgsl_plain.to_string(), format!("{}.wgsl", info.name).as_ref())?;
        let twin = ShaderKernel::under(&shader, "main", Bounds::Fault)?;
        let mut copies: Vec<Option<Buffer<u32>>> = input.iter().map(|w| w.as_ref().map(|w| rt.upload(w)).transpose()).collect::<Result<_>>()?;
        let mut bindings = Bindings::new();
        for (i, b) in copies.iter_mut().enumerate() {
            if let Some(b) = b {
                bindings = bindings.buffer(0, i as u32, b);
            }
        }
        if !scalars.is_empty() {
            bindings = bindings.uniform(0, info.params.len() as u32, &scalars);
        }
        let mut launch = twin.launch(rt, grid, bindings)?.mode(mode).check_options(check);
        (launch.fuel, launch.round_trip) = (fuel, false);
        let outcome = pool.install(|| launch.run_in_mode());
        let words = copies.iter().map(|b| b.as_ref().map(|b| b.to_vec()).transpose()).collect::<Result<_>>()?;
        let theirs = Ran { outcome, words };
        // Rust's `powi` is WGSL's `pow` in the plain kernel (`ld_powi`),
        // which the interpreter computes as `powf`: a float word may differ
        // in its last bits there (2 ulp), nowhere else.
        let ulps = if info.wgsl_plain.contains("fn ld_powi(") { 2 } else { 0 };
        match difference(&ours, &theirs, &names(info, twin.info()), ulps) {
            Some(difference) => Err(Error::RoundTrip { kernel: info.name, mode, difference }),
            None => {
                log::debug!("ld: round trip of `{}` in {mode}: the same", info.name);
                ours.outcome
            }
        }
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
            match (&a.report, &b.report) {
                (Some(x), Some(y)) if verdict(x, &HashMap::new()) != verdict(y, names) => Some(format!("reported\n{y}\nwhere the Rust kernel reported\n{x}")),
                _ => None,
            }
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
