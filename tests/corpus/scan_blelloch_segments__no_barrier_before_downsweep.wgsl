// Work-efficient (Blelloch) exclusive scan over fixed-size segments, in three
// dispatches: scan every segment and emit its total, scan the segment totals
// with the same entry point, then add each segment's offset back in.

override SEG_LEN: u32 = 64u;

struct ScanParams {
    len: u32,
}

@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> scanned: array<u32>;
@group(0) @binding(3) var<storage, read_write> seg_totals: array<u32>;

@group(1) @binding(0) var<storage, read> seg_offsets: array<u32>;

var<workgroup> tree: array<u32, SEG_LEN>;

@compute @workgroup_size(SEG_LEN, 1, 1)
fn scan_segments(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = lid.x;
    var v = 0u;
    if gid.x < params.len {
        v = src[gid.x];
    }
    tree[i] = v;
    workgroupBarrier();

    // up-sweep: build partial sums in place
    var level = 1u;
    var span = 2u;
    while span <= SEG_LEN {
        let hi = ((i + 1u) << level) - 1u;
        if hi < SEG_LEN {
            tree[hi] += tree[hi - (span >> 1u)];
        }
        level += 1u;
        span <<= 1u;
        workgroupBarrier();
    }

    // the root holds the segment total; clear it for the exclusive down-sweep
    if i == SEG_LEN - 1u {
        seg_totals[wid.x] = tree[SEG_LEN - 1u];
        tree[SEG_LEN - 1u] = 0u;
    }

    // down-sweep: swap-and-add towards the leaves
    var width = SEG_LEN;
    while width >= 2u {
        let hi = (i + 1u) * width - 1u;
        if hi < SEG_LEN {
            let lo = hi - (width >> 1u);
            let left = tree[lo];
            tree[lo] = tree[hi];
            tree[hi] += left;
        }
        width >>= 1u;
        workgroupBarrier();
    }

    scanned[gid.x] = tree[i];
}

@compute @workgroup_size(SEG_LEN, 1, 1)
fn add_offsets(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    if gid.x < params.len {
        scanned[gid.x] += seg_offsets[wid.x];
    }
}
