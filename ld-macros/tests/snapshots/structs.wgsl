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
    history[ld_rem_u32(b.id_, 4u)] = pos.x;
    return Body(pos, b.vel, history, b.id_);
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
    i = ld_gid.x;
    if (i < arrayLength(&bodies)) {
        bodies[i] = advance(bodies[i]);
        bodies[i].vel.y -= (9.81f * 0.01f);
    }
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

@compute @workgroup_size(32, 1, 1)
fn main(
    @builtin(global_invocation_id) ld_gid: vec3<u32>,
    @builtin(local_invocation_id) ld_lid: vec3<u32>,
    @builtin(workgroup_id) ld_wid: vec3<u32>,
    @builtin(num_workgroups) ld_nwg: vec3<u32>,
    @builtin(local_invocation_index) ld_lidx: u32,
) {
    var i: u32;
    var v: Vec2;
    i = ld_gid.x;
    if (i < arrayLength(&bodies)) {
        v = bodies[i].vel;
        out[i] = (0.5f * ((v.x * v.x) + (v.y * v.y)));
    }
}
