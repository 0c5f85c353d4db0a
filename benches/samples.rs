//! Every benchmark sample natively, in check mode and in deterministic mode,
//! side by side on the same device in one process, so slowdowns are ratios
//! of measurements taken together. `cargo bench --bench samples`; sizes are
//! the samples' `--size 0.1` (lavapipe is slow), `LD_BENCH_SIZE` overrides.

#[path = "../samples/common/mod.rs"]
mod common;

#[path = "../samples/apps/all.rs"]
#[allow(dead_code)]
mod apps;

use common::app::{App, Flags};
use criterion::{criterion_group, criterion_main, Criterion};
use ld::{Mode, Runtime};
use std::time::{Duration, Instant};

fn flags() -> Flags {
    let size = std::env::var("LD_BENCH_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(0.1);
    Flags::at_size(size)
}

fn bench_app<A: App>(c: &mut Criterion, rt: &Runtime) {
    let f = flags();
    let Ok(mut app) = A::new(rt, &f) else { return };
    let mut g = c.benchmark_group(A::NAME);
    g.sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(2));
    for (name, mode) in [("native", Mode::Native), ("check", Mode::Check), ("deterministic", Mode::Deterministic)] {
        g.bench_function(name, |b| {
            b.iter_custom(|n| {
                let t = Instant::now();
                for _ in 0..n {
                    app.run(rt, &f, mode).unwrap();
                }
                t.elapsed()
            })
        });
    }
    g.finish();
}

fn samples(c: &mut Criterion) {
    let rt = match Runtime::gpu() {
        Ok(rt) => rt,
        Err(_) => Runtime::cpu(),
    };
    macro_rules! bench {
        ($t:path, $name:ident, $small:expr) => {
            bench_app::<$t>(c, &rt);
        };
    }
    apps::for_each_app!(bench);
}

criterion_group!(benches, samples);
criterion_main!(benches);
