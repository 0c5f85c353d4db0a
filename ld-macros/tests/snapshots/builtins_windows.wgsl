struct LdUniforms {
    width: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> tile: array<u32, 64>;

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

@compute @workgroup_size(8, 8, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
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
    tile[ld_lidx] = input[ld_rem_u32(flat_, arrayLength(&input))];
    workgroupBarrier();
    uld_row_offset = (l.y * 8u);
    acc = array<u32, 2>();
    uld_ctr = 0u;
    uld_end = 8u;
    loop {
        if !(uld_ctr < uld_end) { break; }
        j = uld_ctr;
        acc[ld_rem_u32(j, 2u)] += tile[(uld_row_offset + j)];
        continuing {
            uld_ctr = (uld_ctr + 1u);
        }
    }
    uld_w_offset = (ld_wid.x * 64u);
    if (acc[0i] > acc[1i]) {
        m = acc[0i];
    } else {
        m = acc[1i];
    }
    if ((l.x < (arrayLength(&out) - uld_w_offset)) && ((ld_uniforms.width == 0u) || (g.x < ld_uniforms.width))) {
        out[(uld_w_offset + l.x)] = (m + (64u - uld_row_offset));
    }
}
