// Multi-source BFS over a CSR graph, one workgroup per batch of 32 searches
// (one bit per search). The whole level loop runs inside one dispatch: all
// lanes expand the current frontier queue into the "next" bitset with atomic
// ORs, then lane 0 alone scans the bitsets, rebuilds the queue and records
// the level at which each search reached its target. The two bitsets swap
// roles every half-iteration.

@group(0) @binding(0) var<storage, read> offsets: array<u32>;         // CSR row starts, V + 1
@group(0) @binding(1) var<storage, read> adjacency: array<u32>;       // CSR neighbour lists
@group(0) @binding(2) var<storage, read_write> hops: array<u32>;      // 32 per batch
@group(0) @binding(3) var<storage, read_write> queue: array<u32>;     // (V + 1) per batch
@group(0) @binding(4) var<storage, read> targets: array<u32>;         // 32 per batch
@group(0) @binding(5) var<storage, read_write> seen_a: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> seen_b: array<atomic<u32>>;

const LANES: u32 = 64u;

var<workgroup> open_searches: u32;
var<workgroup> level: u32;
var<workgroup> queue_len: u32;

// every lane: OR the bits of each queued vertex into all of its neighbours
fn spread(base: u32, lane: u32, from_a: bool) {
  for (var q = lane; q < queue_len; q += LANES) {
    let vert = queue[base + q];
    for (var k = offsets[vert]; k < offsets[vert + 1u]; k++) {
      let nb = adjacency[k];
      if (from_a) {
        atomicOr(&seen_b[base + nb], atomicLoad(&seen_a[base + vert]));
      } else {
        atomicOr(&seen_a[base + nb], atomicLoad(&seen_b[base + vert]));
      }
    }
  }
}

// lane 0 only: collect the vertices whose bits changed into the queue
fn collect(base: u32, tbase: u32, from_a: bool) {
  let nverts = arrayLength(&offsets);
  queue_len = 0u;
  for (var i = 0u; i < nverts; i++) {
    let a = atomicLoad(&seen_a[base + i]);
    let b = atomicLoad(&seen_b[base + i]);
    var fresh = (a ^ b) & open_searches;
    if (fresh == 0u) { continue; }
    if (from_a) {
      atomicOr(&seen_b[base + i], a);
    } else {
      atomicOr(&seen_a[base + i], b);
    }
    queue[base + queue_len] = i;
    queue_len += 1u;
    let n = countOneBits(fresh);
    for (var j = 0u; j < n; j++) {
      let bit = countTrailingZeros(fresh);
      if (targets[tbase + bit] == i) {
        hops[tbase + bit] = level;
        open_searches &= ~(1u << bit);
      }
      fresh &= ~(1u << bit);
    }
  }
}

@compute @workgroup_size(64)
fn msbfs(@builtin(local_invocation_id) lid: vec3<u32>,
         @builtin(workgroup_id) wid: vec3<u32>) {
  let base = wid.x * arrayLength(&offsets);
  let tbase = wid.x * 32u;
  // every lane (re)initialises the shared search state
  open_searches = ~0u;
  level = 0u;
  queue_len = 1u;
  for (var it = 0u; it < arrayLength(&offsets) / 2u; it++) {
    spread(base, lid.x, true);
    workgroupBarrier();
    if (lid.x == 0u && queue_len > 0u) {
      collect(base, tbase, true);
      level += 1u;
    }
    workgroupBarrier();
    spread(base, lid.x, false);
    workgroupBarrier();
    if (lid.x == 0u && queue_len > 0u) {
      collect(base, tbase, false);
      level += 1u;
    }
    workgroupBarrier();
  }
}
