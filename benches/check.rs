//! Level 1's merge sweep against a plain shader copy of as many bytes on
//! the same device: the fraction of the device's copy bandwidth the sweep
//! reaches, side by side (criterion prints both throughputs).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ld_runtime::__Level1Bench as Level1Bench;

fn level1(c: &mut Criterion) {
    let rt = match ld::Runtime::gpu() {
        Ok(rt) => rt,
        Err(e) if std::env::var("LD_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("LD_REQUIRE_GPU=1 but: {e}")
        }
        Err(e) => {
            eprintln!("no GPU adapter ({e}): level-1 benchmarks not run");
            return;
        }
    };
    // 16 MiB of user words, every page written by two workgroups.
    let mib: f64 = std::env::var("LD_BENCH_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let pages = ((16.0 * mib * (1 << 20) as f64) as u64 / 256).max(16);
    let b = Level1Bench::new(&rt, pages).expect("bench set-up");
    let mut g = c.benchmark_group(format!("level1_{}KiB", pages / 4));
    g.throughput(Throughput::Bytes(b.bytes()));
    g.bench_function("merge", |x| x.iter_custom(|n| (0..n).map(|_| b.merge().unwrap()).sum()));
    g.bench_function("shader_copy", |x| x.iter_custom(|n| (0..n).map(|_| b.copy().unwrap()).sum()));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = level1
}
criterion_main!(benches);
