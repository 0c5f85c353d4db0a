struct LdUniforms {
    nbins: u32,
}

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> stats: array<atomic<i32>>;
@group(0) @binding(4) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> local: array<atomic<u32>, 16>;

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
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
    var v: u32;
    var old: i32;
    var prev: u32;
    var seen: u32;
    lid = ld_lidx;
    if (lid < 16u) {
        atomicStore(&local[lid], 0u);
    }
    workgroupBarrier();
    i = ld_gid.x;
    if (i < arrayLength(&values)) {
        v = values[i];
        _ = atomicAdd(&local[ld_rem_u32(v, 16u)], 1u);
        _ = atomicAdd(&bins[ld_rem_u32(v, ld_uniforms.nbins)], 1u);
        old = atomicMax(&stats[0i], i32(v));
        _ = atomicMin(&stats[1i], old);
        _ = atomicSub(&stats[2i], 1i);
        _ = atomicAnd(&bins[0i], (~0u));
        _ = atomicOr(&bins[0i], (v & 1u));
        _ = atomicXor(&bins[0i], 0u);
        prev = atomicExchange(&bins[1i], v);
        seen = atomicCompareExchangeWeak(&bins[2i], prev, v).old_value;
        if (seen == prev) {
            _ = atomicAdd(&stats[3i], 1i);
        }
    }
    workgroupBarrier();
    if (lid < 16u) {
        _ = atomicAdd(&bins[lid], atomicLoad(&local[lid]));
    }
}
