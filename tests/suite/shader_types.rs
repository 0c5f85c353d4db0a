//! WGSL types as shaders use them beyond plain words: a `mat3x3` and a
//! `mat2x2` in a uniform (read member by member at WGSL's offsets, each
//! `mat3x3` column 16 bytes apart), a `mat3x3` local, an array of `vec3`
//! in workgroup memory (laid out as the IR likes, as no host reads it),
//! and vectors indexed at run time through a pointer (`taps[j] = ...`,
//! `packed[i / 4u][i % 4u] = ...`), which touch only the lane chosen.
//! Each computes what WGSL says on both backends in every mode; a
//! `mat3x3` in a storage buffer, whose padding a host does read, is
//! refused at its declaration. Uniform arrays and vectors indexed at run
//! time read what the host wrote.

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

/// Weights in a uniform read at indices known only at run time, as a
/// convolution reads its taps (`params.taps[k][c]`, `params.dir[i % 4u]`),
/// and the lanes of a padded runtime-sized `array<vec3<f32>>` read and
/// written at a lane chosen at run time.
const UNIFORM_TAPS: &str = "\
struct Params { n: u32, taps: array<vec4<f32>, 3>, dir: vec4<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> points: array<vec3<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= params.n) { return; }
    var s = params.dir[i % 4u];
    for (var k = 0u; k < 3u; k++) {
        s += params.taps[k][(i + k) % 4u] * f32(k + 1u);
    }
    out[i] = s;
    points[i][i % 3u] = points[i][(i + 1u) % 3u] + s;
}
";

#[test]
fn uniform_arrays_and_vector_lanes_indexed_at_run_time_read_what_the_host_wrote() {
    let shader = ld::Shader::parse(UNIFORM_TAPS.to_string(), "taps.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    // `Params`: n at 0, taps at 16, 32, 48, dir at 64; 80 bytes.
    let n = 100u32;
    let taps: [[f32; 4]; 3] = [[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0], [100.0, 200.0, 300.0, 400.0]];
    let dir = [0.5, 0.25, 0.125, 0.0625];
    let mut uniform = [n, 0, 0, 0].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    uniform.extend(taps.iter().flatten().chain(&dir).flat_map(|f| f.to_le_bytes()));
    let want_out: Vec<f32> =
        (0..N).map(|i| if i >= n as usize { 0.0 } else { dir[i % 4] + (0..3).map(|k| taps[k][(i + k) % 4] * (k + 1) as f32).sum::<f32>() }).collect();
    // `points`: 16 bytes a `vec3`, the fourth word padding (a marker).
    let point = |i: usize| [i as f32, 1.0 + i as f32, 2.0 + i as f32, -1.0];
    let want_points: Vec<f32> = (0..N)
        .flat_map(|i| {
            let mut p = point(i);
            if i < n as usize {
                p[i % 3] = p[(i + 1) % 3] + want_out[i];
            }
            p
        })
        .collect();
    for rt in runtimes() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let mut points = rt.upload(&(0..N).flat_map(point).collect::<Vec<f32>>()).unwrap();
            let mut out = rt.zeros::<f32>(N).unwrap();
            let bindings = ld::Bindings::new().uniform(0, 0, &uniform).buffer(0, 1, &mut points).buffer(0, 2, &mut out);
            let run = kernel.launch(&rt, [N as u32 / 64, 1, 1], bindings).unwrap().mode(mode).run();
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), want_out, "{what}");
            assert_eq!(points.to_vec().unwrap(), want_points, "{what}");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: {r}");
            }
        }
    }
}
