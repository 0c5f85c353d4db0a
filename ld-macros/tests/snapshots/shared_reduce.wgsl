@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, 64>;
var<workgroup> flags: array<i32, 8>;

fn ld_shr_u32(a: u32, b: u32) -> u32 {
    return a >> (b & 31u);
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
    var s: u32;
    lid = ld_lidx;
    tile[lid] = input[ld_gid.x];
    if (lid < 8u) {
        flags[lid] = (-1i);
    }
    workgroupBarrier();
    s = 32u;
    loop {
        if !(s > 0u) { break; }
        if (lid < s) {
            tile[lid] += tile[(lid + s)];
        }
        workgroupBarrier();
        s = ld_shr_u32(s, 1u);
    }
    if (lid == 0u) {
        out[ld_wid.x] = (tile[0i] + u32(flags[7i]));
    }
}
