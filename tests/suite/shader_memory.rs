//! Shader memory the IR reads word by word, as real shaders declare it:
//! a struct whose runtime-sized array follows a header (a particle
//! buffer's count before its particles), and a struct mixing atomics with
//! plain members (an indirect draw's atomic instance count beside its
//! vertex count). Both compute what WGSL says on both backends in every
//! mode; racing words are named by their WGSL path; a plain store into
//! atomic memory, which no check watches, is refused where another
//! invocation reaches that memory (the dispatch's for a buffer, the
//! workgroup's for workgroup memory).

use crate::support::runtimes;
use ld::{Mode, Runtime};

const MODES: [Mode; 4] = [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact];

/// Particles behind a header: `items` starts at byte 16 (a `Particle` is
/// aligned to 16 by its `vec4`), after `count`, `scale` and 8 bytes of
/// padding; each `Particle` is 32 bytes, its last 8 padding.
const PARTICLES: &str = "\
struct Particle { pos: vec4<f32>, vel: vec2<f32> }
struct Particles { count: u32, scale: f32, items: array<Particle> }
@group(0) @binding(0) var<storage, read_write> ps: Particles;
@group(0) @binding(1) var<storage, read_write> lens: array<u32>;

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if i == 0u {
        lens[0] = arrayLength(&ps.items);
    }
    if i < ps.count {
        var p = ps.items[i];
        p.pos = p.pos + vec4<f32>(p.vel * ps.scale, 0.0, 1.0);
        ps.items[i] = p;
    }
}

@compute @workgroup_size(64)
fn drift(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    ps.items[i].vel.y = ps.items[(i + 1u) % ps.count].vel.y + 1.0;
}
";

const N: usize = 128;
const WORDS: usize = 4 + 8 * N;

/// The buffer: the header, then each particle's words.
fn particles() -> Vec<u32> {
    let mut w = vec![N as u32, 0.5f32.to_bits(), 0, 0];
    for i in 0..N {
        let f = i as f32;
        w.extend([f, -f, 2.0 * f, 0.0, 1.0, f * 0.25].map(f32::to_bits));
        w.extend([0, 0]);
    }
    w
}

/// Runs entry point `entry` of `source` (the file `name`) over `N`
/// invocations, its binding 0 holding `words` and binding 1 one word:
/// the run, and both buffers after it.
fn launch(rt: &Runtime, (name, source): (&str, &str), entry: &str, mode: Mode, words: &[u32]) -> (ld::Result<ld::Run>, Vec<u32>, Vec<u32>) {
    let shader = ld::Shader::parse(source.to_string(), name.as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, entry, &[]).unwrap();
    let mut data = rt.upload(words).unwrap();
    let mut lens = rt.zeros::<u32>(1).unwrap();
    let launch = kernel.launch(rt, [N as u32 / 64, 1, 1], ld::Bindings::new().buffer(0, 0, &mut data).buffer(0, 1, &mut lens)).unwrap();
    let run = launch.mode(mode).run();
    (run, data.to_vec().unwrap(), lens.to_vec().unwrap())
}

#[test]
fn a_header_before_a_runtime_sized_array_is_read_at_its_offsets() {
    let input = particles();
    let mut want = input.clone();
    for i in 0..N {
        let at = 4 + 8 * i;
        let (vx, vy) = (f32::from_bits(input[at + 4]), f32::from_bits(input[at + 5]));
        want[at] = (f32::from_bits(input[at]) + vx * 0.5).to_bits();
        want[at + 1] = (f32::from_bits(input[at + 1]) + vy * 0.5).to_bits();
        want[at + 3] = 1.0f32.to_bits();
    }
    for rt in runtimes() {
        for mode in MODES {
            let what = format!("{:?} {mode:?}", rt.backend());
            let (run, words, lens) = launch(&rt, ("particles.wgsl", PARTICLES), "step", mode, &input);
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(words, want, "{what}");
            assert_eq!(lens, [N as u32], "{what}: arrayLength(&ps.items)");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: {r}");
            }
        }
    }
}

#[test]
fn a_race_in_a_runtime_sized_member_is_named_by_its_wgsl_path() {
    let input = particles();
    assert_eq!(input.len(), WORDS);
    let mut reports = Vec::new();
    for rt in runtimes() {
        for mode in [Mode::Check, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let (run, _, _) = launch(&rt, ("particles.wgsl", PARTICLES), "drift", mode, &input);
            let report = run.unwrap_or_else(|e| panic!("{what}: {e}")).report.expect("a checking mode reports");
            assert!(report.has_races(), "{what}: {report}");
            for race in &report.races {
                assert_eq!(race.variable, "ps", "{what}: {report}");
                assert!(race.places.iter().all(|p| p.starts_with("ps.items[") && p.ends_with("].vel.y")), "{what}: {:?}", race.places);
            }
            // The race across the two workgroups' boundary, on the word
            // invocation 64 writes and invocation 63 reads.
            let places: Vec<&String> = report.races.iter().flat_map(|r| &r.places).collect();
            assert!(places.iter().any(|p| *p == "ps.items[64].vel.y"), "{what}: {places:?}");
            reports.push((mode, report.to_string()));
        }
    }
    // The GPU's reports are the CPU's.
    for (mode, text) in &reports {
        let first = reports.iter().find(|(m, _)| m == mode).unwrap();
        assert_eq!(text.lines().skip(1).collect::<Vec<_>>(), first.1.lines().skip(1).collect::<Vec<_>>(), "{mode:?}");
    }
}

/// An indirect draw's arguments: a plain vertex count beside an atomic
/// instance count.
const DRAW: &str = "\
struct Draw { vertex_count: u32, instance_count: atomic<u32>, first_vertex: u32, scale: f32 }
@group(0) @binding(0) var<storage, read_write> draw: Draw;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(1)
fn reset() {
    draw.vertex_count = 36u;
    atomicStore(&draw.instance_count, 0u);
    draw.first_vertex = 0u;
    draw.scale = 0.5;
}

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x % 3u == 0u {
        atomicAdd(&draw.instance_count, 1u);
    }
    out[g.x] = f32(draw.vertex_count) * draw.scale;
}

@compute @workgroup_size(64)
fn stamp(@builtin(global_invocation_id) g: vec3<u32>) {
    draw.first_vertex = g.x;
}
";

fn draw_kernel(entry: &str) -> ld::ShaderKernel {
    let shader = ld::Shader::parse(DRAW.to_string(), "draw.wgsl".as_ref()).unwrap();
    ld::ShaderKernel::new(&shader, entry, &[]).unwrap()
}

#[test]
fn a_struct_mixing_atomics_and_plain_members_is_read_and_counted() {
    let (reset, count) = (draw_kernel("reset"), draw_kernel("count"));
    for rt in runtimes() {
        for mode in MODES {
            let what = format!("{:?} {mode:?}", rt.backend());
            let mut draw = rt.upload(&[7u32, 7, 7, 7]).unwrap();
            let mut out = rt.zeros::<f32>(128).unwrap();
            let run = reset.launch(&rt, [1, 1, 1], ld::Bindings::new().buffer(0, 0, &mut draw)).unwrap().mode(mode).run();
            run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(draw.to_vec().unwrap(), [36, 0, 0, 0.5f32.to_bits()], "{what}");
            let run = count.launch(&rt, [2, 1, 1], ld::Bindings::new().buffer(0, 0, &mut draw).buffer(0, 1, &mut out)).unwrap().mode(mode).run();
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            // Invocations 0, 3, ..., 126 count themselves: 43.
            assert_eq!(draw.to_vec().unwrap(), [36, 43, 0, 0.5f32.to_bits()], "{what}");
            assert_eq!(out.to_vec().unwrap(), vec![18.0f32; 128], "{what}");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: {r}");
            }
        }
    }
}

/// A plain store into atomic memory is unchecked: more than one
/// invocation may not make it (one may: `reset` above), and the error
/// shows the store.
#[test]
fn a_plain_store_into_atomic_memory_is_refused_beyond_one_invocation() {
    let rt = Runtime::cpu();
    let line = DRAW.lines().position(|l| l.contains("draw.first_vertex = g.x")).unwrap() + 1;
    let mut draw = rt.zeros::<u32>(4).unwrap();
    for (entry, grid) in [("stamp", [1, 1, 1]), ("reset", [2, 1, 1])] {
        let err = draw_kernel(entry).launch(&rt, grid, ld::Bindings::new().buffer(0, 0, &mut draw)).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("a plain store into a struct that holds atomics"), "{entry}: {err}");
        if entry == "stamp" {
            assert!(err.contains(&format!("draw.wgsl:{line}:")), "{err}");
        }
    }
}

/// Positions as `vec3<f32>`, 16 bytes apart (WGSL aligns a `vec3` to 16).
const POSITIONS: &str = "\
@group(0) @binding(0) var<storage, read_write> pos: array<vec3<f32>>;
@group(0) @binding(1) var<storage, read_write> lens: array<u32>;

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x == 0u {
        lens[0] = arrayLength(&pos);
    }
    pos[g.x] = pos[g.x] * 2.0 + vec3(0.0, 1.0, 0.0);
}

@compute @workgroup_size(64)
fn shift(@builtin(global_invocation_id) g: vec3<u32>) {
    pos[g.x].y = pos[(g.x + 1u) % arrayLength(&pos)].y;
}
";

#[test]
fn an_array_of_vec3_is_read_sixteen_bytes_apart_and_its_padding_kept() {
    const PAD: u32 = 0xdead_beef;
    let input: Vec<u32> = (0..N).flat_map(|i| [i as f32, -(i as f32), 0.5].map(f32::to_bits).into_iter().chain([PAD])).collect();
    let want: Vec<u32> = (0..N).flat_map(|i| [2.0 * i as f32, 1.0 - 2.0 * i as f32, 1.0].map(f32::to_bits).into_iter().chain([PAD])).collect();
    for rt in runtimes() {
        for mode in MODES {
            let what = format!("{:?} {mode:?}", rt.backend());
            let (run, words, lens) = launch(&rt, ("positions.wgsl", POSITIONS), "scale", mode, &input);
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(words, want, "{what}");
            assert_eq!(lens, [N as u32], "{what}: arrayLength(&pos)");
            if let Some(r) = &run.report {
                assert!(!r.has_races(), "{what}: {r}");
            }
        }
        for mode in [Mode::Check, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let (run, _, _) = launch(&rt, ("positions.wgsl", POSITIONS), "shift", mode, &input);
            let report = run.unwrap_or_else(|e| panic!("{what}: {e}")).report.expect("a checking mode reports");
            let places: Vec<&String> = report.races.iter().flat_map(|r| &r.places).collect();
            assert!(!places.is_empty() && places.iter().all(|p| p.starts_with("pos[") && p.ends_with("].y")), "{what}: {places:?}");
            assert!(places.iter().any(|p| *p == "pos[64].y"), "{what}: {places:?}");
        }
    }
}

/// Workgroup memory mixing atomics and plain members, zeroed by one
/// invocation per workgroup (as wgpu's zero-init test writes it): no
/// other invocation reaches it, however many workgroups run.
const WORKGROUP_MIXED: &str = "\
struct Slots { words: array<u32, 4>, used: atomic<u32> }
var<workgroup> slots: Slots;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) w: vec3<u32>) {
    slots.words[1] = w.x + 10u;
    atomicAdd(&slots.used, 2u);
    out[w.x] = slots.words[1] + atomicLoad(&slots.used);
}
";

#[test]
fn a_plain_store_into_atomic_workgroup_memory_counts_the_workgroups_invocations() {
    let src = |wg: u32| WORKGROUP_MIXED.replace("WG", &wg.to_string());
    let shader = ld::Shader::parse(src(1), "slots.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    for rt in runtimes() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let mut out = rt.zeros::<u32>(4).unwrap();
            let run = kernel.launch(&rt, [4, 1, 1], ld::Bindings::new().buffer(0, 0, &mut out)).unwrap().mode(mode).run();
            run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), vec![12, 13, 14, 15], "{what}");
        }
    }
    let line = WORKGROUP_MIXED.lines().position(|l| l.contains("slots.words[1] = ")).unwrap() + 1;
    let shader = ld::Shader::parse(src(64), "slots.wgsl".as_ref()).unwrap();
    let err = ld::ShaderKernel::new(&shader, "main", &[]).map(drop).unwrap_err().to_string();
    assert!(err.contains("a plain store into workgroup memory that holds atomics") && err.contains(&format!("slots.wgsl:{line}:")), "{err}");
}

/// One struct as a whole binding (an indirect dispatch's arguments), in
/// a buffer larger than it, as WebGPU allows: the words past it are not
/// the variable's. Every invocation stores its id into `args.y`.
const ONE_VALUE: &str = "\
struct Args { x: u32, y: u32, z: u32 }
@group(0) @binding(0) var<storage, read_write> args: Args;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x == 0u {
        args.x = 7u;
    }
    args.y = g.x;
}
";

#[test]
fn a_struct_bound_alone_fits_a_larger_buffer_and_is_named_as_one_value() {
    let shader = ld::Shader::parse(ONE_VALUE.to_string(), "args.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    let (mut reports, rts) = (Vec::new(), runtimes());
    let backends = rts.len();
    for rt in rts {
        for mode in [Mode::Native, Mode::Check, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            // 16 bytes for a 12-byte struct; the fourth word a marker.
            let mut args = rt.upload(&[0u32, 0, 0, 99]).unwrap();
            let run = kernel.launch(&rt, [2, 1, 1], ld::Bindings::new().buffer(0, 0, &mut args)).unwrap().mode(mode).run();
            let run = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            let words = args.to_vec().unwrap();
            assert_eq!((words[0], words[2], words[3]), (7, 0, 99), "{what}: {words:?}");
            assert!(words[1] < 128, "{what}: {words:?}");
            if let Some(report) = run.report {
                assert!(report.has_races(), "{what}: {report}");
                let places: Vec<&String> = report.races.iter().flat_map(|r| &r.places).collect();
                assert!(places.iter().all(|p| *p == "args.y"), "{what}: {places:?}");
                reports.push((mode, report.races.len()));
            }
        }
    }
    // Check and exact modes reported, on every backend.
    assert_eq!(reports.len(), 2 * backends, "{reports:?}");
    // Fewer bytes than the struct: an error naming both sides.
    let rt = Runtime::cpu();
    let mut short = rt.zeros::<u32>(2).unwrap();
    let err = kernel.launch(&rt, [1, 1, 1], ld::Bindings::new().buffer(0, 0, &mut short)).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("the buffer holds 8 bytes, less than one `Args` (12 bytes)"), "{err}");
}

/// A workgroup variable of one struct, every invocation storing into one
/// member before the barrier.
const WORKGROUP_ONE: &str = "\
struct Sums { a: u32, b: u32 }
var<workgroup> total: Sums;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(global_invocation_id) g: vec3<u32>) {
    total.b = l;
    workgroupBarrier();
    out[g.x] = total.b;
}
";

#[test]
fn a_workgroup_variable_of_one_value_is_named_without_an_index() {
    let shader = ld::Shader::parse(WORKGROUP_ONE.to_string(), "total.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    for rt in runtimes() {
        for mode in [Mode::Check, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let mut out = rt.zeros::<u32>(64).unwrap();
            let run = kernel.launch(&rt, [1, 1, 1], ld::Bindings::new().buffer(0, 0, &mut out)).unwrap().mode(mode).run();
            let report = run.unwrap_or_else(|e| panic!("{what}: {e}")).report.expect("a checking mode reports");
            assert!(report.has_races(), "{what}: {report}");
            let places: Vec<&String> = report.races.iter().flat_map(|r| &r.places).collect();
            assert!(!places.is_empty() && places.iter().all(|p| *p == "total.b"), "{what}: {places:?}");
        }
    }
}
