// Collatz chain lengths, computed in place over a grid-stride loop, then the
// longest chain of each workgroup by a max tree in workgroup memory, then (a
// second dispatch of one workgroup) the longest chain overall.

struct CollatzParams {
    count: u32,   // how many starting values are in `numbers`
    cap: u32,     // give up on a chain after this many steps
}

@group(0) @binding(0) var<storage, read_write> numbers: array<u32>;
@group(0) @binding(1) var<uniform> params: CollatzParams;
@group(0) @binding(2) var<storage, read_write> group_longest: array<u32>;
@group(0) @binding(3) var<storage, read_write> longest: u32;

// lanes per workgroup, a power of two; the launch sets it
override LANES: u32;

var<workgroup> best: array<u32, LANES>;

// One step of the recurrence on *n; false once the chain has reached 1.
fn collatz_step(n: ptr<function, u32>) -> bool {
    if *n <= 1u {
        return false;
    }
    let odd = (*n & 1u) == 1u;
    *n = select(*n >> 1u, 3u * *n + 1u, odd);
    return true;
}

fn chain_length(start: u32) -> u32 {
    var n = start;
    var steps = 0u;
    while steps < params.cap && collatz_step(&n) {
        steps += 1u;
    }
    return steps;
}

// Folds best[0..LANES) into best[0]; every lane must call it.
fn fold_max(lane: u32) {
    for (var half = LANES >> 1u; half > 0u; half >>= 1u) {
        if lane < half {
            best[lane] = max(best[lane], best[lane + half]);
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(LANES)
fn count_steps(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let stride = groups.x * LANES;
    var mine = 0u;
    for (var k = gid.x; k < params.count; k += stride) {
        let steps = chain_length(numbers[k]);
        numbers[k] = steps;
        mine = max(mine, steps);
    }
    best[lid.x] = mine;
    workgroupBarrier();
    fold_max(lid.x);
    if lid.x == 0u {
        group_longest[wid.x] = best[0];
    }
}

@compute @workgroup_size(LANES)
fn longest_overall(@builtin(local_invocation_id) lid: vec3<u32>) {
    var mine = 0u;
    for (var k = lid.x; k < arrayLength(&group_longest); k += LANES) {
        mine = max(mine, group_longest[k]);
    }
    best[lid.x] = mine;
    workgroupBarrier();
    fold_max(lid.x);
    if lid.x == 0u {
        longest = best[0];
    }
}
