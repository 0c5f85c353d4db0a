// Coarse binning of draw elements into 256x256-pixel bins. Each workgroup
// takes 256 elements: every element sets its bit in per-slice bitmaps of the
// bins its bbox touches (workgroup atomics), every lane then owns one bin,
// counts the elements in it, reserves a chunk of the global bin data with a
// bump counter, and finally every element writes its index at its rank inside
// each of its bins' chunks.

const TILE_PX: u32 = 16u;
const TILES_X: u32 = 16u;
const TILES_Y: u32 = 16u;
const BINS: u32 = TILES_X * TILES_Y;        // one bin per lane
const LANES: u32 = 256u;
const SLICES: u32 = LANES / 32u;            // 32 elements per bitmap word
const SLICE_PAIRS: u32 = 4u;                // two 16-bit running counts per word
const INV_BIN_W: f32 = 1.0 / f32(TILES_X * TILE_PX);
const INV_BIN_H: f32 = 1.0 / f32(TILES_Y * TILE_PX);
const FAILED_BINNING: u32 = 1u;

struct BinningConfig {
    width_in_bins: u32,
    height_in_bins: u32,
    element_count: u32,
    binning_capacity: u32,
    bin_data_start: u32,
}

struct ElementBox {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

struct BinHeader {
    element_count: u32,
    chunk_offset: u32,
}

struct BumpCounters {
    failed: atomic<u32>,
    binning: atomic<u32>,
}

@group(0) @binding(0) var<storage, read> element_boxes: array<ElementBox>;
@group(0) @binding(1) var<storage, read_write> bin_headers: array<BinHeader>;
@group(0) @binding(2) var<storage, read_write> bin_data: array<u32>;
@group(0) @binding(3) var<storage, read_write> bump: BumpCounters;
@group(0) @binding(4) var<uniform> cfg: BinningConfig;

var<workgroup> slice_bits: array<array<atomic<u32>, BINS>, SLICES>;
var<workgroup> slice_counts: array<array<u32, BINS>, SLICE_PAIRS>;
var<workgroup> bin_chunk: array<u32, BINS>;

@compute @workgroup_size(256)
fn bin_elements(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    for (var s = 0u; s < SLICES; s += 1u) {
        atomicStore(&slice_bits[s][lid.x], 0u);
    }
    workgroupBarrier();

    // element bbox (pixels) -> half-open rectangle of bins, clamped to the target
    let element = gid.x;
    var x0 = 0;
    var y0 = 0;
    var x1 = 0;
    var y1 = 0;
    if element < cfg.element_count {
        let b = element_boxes[element];
        if b.x0 < b.x1 && b.y0 < b.y1 {
            x0 = i32(floor(f32(b.x0) * INV_BIN_W));
            y0 = i32(floor(f32(b.y0) * INV_BIN_H));
            x1 = i32(ceil(f32(b.x1) * INV_BIN_W));
            y1 = i32(ceil(f32(b.y1) * INV_BIN_H));
        }
    }
    let w = i32(cfg.width_in_bins);
    let h = i32(cfg.height_in_bins);
    x0 = clamp(x0, 0, w);
    y0 = clamp(y0, 0, h);
    x1 = clamp(x1, 0, w);
    y1 = clamp(y1, 0, h);
    if x0 == x1 {
        y1 = y0;
    }

    let my_slice = lid.x / 32u;
    let my_bit = 1u << (lid.x & 31u);
    var x = x0;
    var y = y0;
    while y < y1 {
        atomicOr(&slice_bits[my_slice][u32(y * w + x)], my_bit);
        x += 1;
        if x == x1 {
            x = x0;
            y += 1;
        }
    }
    workgroupBarrier();

    // lane lid.x now counts bin lid.x: running totals after each slice, packed
    var in_bin = 0u;
    for (var p = 0u; p < SLICE_PAIRS; p += 1u) {
        in_bin += countOneBits(atomicLoad(&slice_bits[2u * p][lid.x]));
        let lo = in_bin;
        in_bin += countOneBits(atomicLoad(&slice_bits[2u * p + 1u][lid.x]));
        slice_counts[p][lid.x] = lo | (in_bin << 16u);
    }
    var chunk = atomicAdd(&bump.binning, in_bin);
    if chunk + in_bin > cfg.binning_capacity {
        chunk = 0u;
        atomicOr(&bump.failed, FAILED_BINNING);
    }
    bin_chunk[lid.x] = chunk;
    bin_headers[gid.x] = BinHeader(in_bin, chunk);
    workgroupBarrier();

    // each element writes itself at its rank within each of its bins
    x = x0;
    y = y0;
    while y < y1 {
        let bin = u32(y * w + x);
        let bits = atomicLoad(&slice_bits[my_slice][bin]);
        var rank = countOneBits(bits & (my_bit - 1u));
        if my_slice > 0u {
            let before = my_slice - 1u;
            let packed = slice_counts[before / 2u][bin];
            rank += (packed >> (16u * (before & 1u))) & 0xffffu;
        }
        bin_data[cfg.bin_data_start + bin_chunk[bin] + rank] = element;
        x += 1;
        if x == x1 {
            x = x0;
            y += 1;
        }
    }
}
