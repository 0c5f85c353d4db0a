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
    return (private_[(uld_w_offset + j)] + 1u);
}

fn tally_1(ld_p0: u32, ld_p1: u32) -> u32 {
    var uld_w_offset: u32;
    var j: u32;
    uld_w_offset = ld_p0;
    j = ld_p1;
    return (write_[(uld_w_offset + j)] + 1u);
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
    var read_: u32;
    var square_1: u32;
    var tally_1_1: u32;
    var tally_2: u32;
    i = ld_gid.x;
    private_[ld_lidx] = i;
    workgroupBarrier();
    read_ = (storage_[i].target_ + ld_uniforms.uniform_);
    square_1 = square(read_);
    tally_1_1 = tally(0u, ld_lidx);
    tally_2 = tally_1(0u, i);
    write_[i] = (((square_1 + tally_2) + tally_1_1) + u32(storage_[i].read_));
    _ = atomicAdd(&atomicAdd_[0i], 1u);
}
