// One 8-bit digit pass of an LSD radix sort, as three dispatches:
//   count_digits  - per-workgroup digit counts (workgroup atomics) stored
//                   bin-major into the global table
//   scan_counts   - one workgroup turns the table into exclusive offsets
//   scatter_keys  - every key/value goes to its offset + rank in its bin

const RADIX: u32 = 256u;
const TILE: u32 = 256u;

struct DigitPassParams {
    count: u32,
    shift: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src_keys: array<u32>;
@group(0) @binding(1) var<storage, read> src_vals: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst_keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst_vals: array<u32>;
@group(0) @binding(4) var<storage, read_write> bin_table: array<atomic<u32>>; // [bin * tiles + tile]
@group(0) @binding(5) var<uniform> pass_params: DigitPassParams;

var<workgroup> tile_counts: array<atomic<u32>, RADIX>;
var<workgroup> bin_base: array<u32, RADIX>;

fn tile_count() -> u32 {
    return (pass_params.count + TILE - 1u) / TILE;
}

fn digit_of(key: u32) -> u32 {
    return (key >> pass_params.shift) & (RADIX - 1u);
}

@compute @workgroup_size(TILE)
fn count_digits(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(workgroup_id) wid: vec3<u32>) {
    atomicStore(&tile_counts[lid.x], 0u);
    workgroupBarrier();
    if gid.x < pass_params.count {
        atomicAdd(&tile_counts[digit_of(src_keys[gid.x])], 1u);
    }
    workgroupBarrier();
    let n = atomicLoad(&tile_counts[lid.x]);
    atomicStore(&bin_table[lid.x * tile_count() + wid.x], n);
}

@compute @workgroup_size(RADIX)
fn scan_counts(@builtin(local_invocation_id) lid: vec3<u32>) {
    // column lid.x of the table holds bin lid.x for every tile
    let tiles = tile_count();
    let col = lid.x * tiles;
    var total = 0u;
    for (var t = 0u; t < tiles; t++) {
        total += atomicLoad(&bin_table[col + t]);
    }
    bin_base[lid.x] = total;
    workgroupBarrier();
    if lid.x == 0u {
        var running = 0u;
        for (var b = 0u; b < RADIX; b++) {
            let c = bin_base[b];
            bin_base[b] = running;
            running += c;
        }
    }
    workgroupBarrier();
    var offset = bin_base[lid.x];
    for (var t = 0u; t < tiles; t++) {
        let c = atomicLoad(&bin_table[col + t]);
        atomicStore(&bin_table[col + t], offset);
        offset += c;
    }
}

@compute @workgroup_size(TILE)
fn scatter_keys(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(workgroup_id) wid: vec3<u32>) {
    atomicStore(&tile_counts[lid.x], 0u);
    workgroupBarrier();
    if gid.x < pass_params.count {
        let key = src_keys[gid.x];
        let d = digit_of(key);
        let rank = atomicAdd(&tile_counts[d], 1u);
        let base = atomicLoad(&bin_table[d * tile_count() + wid.x]);
        let dst = base + rank;
        if dst < pass_params.count {
            dst_keys[dst] = key;
            dst_vals[dst] = src_vals[gid.x];
        }
    }
}
