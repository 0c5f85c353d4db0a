@group(0) @binding(0) var<storage, read> f: array<f32>;
@group(0) @binding(1) var<storage, read_write> u: array<u32>;
@group(0) @binding(2) var<storage, read_write> s: array<i32>;
@group(0) @binding(3) var<storage, read_write> g: array<f32>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_shr_u32(a: u32, b: u32) -> u32 {
    return a >> (b & 31u);
}

fn ld_shr_i32(a: i32, b: u32) -> i32 {
    return a >> (b & 31u);
}

// Rust's `as u32` of a NaN is 0 (WGSL leaves it to the device: lavapipe's
// i32 of a NaN is i32::MIN). The NaN test is on the bits: drivers may fold `x != x`.
fn ld_f32_to_u32(x: f32) -> u32 {
    return select(u32(x), 0u, (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u);
}

// Rust's `as i32` of a NaN is 0 (WGSL leaves it to the device: lavapipe's
// i32 of a NaN is i32::MIN). The NaN test is on the bits: drivers may fold `x != x`.
fn ld_f32_to_i32(x: f32) -> i32 {
    return select(i32(x), 0i, (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var i: u32;
    var x: f32;
    var bits: u32;
    var signed: i32;
    var positive: bool;
    i = ld_gid.x;
    x = f[ld_idx(i, arrayLength(&f), 0u)];
    { let ld_v = ld_f32_to_u32(x); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&u), 1u) { u[ld_i0] = ld_v; } }
    { let ld_v = ld_f32_to_i32(x); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&s), 2u) { s[ld_i0] = ld_v; } }
    bits = bitcast<u32>(x);
    { let ld_v = bitcast<f32>((bits ^ 2147483648u)); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&g), 3u) { g[ld_i0] = ld_v; } }
    signed = i32(bits);
    { let ld_v = ld_shr_i32(signed, 31u); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&s), 4u) { s[ld_i0] += ld_v; } }
    { let ld_v = ld_shr_u32(u32(signed), 31u); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&u), 5u) { u[ld_i0] += ld_v; } }
    { let ld_v = (f32(u[ld_idx(i, arrayLength(&u), 6u)]) * f32(s[ld_idx(i, arrayLength(&s), 7u)])); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&g), 8u) { g[ld_i0] += ld_v; } }
    positive = (x > 0.0f);
    { let ld_v = u32(positive); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&u), 9u) { u[ld_i0] += ld_v; } }
    { let ld_v = f32(ld_f32_to_i32(abs(x))); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&g), 10u) { g[ld_i0] += ld_v; } }
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
