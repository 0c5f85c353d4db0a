@group(0) @binding(0) var<storage, read_write> s: array<i32>;
@group(0) @binding(1) var<storage, read_write> u: array<u32>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;

fn ld_div_i32(a: i32, b: i32) -> i32 {
    return a / select(b, 1i, b == 0i || (a == -2147483647i - 1i && b == -1i));
}

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

fn ld_rem_i32(a: i32, b: i32) -> i32 {
    return a % select(b, 1i, b == 0i || (a == -2147483647i - 1i && b == -1i));
}

fn ld_shl_i32(a: i32, b: u32) -> i32 {
    return a << (b & 31u);
}

fn ld_shr_i32(a: i32, b: u32) -> i32 {
    return a >> (b & 31u);
}

// Hides a constant from WGSL's constant evaluation, which rejects what
// the GPU computes at run time (a float that is not finite, ...).
fn ld_opaque_f32(x: f32) -> f32 {
    return x;
}

@compute @workgroup_size(1, 1, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
    var q: array<i32, 2>;
    var r: u32;
    s[0i] = ld_div_i32((-2147483647i - 1i), (-1i));
    s[1i] = ld_rem_i32(7i, 0i);
    s[2i] = ld_shl_i32(1i, 35u);
    s[3i] = (2147483647i + 1i);
    s[4i] = (-(-2147483647i - 1i));
    s[5i] = ld_shr_i32(s[4i], 40u);
    { let ld_p = &s[6i]; *ld_p = ld_div_i32(*ld_p, 0i); }
    q = array<i32, 2>(7i, 0i);
    { let ld_p = &q[1i]; *ld_p = ld_shl_i32(*ld_p, 33u); }
    r = 9u;
    r = ld_rem_u32(r, 0u);
    u[0i] = (r + u32(q[1i]));
    f[0i] = (ld_opaque_f32(1.0f) / 0.0f);
    f[1i] = sqrt(ld_opaque_f32((-1.0f)));
    f[2i] = (9.5f * 0.5f);
}
