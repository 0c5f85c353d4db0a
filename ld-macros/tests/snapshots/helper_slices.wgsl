struct LdUniforms {
    n: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> tile: array<f32, 66>;

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
    return ((tile[(uld_v_offset + 0u)] + tile[(uld_v_offset + 1u)]) + tile[(uld_v_offset + 2u)]);
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
    loop {
        if !(uld_ctr < uld_end) { break; }
        j = uld_ctr;
        out[(uld_v_offset + j)] = x;
        continuing {
            uld_ctr = (uld_ctr + 1u);
        }
    }
}

fn sum3_1(ld_p0: u32) -> f32 {
    var uld_v_offset: u32;
    uld_v_offset = ld_p0;
    return ((a[(uld_v_offset + 0u)] + a[(uld_v_offset + 1u)]) + a[(uld_v_offset + 2u)]);
}

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
    var lid: u32;
    var i: u32;
    var uld_rest_offset: u32;
    lid = ld_lidx;
    i = ld_gid.x;
    tile[(lid + 1u)] = a[i];
    workgroupBarrier();
    if ((i + 2u) < ld_uniforms.n) {
        out[i] = (avg3((0u + i)) + avg3_1((0u + lid)));
        uld_rest_offset = ld_uniforms.n;
        if (lid == 0u) {
            fill(uld_rest_offset, sum3((0u + lid)));
        }
    }
}
