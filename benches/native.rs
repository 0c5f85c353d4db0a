//! Native dispatch cost on the GPU adapter (lavapipe on CI machines) and on
//! the CPU reference executor, side by side in one process.

use criterion::{criterion_group, criterion_main, Criterion};
use ld::{Grid, Runtime};

#[ld::kernel(workgroup_size = 256)]
fn saxpy(x: &[f32], y: &mut [f32], a: f32) {
    let i = global_id().x;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[ld::kernel(workgroup_size = 256)]
fn block_sum(input: &[u32], out: &mut [u32]) {
    let tile = shared::<[u32; 256]>();
    let lid = local_index();
    tile[lid] = input[global_id().x];
    barrier();
    let mut s = 128u32;
    while s > 0 {
        if lid < s {
            tile[lid] += tile[lid + s];
        }
        barrier();
        s >>= 1;
    }
    if lid == 0 {
        out[workgroup_id().x] = tile[0];
    }
}

fn runtimes() -> Vec<(&'static str, Runtime)> {
    let mut v = vec![("cpu", Runtime::cpu())];
    if let Ok(g) = Runtime::gpu() {
        v.insert(0, ("gpu", g));
    }
    v
}

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
