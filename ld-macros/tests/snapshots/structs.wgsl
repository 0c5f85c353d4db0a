// kernel step
struct Vec2 {
    x: f32,
    y: f32,
}

struct Body {
    pos: Vec2,
    vel: Vec2,
    history: array<f32, 4>,
    id_: u32,
}

@group(0) @binding(0) var<storage, read_write> bodies: array<Body>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_rem_u32(a: u32, b: u32) -> u32 {
    return a % select(b, 1u, b == 0u);
}

fn advance(ld_p0: Body) -> Body {
    var b: Body;
    var pos: Vec2;
    var history: array<f32, 4>;
    b = ld_p0;
    pos = Vec2((b.pos.x + (b.vel.x * 0.01f)), (b.pos.y + (b.vel.y * 0.01f)));
    history = b.history;
    { let ld_v = pos.x; let ld_i0 = ld_rem_u32(b.id_, 4u); if ld_ok(ld_i0, 4u, 3u) { history[ld_i0] = ld_v; } }
    return Body(pos, b.vel, history, b.id_);
}

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var i: u32;
    i = ld_gid.x;
    if (i < arrayLength(&bodies)) {
        { let ld_v = advance(bodies[ld_idx(i, arrayLength(&bodies), 0u)]); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&bodies), 1u) { bodies[ld_i0] = ld_v; } }
        { let ld_v = (9.81f * 0.01f); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&bodies), 2u) { bodies[ld_i0].vel.y -= ld_v; } }
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

// kernel energy
struct Vec2 {
    x: f32,
    y: f32,
}

struct Body {
    pos: Vec2,
    vel: Vec2,
    history: array<f32, 4>,
    id_: u32,
}

@group(0) @binding(0) var<storage, read> bodies: array<Body>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
// (the guard: ld_shaders::abi::guard_prelude)

fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {
    var i: u32;
    var v: Vec2;
    i = ld_gid.x;
    if (i < arrayLength(&bodies)) {
        v = bodies[ld_idx(i, arrayLength(&bodies), 0u)].vel;
        { let ld_v = (0.5f * ((v.x * v.x) + (v.y * v.y))); let ld_i0 = i; if ld_ok(ld_i0, arrayLength(&out), 1u) { out[ld_i0] = ld_v; } }
    }
}

@compute @workgroup_size(32, 1, 1)
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
