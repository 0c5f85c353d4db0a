struct vec2_ {
    target_: u32,
    read_: f32,
}

struct LdUniforms {
    uniform_: u32,
}

@group(0) @binding(0) var<storage, read> storage_: array<vec2_>;
@group(0) @binding(1) var<storage, read_write> write_: array<u32>;
@group(0) @binding(2) var<storage, read_write> atomicAdd_: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> ld_uniforms: LdUniforms;
var<workgroup> private_: array<u32, 64>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_atomic_0(ld_i: i32, ld_x: u32) -> u32 {
    if !ld_ok_i(ld_i, arrayLength(&atomicAdd_), 4u) {
        return u32();
    }
    return atomicAdd(&atomicAdd_[ld_i], ld_x);
}

// Rust's `as u32` of a NaN is 0 (WGSL leaves it to the device: lavapipe's
// i32 of a NaN is i32::MIN). The NaN test is on the bits: drivers may fold `x != x`.
fn ld_f32_to_u32(x: f32) -> u32 {
    return select(u32(x), 0u, (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u);
}

fn square(ld_p0: u32) -> u32 {
    var x: u32;
    x = ld_p0;
    return (x * x);
}

fn tally(ld_p0: u32, ld_p1: u32) -> u32 {
    var uld_w_offset: u32;
    var j: u32;
    uld_w_offset = ld_p0;
    j = ld_p1;
    return (private_[ld_idx((uld_w_offset + j), 64u, 5u)] + 1u);
}

fn tally_1(ld_p0: u32, ld_p1: u32) -> u32 {
    var uld_w_offset: u32;
    var j: u32;
    uld_w_offset = ld_p0;
    j = ld_p1;
    return (write_[ld_idx((uld_w_offset + j), arrayLength(&write_), 6u)] + 1u);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var i: u32;
    var read_: u32;
    var square_1: u32;
    var tally_1_1: u32;
    var tally_2: u32;
    i = ld_gid.x;
    { let ld_v = i; let ld_i0 = ld_lidx; if ld_ok(ld_i0, 64u, 0u) { private_[ld_i0] = ld_v; } }
    workgroupBarrier();
    read_ = (storage_[ld_idx(i, arrayLength(&storage_), 1u)].target_ + ld_uniforms.uniform_);
    square_1 = square(read_);
    tally_1_1 = tally(0u, ld_lidx);
    tally_2 = tally_1(0u, i);
    { let ld_v = (((square_1 + tally_2) + tally_1_1) + ld_f32_to_u32(storage_[ld_idx(i, arrayLength(&storage_), 2u)].read_)); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&write_), 3u) { write_[ld_i0] = ld_v; } }
    _ = ld_atomic_0(0i, 1u);
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
