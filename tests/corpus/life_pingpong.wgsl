// Conway's Game of Life on a torus, one invocation per cell, 2-D workgroups.
// The host alternates which cell buffer is read and which is written.

@group(0) @binding(0) var<storage, read> dims : vec2<u32>;
@group(0) @binding(1) var<storage, read> cellsIn : array<u32>;
@group(0) @binding(2) var<storage, read_write> cellsOut : array<u32>;

override blockSize = 8;

// wrap both coordinates around the board (x - 1 at x = 0 wraps through 2^32)
fn cellIndex(x : u32, y : u32) -> u32 {
  return (y % dims.y) * dims.x + (x % dims.x);
}

fn alive(x : u32, y : u32) -> u32 {
  return cellsIn[cellIndex(x, y)];
}

fn liveNeighbours(x : u32, y : u32) -> u32 {
  var n = 0u;
  for (var dy = 0u; dy < 3u; dy++) {
    for (var dx = 0u; dx < 3u; dx++) {
      if (dx == 1u && dy == 1u) {
        continue;
      }
      n += alive(x + dx - 1u, y + dy - 1u);
    }
  }
  return n;
}

@compute @workgroup_size(blockSize, blockSize)
fn step_life(@builtin(global_invocation_id) cell : vec3<u32>) {
  let n = liveNeighbours(cell.x, cell.y);
  let was = alive(cell.x, cell.y);
  // survive with 2 or 3 neighbours, be born with exactly 3
  let now = select(u32(n == 3u), u32(n == 2u || n == 3u), was == 1u);
  cellsOut[cellIndex(cell.x, cell.y)] = now;
}
