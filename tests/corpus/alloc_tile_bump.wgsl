// Per-draw-object tile allocation: each draw object's bbox is converted to a
// tile rectangle, the workgroup prefix-sums the tile counts, one invocation
// bump-allocates the workgroup's total from a global counter, and the
// workgroup then zeroes the tiles it was given.

struct AllocConfig {
  width_in_tiles : u32,
  height_in_tiles : u32,
  n_drawobj : u32,
  drawtag_base : u32,
  tiles_size : u32,
}

struct Bump {
  failed : atomic<u32>,
  binning : atomic<u32>,
  tile : atomic<u32>,
}

struct PathInfo {
  bbox : vec4<u32>,   // tile rectangle x0, y0, x1, y1
  tiles : u32,        // first tile of the rectangle
}

struct TileCell {
  backdrop : i32,
  seg_count : u32,
}

const TAG_NOP : u32 = 0u;
const TAG_END_CLIP : u32 = 0x21u;
const FAIL_BINNING : u32 = 1u;
const FAIL_TILE_ALLOC : u32 = 2u;
const TILE_PX : f32 = 16.0;

@group(0) @binding(0) var<uniform> cfg : AllocConfig;
@group(0) @binding(1) var<storage, read> scene : array<u32>;
@group(0) @binding(2) var<storage, read> bboxes : array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> bump : Bump;
@group(0) @binding(4) var<storage, read_write> paths : array<PathInfo>;
@group(0) @binding(5) var<storage, read_write> tiles : array<TileCell>;

override WG_SIZE : u32 = 256u;

var<workgroup> wg_counts : array<u32, WG_SIZE>;
var<workgroup> wg_prev_failed : u32;

@compute @workgroup_size(WG_SIZE)
fn tile_alloc(@builtin(global_invocation_id) gid : vec3<u32>,
              @builtin(local_invocation_id) lid : vec3<u32>) {
  // an earlier stage that ran out of memory makes this one pointless
  if (lid.x == 0u) {
    wg_prev_failed = u32((atomicLoad(&bump.failed) & FAIL_BINNING) != 0u);
  }
  if (workgroupUniformLoad(&wg_prev_failed) != 0u) {
    return;
  }

  let ix = gid.x;
  var tag = TAG_NOP;
  if (ix < cfg.n_drawobj) {
    tag = scene[cfg.drawtag_base + ix];
  }
  var lo = vec2<i32>(0);
  var hi = vec2<i32>(0);
  if (tag != TAG_NOP && tag != TAG_END_CLIP) {
    let bb = bboxes[ix];
    if (bb.x < bb.z && bb.y < bb.w) {
      lo = vec2<i32>(floor(bb.xy / TILE_PX));
      hi = vec2<i32>(ceil(bb.zw / TILE_PX));
    }
  }
  let limit = vec2<i32>(i32(cfg.width_in_tiles), i32(cfg.height_in_tiles));
  let t0 = vec2<u32>(clamp(lo, vec2<i32>(0), limit));
  let t1 = vec2<u32>(clamp(hi, vec2<i32>(0), limit));
  let my_count = (t1.x - t0.x) * (t1.y - t0.y);

  // inclusive Hillis-Steele scan of the counts
  var running = my_count;
  wg_counts[lid.x] = my_count;
  for (var k = 0u; k < firstTrailingBit(WG_SIZE); k += 1u) {
    workgroupBarrier();
    if (lid.x >= (1u << k)) {
      running += wg_counts[lid.x - (1u << k)];
    }
    workgroupBarrier();
    wg_counts[lid.x] = running;
  }

  // the last invocation reserves the workgroup's tiles
  if (lid.x == WG_SIZE - 1u) {
    let total = wg_counts[WG_SIZE - 1u];
    var base = atomicAdd(&bump.tile, total);
    if (base + total > cfg.tiles_size) {
      base = 0u;
      atomicOr(&bump.failed, FAIL_TILE_ALLOC);
    }
    paths[ix].tiles = base;
  }
  // broadcast the reservation through storage, fenced by storage barriers
  storageBarrier();
  let base = paths[ix | (WG_SIZE - 1u)].tiles;
  storageBarrier();

  if (ix < cfg.n_drawobj) {
    var before = 0u;
    if (lid.x > 0u) {
      before = wg_counts[lid.x - 1u];
    }
    paths[ix] = PathInfo(vec4<u32>(t0, t1), base + before);
  }

  // clear the reserved tiles, strided over the workgroup
  let n_tiles = wg_counts[WG_SIZE - 1u];
  for (var i = lid.x; i < n_tiles; i += WG_SIZE) {
    tiles[base + i] = TileCell(0, 0u);
  }
}
