// Separable Gaussian blur of an RGBA f32 image held in storage buffers:
// blur_h convolves 64-pixel row segments into `mid`, blur_v convolves
// 64-pixel column segments of `mid` into `dst`. Each workgroup first copies
// its segment plus a halo of `radius` pixels on both sides into workgroup
// memory; the weights (2 * radius + 1 taps) live in bind group 1.

const SEG: u32 = 64u;
const MAX_RADIUS: u32 = 8u;

struct BlurParams {
  width: u32,
  height: u32,
  _pad0: u32,
  _pad1: u32,
}

struct BlurWeights {
  taps: array<f32>,
}

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> mid: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: BlurParams;
@group(1) @binding(0) var<storage, read> weights: BlurWeights;

var<workgroup> line_cache: array<vec4<f32>, 80>;   // SEG + 2 * MAX_RADIUS

fn blur_radius() -> u32 {
  return min((arrayLength(&weights.taps) - 1u) / 2u, MAX_RADIUS);
}

// Cache row `row`, pixels x0 - r .. x0 + SEG + r - 1 (clamped to the edge).
fn cache_row(row: u32, x0: u32, lane: u32, r: u32) {
  let last = i32(params.width) - 1;
  for (var k = lane; k < SEG + 2u * r; k += SEG) {
    let x = clamp(i32(x0 + k) - i32(r), 0, last);
    line_cache[k] = src[row * params.width + u32(x)];
  }
  workgroupBarrier();
}

// Cache column `col` of mid, rows y0 - r .. y0 + SEG + r - 1 (clamped).
fn cache_col(col: u32, y0: u32, lane: u32, r: u32) {
  let last = i32(params.height) - 1;
  for (var k = lane; k < SEG + 2u * r; k += SEG) {
    let y = clamp(i32(y0 + k) - i32(r), 0, last);
    line_cache[k] = mid[u32(y) * params.width + col];
  }
  workgroupBarrier();
}

// Output pixel `lane` of the segment sits at line_cache[lane + r].
fn convolve(lane: u32, r: u32) -> vec4<f32> {
  var acc = vec4<f32>(0.0);
  for (var t = 0u; t <= 2u * r; t++) {
    acc += weights.taps[t] * line_cache[lane + t];
  }
  return acc;
}

@compute @workgroup_size(64, 1, 1)
fn blur_h(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = min(wid.y, params.height - 1u);
  let x0 = wid.x * SEG;
  let r = blur_radius();
  cache_row(row, x0, lid.x, r);

  let x = x0 + lid.x;
  if (x < params.width && wid.y < params.height) {
    mid[row * params.width + x] = convolve(lid.x, r);
  }
}

@compute @workgroup_size(1, 64, 1)
fn blur_v(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
  let col = min(wid.x, params.width - 1u);
  let y0 = wid.y * SEG;
  let r = blur_radius();
  cache_col(col, y0, lid.y, r);

  let y = y0 + lid.y;
  if (y < params.height && wid.x < params.width) {
    mid[y * params.width + col] = convolve(lid.y, r);
  }
}
