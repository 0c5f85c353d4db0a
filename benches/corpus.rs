//! The WGSL corpus (`tests/corpus/`) timed as `ld-check --launch` runs
//! it: every buffer made from its launch file, each dispatch loaded and
//! launched in order, every buffer read back, in each mode, on the GPU
//! adapter (lavapipe on CI machines; the CPU reference where there is
//! none). A mode's cost is its time over native mode's for the same case.

use criterion::{criterion_group, criterion_main, Criterion};
use ld::{CheckOptions, Mode, Runtime};
use ld_check::{LaunchFile, Resolved};
use std::path::PathBuf;
use std::time::Duration;

/// Every case's name, launch file and shaders, in name order.
fn cases() -> Vec<(String, LaunchFile, Resolved)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let file = LaunchFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let resolved = file.resolve().unwrap_or_else(|e| panic!("{e}"));
            (path.file_stem().unwrap().to_string_lossy().into_owned(), file, resolved)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let (name, rt) = match Runtime::gpu() {
        Ok(gpu) => ("gpu", gpu),
        Err(_) => ("cpu", Runtime::cpu()),
    };
    let mut options = CheckOptions::default();
    options.progress = false;
    for (case, file, resolved) in cases() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            c.bench_function(&format!("corpus/{case}/{name}/{}", mode.name()), |b| {
                b.iter(|| resolved.run(&file, &rt, mode, &options).unwrap_or_else(|e| panic!("{case} in {mode}: {e}")))
            });
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
