struct LdUniforms {
    n: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> tile: array<f32, 66>;
// (the guard: ld_shaders::abi::guard_prelude)

fn avg3(ld_p0: u32) -> f32 {
    var uld_v_offset: u32;
    uld_v_offset = ld_p0;
    return (sum3_1(uld_v_offset) / 3.0f);
}

fn avg3_1(ld_p0: u32) -> f32 {
    var uld_v_offset: u32;
    uld_v_offset = ld_p0;
    return (sum3(uld_v_offset) / 3.0f);
}

fn sum3(ld_p0: u32) -> f32 {
    var uld_v_offset: u32;
    uld_v_offset = ld_p0;
    return ((tile[ld_idx((uld_v_offset + 0u), 66u, 3u)] + tile[ld_idx((uld_v_offset + 1u), 66u, 4u)]) + tile[ld_idx((uld_v_offset + 2u), 66u, 5u)]);
}

fn fill(ld_p0: u32, ld_p1: f32) {
    var uld_v_offset: u32;
    var x: f32;
    var uld_ctr: u32;
    var uld_end: u32;
    var j: u32;
    uld_v_offset = ld_p0;
    x = ld_p1;
    uld_ctr = 0u;
    uld_end = (arrayLength(&out) - uld_v_offset);
    var ld_e0 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !(uld_ctr < uld_end) { ld_e0 = true; break; }
        j = uld_ctr;
        { let ld_v = x; let ld_i0 = (uld_v_offset + j); if ld_ok(ld_i0, arrayLength(&out), 7u) { out[ld_i0] = ld_v; } }
        continuing {
            uld_ctr = (uld_ctr + 1u);
        }
    }
    if !ld_e0 { ld_stopped(6u); return; }
}

fn sum3_1(ld_p0: u32) -> f32 {
    var uld_v_offset: u32;
    uld_v_offset = ld_p0;
    return ((a[ld_idx((uld_v_offset + 0u), arrayLength(&a), 8u)] + a[ld_idx((uld_v_offset + 1u), arrayLength(&a), 9u)]) + a[ld_idx((uld_v_offset + 2u), arrayLength(&a), 10u)]);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var lid: u32;
    var i: u32;
    var uld_rest_offset: u32;
    lid = ld_lidx;
    i = ld_gid.x;
    { let ld_v = a[ld_idx(i, arrayLength(&a), 0u)]; let ld_i0 = (lid + 1u); if ld_ok(ld_i0, 66u, 1u) { tile[ld_i0] = ld_v; } }
    workgroupBarrier();
    if ((i + 2u) < ld_uniforms.n) {
        { let ld_v = (avg3((0u + i)) + avg3_1((0u + lid))); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&out), 2u) { out[ld_i0] = ld_v; } }
        uld_rest_offset = ld_uniforms.n;
        if (lid == 0u) {
            fill(uld_rest_offset, sum3((0u + lid)));
            if ld_halt { return; }
        }
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
