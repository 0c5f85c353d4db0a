// Luminance histogram of an RGBA f32 image kept in a storage buffer.
// Each 16x4 workgroup covers one tile of pixels, counts it into a
// workgroup-private set of bins, then merges those bins into the global
// histogram with storage atomics. A separate entry point clears the
// global histogram beforehand.

const TILE_W: u32 = 16u;
const TILE_H: u32 = 4u;
const NUM_BINS: u32 = TILE_W * TILE_H;

struct ImageInfo {
    width: u32,
    height: u32,
}

@group(0) @binding(0) var<storage, read_write> histogram: array<atomic<u32>>;
@group(0) @binding(1) var<uniform> image: ImageInfo;
@group(1) @binding(0) var<storage, read> pixels: array<vec4<f32>>;

var<workgroup> tile_bins: array<atomic<u32>, NUM_BINS>;

const LUMA_WEIGHTS = vec3<f32>(0.2126, 0.7152, 0.0722);

fn luma(rgb: vec3<f32>) -> f32 {
    return saturate(dot(rgb, LUMA_WEIGHTS));
}

fn bin_of(v: f32) -> u32 {
    return min(u32(v * f32(NUM_BINS)), NUM_BINS - 1u);
}

@compute @workgroup_size(64, 1, 1)
fn clear_histogram(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x < arrayLength(&histogram) {
        atomicStore(&histogram[gid.x], 0u);
    }
}

@compute @workgroup_size(TILE_W, TILE_H, 1)
fn accumulate(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // tile_bins starts zeroed: workgroup memory is zero-initialised
    let pos = gid.xy;
    if all(pos < vec2<u32>(image.width, image.height)) {
        let px = pixels[pos.y * image.width + pos.x];
        atomicAdd(&tile_bins[bin_of(luma(px.rgb))], 1u);
    }
    workgroupBarrier();

    // one invocation per bin folds this tile's count into the global bins
    let b = lid.y * TILE_W + lid.x;
    let n = atomicLoad(&tile_bins[b]);
    if n != 0u {
        atomicAdd(&histogram[b], n);
    }
}
