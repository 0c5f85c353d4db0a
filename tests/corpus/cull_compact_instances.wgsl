// GPU culling of voxel-chunk instances with stream compaction: every
// visible chunk is appended either to the fallback instance list or, when it
// projects to a few pixels only, to the impostor list. Appends are reserved
// once per workgroup: lanes take a rank from a workgroup counter, lane 0
// reserves the workgroup's range from the indirect-draw counters, and the
// range base is broadcast with workgroupUniformLoad.

struct InstanceInput {
  position: vec3<f32>,
  scale: vec3<f32>,
  custom_color: vec4<f32>,
  emissive: vec4<f32>,
  voxel_type: u32,
  flags: u32,          // bit 0: has mesh, bit 1: has envelope, bit 2: visible
  mesh_index: u32,
  envelope_index: u32,
};

struct CandidateBuffer {
  header: vec4<u32>,
  items: array<InstanceInput>,
};

struct DrawIndirectArgs {
  vertex_count: u32,
  instance_count: atomic<u32>,
  first_vertex: u32,
  first_instance: u32,
};

struct CullParams {
  camera_position: vec3<f32>,
  candidate_limit: u32,
  camera_forward: vec3<f32>,
  _pad0: u32,
  near_plane: f32,
  far_plane: f32,
  fov_tan: f32,
  screen_height: f32,
  impostor_pixel_threshold: f32,
  _pad1: f32,
  _pad2: f32,
  _pad3: f32,
};

struct VoxelInstanceRaw {
  position: vec3<f32>,
  voxel_type: u32,
  scale: vec3<f32>,
  ao_factor: f32,
  custom_color: vec4<f32>,
  emissive: vec4<f32>,
};

struct ImpostorInstance {
  position: vec3<f32>,
  _pad0: f32,
  color: vec4<f32>,
  emissive: vec4<f32>,
  material: vec4<f32>,
};

@group(0) @binding(0) var<storage, read_write> candidates: CandidateBuffer;
@group(0) @binding(1) var<uniform> params: CullParams;
@group(0) @binding(2) var<storage, read_write> fallback_args: DrawIndirectArgs;
@group(0) @binding(3) var<storage, read_write> fallback_instances: array<VoxelInstanceRaw>;
@group(0) @binding(4) var<storage, read_write> impostor_args: DrawIndirectArgs;
@group(0) @binding(5) var<storage, read_write> impostor_instances: array<ImpostorInstance>;
@group(0) @binding(6) var<storage, read> material_props: array<vec4<f32>>;

var<workgroup> wg_fallback_count: atomic<u32>;
var<workgroup> wg_impostor_count: atomic<u32>;
var<workgroup> wg_base: vec2<u32>;

const KIND_CULLED: u32 = 0u;
const KIND_FALLBACK: u32 = 1u;
const KIND_IMPOSTOR: u32 = 2u;

@compute @workgroup_size(1)
fn reset_args() {
  fallback_args.vertex_count = 36u;
  atomicStore(&fallback_args.instance_count, 0u);
  fallback_args.first_vertex = 0u;
  fallback_args.first_instance = 0u;
  impostor_args.vertex_count = 4u;
  atomicStore(&impostor_args.instance_count, 0u);
  impostor_args.first_vertex = 0u;
  impostor_args.first_instance = 0u;
}

@compute @workgroup_size(64)
fn cull_instances(@builtin(global_invocation_id) gid: vec3<u32>,
                  @builtin(local_invocation_index) lane: u32) {
  let index = gid.x;
  let count = min(arrayLength(&candidates.items), params.candidate_limit);

  var kind = KIND_CULLED;
  var inst: InstanceInput;
  var center = vec3<f32>(0.0);
  if (index < count) {
    inst = candidates.items[index];
    let half_scale = inst.scale * 0.5;
    center = inst.position + half_scale;
    let to_instance = center - params.camera_position;
    let dist_sq = dot(to_instance, to_instance);
    let within_depth = dist_sq >= params.near_plane * params.near_plane &&
                       dist_sq <= params.far_plane * params.far_plane;
    let radius = dot(abs(params.camera_forward), abs(half_scale));
    let z_cam = dot(to_instance, params.camera_forward);
    let visible = within_depth && z_cam > -radius && z_cam > 0.0;

    candidates.items[index].flags = select(inst.flags & ~4u, inst.flags | 4u, visible);

    if (visible) {
      let approx_radius = max(abs(half_scale.x), max(abs(half_scale.y), abs(half_scale.z)));
      let diameter_px = approx_radius * params.screen_height / max(z_cam * params.fov_tan, 1e-4);
      kind = select(KIND_FALLBACK, KIND_IMPOSTOR, diameter_px <= params.impostor_pixel_threshold);
    }
  }

  // rank inside the workgroup, then one reservation per list
  var rank = 0u;
  if (kind == KIND_FALLBACK) {
    rank = atomicAdd(&wg_fallback_count, 1u);
  } else if (kind == KIND_IMPOSTOR) {
    rank = atomicAdd(&wg_impostor_count, 1u);
  }
  workgroupBarrier();
  if (lane == 0u) {
    let n_fallback = atomicLoad(&wg_fallback_count);
    let n_impostor = atomicLoad(&wg_impostor_count);
    wg_base = vec2<u32>(atomicAdd(&fallback_args.instance_count, n_fallback),
                        atomicAdd(&impostor_args.instance_count, n_impostor));
  }
  let base = workgroupUniformLoad(&wg_base);

  if (kind == KIND_FALLBACK) {
    fallback_instances[base.x + rank] = VoxelInstanceRaw(inst.position, inst.voxel_type, inst.scale,
                                                         1.0, inst.custom_color, inst.emissive);
  } else if (kind == KIND_IMPOSTOR) {
    let color = select(vec4<f32>(0.4, 0.4, 0.45, 0.8), inst.custom_color, inst.custom_color.a > 0.0);
    let material = material_props[min(inst.voxel_type, 255u)];
    impostor_instances[base.y + rank] = ImpostorInstance(center, 0.0, color, inst.emissive, material);
  }
}
