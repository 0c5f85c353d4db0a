struct LdUniforms {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> data: array<i32>;
@group(0) @binding(2) var<uniform> ld_uniforms: LdUniforms;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_shr_i32(a: i32, b: u32) -> i32 {
    return a >> (b & 31u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var i: u32;
    var acc: i32;
    var uld_ctr: u32;
    var uld_end: u32;
    var k: u32;
    var uld_ctr_1: u32;
    var uld_end_1: u32;
    var k_1: u32;
    var uld_more: bool;
    var uld_ctr_2: u32;
    var uld_end_2: u32;
    var uld_step: u32;
    var k_2: u32;
    var uld_more_1: bool;
    var uld_ctr_3: u32;
    var uld_lo: u32;
    var k_3: u32;
    var uld_ctr_4: i32;
    var uld_lo_1: i32;
    var k_4: i32;
    var uld_more_2: bool;
    var uld_ctr_5: u32;
    var uld_end_3: u32;
    var uld_step_1: u32;
    var k_5: u32;
    var uld_more_3: bool;
    var j: u32;
    i = ld_gid.x;
    if (i >= arrayLength(&data)) {
        return;
    }
    acc = 0i;
    uld_ctr = 0u;
    uld_end = ld_uniforms.n;
    var ld_e0 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !(uld_ctr < uld_end) { ld_e0 = true; break; }
        k = uld_ctr;
        if (k == 3u) {
            continue;
        }
        acc += i32(k);
        continuing {
            uld_ctr = (uld_ctr + 1u);
        }
    }
    if !ld_e0 { ld_stopped(0u); return; }
    uld_ctr_1 = 1u;
    uld_end_1 = ld_uniforms.n;
    uld_more = (uld_ctr_1 <= uld_end_1);
    var ld_e1 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !uld_more { ld_e1 = true; break; }
        k_1 = uld_ctr_1;
        acc -= i32(k_1);
        continuing {
            if (1u <= (uld_end_1 - uld_ctr_1)) {
                uld_ctr_1 = (uld_ctr_1 + 1u);
            } else {
                uld_more = false;
            }
        }
    }
    if !ld_e1 { ld_stopped(1u); return; }
    uld_ctr_2 = 0u;
    uld_end_2 = ld_uniforms.n;
    uld_step = 4u;
    uld_more_1 = (uld_ctr_2 < uld_end_2);
    var ld_e2 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !uld_more_1 { ld_e2 = true; break; }
        k_2 = uld_ctr_2;
        if (k_2 > 100u) {
            ld_e2 = true; break;
        }
        acc ^= i32(k_2);
        continuing {
            if (uld_step < (uld_end_2 - uld_ctr_2)) {
                uld_ctr_2 = (uld_ctr_2 + uld_step);
            } else {
                uld_more_1 = false;
            }
        }
    }
    if !ld_e2 { ld_stopped(2u); return; }
    uld_ctr_3 = ld_uniforms.n;
    uld_lo = 0u;
    var ld_e3 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !(uld_ctr_3 > uld_lo) { ld_e3 = true; break; }
        uld_ctr_3 = (uld_ctr_3 - 1u);
        k_3 = uld_ctr_3;
        acc = ((acc * 3i) + i32(k_3));
    }
    if !ld_e3 { ld_stopped(3u); return; }
    uld_ctr_4 = 10i;
    uld_lo_1 = 2i;
    uld_more_2 = (uld_lo_1 <= uld_ctr_4);
    var ld_e4 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !uld_more_2 { ld_e4 = true; break; }
        k_4 = uld_ctr_4;
        acc += k_4;
        continuing {
            if (1i <= (uld_ctr_4 - uld_lo_1)) {
                uld_ctr_4 = (uld_ctr_4 - 1i);
            } else {
                uld_more_2 = false;
            }
        }
    }
    if !ld_e4 { ld_stopped(4u); return; }
    uld_ctr_5 = 1u;
    uld_end_3 = ld_uniforms.n;
    uld_step_1 = 3u;
    uld_more_3 = (uld_ctr_5 <= uld_end_3);
    var ld_e5 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !uld_more_3 { ld_e5 = true; break; }
        k_5 = uld_ctr_5;
        acc -= i32(k_5);
        continuing {
            if (uld_step_1 <= (uld_end_3 - uld_ctr_5)) {
                uld_ctr_5 = (uld_ctr_5 + uld_step_1);
            } else {
                uld_more_3 = false;
            }
        }
    }
    if !ld_e5 { ld_stopped(5u); return; }
    j = 0u;
    var ld_e6 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        if !((j < i) && (j < 10u)) { ld_e6 = true; break; }
        j += 1u;
    }
    if !ld_e6 { ld_stopped(6u); return; }
    var ld_e7 = false;
    loop {
        if ld_fuel == 0u { break; }
        ld_fuel -= 1u;
        acc = ld_shr_i32(acc, 1u);
        if ((acc < 16i) || (j == 0u)) {
            ld_e7 = true; break;
        }
        j -= 1u;
    }
    if !ld_e7 { ld_stopped(7u); return; }
    { let ld_v = acc; let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&data), 8u) { data[ld_i0] = ld_v; } }
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
