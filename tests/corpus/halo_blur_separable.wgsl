// Separable blur of an RGBA image held in storage buffers: blur_rows, then
// (second dispatch, the intermediate bound as source) blur_columns. Each
// workgroup caches its run of GROUP_SIZE pixels plus APRON pixels on each
// side in workgroup memory, clamping reads at the image border.

override GROUP_SIZE: i32;                   // lanes per workgroup: the launch sets it
const APRON: i32 = 5;                       // blur radius
override CACHE_LEN: i32 = GROUP_SIZE + 2 * APRON;

// 11 taps, sum 1
const TAPS = array<f32, 11>(0.02, 0.04, 0.08, 0.12, 0.16, 0.16, 0.16, 0.12, 0.08, 0.04, 0.02);

struct ImageSize {
    width: i32,
    height: i32,
}

@group(0) @binding(0) var<uniform> image: ImageSize;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;

var<workgroup> cache: array<vec4<f32>, CACHE_LEN>;

fn load_clamped(p: vec2<i32>) -> vec4<f32> {
    let q = clamp(p, vec2<i32>(0), vec2<i32>(image.width, image.height) - 1);
    return src[q.y * image.width + q.x];
}

// Weighted sum of the 11 cached pixels around cache[lane + APRON], stored at p.
fn convolve(p: vec2<i32>, lane: i32) {
    if p.x >= image.width || p.y >= image.height {
        return;
    }
    var sum = vec4<f32>(0.0);
    for (var t = -APRON; t <= APRON; t++) {
        sum += TAPS[t + APRON] * cache[lane + APRON + t];
    }
    dst[p.y * image.width + p.x] = sum;
}

@compute @workgroup_size(GROUP_SIZE, 1, 1)
fn blur_rows(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let p = vec2<i32>(gid.xy);
    let lane = i32(lid.x);
    if lane < APRON {
        cache[lane] = load_clamped(p - vec2<i32>(APRON, 0));
    }
    if lane >= GROUP_SIZE - APRON {
        cache[lane + 2 * APRON] = load_clamped(p + vec2<i32>(APRON, 0));
    }
    cache[lane + APRON] = load_clamped(p);
    workgroupBarrier();
    convolve(p, lane);
}

@compute @workgroup_size(1, GROUP_SIZE, 1)
fn blur_columns(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let p = vec2<i32>(gid.xy);
    let lane = i32(lid.y);
    if lane < APRON {
        cache[lane] = load_clamped(p - vec2<i32>(0, APRON));
    }
    if lane >= GROUP_SIZE - APRON {
        cache[lane + 2 * APRON] = load_clamped(p + vec2<i32>(0, APRON));
    }
    cache[lane + APRON] = load_clamped(p);
    workgroupBarrier();
    convolve(p, lane);
}
