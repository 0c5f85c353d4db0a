// In-place row softmax over vec4-packed rows. One workgroup per row
// (workgroup_id.x = row, workgroup_id.y = batch); a tree reduction in
// workgroup memory finds the row max, then the sum of exponentials.

@group(0) @binding(0) var<storage, read_write> logits: array<vec4<f32>>;

struct SoftmaxMeta {
    rows: u32,       // rows per batch
    cols: u32,       // scalars per row
    cols_vec4: u32,  // cols / 4
}

@group(1) @binding(0) var<uniform> sm: SoftmaxMeta;

const WG: u32 = 128u;
const NEG_BIG: f32 = -3.402823e+38f;

var<workgroup> partial: array<vec4<f32>, WG>;
var<workgroup> row_max: f32;
var<workgroup> row_sum: f32;

fn reduce_max(lane: u32, half: u32) {
    if lane < half {
        partial[lane] = max(partial[lane], partial[lane + half]);
    }
    workgroupBarrier();
}

fn reduce_sum(lane: u32, half: u32) {
    if lane < half {
        partial[lane] = partial[lane] + partial[lane + half];
    }
    workgroupBarrier();
}

@compute @workgroup_size(128, 1, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let base = (wid.y * sm.rows + wid.x) * sm.cols_vec4;
    let lane = lid.x;

    // Pass 1: per-lane max over a strided slice, then tree max.
    var m = vec4<f32>(NEG_BIG);
    for (var i = lane; i < sm.cols_vec4; i += WG) {
        m = max(m, logits[base + i]);
    }
    partial[lane] = m;
    workgroupBarrier();

    reduce_max(lane, 64u);
    reduce_max(lane, 32u);
    reduce_max(lane, 16u);
    reduce_max(lane, 8u);
    reduce_max(lane, 4u);
    reduce_max(lane, 2u);
    reduce_max(lane, 1u);

    if lane == 0u {
        let p = partial[0];
        row_max = max(max(p.x, p.y), max(p.z, p.w));
    }
    workgroupBarrier();

    // Pass 2: sum of exp(x - max).
    var s = vec4<f32>(0.0);
    for (var i = lane; i < sm.cols_vec4; i += WG) {
        s += exp(logits[base + i] - vec4<f32>(row_max));
    }
    partial[lane] = s;
    workgroupBarrier();

    reduce_sum(lane, 64u);
    reduce_sum(lane, 32u);
    reduce_sum(lane, 16u);
    reduce_sum(lane, 8u);
    reduce_sum(lane, 4u);
    reduce_sum(lane, 2u);
    reduce_sum(lane, 1u);

    if lane == 0u {
        row_sum = dot(partial[0], vec4<f32>(1.0));
    }
    workgroupBarrier();

    // Pass 3: normalise in place; each lane rewrites only the elements it read.
    let inv = 1.0 / row_sum;
    for (var i = lane; i < sm.cols_vec4; i += WG) {
        logits[base + i] = exp(logits[base + i] - vec4<f32>(row_max)) * inv;
    }
}
