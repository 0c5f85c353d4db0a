struct LdUniforms {
    width: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> tile: array<u32, 64>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var g: vec3<u32>;
    var l: vec3<u32>;
    var flat_: u32;
    var uld_row_offset: u32;
    var acc: array<u32, 2>;
    var uld_ctr: u32;
    var uld_end: u32;
    var j: u32;
    var uld_w_offset: u32;
    var m: u32;
    g = ld_gid;
    l = ld_lid;
    flat_ = (((g.y * ld_nwg.x) * 8u) + g.x);
    { let ld_v = input[ld_idx(ld_rem_u32(flat_, arrayLength(&input)), arrayLength(&input), 0u)]; let ld_i0 = ld_lidx; if ld_ok(ld_i0, 64u, 1u) { tile[ld_i0] = ld_v; } }
    workgroupBarrier();
    uld_row_offset = (l.y * 8u);
    acc = array<u32, 2>();
    uld_ctr = 0u;
    uld_end = 8u;
    var ld_e0 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !(uld_ctr < uld_end) { ld_e0 = true; break; }
        j = uld_ctr;
        { let ld_v = tile[ld_idx((uld_row_offset + j), 64u, 3u)]; let ld_i0 = ld_rem_u32(j, 2u); if ld_ok(ld_i0, 2u, 4u) { acc[ld_i0] += ld_v; } }
        continuing {
            uld_ctr = (uld_ctr + 1u);
        }
    }
    if !ld_e0 { ld_stopped(2u); return; }
    uld_w_offset = (ld_wid.x * 64u);
    if (acc[ld_idx_i(0i, 2u, 5u)] > acc[ld_idx_i(1i, 2u, 6u)]) {
        m = acc[ld_idx_i(0i, 2u, 7u)];
    } else {
        m = acc[ld_idx_i(1i, 2u, 8u)];
    }
    if ((l.x < (arrayLength(&out) - uld_w_offset)) && ((ld_uniforms.width == 0u) || (g.x < ld_uniforms.width))) {
        { let ld_v = (m + (64u - uld_row_offset)); let ld_i0 = (uld_w_offset + l.x); if ld_ok(ld_i0, arrayLength(&out), 9u) { out[ld_i0] = ld_v; } }
    }
}

@compute @workgroup_size(8, 8, 1)
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
