// Two-level f32 sum: every workgroup folds one segment of the input in
// workgroup memory and writes one partial; the same entry point is then
// dispatched once more over the partials to produce the total.

override SEG_LEN: u32 = 128u;

struct ReduceParams {
    count: u32,
}

@group(0) @binding(0) var<uniform> rparams: ReduceParams;
@group(0) @binding(1) var<storage, read> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;

var<workgroup> lanes: array<f32, SEG_LEN>;

// Pairwise fold of lanes[0..SEG_LEN) into lanes[0]. Every invocation of the
// workgroup must call this (it contains barriers).
fn fold_lanes(i: u32) {
    for (var half = SEG_LEN >> 1u; half >= 1u; half >>= 1u) {
        var s = 0.0;
        if i < half {
            s = lanes[2u * i] + lanes[2u * i + 1u];
        }
        // everybody has read this level before anybody overwrites it
        workgroupBarrier();
        if i < half {
            lanes[i] = s;
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(SEG_LEN, 1, 1)
fn reduce_segments(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    var x = 0.0;
    if gid.x < rparams.count {
        x = values[gid.x];
    }
    lanes[lid.x] = x;
    workgroupBarrier();

    fold_lanes(lid.x);

    if lid.x == 0u {
        partials[wid.x] = lanes[0];
    }
}
