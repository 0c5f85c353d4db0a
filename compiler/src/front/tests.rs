//! The shader front-end on small shaders: what it translates (every mode's
//! WGSL then validates), and where it points when it cannot.

use super::{translate, Kernel, ParamSource};
use crate::analysis;
use crate::ir::{ParamKind, StmtKind};

fn load(src: &str, entry: &str) -> Result<Kernel, String> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
    let info = v.validate(&module).map_err(|e| e.emit_to_string(src))?;
    translate(&module, &info, entry).map_err(|r| r.render("s.wgsl", src))
}

/// Translates, then checks and writes every variant, as loading a shader
/// does.
#[track_caller]
fn compiles(src: &str, entry: &str) -> Kernel {
    let k = load(src, entry).unwrap_or_else(|e| panic!("rejected:\n{e}"));
    if let Err(ds) = crate::compile(&k.module) {
        panic!("does not compile: {ds:?}");
    }
    k
}

#[track_caller]
fn rejects(src: &str, entry: &str, expected: &str) {
    match load(src, entry) {
        Ok(_) => panic!("accepted; expected:\n{expected}"),
        Err(got) => assert_eq!(got, expected),
    }
}

const REDUCE: &str = "\
struct Params { n: u32, scale: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(1) @binding(2) var<storage, read> input: array<f32>;
@group(1) @binding(0) var<storage, read_write> sums: array<f32>;
@group(0) @binding(1) var<storage, read_write> count: atomic<u32>;
var<workgroup> part: array<f32, 64>;

fn load_scaled(i: u32) -> f32 {
    if i >= params.n {
        return 0.0;
    }
    return input[i] * params.scale;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    part[li] = load_scaled(wg.x * 64u + li);
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s >> 1u) {
        if li < s {
            part[li] += part[li + s];
        }
        workgroupBarrier();
    }
    if li == 0u {
        sums[wg.x] = part[0];
        atomicAdd(&count, 1u);
    }
}
";

#[test]
fn a_reduction_becomes_the_kernel_the_rust_dialect_would_build() {
    let k = compiles(REDUCE, "main");
    let m = &k.module;
    assert_eq!(m.kernel.workgroup_size, [64, 1, 1]);
    // Parameters in binding order; the uniform's members one each.
    let names: Vec<&str> = m.kernel.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["params_n", "params_scale", "count", "sums", "input"]);
    assert_eq!(
        k.params,
        [
            ParamSource::Uniform { group: 0, binding: 0, offset: 0 },
            ParamSource::Uniform { group: 0, binding: 0, offset: 4 },
            ParamSource::Buffer { group: 0, binding: 1, one: true },
            ParamSource::Buffer { group: 1, binding: 0, one: false },
            ParamSource::Buffer { group: 1, binding: 2, one: false },
        ]
    );
    assert!(matches!(m.kernel.params[2].kind, ParamKind::Atomic { .. }));
    assert!(matches!(m.kernel.params[3].kind, ParamKind::Storage { access: crate::ir::Access::ReadWrite, .. }));
    assert!(matches!(m.kernel.params[4].kind, ParamKind::Storage { access: crate::ir::Access::Read, .. }));
    assert_eq!(m.kernel.shared.len(), 1);
    assert_eq!(m.kernel.shared[0].len, 64);
    // The helper is inlined: it returns early, so its body is a loop of
    // one iteration.
    assert!(m.functions.is_empty());
    let barriers = count(&m.kernel.body.block, &|s| matches!(s, StmtKind::Barrier(_)));
    assert_eq!(barriers, 2);
    // Both written memories are targets; the atomic is not.
    assert_eq!(analysis::targets::list(m).len(), 2);
}

fn count(b: &[crate::ir::Stmt], f: &dyn Fn(&StmtKind) -> bool) -> usize {
    let mut n = 0;
    crate::ir::walk_stmts(b, &mut |s| n += f(&s.kind) as usize);
    n
}

#[test]
fn a_return_inside_a_helpers_loop_ends_the_loops_around_it() {
    let src = "\
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> found: array<u32>;
fn find(k: u32) -> u32 {
    for (var i = 0u; i < arrayLength(&keys); i++) {
        for (var j = 0u; j < 2u; j++) {
            if keys[i] == k + j { return i; }
        }
    }
    return 0xffffffffu;
}
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    found[g.x] = find(g.x);
}
";
    let k = compiles(src, "main");
    // The flag set by `return` and tested after each inner loop.
    assert!(k.module.kernel.body.locals.iter().any(|l| l.name == "returned"));
}

#[test]
fn workgroup_uniform_load_is_uniform_and_a_barrier_may_depend_on_it() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
var<workgroup> flag: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    if li == 0u { flag = data[0]; }
    let f = workgroupUniformLoad(&flag);
    if f != 0u {
        workgroupBarrier();
        data[li + 1u] = f;
    }
}
";
    compiles(src, "main");
}

#[test]
fn a_plain_shared_load_still_makes_a_barrier_divergent() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
var<workgroup> flag: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    if li == 0u { flag = data[0]; }
    workgroupBarrier();
    let f = flag;
    if f != 0u {
        workgroupBarrier();
    }
}
";
    let k = load(src, "main").unwrap();
    assert!(analysis::uniformity::check(&k.module).is_err());
}

#[test]
fn select_evaluates_both_operands_and_private_globals_are_locals() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> a: array<i32>;
var<private> bias: i32 = 3;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    let left = select(0, a[i - 1u], i > 0u);
    a[i] = left + bias + i32(countOneBits(i)) + bitcast<i32>(i);
}
";
    let k = compiles(src, "main");
    assert!(k.module.kernel.body.locals.iter().any(|l| l.name == "bias"));
}

#[test]
fn a_texture_binding_is_rejected_at_its_declaration() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var img: texture_2d<f32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = textureLoad(img, vec2<i32>(0, 0), 0).x;
}
";
    rejects(
        src,
        "main",
        "error: `img` is a texture: ld checks storage, uniform and workgroup memory, not textures or samplers
 --> s.wgsl:2:23
  |
2 | @group(0) @binding(1) var img: texture_2d<f32>;
  |                       ^^^^^^^^^^^^^^^^^^^^^^^^^
",
    );
}

#[test]
fn a_switch_is_an_if_chain_with_its_default_last() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    switch g.x % 4u {
        case 0u, 2u: { out[g.x] = 1u; }
        case 1u: { out[g.x] = 2u; break; }
        default: { out[g.x] = 3u; }
    }
}
";
    let k = compiles(src, "main");
    // One `if` per clause but the default, nested in the `else`s.
    assert_eq!(count(&k.module.kernel.body.block, &|s| matches!(s, StmtKind::If(..))), 2);
    let mid = src.replace("out[g.x] = 2u; break;", "if g.x > 8u { break; } out[g.x] = 2u;");
    let err = load(&mid, "main").unwrap_err();
    assert!(err.starts_with("error: a `break` out of a switch is supported as a case's last statement only"), "{err}");
    assert!(err.contains(" --> s.wgsl:4:5\n"), "{err}");
}

#[test]
fn a_pointer_parameter_reaches_the_callers_place() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn bump(p: ptr<function, u32>, arr: ptr<function, array<u32, 4>>) {
    *p = *p + 1u;
    (*arr)[1] = *p;
}
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) li: u32) {
    var x = li;
    var a: array<u32, 4>;
    bump(&x, &a);
    out[li] = x + a[1];
}
";
    let k = compiles(src, "main");
    // The helper's stores land on the caller's `x` and `a`.
    let locals = &k.module.kernel.body.locals;
    let mut stores = Vec::new();
    crate::ir::walk_stmts(&k.module.kernel.body.block, &mut |s| {
        if let StmtKind::Assign(crate::ir::Place { root: crate::ir::Root::Local(id), path }, None, _) = &s.kind {
            stores.push((locals[*id].name.clone(), path.len()));
        }
    });
    assert!(stores.contains(&("x".to_string(), 0)) && stores.contains(&("a".to_string(), 1)), "{stores:?}");
}

#[test]
fn subgroup_operations_and_unknown_entry_points_are_errors() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = g.x;
}
";
    let err = load(src, "mian").unwrap_err();
    assert!(err.contains("no entry point `mian`; the shader's compute entry points: main"), "{err}");
    let matrix = "\
@group(0) @binding(0) var<storage, read_write> out: array<mat3x3<f32>>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = mat3x3<f32>();
}
";
    let err = load(matrix, "main").unwrap_err();
    assert!(err.starts_with("error: `mat3x3` in a buffer is not supported yet: WGSL pads each of its columns"), "{err}");
    assert!(err.contains(" --> s.wgsl:1:23\n"), "{err}");
    let subgroup = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = subgroupAdd(g.x);
}
";
    let err = load(subgroup, "main").unwrap_err();
    assert!(err.starts_with("error: subgroup operations are not supported"), "{err}");
    assert!(err.contains(" --> s.wgsl:4:"), "{err}");
    let lane = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32) {
    out[g.x] = lane;
}
";
    let err = load(lane, "main").unwrap_err();
    assert!(err.starts_with("error: `@builtin(subgroup_invocation_id)` is not supported in the kernels ld checks"), "{err}");
    assert!(err.contains(" --> s.wgsl:4:"), "{err}");
    // Declared and never read (the inputs a template declares), it is
    // nothing to refuse; nor is it inside a struct of inputs.
    assert!(load(&lane.replace("out[g.x] = lane;", "out[g.x] = 1u;"), "main").is_ok());
    let inputs = "\
struct In { @builtin(global_invocation_id) g: vec3<u32>, @builtin(subgroup_size) n: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn main(i: In) {
    out[i.g.x] = 1u;
}
";
    assert!(load(inputs, "main").is_ok());
    let err = load(&inputs.replace("= 1u;", "= i.n;"), "main").unwrap_err();
    assert!(err.starts_with("error: `@builtin(subgroup_size)` is not supported in the kernels ld checks"), "{err}");
}

#[test]
fn vectors_are_structs_of_their_components() {
    // After webgpu-samples' compute boids: vec2 members, swizzles, math.
    let src = "\
struct Particle { pos: vec2<f32>, vel: vec2<f32> }
struct Params { dt: f32, rule: vec3<f32>, count: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<Particle>;
@group(0) @binding(2) var<storage, read_write> dst: array<Particle>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if i >= params.count { return; }
    var p = src[i];
    let toward = normalize(src[(i + 1u) % params.count].pos - p.pos);
    p.vel = mix(p.vel, toward, params.rule.y) * clamp(length(p.vel), 0.0, 1.0);
    p.pos += p.vel * params.dt + vec2(dot(toward, p.vel.yx), 0.0);
    p.pos = select(p.pos, vec2<f32>(0.0), p.pos > vec2(1.0));
    dst[i] = p;
}
";
    let k = compiles(src, "main");
    let names: Vec<&str> = k.module.kernel.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["params_dt", "params_rule_x", "params_rule_y", "params_rule_z", "params_count", "src", "dst"]);
    // The uniform's members at WGSL's offsets: the vec3 at 16, `count` at 28.
    let offsets: Vec<u32> = k.params.iter().filter_map(|p| if let ParamSource::Uniform { offset, .. } = p { Some(*offset) } else { None }).collect();
    assert_eq!(offsets, [0, 16, 20, 24, 28]);
    let vec2 = k.module.structs.iter().find(|s| s.name == "LdVec2F32").expect("vec2<f32> as a struct");
    assert_eq!(vec2.fields.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["x", "y"]);
}

#[test]
fn memory_that_wgsl_pads_is_refused_at_its_declaration() {
    // A fixed-size array whose stride pads its elements, in a buffer.
    let src = "\
var<private> pos: array<vec3<f32>, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    pos[i] = vec3(f32(i));
    workgroupBarrier();
    out[i] = pos[63u - i].y;
}
";
    // In workgroup (or private) memory no host reads the padding: taken.
    load(&src.replace("var<private>", "var<workgroup>"), "main").unwrap();
    load(src, "main").unwrap();
    let src = src.replace("var<private>", "@group(0) @binding(1) var<storage, read_write>");
    let err = load(&src, "main").unwrap_err();
    assert!(err.starts_with("error: `array<vec3<f32>, 64>` has padding between its elements (a stride of 16 bytes for 12 of data)"), "{err}");
    assert!(err.contains(" --> s.wgsl:1:23\n"), "{err}");
    // A runtime-sized one is read word by word, 4 words apart.
    let runtime = "\
@group(0) @binding(0) var<storage, read_write> pos: array<vec3<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    pos[g.x] = pos[g.x] * 2.0;
}
";
    let k = compiles(runtime, "main");
    let tail = k.layouts[0].as_ref().and_then(|l| l.tail.as_ref()).expect("a layout");
    assert_eq!((tail.offset, tail.stride), (0, 4));
    // A vec3 followed by a scalar packs into 16 bytes: no padding.
    let packed = "\
struct Body { pos: vec3<f32>, mass: f32 }
@group(0) @binding(0) var<storage, read_write> bodies: array<Body>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    bodies[g.x].pos = bodies[g.x].pos * bodies[g.x].mass + vec3(f32(g.x));
}
";
    compiles(packed, "main");
}

#[test]
fn a_while_loop_tests_its_condition_as_the_loop() {
    let src = "\
var<workgroup> tile: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    tile[lid] = lid;
    workgroupBarrier();
    var s = 32u;
    while s > 0u {
        if lid < s { tile[lid] += tile[lid + s]; }
        workgroupBarrier();
        s >>= 1u;
    }
    for (var i = 0u; i < 2u; i++) { out[wid.x * 2u + i] = tile[i]; }
}
";
    let k = compiles(src, "main");
    let loops: Vec<&crate::ir::Loop> = k.module.kernel.body.block.iter().filter_map(|s| if let StmtKind::Loop(l) = &s.kind { Some(l) } else { None }).collect();
    assert_eq!(loops.len(), 2);
    for l in loops {
        assert!(l.cond.is_some(), "the loop's test is its condition: {l:?}");
        let breaks = l.body.iter().any(|s| matches!(&s.kind, StmtKind::If(_, a, b) if a.iter().chain(b).any(|x| matches!(x.kind, StmtKind::Break))));
        assert!(!breaks, "no `if .. break` is left in the body: {l:?}");
    }
}

#[test]
fn a_struct_that_wgsl_pads_gets_its_padding_as_fields() {
    // WGSL: `pos` at 0, `vel` at 16 (a vec3 aligns to 16), `mass` at 28,
    // `id` at 32, the struct 48 bytes (its alignment, 16, rounds 36 up).
    let src = "\
struct Particle { pos: vec3<f32>, vel: vec3<f32>, mass: f32, id: u32 }
@group(0) @binding(0) var<storage, read_write> ps: array<Particle>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let p = ps[g.x];
    ps[g.x] = Particle(p.pos + p.vel, p.vel, p.mass, p.id + 1u);
    ps[g.x].vel.y = ps[g.x].mass;
}
";
    let k = compiles(src, "main");
    let particle = k.module.structs.iter().find(|s| s.name == "Particle").expect("the struct");
    let fields: Vec<(&str, u32)> = particle.fields.iter().map(|(n, t)| (n.as_str(), t.words_in(&k.module.structs))).collect();
    assert_eq!(fields, [("pos", 3), ("ld_pad1", 1), ("vel", 3), ("mass", 1), ("id", 1), ("ld_pad5", 3)]);
    // The kernel names members, never padding: `ps[i].vel.y` is field 2's.
    let mut first_fields = Vec::new();
    crate::ir::walk_stmts(&k.module.kernel.body.block, &mut |s| {
        if let crate::ir::StmtKind::Assign(p, _, _) = &s.kind {
            if let (crate::ir::Root::Mem { .. }, Some(crate::ir::Proj::Field(f))) = (&p.root, p.path.first()) {
                first_fields.push(*f);
            }
        }
    });
    assert_eq!(first_fields, [2], "`ps[g.x].vel.y = ...` projects onto `vel`");
}

#[test]
fn a_constant_table_indexed_at_run_time_is_a_local() {
    let src = "\
const WEIGHTS = array<f32, 3>(0.25, 0.5, 0.25);
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = WEIGHTS[g.x % 3u];
}
";
    compiles(src, "main");
}

#[test]
fn a_struct_of_atomics_is_a_buffer_of_atomic_words() {
    // After vello's bump allocators and a skinning pass's bounding boxes.
    let src = "\
struct Bump { failed: atomic<u32>, binning: atomic<u32>, tile: atomic<u32> }
struct Bounds { lo: array<atomic<i32>, 4>, hi: array<atomic<i32>, 4> }
@group(0) @binding(0) var<storage, read_write> bump: Bump;
@group(0) @binding(1) var<storage, read_write> boxes: array<Bounds>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let slot = atomicAdd(&bump.tile, 1u);
    atomicMin(&boxes[g.x % arrayLength(&boxes)].lo[g.x % 3u], i32(slot));
    atomicMax(&boxes[0].hi[2], 7);
}
";
    let k = compiles(src, "main");
    assert!(k.module.kernel.params.iter().all(|p| matches!(p.kind, ParamKind::Atomic { .. })));
    // An indirect draw's arguments: atomic words, the plain members read
    // and written with atomic loads and stores, the stores listed.
    let mixed = "\
struct Args { count: u32, instances: atomic<u32>, scale: f32 }
@group(0) @binding(0) var<storage, read_write> args: Args;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    atomicAdd(&args.instances, 1u);
    out[g.x] = args.scale * f32(args.count);
}
@compute @workgroup_size(1)
fn reset() {
    args.count = 3u;
    args.scale = 0.5;
}
";
    let k = compiles(mixed, "main");
    assert!(matches!(k.module.kernel.params[0].kind, ParamKind::Atomic { elem: crate::ir::Scalar::U32 }));
    assert!(k.atomic_memory_stores.is_empty());
    assert_eq!(compiles(mixed, "reset").atomic_memory_stores.len(), 2);
    let two = "\
struct Args { count: atomic<u32>, low: atomic<i32> }
@group(0) @binding(0) var<storage, read_write> args: Args;
@compute @workgroup_size(64)
fn main() {
    atomicAdd(&args.count, 1u);
}
";
    let err = load(two, "main").unwrap_err();
    assert!(err.starts_with("error: `args` holds atomics of two types"), "{err}");
}

#[test]
fn a_header_before_a_runtime_sized_array_is_read_word_by_word() {
    // A particle buffer's count before its particles, as real shaders
    // keep it: the buffer's words are `u32`s, each access at its offset.
    let src = "\
struct Particle { pos: vec4<f32>, vel: vec2<f32> }
struct Particles { count: u32, scale: f32, items: array<Particle> }
@group(0) @binding(0) var<storage, read_write> ps: Particles;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < min(ps.count, arrayLength(&ps.items)) {
        ps.items[g.x].vel = ps.items[g.x].vel * ps.scale;
    }
}
";
    let k = compiles(src, "main");
    assert!(matches!(&k.module.kernel.params[0].kind, ParamKind::Storage { elem: crate::ir::Type::Scalar(crate::ir::Scalar::U32), .. }));
    let layout = k.layouts[0].as_ref().expect("a layout names its words");
    let tail = layout.tail.as_ref().unwrap();
    assert_eq!((tail.name.as_str(), tail.offset), ("items", 4));
    let name = |w: u32| {
        let mut s = String::from("ps");
        layout.place(&k.module.structs, w, &mut s);
        s
    };
    assert_eq!(name(1), "ps.scale");
    assert_eq!(name(4 + 8 * 3 + 5), "ps.items[3].vel.y");
}

#[test]
fn a_glsl_compute_shader_goes_through_nagas_glsl_front_end() {
    // A workgroup reduction as GLSL writes it: `shared`, `barrier()`,
    // buffer blocks with a runtime-sized last member.
    let src = "\
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float values[]; };
layout(std430, set = 0, binding = 1) buffer Out { float sums[]; };
shared float part[64];
void main() {
    uint li = gl_LocalInvocationIndex;
    part[li] = values[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1u) {
        if (li < s) { part[li] += part[li + s]; }
        barrier();
    }
    if (li == 0u) { sums[gl_WorkGroupID.x] = part[0]; }
}
";
    let module = naga::front::glsl::Frontend::default().parse(&naga::front::glsl::Options::from(naga::ShaderStage::Compute), src).unwrap();
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all()).validate(&module).unwrap();
    let k = translate(&module, &info, "main").unwrap_or_else(|r| panic!("{}", r.render("reduce.comp", src)));
    crate::compile(&k.module).unwrap();
    // The blocks are buffers of floats; `barrier()` is both barrier kinds.
    assert!(k.module.kernel.params.iter().all(|p| matches!(p.kind, ParamKind::Storage { elem: crate::ir::Type::Scalar(crate::ir::Scalar::F32), .. })));
    assert_eq!(count(&k.module.kernel.body.block, &|s| matches!(s, StmtKind::Barrier(_))), 4);
}

#[test]
fn a_helpers_early_return_makes_only_what_follows_it_divergent() {
    let ok = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, 64>;
fn stage(li: u32) {
    tile[li] = li;
    workgroupBarrier();
    if li >= 32u { return; }
    out[li] = tile[63u - li];
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    stage(li);
    workgroupBarrier();
    out[li + 64u] = tile[li];
}
";
    compiles(ok, "main");
    let late = ok.replace("    out[li] = tile[63u - li];\n}", "    workgroupBarrier();\n}");
    let k = load(&late, "main").unwrap();
    let errors = analysis::uniformity::check(&k.module).unwrap_err();
    assert!(errors[0].message.starts_with("this workgroup barrier is not reached by every invocation"), "{errors:?}");
    assert!(
        errors[1].message.starts_with("this `break` (or a helper's `return`) is taken by only some invocations, so they skip what follows it"),
        "{errors:?}"
    );
}

#[test]
fn a_divergent_return_nested_in_a_helpers_if_makes_the_rest_of_that_branch_divergent() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> mode: u32;
fn stage(li: u32) {
    if mode == 1u {
        if li >= 32u { return; }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i++) {
        if li == i { break; }
    }
    workgroupBarrier();
    out[li] = li;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    stage(li);
}
";
    let k = load(src, "main").unwrap();
    let errors = analysis::uniformity::check(&k.module).unwrap_err();
    // Both barriers after the nested return are refused (the invocations
    // that returned reach neither), each with the `return` as the cause.
    let messages: Vec<&str> = errors.iter().map(|d| d.message.split(':').next().unwrap()).collect();
    assert_eq!(messages, ["this workgroup barrier is not reached by every invocation of the workgroup", "this `break` (or a helper's `return`) is taken by only some invocations, so they skip what follows it; move the barrier out of it, or make it depend only on uniform values (scalar parameters, `workgroup_id()`, `num_workgroups()`, constants, buffers the kernel never writes, read at uniform indices)"].repeat(2));
    assert_eq!(errors[1].span, errors[3].span);
    // Without the return, the inner loop's divergent `break` ends only
    // that loop: the barrier after it is uniform.
    compiles(&src.replace("        if li >= 32u { return; }\n", ""), "main");
}

#[test]
fn float_atomics_are_refused_at_their_declaration() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> grads: array<atomic<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    atomicAdd(&grads[g.x % 4u], 1.0);
}
";
    let err = load(src, "main").unwrap_err();
    assert!(err.starts_with("error: `atomic<f32>` is not supported"), "{err}");
    assert!(err.contains(" --> s.wgsl:1:"), "{err}");
}
