// Two-dimensional complex FFT of an N x N grid in two dispatches: every
// workgroup transforms one row (then one column) with a radix-2
// decimation-in-time network that ping-pongs between two workgroup arrays.

override N: u32 = 64u;

struct FFTParams {
  n: u32,
  num_lines: u32,
  forward: u32,
  split_norm: u32,
}

@group(0) @binding(0) var<storage, read> input: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> output: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> params: FFTParams;

var<workgroup> ping: array<vec2<f32>, N>;
var<workgroup> pong: array<vec2<f32>, N>;

const PI: f32 = 3.14159265358979;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

fn bit_reverse(x: u32, bits: u32) -> u32 {
  return reverseBits(x) >> (32u - bits);
}

// Runs every butterfly stage; lane j owns output slot j of each stage.
// Stage s reads one array and writes the other, so the source of stage s
// becomes the destination of stage s + 1.
fn butterflies(j: u32, stages: u32, sign: f32) -> vec2<f32> {
  for (var s = 0u; s < stages; s++) {
    let m = 1u << (s + 1u);
    let half_m = 1u << s;
    let in_group = j % m;
    let upper = in_group < half_m;
    let k = select(in_group - half_m, in_group, upper);
    let base = (j / m) * m + k;

    let angle = sign * 2.0 * PI * f32(k) / f32(m);
    let w = vec2<f32>(cos(angle), sin(angle));

    var a: vec2<f32>;
    var b: vec2<f32>;
    if ((s & 1u) == 0u) {
      a = ping[base];
      b = cmul(w, ping[base + half_m]);
    } else {
      a = pong[base];
      b = cmul(w, pong[base + half_m]);
    }
    let r = select(a - b, a + b, upper);

    workgroupBarrier();

    if ((s & 1u) == 0u) {
      pong[j] = r;
    } else {
      ping[j] = r;
    }

    workgroupBarrier();
  }
  // an odd number of stages leaves the result in pong
  return select(ping[j], pong[j], (stages & 1u) == 1u);
}

fn normalise(v: vec2<f32>) -> vec2<f32> {
  if (params.split_norm != 0u) {
    return v / sqrt(f32(N));
  }
  if (params.forward == 0u) {
    return v / f32(N);
  }
  return v;
}

@compute @workgroup_size(N, 1, 1)
fn fft_rows(@builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(workgroup_id) wid: vec3<u32>) {
  let row = wid.x;
  let j = lid.x;
  if (row >= params.num_lines) {
    return;
  }
  let stages = countTrailingZeros(N);
  let sign = select(1.0, -1.0, params.forward != 0u);

  ping[j] = input[row * N + bit_reverse(j, stages)];
  workgroupBarrier();

  let v = butterflies(j, stages, sign);
  output[row * N + j] = normalise(v);
}

@compute @workgroup_size(N, 1, 1)
fn fft_cols(@builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(workgroup_id) wid: vec3<u32>) {
  let col = wid.x;
  let j = lid.x;
  if (col >= params.num_lines) {
    return;
  }
  let stages = countTrailingZeros(N);
  let sign = select(1.0, -1.0, params.forward != 0u);

  // strided column load, so no transpose pass is needed in between
  ping[j] = input[bit_reverse(j, stages) * N + col];
  workgroupBarrier();

  let v = butterflies(j, stages, sign);
  output[j * N + col] = normalise(v);
}
