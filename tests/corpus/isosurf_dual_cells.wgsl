// Dual-contouring front end over a sampled scalar volume, in two dispatches.
// scan_edges: every cell looks at the three grid edges leaving its lower
// corner; an edge whose ends straddle the level is appended to the edge list,
// and the four cells sharing it are marked for a vertex (the first marker of a
// cell in this generation allocates the vertex). place_vertices: each marked
// cell puts its vertex at the mass point of the crossings on its twelve edges.

// cells per workgroup along each axis; the launch sets it
override EDGE: u32;

struct ContourDraw {
    vertex_count: u32,
    instance_count: atomic<u32>,   // crossing edges appended so far
    first_vertex: u32,
    first_instance: u32,
    next_vertex: atomic<u32>,      // vertices allocated so far
    generation: u32,               // marks from older generations are stale
}

struct ContourLevel {
    level: f32,
}

@group(0) @binding(0) var<storage, read> samples: array<f32>;
@group(0) @binding(1) var<uniform> contour: ContourLevel;
@group(0) @binding(2) var<storage, read_write> edge_list: array<u32>;
@group(0) @binding(3) var<storage, read_write> cell_marks: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> cell_vertex: array<u32>;
@group(0) @binding(5) var<storage, read_write> draw: ContourDraw;
@group(1) @binding(0) var<storage, read_write> vertex_pos: array<vec4<f32>>;

// samples along x, then x*y per z layer
fn strides(points: vec3<u32>) -> vec3<u32> {
    return vec3<u32>(1u, points.x, points.x * points.y);
}

fn lin(p: vec3<u32>, s: vec3<u32>) -> u32 {
    return dot(p, s);
}

fn sample_at(p: vec3<u32>, s: vec3<u32>) -> f32 {
    return samples[lin(p, s)] - contour.level;
}

fn append_edge(corner: vec3<u32>, axis: u32) {
    let slot = atomicAdd(&draw.instance_count, 1u);
    let packed = vec4<u32>(corner, axis) << vec4<u32>(0u, 10u, 20u, 30u);
    edge_list[slot] = packed.x | packed.y | packed.z | packed.w;
}

fn mark_cell(cell: vec3<u32>, s: vec3<u32>) {
    let i = lin(cell, s);
    let g = draw.generation;
    if atomicMax(&cell_marks[i], g) != g {
        cell_vertex[i] = atomicAdd(&draw.next_vertex, 1u);
    }
}

@compute @workgroup_size(EDGE, EDGE, EDGE)
fn scan_edges(
    @builtin(global_invocation_id) cell: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let s = strides(groups * EDGE + 1u);
    let p = sign(sample_at(cell, s));
    let px = sign(sample_at(cell + vec3<u32>(1u, 0u, 0u), s));
    let py = sign(sample_at(cell + vec3<u32>(0u, 1u, 0u), s));
    let pz = sign(sample_at(cell + vec3<u32>(0u, 0u, 1u), s));

    // an edge has four cells around it only away from the low faces
    let inner = cell.yzx * cell.zxy;
    if inner.x > 0u && px * p < 0.0 {
        append_edge(cell, 1u);
        mark_cell(cell - vec3<u32>(0u, 1u, 1u), s);
        mark_cell(cell - vec3<u32>(0u, 1u, 0u), s);
        mark_cell(cell - vec3<u32>(0u, 0u, 1u), s);
        mark_cell(cell, s);
    }
    if inner.y > 0u && py * p < 0.0 {
        append_edge(cell, 2u);
        mark_cell(cell - vec3<u32>(1u, 0u, 1u), s);
        mark_cell(cell - vec3<u32>(1u, 0u, 0u), s);
        mark_cell(cell - vec3<u32>(0u, 0u, 1u), s);
        mark_cell(cell, s);
    }
    if inner.z > 0u && pz * p < 0.0 {
        append_edge(cell, 3u);
        mark_cell(cell - vec3<u32>(1u, 1u, 0u), s);
        mark_cell(cell - vec3<u32>(1u, 0u, 0u), s);
        mark_cell(cell - vec3<u32>(0u, 1u, 0u), s);
        mark_cell(cell, s);
    }
}

// Adds the zero crossing of edge a->b (values va, vb) to the running mass point.
fn add_crossing(va: f32, vb: f32, a: vec3<f32>, b: vec3<f32>, acc: ptr<function, vec4<f32>>) {
    if va * vb < 0.0 {
        let t = va / (va - vb);
        *acc += vec4<f32>(mix(a, b, t), 1.0);
    }
}

@compute @workgroup_size(EDGE, EDGE, EDGE)
fn place_vertices(
    @builtin(global_invocation_id) cell: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let s = strides(groups * EDGE + 1u);
    let i = lin(cell, s);
    if atomicLoad(&cell_marks[i]) != draw.generation {
        return;
    }
    var v: array<f32, 8>;
    for (var c = 0u; c < 8u; c += 1u) {
        let corner = vec3<u32>(c & 1u, (c >> 1u) & 1u, c >> 2u);
        v[c] = sample_at(cell + corner, s);
    }
    var acc = vec4<f32>(0.0);
    let o = vec3<f32>(0.0);
    let x = vec3<f32>(1.0, 0.0, 0.0);
    let y = vec3<f32>(0.0, 1.0, 0.0);
    let z = vec3<f32>(0.0, 0.0, 1.0);
    add_crossing(v[0], v[1], o, x, &acc);
    add_crossing(v[2], v[3], y, x + y, &acc);
    add_crossing(v[4], v[5], z, x + z, &acc);
    add_crossing(v[6], v[7], y + z, x + y + z, &acc);
    add_crossing(v[0], v[2], o, y, &acc);
    add_crossing(v[1], v[3], x, x + y, &acc);
    add_crossing(v[4], v[6], z, y + z, &acc);
    add_crossing(v[5], v[7], x + z, x + y + z, &acc);
    add_crossing(v[0], v[4], o, z, &acc);
    add_crossing(v[1], v[5], x, x + z, &acc);
    add_crossing(v[2], v[6], y, y + z, &acc);
    add_crossing(v[3], v[7], x + y, x + y + z, &acc);
    let centre = select(vec3<f32>(0.5), acc.xyz / acc.w, acc.w > 0.0);
    vertex_pos[cell_vertex[i]] = vec4<f32>(vec3<f32>(cell) + centre, 1.0);
}
