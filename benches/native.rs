//! Native dispatch cost on the GPU adapter (lavapipe on CI machines) and on
//! the CPU reference executor, side by side in one process.

use criterion::{criterion_group, criterion_main, Criterion};
use ld::Grid;

#[path = "common/mod.rs"]
mod common;
use common::{block_sum, runtimes, saxpy};

fn bench(c: &mut Criterion) {
    const N: usize = 1 << 20;
    for (name, rt) in runtimes() {
        let x = rt.upload(&vec![1.5f32; N]).unwrap();
        let mut y = rt.upload(&vec![0.5f32; N]).unwrap();
        c.bench_function(&format!("saxpy_1M/{name}"), |b| b.iter(|| saxpy.launch(&rt, Grid::cover(N as u64, 256), &x, &mut y, 2.0f32).run().unwrap()));
        let input = rt.upload(&vec![1u32; N]).unwrap();
        let mut out = rt.zeros::<u32>(N / 256).unwrap();
        c.bench_function(&format!("block_sum_1M/{name}"), |b| b.iter(|| block_sum.launch(&rt, (N / 256) as u32, &input, &mut out).run().unwrap()));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
