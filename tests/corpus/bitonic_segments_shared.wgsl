// Per-tile depth sort of splat key/value pairs: every workgroup loads one
// variable-length segment into workgroup memory (the unused tail stays
// zero), runs a full bitonic network over the 256 slots, four slots per
// lane, and writes the `count` largest slots back over its segment.

const WG_SIZE: u32 = 64u;
const SLOTS_PER_LANE: u32 = 4u;
const SHARED_LEN: u32 = 256u;

struct SortUniform {
  data: vec4<u32>,   // x: base offset of all segments
};

struct KeyValue {
  key: u32,
  value: u32,
};

@group(0) @binding(0) var<uniform> u_params: SortUniform;
@group(0) @binding(1) var<storage, read_write> pairs: array<KeyValue>;
@group(1) @binding(0) var<storage, read_write> segment_offsets: array<u32>;
@group(1) @binding(1) var<storage, read_write> segment_counts: array<u32>;

var<workgroup> shared_pairs: array<KeyValue, SHARED_LEN>;

fn order_slots(lo: u32, hi: u32, ascending: bool) {
  let a = shared_pairs[lo];
  let b = shared_pairs[hi];
  if ((a.key > b.key) == ascending) {
    shared_pairs[lo] = b;
    shared_pairs[hi] = a;
  }
}

@compute @workgroup_size(WG_SIZE)
fn sort_segments(@builtin(local_invocation_id) lid: vec3<u32>,
                 @builtin(workgroup_id) wid: vec3<u32>) {
  let lane = lid.x;
  let seg_start = u_params.data.x + segment_offsets[wid.x];
  let count = segment_counts[wid.x];

  if (count < SHARED_LEN) {
    for (var i = 0u; i < SLOTS_PER_LANE; i++) {
      let idx = lane * SLOTS_PER_LANE + i;
      if (idx < count) {
        shared_pairs[idx] = pairs[seg_start + idx];
      }
    }
  }

  workgroupBarrier();
  storageBarrier();

  for (var size = 2u; size <= SHARED_LEN; size <<= 1u) {
    for (var dist = size >> 1u; dist > 0u; dist >>= 1u) {
      for (var i = 0u; i < SLOTS_PER_LANE; i++) {
        let slot = lane * SLOTS_PER_LANE + i;
        let partner = slot ^ dist;
        if (partner > slot) {
          order_slots(slot, partner, (slot & size) == 0u);
        }
        workgroupBarrier();
        storageBarrier();
      }
    }
  }

  // ascending order puts the zero padding first: the data is the top `count`
  if (count < SHARED_LEN) {
    let skip = SHARED_LEN - count;
    for (var i = 0u; i < SLOTS_PER_LANE; i++) {
      let idx = lane * SLOTS_PER_LANE + i;
      if (idx < count) {
        pairs[seg_start + idx] = shared_pairs[skip + idx];
      }
    }
  }
}
