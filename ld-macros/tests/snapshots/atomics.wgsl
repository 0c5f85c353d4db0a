struct LdUniforms {
    nbins: u32,
}

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> stats: array<atomic<i32>>;
@group(0) @binding(4) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> local: array<atomic<u32>, 16>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_atomic_0(ld_i: u32, ld_x: u32) {
    if ld_ok(ld_i, 16u, 0u) {
        atomicStore(&local[ld_i], ld_x);
    }
}

fn ld_atomic_1(ld_i: u32, ld_x: u32) -> u32 {
    if !ld_ok(ld_i, 16u, 2u) {
        return u32();
    }
    return atomicAdd(&local[ld_i], ld_x);
}

fn ld_atomic_2(ld_i: u32, ld_x: u32) -> u32 {
    if !ld_ok(ld_i, arrayLength(&bins), 3u) {
        return u32();
    }
    return atomicAdd(&bins[ld_i], ld_x);
}

fn ld_atomic_3(ld_i: i32, ld_x: i32) -> i32 {
    if !ld_ok_i(ld_i, arrayLength(&stats), 4u) {
        return i32();
    }
    return atomicMax(&stats[ld_i], ld_x);
}

fn ld_atomic_4(ld_i: i32, ld_x: i32) -> i32 {
    if !ld_ok_i(ld_i, arrayLength(&stats), 5u) {
        return i32();
    }
    return atomicMin(&stats[ld_i], ld_x);
}

fn ld_atomic_5(ld_i: i32, ld_x: i32) -> i32 {
    if !ld_ok_i(ld_i, arrayLength(&stats), 6u) {
        return i32();
    }
    return atomicSub(&stats[ld_i], ld_x);
}

fn ld_atomic_6(ld_i: i32, ld_x: u32) -> u32 {
    if !ld_ok_i(ld_i, arrayLength(&bins), 7u) {
        return u32();
    }
    return atomicAnd(&bins[ld_i], ld_x);
}

fn ld_atomic_7(ld_i: i32, ld_x: u32) -> u32 {
    if !ld_ok_i(ld_i, arrayLength(&bins), 8u) {
        return u32();
    }
    return atomicOr(&bins[ld_i], ld_x);
}

fn ld_atomic_8(ld_i: i32, ld_x: u32) -> u32 {
    if !ld_ok_i(ld_i, arrayLength(&bins), 9u) {
        return u32();
    }
    return atomicXor(&bins[ld_i], ld_x);
}

fn ld_atomic_9(ld_i: i32, ld_x: u32) -> u32 {
    if !ld_ok_i(ld_i, arrayLength(&bins), 10u) {
        return u32();
    }
    return atomicExchange(&bins[ld_i], ld_x);
}

fn ld_atomic_10(ld_i: i32, ld_x: u32, ld_y: u32) -> u32 {
    if !ld_ok_i(ld_i, arrayLength(&bins), 11u) {
        return u32();
    }
    var ld_r = atomicCompareExchangeWeak(&bins[ld_i], ld_x, ld_y);
    loop {
        if ld_r.exchanged || ld_r.old_value != ld_x {
            break;
        }
        ld_r = atomicCompareExchangeWeak(&bins[ld_i], ld_x, ld_y);
    }
    return ld_r.old_value;
}

fn ld_atomic_11(ld_i: i32, ld_x: i32) -> i32 {
    if !ld_ok_i(ld_i, arrayLength(&stats), 12u) {
        return i32();
    }
    return atomicAdd(&stats[ld_i], ld_x);
}

fn ld_atomic_12(ld_i: u32) -> u32 {
    if !ld_ok(ld_i, 16u, 13u) {
        return u32();
    }
    return atomicLoad(&local[ld_i]);
}

fn ld_atomic_13(ld_i: u32, ld_x: u32) -> u32 {
    if !ld_ok(ld_i, arrayLength(&bins), 14u) {
        return u32();
    }
    return atomicAdd(&bins[ld_i], ld_x);
}

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var lid: u32;
    var i: u32;
    var v: u32;
    var old: i32;
    var prev: u32;
    var seen: u32;
    lid = ld_lidx;
    if (lid < 16u) {
        ld_atomic_0(lid, 0u);
    }
    workgroupBarrier();
    i = ld_gid.x;
    if (i < arrayLength(&values)) {
        v = values[ld_idx(i, arrayLength(&values), 1u)];
        _ = ld_atomic_1(ld_rem_u32(v, 16u), 1u);
        _ = ld_atomic_2(ld_rem_u32(v, ld_uniforms.nbins), 1u);
        old = ld_atomic_3(0i, i32(v));
        _ = ld_atomic_4(1i, old);
        _ = ld_atomic_5(2i, 1i);
        _ = ld_atomic_6(0i, (~0u));
        _ = ld_atomic_7(0i, (v & 1u));
        _ = ld_atomic_8(0i, 0u);
        prev = ld_atomic_9(1i, v);
        seen = ld_atomic_10(2i, prev, v);
        if (seen == prev) {
            _ = ld_atomic_11(3i, 1i);
        }
    }
    workgroupBarrier();
    if (lid < 16u) {
        _ = ld_atomic_13(lid, ld_atomic_12(lid));
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
