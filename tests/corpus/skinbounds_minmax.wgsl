// World-space bounding box of a skinned mesh, computed on the GPU in two
// dispatches: reset_box seeds one box slot with +/-BIG, then skin_bounds skins
// every vertex by up to four bone matrices and folds it into the slot with a
// float min/max built from compare-exchange loops on the i32 bit patterns.

const BIG: f32 = 3.0e38;

struct BoxBits {
    lo: array<atomic<i32>, 4>,   // min x, y, z as f32 bit patterns; [3] unused
    hi: array<atomic<i32>, 4>,   // max x, y, z; [3] unused
}

struct SkinSettings {
    box_slot: u32,
    bone_count: u32,
}

@group(0) @binding(0) var<storage, read> positions: array<f32>;           // xyz per vertex, packed
@group(0) @binding(1) var<storage, read_write> boxes: array<BoxBits>;
@group(0) @binding(2) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(3) var<storage, read> bone_ids: array<vec4<f32>>;      // indices stored as floats
@group(0) @binding(4) var<storage, read> bone_weights: array<vec4<f32>>;
@group(0) @binding(7) var<uniform> skin: SkinSettings;

// Float min/max on an i32 bit pattern: retry the exchange until the slot
// already holds something at least as small (large), or ours went in.
// (naga takes no storage pointers as arguments: the slot comes as indices.)
fn fold_min(s: u32, axis: u32, value: f32) {
    let bits = bitcast<i32>(value);
    loop {
        let seen = atomicLoad(&boxes[s].lo[axis]);
        if value >= bitcast<f32>(seen) {
            break;
        }
        if atomicCompareExchangeWeak(&boxes[s].lo[axis], seen, bits).old_value == seen {
            break;
        }
    }
}

fn fold_max(s: u32, axis: u32, value: f32) {
    let bits = bitcast<i32>(value);
    loop {
        let seen = atomicLoad(&boxes[s].hi[axis]);
        if value <= bitcast<f32>(seen) {
            break;
        }
        if atomicCompareExchangeWeak(&boxes[s].hi[axis], seen, bits).old_value == seen {
            break;
        }
    }
}

fn bone_matrix(id: f32) -> mat4x4<f32> {
    let last = i32(skin.bone_count) - 1;
    return bones[clamp(i32(id), 0, last)];
}

@compute @workgroup_size(1, 1, 1)
fn reset_box() {
    let s = skin.box_slot;
    for (var axis = 0u; axis < 3u; axis += 1u) {
        atomicStore(&boxes[s].lo[axis], bitcast<i32>(BIG));
        atomicStore(&boxes[s].hi[axis], bitcast<i32>(-BIG));
    }
}

@compute @workgroup_size(64, 1, 1)
fn skin_bounds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = gid.x;
    if v >= arrayLength(&positions) / 3u {
        return;
    }
    let p = vec4<f32>(positions[v * 3u], positions[v * 3u + 1u], positions[v * 3u + 2u], 1.0);

    let ids = bone_ids[v];
    let raw = bone_weights[v];
    // an unweighted vertex follows its first bone rigidly
    let w = select(raw, vec4<f32>(1.0, 0.0, 0.0, 0.0), dot(raw, vec4<f32>(1.0)) <= 0.0);
    let skinning = bone_matrix(ids.x) * w.x + bone_matrix(ids.y) * w.y
                 + bone_matrix(ids.z) * w.z + bone_matrix(ids.w) * w.w;
    let world = skinning * p;

    for (var axis = 0u; axis < 3u; axis += 1u) {
        fold_min(skin.box_slot, axis, world[axis]);
        fold_max(skin.box_slot, axis, world[axis]);
    }
}
