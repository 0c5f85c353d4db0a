struct LdUniforms {
    e: i32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> ld_uniforms: LdUniforms;
// (the guard: ld_shaders::abi::guard_prelude)

// Rust's f32::round: halfway cases away from zero (WGSL's round goes to even).
fn ld_round(x: f32) -> f32 {
    let t = trunc(x);
    return select(t, t + sign(x), abs(x - t) >= 0.5);
}

// Rust's f32::powi: WGSL's pow is undefined for negative bases.
fn ld_powi(x: f32, n: i32) -> f32 {
    let p = pow(abs(x), f32(n));
    return select(p, -p, x < 0.0 && (n & 1) != 0);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var i: u32;
    var v: f32;
    var r: f32;
    i = ld_gid.x;
    v = x[ld_idx(i, arrayLength(&x), 0u)];
    r = ((((sqrt(v) + exp(v)) + exp2(v)) + log(v)) + log2(v));
    r += ((pow(v, 1.5f) + ld_powi(v, ld_uniforms.e)) + ld_powi(v, 3i));
    r += (((sin(v) * cos(v)) + tan(v)) + atan2(v, 2.0f));
    r += (((((floor(v) + ceil(v)) + ld_round(v)) + round(v)) + trunc(v)) + (v - trunc(v)));
    r += ((fma(v, 2.0f, 1.0f) + (1.0f / v)) + abs(v));
    r += (max(min(v, 1.0f), (-1.0f)) + clamp(v, 0.0f, 2.0f));
    r += (((-v) / 3.0f) % 2.0f);
    { let ld_v = r; let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&out), 1u) { out[ld_i0] = ld_v; } }
}

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
    ld_guard_enter(ld_wid.x + ld_nwg.x * (ld_wid.y + ld_nwg.y * ld_wid.z), ld_lidx);
    ld_kernel(ld_gid, ld_lid, ld_wid, ld_nwg, ld_lidx);
    ld_guard_flush();
}
