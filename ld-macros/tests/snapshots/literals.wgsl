@group(0) @binding(0) var<storage, read_write> u: array<u32>;
@group(0) @binding(1) var<storage, read_write> s: array<i32>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

@compute @workgroup_size(1, 1, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
    var k: i32;
    var arr: array<u32, 4>;
    s[0i] = (-2147483647i - 1i);
    s[1i] = (-2147483647i - 1i);
    s[2i] = 2147483647i;
    s[3i] = (-1i);
    s[4i] = (-16i);
    u[0i] = 4294967295u;
    u[1i] = 4294901760u;
    u[2i] = 10u;
    u[3i] = 4000000000u;
    u[4i] = 7u;
    f[0i] = 3.4028235e38f;
    f[1i] = (-3.4028235e38f);
    f[2i] = 1.1920929e-7f;
    f[3i] = 3.1415927f;
    f[4i] = 0.001f;
    f[5i] = (-25000000000.0f);
    f[6i] = 0.1f;
    f[7i] = 3.0f;
    f[8i] = 1.1754944e-38f;
    k = 3i;
    s[5i] = (k * 2i);
    arr = array<u32, 4>();
    arr[ld_rem_u32(u32(k), 4u)] = 9u;
    u[5i] = arr[3i];
}
