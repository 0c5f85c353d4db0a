@group(0) @binding(0) var<storage, read_write> u: array<u32>;
@group(0) @binding(1) var<storage, read_write> s: array<i32>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var k: i32;
    var arr: array<u32, 4>;
    { let ld_v = (-2147483647i - 1i); let ld_i0 = 0i; if ld_ok_i(ld_i0, arrayLength(&s), 0u) { s[ld_i0] = ld_v; } }
    { let ld_v = (-2147483647i - 1i); let ld_i0 = 1i; if ld_ok_i(ld_i0, arrayLength(&s), 1u) { s[ld_i0] = ld_v; } }
    { let ld_v = 2147483647i; let ld_i0 = 2i; if ld_ok_i(ld_i0, arrayLength(&s), 2u) { s[ld_i0] = ld_v; } }
    { let ld_v = (-1i); let ld_i0 = 3i; if ld_ok_i(ld_i0, arrayLength(&s), 3u) { s[ld_i0] = ld_v; } }
    { let ld_v = (-16i); let ld_i0 = 4i; if ld_ok_i(ld_i0, arrayLength(&s), 4u) { s[ld_i0] = ld_v; } }
    { let ld_v = 4294967295u; let ld_i0 = 0i; if ld_ok_i(ld_i0, arrayLength(&u), 5u) { u[ld_i0] = ld_v; } }
    { let ld_v = 4294901760u; let ld_i0 = 1i; if ld_ok_i(ld_i0, arrayLength(&u), 6u) { u[ld_i0] = ld_v; } }
    { let ld_v = 10u; let ld_i0 = 2i; if ld_ok_i(ld_i0, arrayLength(&u), 7u) { u[ld_i0] = ld_v; } }
    { let ld_v = 4000000000u; let ld_i0 = 3i; if ld_ok_i(ld_i0, arrayLength(&u), 8u) { u[ld_i0] = ld_v; } }
    { let ld_v = 7u; let ld_i0 = 4i; if ld_ok_i(ld_i0, arrayLength(&u), 9u) { u[ld_i0] = ld_v; } }
    { let ld_v = 3.4028235e38f; let ld_i0 = 0i; if ld_ok_i(ld_i0, arrayLength(&f), 10u) { f[ld_i0] = ld_v; } }
    { let ld_v = (-3.4028235e38f); let ld_i0 = 1i; if ld_ok_i(ld_i0, arrayLength(&f), 11u) { f[ld_i0] = ld_v; } }
    { let ld_v = 1.1920929e-7f; let ld_i0 = 2i; if ld_ok_i(ld_i0, arrayLength(&f), 12u) { f[ld_i0] = ld_v; } }
    { let ld_v = 3.1415927f; let ld_i0 = 3i; if ld_ok_i(ld_i0, arrayLength(&f), 13u) { f[ld_i0] = ld_v; } }
    { let ld_v = 0.001f; let ld_i0 = 4i; if ld_ok_i(ld_i0, arrayLength(&f), 14u) { f[ld_i0] = ld_v; } }
    { let ld_v = (-25000000000.0f); let ld_i0 = 5i; if ld_ok_i(ld_i0, arrayLength(&f), 15u) { f[ld_i0] = ld_v; } }
    { let ld_v = 0.1f; let ld_i0 = 6i; if ld_ok_i(ld_i0, arrayLength(&f), 16u) { f[ld_i0] = ld_v; } }
    { let ld_v = 3.0f; let ld_i0 = 7i; if ld_ok_i(ld_i0, arrayLength(&f), 17u) { f[ld_i0] = ld_v; } }
    { let ld_v = 1.1754944e-38f; let ld_i0 = 8i; if ld_ok_i(ld_i0, arrayLength(&f), 18u) { f[ld_i0] = ld_v; } }
    k = 3i;
    { let ld_v = (k * 2i); let ld_i0 = 5i; if ld_ok_i(ld_i0, arrayLength(&s), 19u) { s[ld_i0] = ld_v; } }
    arr = array<u32, 4>();
    { let ld_v = 9u; let ld_i0 = ld_rem_u32(u32(k), 4u); if ld_ok(ld_i0, 4u, 20u) { arr[ld_i0] = ld_v; } }
    { let ld_v = arr[ld_idx_i(3i, 4u, 21u)]; let ld_i0 = 5i; if ld_ok_i(ld_i0, arrayLength(&u), 22u) { u[ld_i0] = ld_v; } }
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
