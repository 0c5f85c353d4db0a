//! A kernel loaded from WGSL against the same kernel written in Rust, in
//! each mode, on the GPU adapter (lavapipe on CI machines) and on the CPU
//! reference (the twin compiled by the macro against the IR interpreter),
//! side by side in one process: what reading a shader costs at run time.
//! `LD_BENCH_SIZE` scales the inputs (1.0: 2^20 elements).

use criterion::{criterion_group, criterion_main, Criterion};
use ld::{Bindings, Grid, Mode, Shader, ShaderKernel};

#[path = "common/mod.rs"]
mod common;
use common::{block_sum, runtimes, saxpy};

/// The same two kernels, as a WGSL programmer writes them.
const WGSL: &str = "
struct Params { a: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(256)
fn saxpy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i < arrayLength(&y) {
        y[i] = params.a * x[i] + y[i];
    }
}

@group(0) @binding(3) var<storage, read> input: array<u32>;
@group(0) @binding(4) var<storage, read_write> sums: array<u32>;
var<workgroup> tile: array<u32, 256>;

@compute @workgroup_size(256)
fn block_sum(@builtin(local_invocation_index) lid: u32, @builtin(global_invocation_id) gid: vec3<u32>,
             @builtin(workgroup_id) wid: vec3<u32>) {
    tile[lid] = input[gid.x];
    workgroupBarrier();
    var s = 128u;
    while s > 0u {
        if lid < s {
            tile[lid] += tile[lid + s];
        }
        workgroupBarrier();
        s >>= 1u;
    }
    if lid == 0u {
        sums[wid.x] = tile[0];
    }
}
";

fn bench(c: &mut Criterion) {
    let scale: f64 = std::env::var("LD_BENCH_SIZE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let n = (((1u64 << 20) as f64 * scale) as usize).max(256) / 256 * 256;
    let shader = Shader::parse(WGSL.to_string(), "bench.wgsl".as_ref()).unwrap();
    let (wgsl_saxpy, wgsl_sum) = (ShaderKernel::new(&shader, "saxpy", &[]).unwrap(), ShaderKernel::new(&shader, "block_sum", &[]).unwrap());
    let a = 2.0f32.to_le_bytes();
    for (name, rt) in runtimes() {
        let x = rt.upload(&vec![1.5f32; n]).unwrap();
        let mut y = rt.upload(&vec![0.5f32; n]).unwrap();
        let input = rt.upload(&vec![1u32; n]).unwrap();
        let mut out = rt.zeros::<u32>(n / 256).unwrap();
        let grid = Grid::cover(n as u64, 256);
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let m = mode.name();
            c.bench_function(&format!("saxpy/{name}/{m}/rust"), |b| b.iter(|| saxpy.launch(&rt, grid, &x, &mut y, 2.0f32).mode(mode).run().unwrap()));
            c.bench_function(&format!("saxpy/{name}/{m}/wgsl"), |b| {
                b.iter(|| {
                    let bind = Bindings::new().buffer(0, 0, &x).buffer(0, 1, &mut y).uniform(0, 2, &a);
                    wgsl_saxpy.launch(&rt, grid, bind).unwrap().mode(mode).run().unwrap()
                })
            });
            c.bench_function(&format!("block_sum/{name}/{m}/rust"), |b| b.iter(|| block_sum.launch(&rt, grid, &input, &mut out).mode(mode).run().unwrap()));
            c.bench_function(&format!("block_sum/{name}/{m}/wgsl"), |b| {
                b.iter(|| {
                    let bind = Bindings::new().buffer(0, 3, &input).buffer(0, 4, &mut out);
                    wgsl_sum.launch(&rt, grid, bind).unwrap().mode(mode).run().unwrap()
                })
            });
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
