@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, 64>;
var<workgroup> flags: array<i32, 8>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_shr_u32(a: u32, b: u32) -> u32 {
    return a >> (b & 31u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var lid: u32;
    var s: u32;
    lid = ld_lidx;
    { let ld_v = input[ld_idx(ld_gid.x, arrayLength(&input), 0u)]; let ld_i0 = lid; if ld_ok(ld_i0, 64u, 1u) { tile[ld_i0] = ld_v; } }
    if (lid < 8u) {
        { let ld_v = (-1i); let ld_i0 = lid; if ld_ok(ld_i0, 8u, 2u) { flags[ld_i0] = ld_v; } }
    }
    workgroupBarrier();
    s = 32u;
    var ld_e0 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !(s > 0u) { ld_e0 = true; break; }
        if (lid < s) {
            { let ld_v = tile[ld_idx((lid + s), 64u, 4u)]; let ld_i0 = lid; if ld_ok(ld_i0, 64u, 5u) { tile[ld_i0] += ld_v; } }
        }
        workgroupBarrier();
        s = ld_shr_u32(s, 1u);
    }
    if !ld_e0 { ld_stopped(3u); return; }
    if (lid == 0u) {
        { let ld_v = (tile[ld_idx_i(0i, 64u, 6u)] + u32(flags[ld_idx_i(7i, 8u, 7u)])); let ld_i0 = ld_wid.x; if ld_ok(ld_i0, arrayLength(&out), 8u) { out[ld_i0] = ld_v; } }
    }
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
