struct LdUniforms {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> data: array<i32>;
@group(0) @binding(2) var<uniform> ld_uniforms: LdUniforms;

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
    var i: u32;
    var acc: i32;
    var ld_ctr: u32;
    var ld_end: u32;
    var k: u32;
    var ld_ctr_1: u32;
    var ld_end_1: u32;
    var k_1: u32;
    var ld_more: bool;
    var ld_ctr_2: u32;
    var ld_end_2: u32;
    var ld_step: u32;
    var k_2: u32;
    var ld_more_1: bool;
    var ld_ctr_3: u32;
    var ld_lo: u32;
    var k_3: u32;
    var ld_ctr_4: i32;
    var ld_lo_1: i32;
    var k_4: i32;
    var ld_more_2: bool;
    var ld_ctr_5: u32;
    var ld_end_3: u32;
    var ld_step_1: u32;
    var k_5: u32;
    var ld_more_3: bool;
    var j: u32;
    i = ld_gid.x;
    if (i >= arrayLength(&data)) {
        return;
    }
    acc = 0i;
    ld_ctr = 0u;
    ld_end = ld_uniforms.n;
    loop {
        if !(ld_ctr < ld_end) { break; }
        k = ld_ctr;
        if (k == 3u) {
            continue;
        }
        acc += i32(k);
        continuing {
            ld_ctr = (ld_ctr + 1u);
        }
    }
    ld_ctr_1 = 1u;
    ld_end_1 = ld_uniforms.n;
    ld_more = (ld_ctr_1 <= ld_end_1);
    loop {
        if !ld_more { break; }
        k_1 = ld_ctr_1;
        acc -= i32(k_1);
        continuing {
            if (1u <= (ld_end_1 - ld_ctr_1)) {
                ld_ctr_1 = (ld_ctr_1 + 1u);
            } else {
                ld_more = false;
            }
        }
    }
    ld_ctr_2 = 0u;
    ld_end_2 = ld_uniforms.n;
    ld_step = 4u;
    ld_more_1 = (ld_ctr_2 < ld_end_2);
    loop {
        if !ld_more_1 { break; }
        k_2 = ld_ctr_2;
        if (k_2 > 100u) {
            break;
        }
        acc ^= i32(k_2);
        continuing {
            if (ld_step < (ld_end_2 - ld_ctr_2)) {
                ld_ctr_2 = (ld_ctr_2 + ld_step);
            } else {
                ld_more_1 = false;
            }
        }
    }
    ld_ctr_3 = ld_uniforms.n;
    ld_lo = 0u;
    loop {
        if !(ld_ctr_3 > ld_lo) { break; }
        ld_ctr_3 = (ld_ctr_3 - 1u);
        k_3 = ld_ctr_3;
        acc = ((acc * 3i) + i32(k_3));
    }
    ld_ctr_4 = 10i;
    ld_lo_1 = 2i;
    ld_more_2 = (ld_lo_1 <= ld_ctr_4);
    loop {
        if !ld_more_2 { break; }
        k_4 = ld_ctr_4;
        acc += k_4;
        continuing {
            if (1i <= (ld_ctr_4 - ld_lo_1)) {
                ld_ctr_4 = (ld_ctr_4 - 1i);
            } else {
                ld_more_2 = false;
            }
        }
    }
    ld_ctr_5 = 1u;
    ld_end_3 = ld_uniforms.n;
    ld_step_1 = 3u;
    ld_more_3 = (ld_ctr_5 <= ld_end_3);
    loop {
        if !ld_more_3 { break; }
        k_5 = ld_ctr_5;
        acc -= i32(k_5);
        continuing {
            if (ld_step_1 <= (ld_end_3 - ld_ctr_5)) {
                ld_ctr_5 = (ld_ctr_5 + ld_step_1);
            } else {
                ld_more_3 = false;
            }
        }
    }
    j = 0u;
    loop {
        if !((j < i) && (j < 10u)) { break; }
        j += 1u;
    }
    loop {
        acc >>= 1u;
        if ((acc < 16i) || (j == 0u)) {
            break;
        }
        j -= 1u;
    }
    data[i] = acc;
}
