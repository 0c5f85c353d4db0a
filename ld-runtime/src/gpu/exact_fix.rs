//! Tests of the exact float functions' corrections (`ld_div_fix`,
//! `ld_sqrt_fix` in `ld_shaders::EXACT`) from estimates several units off,
//! as a device whose `/` and `sqrt` are 2.5 ulp off gives them: lavapipe's
//! are exact, so kernels on it never take those steps.

use super::{read_words, upload, GpuContext};
use crate::settings::Settings;
use std::sync::Arc;

/// Offsets of the estimates from the exact result.
const OFF: i64 = 12;

fn gpu() -> Option<Arc<GpuContext>> {
    let settings = Settings::get().expect("the environment's settings");
    match super::open(settings) {
        Ok(Some(ctx)) => Some(ctx),
        _ if settings.require_gpu => panic!("LD_REQUIRE_GPU=1 but no adapter opened"),
        _ => None,
    }
}

/// Runs `call` (a WGSL expression of `a`, `b`, `c`, the case's three
/// words, giving a `vec2<u32>`) on every case, one invocation each: the
/// results as (first, second) word pairs.
fn run(ctx: &GpuContext, cases: &[[u32; 3]], call: &str) -> Vec<[u32; 2]> {
    let src = format!(
        "{}\n{}\n@group(0) @binding(0) var<storage, read> ld_in: array<u32>;\n@group(0) @binding(1) var<storage, read_write> ld_out: array<u32>;\n\
         @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{\n    let i = g.x;\n    if i >= arrayLength(&ld_in) / 3u {{\n        return;\n    }}\n    \
         let a = ld_in[3u * i];\n    let b = ld_in[3u * i + 1u];\n    let c = ld_in[3u * i + 2u];\n    let r = {call};\n    ld_out[2u * i] = r.x;\n    ld_out[2u * i + 1u] = r.y;\n}}\n",
        ld_shaders::abi::wgsl_prelude(),
        ld_shaders::EXACT
    );
    let dev = &ctx.device;
    let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some("exact fix"), source: wgpu::ShaderSource::Wgsl(src.into()) });
    let pipeline = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("exact fix"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let input = upload(ctx, bytemuck::cast_slice(cases), "u32", cases.len() * 3).unwrap();
    let out = super::zeroed(ctx, cases.len() as u64 * 8, "u32", cases.len() * 2).unwrap();
    let group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: out.as_entire_binding() },
        ],
    });
    let mut enc = dev.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((cases.len() as u32).div_ceil(64), 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    read_words(ctx, &out).unwrap().chunks(2).map(|c| [c[0], c[1]]).collect()
}

/// A xorshift stream.
fn stream(mut s: u32) -> impl FnMut() -> u32 {
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}

/// Remainders at the edges, where a float estimate of the correction
/// rounds across an integer, and a random one: of `top` + 1 possible.
fn remainders(top: u64, r: u32) -> [u64; 7] {
    [0, 1, 9, top, top - 1, top - 9, r as u64 % (top + 1)]
}

/// `call` (of a = n mod 2^32, b, c = an estimate) on 200 exact results
/// with their edge remainders, from every estimate within `OFF` of each:
/// `exact(i, next)` gives case i's result, its largest remainder, `b`,
/// and `n` of a remainder.
fn check_fix(call: &str, seed: u32, exact: impl Fn(u32, &mut dyn FnMut() -> u32) -> (u64, u64, u32, Box<dyn Fn(u64) -> u64>)) {
    let Some(ctx) = gpu() else { return };
    let mut next = stream(seed);
    let (mut cases, mut want) = (Vec::new(), Vec::new());
    for i in 0..200u32 {
        let (q, top, b, n) = exact(i, &mut next);
        for r in remainders(top, next()) {
            for k in -OFF..=OFF {
                cases.push([n(r) as u32, b, (q as i64 + k) as u32]);
                want.push([r as u32, q as u32]);
            }
        }
    }
    let got = run(&ctx, &cases, call);
    for ((g, w), c) in got.iter().zip(&want).zip(&cases) {
        assert_eq!(g, w, "{call} with a = n mod 2^32 = {:#x}, b = {}, c = estimate {}: (remainder, result)", c[0], c[1], c[2]);
    }
}

/// `ld_fdiv`'s quotient of significands, floor(n / d) for n < 2^50 and d
/// in [2^23, 2^24) with a quotient in [2^25, 2^26), and its remainder, from
/// every estimate within `OFF` of it.
#[test]
fn the_division_s_correction_finds_the_exact_quotient_from_estimates_units_off() {
    check_fix("ld_div_fix(a, b, c)", 0x2545f491, |i, next| {
        let d = match i {
            0 => 1 << 23,
            1 => (1 << 24) - 1,
            _ => (1 << 23) | (next() & 0x7fffff),
        } as u64;
        let q = (1u64 << 25) | (next() as u64 & ((1 << 25) - 1));
        (q, d - 1, d as u32, Box::new(move |r| q * d + r))
    });
}

/// `ld_fsqrt`'s root of a significand, floor(sqrt(n)) for a root in
/// [2^24, 2^25), and its remainder, from every estimate within `OFF` of it.
#[test]
fn the_square_root_s_correction_finds_the_exact_root_from_estimates_units_off() {
    check_fix("ld_sqrt_fix(a, c)", 0x9e3779b9, |i, next| {
        let root = match i {
            0 => 1 << 24,
            1 => (1 << 25) - 1,
            _ => (1u64 << 24) | (next() as u64 & ((1 << 24) - 1)),
        };
        (root, 2 * root, 0, Box::new(move |r| root * root + r))
    });
}
