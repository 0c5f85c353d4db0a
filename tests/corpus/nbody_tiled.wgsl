// All-pairs gravity with a kick-drift-kick step. Each workgroup walks the body
// list one block at a time, staging position+mass of the block in workgroup
// memory. Source and destination body arrays alternate between frames.

struct SimParams {
  numBodies : u32,
  gravity : f32,
  softening : f32,
  deltaTime : f32,
  blackHoleMass : f32,
}

struct Body {
  pos : vec3<f32>,
  vel : vec3<f32>,
  acc : vec3<f32>,
  mass : f32,
};

@group(0) @binding(0) var<uniform> sim : SimParams;
@group(0) @binding(1) var<storage, read> bodiesIn : array<Body>;
@group(0) @binding(2) var<storage, read_write> bodiesOut : array<Body>;

override BLOCK : u32 = 256u;

// xyz = position, w = mass, for the bodies of the block being processed
var<workgroup> shPosMass : array<vec4<f32>, BLOCK>;

fn pull(from_pos : vec3<f32>, other : vec4<f32>) -> vec3<f32> {
  let r = other.xyz - from_pos;
  let d2 = dot(r, r) + sim.softening * sim.softening;
  let inv = inverseSqrt(d2);
  return r * (sim.gravity * other.w * inv * inv * inv);
}

@compute @workgroup_size(BLOCK)
fn integrate(@builtin(global_invocation_id) gid : vec3<u32>,
             @builtin(local_invocation_id) lid : vec3<u32>,
             @builtin(num_workgroups) nwg : vec3<u32>) {
  let me = gid.x;
  // invocations past the end still take part in the block loads and barriers
  var body = bodiesIn[min(me, sim.numBodies - 1u)];

  // first half kick, then drift
  body.vel += 0.5 * body.acc * sim.deltaTime;
  body.pos += body.vel * sim.deltaTime;

  var acc = vec3<f32>(0.0, 0.0, 0.0);
  for (var blk = 0u; blk < nwg.x; blk++) {
    let src = blk * BLOCK + lid.x;
    if (src < sim.numBodies) {
      let b = bodiesIn[src];
      shPosMass[lid.x] = vec4<f32>(b.pos, b.mass);
    } else {
      shPosMass[lid.x] = vec4<f32>(0.0);
    }
    workgroupBarrier();

    for (var j = 0u; j < BLOCK; j++) {
      let other = blk * BLOCK + j;
      if (other != me && other < sim.numBodies) {
        acc += pull(body.pos, shPosMass[j]);
      }
    }
    workgroupBarrier();
  }

  if (me >= sim.numBodies) {
    return;
  }

  // second half kick with the new acceleration
  body.acc = acc;
  body.vel += 0.5 * body.acc * sim.deltaTime;
  if (body.mass > 1000.0) {
    body.mass = sim.blackHoleMass;
  }
  bodiesOut[me] = body;
}
