//! Check mode's costs on the GPU adapter, as ratios: the checking shaders
//! against a plain buffer copy of the same bytes (per MiB of copies swept).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ld_runtime::check::gpu::bench::SweepBench;

fn sweeps(c: &mut Criterion) {
    let Ok(rt) = ld::Runtime::gpu() else {
        eprintln!("no GPU adapter: check-mode sweep benchmarks skipped");
        return;
    };
    // 8 warps' copies of a 2 MiB target: 16 MiB swept per step.
    let b = SweepBench::new(&rt, 512 * 1024, 8).expect("bench set");
    let mut g = c.benchmark_group("sweeps_16MiB");
    g.throughput(Throughput::Bytes(b.bytes()));
    g.bench_function("merge", |x| x.iter_custom(|n| (0..n).map(|_| b.merge().unwrap()).sum()));
    g.bench_function("compare", |x| x.iter_custom(|n| (0..n).map(|_| b.compare().unwrap()).sum()));
    g.bench_function("buffer_copy", |x| x.iter_custom(|n| (0..n).map(|_| b.copy().unwrap()).sum()));
    g.finish();
}

criterion_group! {
    name = benches;
    config = criterion::Criterion::default().sample_size(10);
    targets = sweeps
}
criterion_main!(benches);
