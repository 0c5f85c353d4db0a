@group(0) @binding(0) var<storage, read_write> s: array<i32>;
@group(0) @binding(1) var<storage, read_write> u: array<u32>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_div_i32(a: i32, b: i32) -> i32 {
    return a / select(b, 1i, b == 0i || (a == -2147483647i - 1i && b == -1i));
}

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

fn ld_rem_i32(a: i32, b: i32) -> i32 {
    return a % select(b, 1i, b == 0i || (a == -2147483647i - 1i && b == -1i));
}

fn ld_shl_i32(a: i32, b: u32) -> i32 {
    return a << (b & 31u);
}

fn ld_shr_i32(a: i32, b: u32) -> i32 {
    return a >> (b & 31u);
}

// Hides a constant from WGSL's constant evaluation, which rejects what
// the GPU computes at run time (a float that is not finite, ...).
fn ld_opaque_f32(x: f32) -> f32 {
    return x;
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var q: array<i32, 2>;
    var r: u32;
    { let ld_v = ld_div_i32((-2147483647i - 1i), (-1i)); let ld_i0 = 0i; if ld_ok_i(ld_i0, arrayLength(&s), 0u) { s[ld_i0] = ld_v; } }
    { let ld_v = ld_rem_i32(7i, 0i); let ld_i0 = 1i; if ld_ok_i(ld_i0, arrayLength(&s), 1u) { s[ld_i0] = ld_v; } }
    { let ld_v = ld_shl_i32(1i, 35u); let ld_i0 = 2i; if ld_ok_i(ld_i0, arrayLength(&s), 2u) { s[ld_i0] = ld_v; } }
    { let ld_v = (2147483647i + 1i); let ld_i0 = 3i; if ld_ok_i(ld_i0, arrayLength(&s), 3u) { s[ld_i0] = ld_v; } }
    { let ld_v = (-(-2147483647i - 1i)); let ld_i0 = 4i; if ld_ok_i(ld_i0, arrayLength(&s), 4u) { s[ld_i0] = ld_v; } }
    { let ld_v = ld_shr_i32(s[ld_idx_i(4i, arrayLength(&s), 5u)], 40u); let ld_i0 = 5i; if ld_ok_i(ld_i0, arrayLength(&s), 6u) { s[ld_i0] = ld_v; } }
    { let ld_v = 0i; let ld_i0 = 6i; if ld_ok_i(ld_i0, arrayLength(&s), 7u) { s[ld_i0] = ld_div_i32(s[ld_i0], ld_v); } }
    q = array<i32, 2>(7i, 0i);
    { let ld_v = 33u; let ld_i0 = 1i; if ld_ok_i(ld_i0, 2u, 8u) { q[ld_i0] = ld_shl_i32(q[ld_i0], ld_v); } }
    r = 9u;
    r = ld_rem_u32(r, 0u);
    { let ld_v = (r + u32(q[ld_idx_i(1i, 2u, 9u)])); let ld_i0 = 0i; if ld_ok_i(ld_i0, arrayLength(&u), 10u) { u[ld_i0] = ld_v; } }
    { let ld_v = (ld_opaque_f32(1.0f) / 0.0f); let ld_i0 = 0i; if ld_ok_i(ld_i0, arrayLength(&f), 11u) { f[ld_i0] = ld_v; } }
    { let ld_v = sqrt(ld_opaque_f32((-1.0f))); let ld_i0 = 1i; if ld_ok_i(ld_i0, arrayLength(&f), 12u) { f[ld_i0] = ld_v; } }
    { let ld_v = (9.5f * 0.5f); let ld_i0 = 2i; if ld_ok_i(ld_i0, arrayLength(&f), 13u) { f[ld_i0] = ld_v; } }
}

@compute @workgroup_size(1, 1, 1)
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
