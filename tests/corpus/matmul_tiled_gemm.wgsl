// Batched tiled SGEMM with bias: out = lhs x rhs + bias.
// Each invocation of a (TILE_DIM/4) x (TILE_DIM/4) workgroup owns a 4x4 block
// of the TILE_DIM x TILE_DIM output tile; the K dimension is walked one
// TILE_DIM-wide slab at a time through two workgroup tiles.

struct GemmDims {
    rows: i32,          // M
    inner: i32,         // K
    cols: i32,          // N
    lhs_batch: i32,     // elements per batch in lhs
    rhs_batch: i32,
    out_batch: i32,
}

@group(0) @binding(0) var<storage, read> lhs: array<f32>;
@group(0) @binding(1) var<storage, read> rhs: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(1) @binding(0) var<uniform> dims: GemmDims;

override TILE_DIM: u32 = 32u;
const PER_THREAD: u32 = 4u;

var<workgroup> lhs_tile: array<f32, TILE_DIM * TILE_DIM>;
var<workgroup> rhs_tile: array<f32, TILE_DIM * TILE_DIM>;

fn load_lhs(batch: i32, row: i32, k: i32) -> f32 {
    if (row < dims.rows && k < dims.inner) {
        return lhs[batch * dims.lhs_batch + row * dims.inner + k];
    }
    return 0.0;
}

fn load_rhs(batch: i32, k: i32, col: i32) -> f32 {
    if (k < dims.inner && col < dims.cols) {
        return rhs[batch * dims.rhs_batch + k * dims.cols + col];
    }
    return 0.0;
}

fn store_out(batch: i32, row: i32, col: i32, value: f32) {
    if (row < dims.rows && col < dims.cols) {
        out[batch * dims.out_batch + row * dims.cols + col] = value;
    }
}

@compute @workgroup_size(TILE_DIM / PER_THREAD, TILE_DIM / PER_THREAD, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let tile = i32(TILE_DIM);
    let batch = i32(gid.z);

    let sub_row = i32(lid.y * PER_THREAD);
    let sub_col = i32(lid.x * PER_THREAD);
    let row0 = i32(wid.y) * tile;
    let col0 = i32(wid.x) * tile;
    let out_row = i32(gid.y * PER_THREAD);
    let out_col = i32(gid.x * PER_THREAD);

    let slabs = (dims.inner - 1) / tile + 1;
    var k0 = 0;
    var acc: array<vec4<f32>, 4>;

    for (var s = 0; s < slabs; s++) {
        // Stage this invocation's 4x4 patch of both tiles.
        for (var r = 0; r < 4; r++) {
            for (var c = 0; c < 4; c++) {
                let tr = sub_row + r;
                let tc = sub_col + c;
                lhs_tile[tr * tile + tc] = load_lhs(batch, row0 + tr, k0 + tc);
                rhs_tile[tr * tile + tc] = load_rhs(batch, k0 + tr, col0 + tc);
            }
        }
        k0 += tile;
        workgroupBarrier();

        for (var k = 0; k < tile; k++) {
            let b = vec4<f32>(rhs_tile[k * tile + sub_col],
                              rhs_tile[k * tile + sub_col + 1],
                              rhs_tile[k * tile + sub_col + 2],
                              rhs_tile[k * tile + sub_col + 3]);
            for (var r = 0; r < 4; r++) {
                let a = lhs_tile[(sub_row + r) * tile + k];
                acc[r] = fma(vec4<f32>(a), b, acc[r]);
            }
        }

        // Everyone must be done reading this slab before the next one is staged.
        workgroupBarrier();
    }

    let bias4 = vec4<f32>(bias[out_col], bias[out_col + 1], bias[out_col + 2], bias[out_col + 3]);
    for (var r = 0; r < 4; r++) {
        let v = acc[r] + bias4;
        store_out(batch, out_row + r, out_col + 0, v.x);
        store_out(batch, out_row + r, out_col + 1, v.y);
        store_out(batch, out_row + r, out_col + 2, v.z);
        store_out(batch, out_row + r, out_col + 3, v.w);
    }
}
