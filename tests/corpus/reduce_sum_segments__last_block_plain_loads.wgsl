// Two-level f32 sum in a single dispatch: every workgroup folds one segment
// of the input in workgroup memory and writes one partial; the workgroup that
// arrives last at the ticket counter folds the partials into the total.

override SEG_LEN: u32 = 128u;

struct ReduceParams {
    count: u32,
}

@group(0) @binding(0) var<uniform> rparams: ReduceParams;
@group(0) @binding(1) var<storage, read> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<storage, read_write> tickets: atomic<u32>;
@group(0) @binding(4) var<storage, read_write> total: f32;

var<workgroup> lanes: array<f32, SEG_LEN>;
var<workgroup> finisher: u32;

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
    @builtin(num_workgroups) nwg: vec3<u32>,
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
    storageBarrier();

    // take a ticket; the last workgroup to arrive does the second level
    if lid.x == 0u {
        let ticket = atomicAdd(&tickets, 1u);
        finisher = select(0u, 1u, ticket == nwg.x - 1u);
    }
    if workgroupUniformLoad(&finisher) == 1u {
        var p = 0.0;
        if lid.x < nwg.x {
            p = partials[lid.x];
        }
        lanes[lid.x] = p;
        workgroupBarrier();

        fold_lanes(lid.x);

        if lid.x == 0u {
            total = lanes[0];
        }
    }
}
