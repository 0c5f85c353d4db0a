//! The WGSL corpus (`tests/corpus/`), run as `ld-check` runs a launch
//! file: every case whose shaders ld compiles, in exact, check and
//! deterministic modes, on the CPU reference and on the GPU. Exact mode
//! gives each case its verdict (every race the case names, and none in a
//! race-free case); check mode reports no race exact mode does not, finds
//! a racy case racy, and says the same on both backends; deterministic
//! mode leaves the same bits in every buffer on both.

use crate::support;
use ld::{CheckOptions, Level, Mode, RaceKind, Report, Runtime};
use ld_check::{LaunchFile, Outcome, Resolved, Scope, Verdict};
use std::path::PathBuf;

/// A corpus case whose every dispatch ld compiles.
struct Case {
    name: String,
    file: LaunchFile,
    resolved: Resolved,
}

/// The cases ld compiles; a case it cannot is refused at a shader line
/// (ld-check's unit tests show where), and is left out here.
fn cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let file = LaunchFile::load(&path).unwrap();
        let resolved = file.resolve().unwrap();
        let compiles = resolved.dispatches.iter().all(|d| {
            let shader = &resolved.shaders[d.shader];
            let overrides: Vec<(&str, f64)> = d.overrides.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            match ld::ShaderKernel::new(shader, &shader.module.entry_points[d.entry].name, &overrides) {
                Ok(_) => true,
                Err(ld::Error::Shader(ld::ShaderError::Unsupported { .. })) => false,
                Err(e) => panic!("{}: {e}", path.display()),
            }
        });
        if compiles {
            out.push(Case { name: path.file_stem().unwrap().to_string_lossy().into_owned(), file, resolved });
        }
    }
    assert!(out.len() >= 30, "only {} corpus cases compile", out.len());
    out
}

fn run(case: &Case, rt: &Runtime, mode: Mode) -> Outcome {
    let mut options = CheckOptions::default();
    options.progress = false;
    case.resolved.run(&case.file, rt, mode, &options).unwrap_or_else(|e| panic!("{} in {mode}: {e}", case.name))
}

fn reports(o: &Outcome) -> Vec<&Report> {
    o.dispatches.iter().map(|d| d.run.report.as_ref().expect("a checking mode reports")).collect()
}

/// Whether `r` is the expected race: its variable, kind and scope. A
/// report gives a word's conflict once, as write-write where two writers
/// meet: a unit that reads a word and writes it is a writer, so the
/// read-write race of a read-modify-write (`h[i] = h[i] + x` in two
/// workgroups) is the write-write race reported on that word.
fn matches(r: &ld::Race, want: &ld_check::ExpectedRace) -> bool {
    let kind = match want.kind {
        ld_check::RaceKind::ReadWrite => r.kind == RaceKind::ReadWrite || r.kind == RaceKind::WriteWrite,
        ld_check::RaceKind::WriteWrite => r.kind == RaceKind::WriteWrite,
    };
    let scope = match want.scope {
        Scope::Global => r.level == Level::InterWorkgroup,
        Scope::Workgroup => r.level != Level::InterWorkgroup,
    };
    r.variable == want.variable && kind && scope
}

/// Why a case's results may differ between devices, where they may:
/// WGSL leaves transcendental functions and `fma`'s fusing to the device,
/// and the order in which atomics meet (so what an atomic returns) to the
/// scheduler. Deterministic mode orders plain accesses, not those.
fn device_dependent(case: &Case) -> Option<&'static str> {
    let text: String = case.resolved.shaders.iter().map(|s| s.source.as_str()).collect();
    const DEVICE_MATH: [&str; 10] = ["exp(", "exp2(", "sin(", "cos(", "tan(", "pow(", "log(", "log2(", "fma(", "tanh("];
    if atomic_results_used(&text) {
        return Some("what its atomics return depends on their order");
    }
    DEVICE_MATH.iter().any(|f| text.contains(f)).then_some("it calls functions WGSL leaves to the device")
}

/// Whether the shader uses what an atomic read-modify-write returns: one
/// that is not a statement of its own.
fn atomic_results_used(text: &str) -> bool {
    const RMW: [&str; 9] =
        ["atomicAdd(", "atomicSub(", "atomicMax(", "atomicMin(", "atomicAnd(", "atomicOr(", "atomicXor(", "atomicExchange(", "atomicCompareExchangeWeak("];
    text.lines().any(|l| {
        let l = l.split("//").next().unwrap_or("").trim();
        RMW.iter().any(|f| l.contains(f) && !l.starts_with(f))
    })
}

#[test]
fn exact_mode_gives_every_case_its_verdict() {
    let mut wrong = Vec::new();
    for case in cases() {
        let expect = case.file.case.as_ref().expect("corpus files carry a case");
        let outcome = run(&case, &Runtime::cpu(), Mode::Exact);
        let races: Vec<&ld::Race> = reports(&outcome).into_iter().flat_map(|r| &r.races).collect();
        match expect.verdict {
            Verdict::RaceFree if !races.is_empty() => wrong.push(format!("{}: race-free, but exact mode reports {races:#?}", case.name)),
            Verdict::Racy => {
                for want in &expect.races {
                    if !races.iter().any(|r| matches(r, want)) {
                        wrong.push(format!("{}: exact mode misses {want:?}; it reports {races:#?}", case.name));
                    }
                }
            }
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Which variables race, and how, in a report.
fn kinds(r: &Report) -> std::collections::BTreeSet<String> {
    r.races.iter().map(|x| format!("{} {:?} {:?}", x.variable, x.kind, x.level)).collect()
}

/// What a report says of its races and its indices out of bounds,
/// backend aside.
fn summary(r: &Report) -> Vec<String> {
    let races = r.races.iter().map(|x| format!("{} {:?} {:?} {:?} {:?}", x.variable, x.kind, x.level, x.words, x.places));
    races.chain(r.out_of_bounds.iter().map(|o| format!("{o} at {}:{}", o.line, o.column))).collect()
}

#[test]
fn check_mode_reports_only_races_and_the_same_on_both_backends() {
    let mut wrong = Vec::new();
    let gpu = support::gpu();
    for case in cases() {
        let expect = case.file.case.as_ref().expect("corpus files carry a case");
        // Where atomics' order steers the run, which units race differs
        // from run to run: compare which variables race, and how.
        let coarse = atomic_results_used(&case.resolved.shaders.iter().map(|s| s.source.as_str()).collect::<String>());
        let exact = run(&case, &Runtime::cpu(), Mode::Exact);
        let cpu = run(&case, &Runtime::cpu(), Mode::Check);
        for (c, e) in reports(&cpu).into_iter().zip(reports(&exact)) {
            if coarse && !kinds(c).is_subset(&kinds(e)) {
                wrong.push(format!("{}: check mode reports races exact mode does not:\n{c}\n--- exact:\n{e}", case.name));
            } else if let (false, Err(m)) = (coarse, support::contained_in_exact(c, e)) {
                wrong.push(format!("{}: {m}", case.name));
            }
        }
        let racy = reports(&cpu).iter().any(|r| !r.races.is_empty());
        if racy != (expect.verdict == Verdict::Racy) {
            wrong.push(format!("{}: check mode says racy = {racy}, the case {:?}", case.name, expect.verdict));
        }
        if let Some(g) = &gpu {
            let on_gpu = run(&case, g, Mode::Check);
            for (i, (a, b)) in reports(&on_gpu).into_iter().zip(reports(&cpu)).enumerate() {
                let lanes = |r: &Report| r.races.iter().any(|x| x.level == Level::IntraWarp);
                let same = if coarse { kinds(a) == kinds(b) } else { summary(a) == summary(b) };
                if !(same || lanes(a) && lanes(b)) {
                    wrong.push(format!("{} dispatch {i}: GPU and CPU reports differ:\n{a}\n--- CPU:\n{b}", case.name));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn deterministic_mode_leaves_the_same_bits_on_both_backends() {
    let Some(gpu) = support::gpu() else { return };
    let (mut wrong, mut compared) = (Vec::new(), 0);
    for case in cases() {
        if let Some(why) = device_dependent(&case) {
            eprintln!("{}: not compared bit for bit: {why}", case.name);
            continue;
        }
        compared += 1;
        let c = run(&case, &Runtime::cpu(), Mode::Deterministic);
        let g = run(&case, &gpu, Mode::Deterministic);
        for (i, (a, b)) in g.dispatches.iter().zip(&c.dispatches).enumerate() {
            if a.run.out_of_bounds != b.run.out_of_bounds {
                wrong.push(format!("{} dispatch {i}: indices out of bounds differ: GPU {:?}, CPU {:?}", case.name, a.run.out_of_bounds, b.run.out_of_bounds));
            }
        }
        for (name, bytes) in &c.buffers {
            if g.buffers[name] != *bytes {
                let first = bytes.iter().zip(&g.buffers[name]).position(|(a, b)| a != b).unwrap_or(0) / 4;
                wrong.push(format!("{}: buffer `{name}` differs from word {first}", case.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(compared >= 20, "only {compared} cases compared");
}
