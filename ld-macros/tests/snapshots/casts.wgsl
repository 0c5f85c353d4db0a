@group(0) @binding(0) var<storage, read> f: array<f32>;
@group(0) @binding(1) var<storage, read_write> u: array<u32>;
@group(0) @binding(2) var<storage, read_write> s: array<i32>;
@group(0) @binding(3) var<storage, read_write> g: array<f32>;

fn ld_shr_u32(a: u32, b: u32) -> u32 {
    return a >> (b & 31u);
}

fn ld_shr_i32(a: i32, b: u32) -> i32 {
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
    var i: u32;
    var x: f32;
    var bits: u32;
    var signed: i32;
    var positive: bool;
    i = ld_gid.x;
    x = f[i];
    u[i] = u32(x);
    s[i] = i32(x);
    bits = bitcast<u32>(x);
    g[i] = bitcast<f32>((bits ^ 2147483648u));
    signed = i32(bits);
    s[i] += ld_shr_i32(signed, 31u);
    u[i] += ld_shr_u32(u32(signed), 31u);
    g[i] += (f32(u[i]) * f32(s[i]));
    positive = (x > 0.0f);
    u[i] += u32(positive);
    g[i] += f32(i32(abs(x)));
}
