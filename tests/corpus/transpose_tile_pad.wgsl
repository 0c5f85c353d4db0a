// Square transpose of complex samples (the step between the row and the
// column FFT of a spectral solver), staged through a padded 16 x 16 tile in
// workgroup memory so that both the global read and the global write are
// coalesced.

const TILE: u32 = 16u;

struct TransposeParams {
  n: u32,
}

@group(0) @binding(0) var<storage, read> input: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> output: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> params: TransposeParams;

// one extra column per row so that reading a column of the tile does not
// hit the same bank sixteen times
var<workgroup> tile: array<array<vec2<f32>, 17>, 16>;

@compute @workgroup_size(16, 16, 1)
fn transpose(@builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(workgroup_id) wid: vec3<u32>) {
  let n = params.n;
  let block_col = wid.x * TILE;
  let block_row = wid.y * TILE;

  // coalesced read: neighbouring lanes take neighbouring columns
  let src_col = block_col + lid.x;
  let src_row = block_row + lid.y;
  if (src_col < n && src_row < n) {
    tile[lid.y][lid.x] = input[src_row * n + src_col];
  }

  workgroupBarrier();

  // coalesced write of the mirrored block: lane (a, b) stores the sample
  // that lane (b, a) loaded
  let dst_col = block_row + lid.x;
  let dst_row = block_col + lid.y;
  if (dst_col < n && dst_row < n) {
    output[dst_row * n + dst_col] = tile[lid.x][lid.y];
  }
}
