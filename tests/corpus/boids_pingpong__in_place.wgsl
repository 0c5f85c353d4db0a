// Flocking update, one invocation per boid, updating the particle buffer in
// place (a single read_write binding instead of a src/dst pair).

struct Boid {
  pos : vec2<f32>,
  vel : vec2<f32>,
};

struct FlockParams {
  dt : f32,
  cohesionRadius : f32,
  separationRadius : f32,
  alignRadius : f32,
  cohesionWeight : f32,
  separationWeight : f32,
  alignWeight : f32,
};

@group(0) @binding(0) var<uniform> flock : FlockParams;
@group(0) @binding(1) var<storage, read_write> boids : array<Boid>;

fn wrap_unit(p : vec2<f32>) -> vec2<f32> {
  var q = p;
  if (q.x < -1.0) { q.x = 1.0; }
  if (q.x > 1.0) { q.x = -1.0; }
  if (q.y < -1.0) { q.y = 1.0; }
  if (q.y > 1.0) { q.y = -1.0; }
  return q;
}

@compute @workgroup_size(64)
fn step_flock(@builtin(global_invocation_id) gid : vec3<u32>) {
  let count = arrayLength(&boids);
  let me = gid.x;
  if (me >= count) {
    return;
  }

  var myPos = boids[me].pos;
  var myVel = boids[me].vel;

  var centre = vec2<f32>(0.0);
  var heading = vec2<f32>(0.0);
  var push = vec2<f32>(0.0);
  var nCentre : i32 = 0;
  var nHeading : i32 = 0;

  var other : u32 = 0u;
  loop {
    if (other >= count) {
      break;
    }
    if (other == me) {
      continue;
    }
    let p = boids[other].pos;
    let v = boids[other].vel;
    let d = distance(p, myPos);
    if (d < flock.cohesionRadius) {
      centre += p;
      nCentre += 1;
    }
    if (d < flock.separationRadius) {
      push -= p - myPos;
    }
    if (d < flock.alignRadius) {
      heading += v;
      nHeading += 1;
    }
    continuing {
      other = other + 1u;
    }
  }

  if (nCentre > 0) {
    centre = centre / f32(nCentre) - myPos;
  }
  if (nHeading > 0) {
    heading = heading / f32(nHeading);
  }

  myVel += centre * flock.cohesionWeight + push * flock.separationWeight
         + heading * flock.alignWeight;
  myVel = normalize(myVel) * clamp(length(myVel), 0.0, 0.1);
  myPos = wrap_unit(myPos + myVel * flock.dt);

  boids[me] = Boid(myPos, myVel);
}
