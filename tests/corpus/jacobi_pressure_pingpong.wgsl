// Pressure projection front half for a 2-D grid fluid: the divergence of the
// velocity field, then Jacobi sweeps of the pressure Poisson equation. Each
// sweep reads the previous pressure buffer and writes the other one; the
// host swaps the pair between sweeps.

struct GridUniform {
    size: vec4<f32>,     // x: width, y: height, z: cell size, w: unused
}

@group(0) @binding(0) var<uniform> grid: GridUniform;
@group(0) @binding(1) var<storage, read_write> div_field: array<f32>;

@group(1) @binding(0) var<storage, read> velocity: array<vec2<f32>>;
@group(1) @binding(1) var<storage, read> p_src: array<f32>;
@group(1) @binding(2) var<storage, read_write> p_dst: array<f32>;

// clamped neighbour coordinates: left, right, up, down
fn neighbours(x: u32, y: u32, w: u32, h: u32) -> vec4<u32> {
    return vec4<u32>(select(x, x - 1u, x > 0u), select(x, x + 1u, x + 1u < w),
                     select(y, y - 1u, y > 0u), select(y, y + 1u, y + 1u < h));
}

@compute @workgroup_size(8, 8)
fn divergence(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = u32(grid.size.x);
    let h = u32(grid.size.y);
    if (gid.x >= w || gid.y >= h) {
        return;
    }
    let n = neighbours(gid.x, gid.y, w, h);
    let dvx = velocity[n.y + gid.y * w].x - velocity[n.x + gid.y * w].x;
    let dvy = velocity[gid.x + n.w * w].y - velocity[gid.x + n.z * w].y;
    div_field[gid.x + gid.y * w] = 0.5 * (dvx + dvy);
}

@compute @workgroup_size(8, 8)
fn jacobi(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = u32(grid.size.x);
    let h = u32(grid.size.y);
    if (gid.x >= w || gid.y >= h) {
        return;
    }
    let n = neighbours(gid.x, gid.y, w, h);
    let around = p_src[n.x + gid.y * w] + p_src[n.y + gid.y * w]
               + p_src[gid.x + n.z * w] + p_src[gid.x + n.w * w];
    let alpha = -(grid.size.z * grid.size.z);
    let here = gid.x + gid.y * w;
    p_dst[here] = (alpha * div_field[here] + around) * 0.25;
}
