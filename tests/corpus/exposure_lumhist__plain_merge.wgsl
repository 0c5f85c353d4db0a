// Automatic exposure, as two dispatches: a log-luminance histogram of the HDR
// frame (each 16x16 tile bins into workgroup atomics, then merges its bins into
// the global histogram), then a single invocation that averages the bins
// between two percentiles and eases the exposure towards the result.

const LUMA_WEIGHTS = vec3<f32>(0.2125, 0.7154, 0.0721);
const BINS: u32 = 256u;

struct MeterSettings {
    min_log_lum: f32,
    inv_log_lum_range: f32,
    log_lum_range: f32,
    low_percent: u32,
    high_percent: u32,
    speed_up: f32,
    speed_down: f32,
    width: u32,
    height: u32,
}

struct ExposureOut {
    exposure: f32,
    mean_bin: f32,
}

@group(0) @binding(0) var<uniform> meter: MeterSettings;
@group(0) @binding(1) var<storage, read> hdr_frame: array<vec4<f32>>;   // row-major RGBA
@group(0) @binding(2) var<storage, read> weight_mask: array<f32>;       // metering weight per pixel
@group(0) @binding(3) var<storage, read> compensation: array<f32, 64>;  // exposure compensation curve
@group(0) @binding(4) var<storage, read_write> lum_histogram: array<u32, 256>;
@group(0) @binding(5) var<storage, read_write> result: ExposureOut;

var<workgroup> tile_bins: array<atomic<u32>, 256>;
var<workgroup> running: array<u32, 256>;

// Bin 0 takes everything below the floor; the rest spread log2(lum) over 1..255.
fn bin_of(color: vec3<f32>) -> u32 {
    let lum = dot(color, LUMA_WEIGHTS);
    if lum < exp2(meter.min_log_lum) {
        return 0u;
    }
    let t = saturate((log2(lum) - meter.min_log_lum) * meter.inv_log_lum_range);
    return u32(t * 254.0 + 1.0);
}

@compute @workgroup_size(16, 16, 1)
fn build_histogram(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    atomicStore(&tile_bins[lane], 0u);
    workgroupBarrier();

    if gid.x < meter.width && gid.y < meter.height {
        let px = gid.y * meter.width + gid.x;
        let bin = bin_of(hdr_frame[px].rgb);
        atomicAdd(&tile_bins[bin], u32(weight_mask[px] * 8.0));
    }
    workgroupBarrier();

    // 256 lanes, 256 bins: lane i owns bin i of the merge
    lum_histogram[lane] = lum_histogram[lane] + atomicLoad(&tile_bins[lane]);
}

@compute @workgroup_size(1, 1, 1)
fn average_exposure() {
    var total = 0u;
    for (var i = 0u; i < BINS; i += 1u) {
        total += lum_histogram[i];
        running[i] = total;
        lum_histogram[i] = 0u;   // ready for the next frame
    }

    let lo = total * meter.low_percent / 100u;
    let hi = total * meter.high_percent / 100u;
    var counted = 0u;
    var weighted = 0.0;
    for (var i = 1u; i < BINS; i += 1u) {
        let in_band = clamp(running[i], lo, hi) - clamp(running[i - 1u], lo, hi);
        weighted += f32(in_band) * f32(i);
        counted += in_band;
    }

    var goal = 0.0;
    if counted > 0u {
        let mean_bin = weighted / f32(counted);
        let mean_log_lum = mean_bin / 255.0 * meter.log_lum_range + meter.min_log_lum;
        let curve_ix = clamp(i32(mean_bin) / 4, 0, 63);
        goal = -8.0 + compensation[curve_ix] * 16.0 - mean_log_lum;
        result.mean_bin = mean_bin;
    }
    result.exposure = result.exposure
        + clamp(goal - result.exposure, -meter.speed_up, meter.speed_down);
}
