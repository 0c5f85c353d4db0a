// One k-means step in two kernels: assign every point to its nearest
// centroid, then per-cluster partial sums of one coordinate (or of the
// member count) with a grid of (point blocks x clusters) workgroups, each
// reducing its block in workgroup memory with a work-efficient up-sweep.
// The host runs the partial-sum kernel once per coordinate and once for the
// counts, with a different parameter and output buffer each time.

struct SegParams {
    shape: vec2<u32>,    // x: number of points, y: number of clusters
    features: u32,       // coordinates per point
    column: u32,         // coordinate summed; == features sums the counts
}

@group(0) @binding(0) var<uniform> prm: SegParams;
@group(0) @binding(1) var<storage, read> points: array<f32>;      // [points, features]
@group(0) @binding(2) var<storage, read> centroids: array<f32>;   // [clusters, features]
@group(0) @binding(3) var<storage, read_write> labels: array<u32>;
@group(1) @binding(0) var<storage, read_write> partial: array<f32>; // [clusters, blocks]

override nTPB: u32;                    // set by the host, no default
override SENTINEL_DIST: f32 = 1e9;

var<workgroup> temp: array<f32, nTPB>;

fn sq_dist(pt: u32, c: u32) -> f32 {
    var acc = 0.0;
    for (var f = 0u; f < prm.features; f++) {
        let d = points[pt * prm.features + f] - centroids[c * prm.features + f];
        acc += d * d;
    }
    return acc;
}

@compute @workgroup_size(nTPB, 1, 1)
fn assign_nearest(@builtin(global_invocation_id) gid: vec3<u32>) {
    let pt = gid.x;
    if (pt >= arrayLength(&labels)) {
        return;
    }
    var best = 0u;
    var best_d = SENTINEL_DIST;
    for (var c = 0u; c < prm.shape.y; c++) {
        let d = sq_dist(pt, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    labels[pt] = best;
}

// up-sweep over temp[0 .. width): afterwards temp[width - 1] holds the sum.
// `width` is uniform at every call, so every lane runs the same number of
// steps and reaches each barrier.
fn upsweep(lane: u32, width: u32) {
    var offset = 1u;
    for (var d = width >> 1u; d > 0u; d >>= 1u) {
        if (lane < d) {
            let ai = offset * (2u * lane + 1u) - 1u;
            let bi = offset * (2u * lane + 2u) - 1u;
            temp[bi] += temp[ai];
        }
        offset <<= 1u;
        workgroupBarrier();
    }
}

@compute @workgroup_size(nTPB, 1, 1)
fn segment_partial_sums(@builtin(local_invocation_id) lid: vec3<u32>,
                        @builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>) {
    let lane = lid.x;
    let idx = lane + wid.x * nTPB;
    if (idx < prm.shape.x) {
        var v = 1.0;
        if (prm.column < prm.features) {
            v = points[idx * prm.features + prm.column];
        }
        temp[lane] = select(0.0, v, labels[idx] == wid.y);
    }

    upsweep(lane, nTPB);

    if (lane == 0u) {
        partial[wid.y * nwg.x + wid.x] = temp[nTPB - 1u];
    }
}
