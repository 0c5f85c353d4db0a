//! WGSL types as shaders use them beyond plain words: a `mat3x3` and a
//! `mat2x2` in a uniform (read member by member at WGSL's offsets, each
//! `mat3x3` column 16 bytes apart), a `mat3x3` local, an array of `vec3`
//! in workgroup memory (laid out as the IR likes, as no host reads it),
//! and vectors indexed at run time through a pointer (`taps[j] = ...`,
//! `packed[i / 4u][i % 4u] = ...`), which touch only the lane chosen.
//! Each computes what WGSL says on both backends in every mode; a
//! `mat3x3` in a storage buffer, whose padding a host does read, is
//! refused at its declaration.

use crate::support::runtimes;
use ld::{Mode, Runtime};

/// A rotation and a shift in a uniform, a tile of `vec3` in workgroup
/// memory read back reversed, then a local matrix of the tile's vector.
const TRANSFORM: &str = "\
struct Params { rot: mat3x3<f32>, shift: vec3<f32>, scale: mat2x2<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
var<workgroup> tile: array<vec3<f32>, 64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    tile[l] = params.rot * input[g.x].xyz + params.shift;
    workgroupBarrier();
    let q = tile[63u - l];
    let m = mat3x3<f32>(q, q.yzx, q.zxy);
    let s = params.scale * q.xy;
    out[g.x] = vec4(m[1].x + s.x, (transpose(m) * vec3(1.0, 0.0, 0.0)).z, s.y, q.z);
}
";

const N: usize = 128;

/// `Params` as WGSL lays it out: `rot`'s columns at 0, 16 and 32 (each
/// padded to 16 bytes), `shift` at 48, `scale` at 64 (aligned to 8), 80
/// bytes. The padding words hold a marker no correct read returns.
fn params() -> Vec<u8> {
    const PAD: f32 = 1.0e6;
    let rot = [0.0, 1.0, 0.0, PAD, -1.0, 0.0, 0.0, PAD, 0.0, 0.0, 1.0, PAD];
    let words: Vec<f32> = rot.into_iter().chain([1.0, 2.0, 3.0, PAD]).chain([2.0, 0.0, 0.0, 3.0]).collect();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn input(i: usize) -> [f32; 4] {
    let f = i as f32;
    [f, 2.0 * f, -f, 7.0]
}

/// What WGSL computes: `rot` turns (x, y, z) into (-y, x, z), `shift` adds
/// (1, 2, 3); each invocation reads the tile's mirror entry `q`, and
/// writes (q.y + 2 q.x, q.z, 3 q.y, q.z).
fn expected() -> Vec<f32> {
    (0..N)
        .flat_map(|i| {
            let mirror = i / 64 * 64 + 63 - i % 64;
            let [x, y, z, _] = input(mirror);
            let q = [-y + 1.0, x + 2.0, z + 3.0];
            [q[1] + 2.0 * q[0], q[2], 3.0 * q[1], q[2]]
        })
        .collect()
}

fn run(rt: &Runtime, mode: Mode) -> (ld::Result<ld::Run>, Vec<f32>) {
    let shader = ld::Shader::parse(TRANSFORM.to_string(), "transform.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    let data: Vec<f32> = (0..N).flat_map(input).collect();
    let input = rt.upload(&data).unwrap();
    let mut out = rt.zeros::<f32>(4 * N).unwrap();
    let uniform = params();
    let bindings = ld::Bindings::new().uniform(0, 0, &uniform).buffer(0, 1, &input).buffer(0, 2, &mut out);
    let run = kernel.launch(rt, [N as u32 / 64, 1, 1], bindings).unwrap().mode(mode).run();
    (run, out.to_vec().unwrap())
}

#[test]
fn three_row_matrices_and_vec3_tiles_compute_what_wgsl_says_in_every_mode() {
    let want = expected();
    for rt in runtimes() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let (run, out) = run(&rt, mode);
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out, want, "{what}");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: {r}");
            }
        }
    }
}

#[test]
fn a_three_row_matrix_in_a_buffer_is_refused_at_its_declaration() {
    let src = "@group(0) @binding(0) var<storage, read_write> frames: array<mat3x3<f32>>;\n\
               @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { frames[g.x] = mat3x3<f32>(); }\n";
    let shader = ld::Shader::parse(src.to_string(), "frames.wgsl".as_ref()).unwrap();
    let err = ld::ShaderKernel::new(&shader, "main", &[]).map(drop).unwrap_err().to_string();
    assert!(err.contains("`mat3x3` in a buffer is not supported yet") && err.contains("frames.wgsl:1:"), "{err}");
}

/// A local `vec3` filled and read at indices known at run time, as
/// ratchet's scalar convolution gathers its taps, and four invocations
/// writing the four lanes of one `vec4` each.
const LANES: &str = "\
@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> packed: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var taps: vec3<f32>;
    for (var j = 0u; j < 3u; j++) {
        taps[j] = input[g.x][j] * f32(j + 1u);
    }
    packed[g.x / 4u][g.x % 4u] = taps[g.x % 3u] + taps[(g.x + 1u) % 3u];
    out[g.x] = input[g.x][g.x % 4u];
}
";

fn lane_input(i: usize) -> [f32; 4] {
    let f = i as f32;
    [f, f + 0.5, -f, 2.0 * f]
}

#[test]
fn vectors_indexed_at_run_time_touch_only_the_lane_chosen() {
    let shader = ld::Shader::parse(LANES.to_string(), "lanes.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    let taps = |i: usize| -> [f32; 3] {
        let v = lane_input(i);
        [v[0], v[1] * 2.0, v[2] * 3.0]
    };
    let want_packed: Vec<f32> = (0..N).map(|i| taps(i)[i % 3] + taps(i)[(i + 1) % 3]).collect();
    let want_out: Vec<f32> = (0..N).map(|i| lane_input(i)[i % 4]).collect();
    for rt in runtimes() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let data: Vec<f32> = (0..N).flat_map(lane_input).collect();
            let input = rt.upload(&data).unwrap();
            let mut packed = rt.zeros::<f32>(N).unwrap();
            let mut out = rt.zeros::<f32>(N).unwrap();
            let bindings = ld::Bindings::new().buffer(0, 0, &input).buffer(0, 1, &mut packed).buffer(0, 2, &mut out);
            let run = kernel.launch(&rt, [N as u32 / 64, 1, 1], bindings).unwrap().mode(mode).run();
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(packed.to_vec().unwrap(), want_packed, "{what}");
            assert_eq!(out.to_vec().unwrap(), want_out, "{what}");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: four invocations write four lanes of one vec4: {r}");
            }
        }
    }
}
