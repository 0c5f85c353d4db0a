//! Loaded shaders on the CPU reference, as a Rust user launches them:
//! bindings by (group, binding) checked against the declarations, results
//! at WGSL's layout, races named by WGSL element and field.

use super::{Bindings, ShaderKernel};
use crate::error::Error;
use crate::runtime::Runtime;
use ld_compiler::front::Shader;

fn shader(src: &str) -> Shader {
    Shader::parse(src.to_string(), "t.wgsl".as_ref()).unwrap_or_else(|e| panic!("{e}"))
}

/// A struct WGSL pads (`vel` at byte 16, the struct 32 bytes), a uniform,
/// and a read-only buffer.
const PARTICLES: &str = "
struct Particle { pos: vec3<f32>, vel: vec3<f32> }
struct Params { dt: f32, count: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> forces: array<f32>;
@group(1) @binding(0) var<storage, read_write> ps: array<Particle>;

@compute @workgroup_size(4)
fn step(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if i >= params.count { return; }
    ps[i].vel.y += forces[i] * params.dt;
    ps[i].pos += ps[i].vel * params.dt;
}

@compute @workgroup_size(4)
fn racy(@builtin(global_invocation_id) g: vec3<u32>) {
    ps[0].vel.y = f32(g.x);
}
";

/// `[dt, count]` as the uniform's bytes.
fn params(dt: f32, count: u32) -> Vec<u8> {
    [dt.to_le_bytes(), count.to_le_bytes()].concat()
}

#[test]
fn a_padded_struct_keeps_wgsl_offsets_and_uniforms_are_read_at_theirs() {
    let rt = Runtime::cpu();
    let k = ShaderKernel::new(&shader(PARTICLES), "step", &[]).unwrap();
    // 8 words per particle: pos.xyz, padding, vel.xyz, padding.
    let mut words = vec![0f32; 8 * 8];
    for i in 0..8 {
        words[8 * i + 4..8 * i + 7].copy_from_slice(&[1.0, 2.0, 3.0]);
        words[8 * i + 3] = -7.0; // padding the shader never touches
    }
    let mut ps = rt.upload(&words).unwrap();
    let forces = rt.upload(&(0..8).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    let p = params(0.5, 6);
    let bind = Bindings::new().uniform(0, 0, &p).buffer(0, 1, &forces).buffer(1, 0, &mut ps);
    k.launch(&rt, [2, 1, 1], bind).unwrap().run().unwrap();
    let out = ps.to_vec().unwrap();
    for i in 0..8 {
        let moved = i < 6;
        let vy = if moved { 2.0 + i as f32 * 0.5 } else { 2.0 };
        let want = if moved { [0.5, vy * 0.5, 1.5, -7.0, 1.0, vy, 3.0, 0.0] } else { [0.0, 0.0, 0.0, -7.0, 1.0, 2.0, 3.0, 0.0] };
        assert_eq!(out[8 * i..8 * i + 8], want, "particle {i}");
    }
}

#[test]
fn a_race_is_named_by_wgsl_element_and_field() {
    let rt = Runtime::cpu();
    let k = ShaderKernel::new(&shader(PARTICLES), "racy", &[]).unwrap();
    let mut ps = rt.zeros::<u32>(8 * 2).unwrap();
    let report = k.launch(&rt, [1, 1, 1], Bindings::new().buffer(1, 0, &mut ps)).unwrap().check().unwrap();
    let race = report.races.first().unwrap_or_else(|| panic!("no race:\n{report}"));
    assert_eq!((race.variable.as_str(), race.places.as_slice()), ("ps", ["ps[0].vel.y".to_string()].as_slice()), "{report}");
    let text = report.to_string();
    assert!(text.contains("t.wgsl:18:5") && text.contains("ps[0].vel.y = f32(g.x);"), "{text}");
}

/// The binding error of a launch of `step` with `bind`.
fn binding_error(bind: impl FnOnce(&Runtime) -> Result<(), Error>) -> String {
    match bind(&Runtime::cpu()) {
        Err(e @ Error::Binding { .. }) => e.to_string(),
        other => panic!("expected a binding error, got {other:?}"),
    }
}

#[test]
fn bindings_that_do_not_fit_the_declarations_name_the_binding_and_both_sides() {
    let k = ShaderKernel::new(&shader(PARTICLES), "step", &[]).unwrap();
    let p = params(0.5, 2);
    let launch = |rt: &Runtime, b: Bindings| k.launch(rt, [1, 1, 1], b).map(|_| ());
    // Missing.
    let e = binding_error(|rt| {
        let f = rt.zeros::<f32>(8).unwrap();
        launch(rt, Bindings::new().uniform(0, 0, &p).buffer(0, 1, &f))
    });
    assert!(e.contains("@group(1) @binding(0) (`ps`)") && e.contains("uses it"), "{e}");
    // Read-only where the shader writes.
    let e = binding_error(|rt| {
        let (f, ps) = (rt.zeros::<f32>(8).unwrap(), rt.zeros::<f32>(16).unwrap());
        launch(rt, Bindings::new().uniform(0, 0, &p).buffer(0, 1, &f).buffer(1, 0, &ps))
    });
    assert!(e.contains("(`ps`)") && e.contains("read_write") && e.contains("&mut"), "{e}");
    // Not a whole number of elements.
    let e = binding_error(|rt| {
        let (f, mut ps) = (rt.zeros::<f32>(8).unwrap(), rt.zeros::<f32>(12).unwrap());
        launch(rt, Bindings::new().uniform(0, 0, &p).buffer(0, 1, &f).buffer(1, 0, &mut ps))
    });
    assert!(e.contains("48 bytes") && e.contains("`Particle` (32 bytes each)"), "{e}");
    // A buffer where the shader declares a uniform, and a uniform too short.
    let e = binding_error(|rt| {
        let (f, mut ps, u) = (rt.zeros::<f32>(8).unwrap(), rt.zeros::<f32>(16).unwrap(), rt.zeros::<u32>(2).unwrap());
        launch(rt, Bindings::new().buffer(0, 0, &u).buffer(0, 1, &f).buffer(1, 0, &mut ps))
    });
    assert!(e.contains("(`params`)") && e.contains("uniform"), "{e}");
    let short = 0.5f32.to_le_bytes();
    let e = binding_error(|rt| {
        let (f, mut ps) = (rt.zeros::<f32>(8).unwrap(), rt.zeros::<f32>(16).unwrap());
        launch(rt, Bindings::new().uniform(0, 0, &short).buffer(0, 1, &f).buffer(1, 0, &mut ps))
    });
    assert!(e.contains("4 bytes are bound") && e.contains("`u32` at byte 4"), "{e}");
    // A binding the shader does not declare.
    let e = binding_error(|rt| {
        let (f, mut ps) = (rt.zeros::<f32>(8).unwrap(), rt.zeros::<f32>(16).unwrap());
        launch(rt, Bindings::new().uniform(0, 0, &p).buffer(0, 1, &f).buffer(1, 0, &mut ps).buffer(2, 0, &f))
    });
    assert!(e.contains("@group(2) @binding(0)") && e.contains("declares nothing there") && e.contains("1:0 `ps`"), "{e}");
}

#[test]
fn loading_errors_say_what_and_where() {
    let e = ShaderKernel::new(&shader(PARTICLES), "missing", &[]).unwrap_err().to_string();
    assert!(e.contains("no compute entry point `missing` (it has: step, racy)"), "{e}");
    let e = ShaderKernel::new(&shader(PARTICLES), "step", &[("TILE", 4.0)]).unwrap_err().to_string();
    assert!(e.contains("no override `TILE`"), "{e}");
}

#[test]
fn unpacking_builtins_give_the_exact_values() {
    let src = "
@group(0) @binding(0) var<storage, read> packed: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(1)
fn main() {
    for (var i = 0u; i < 4u; i++) {
        out[i] = vec4<f32>(unpack2x16float(packed[i]), 0.0, 0.0);
    }
    out[4] = unpack4x8unorm(packed[4]);
    out[5] = unpack4x8snorm(packed[5]);
    out[6] = vec4<f32>(unpack2x16unorm(packed[6]), unpack2x16snorm(packed[6]));
}
";
    let rt = Runtime::cpu();
    let k = ShaderKernel::new(&shader(src), "main", &[]).unwrap();
    // Halves (low, high): 1, -2 | inf, 2^-24 | -0, 0.33325195 | NaN, -1023 * 2^-24.
    let words = [0xc000_3c00u32, 0x0001_7c00, 0x3555_8000, 0x83ff_7e00, 0x00ff_8001, 0x807f_01ff, 0x8000_ffff];
    let packed = rt.upload(&words).unwrap();
    let mut out = rt.zeros::<u32>(7 * 4).unwrap();
    k.launch(&rt, [1, 1, 1], Bindings::new().buffer(0, 0, &packed).buffer(0, 1, &mut out)).unwrap().run().unwrap();
    let got = out.to_vec().unwrap();
    // The halves' f32 bits, from Python's own `struct` decoding of `<e`.
    let halves = [0x3f80_0000, 0xc000_0000, 0x7f80_0000, 0x3380_0000, 0x8000_0000, 0x3eaa_a000, 0x7fc0_0000, 0xb87f_c000];
    for i in 0..4 {
        assert_eq!(got[4 * i..4 * i + 2], halves[2 * i..2 * i + 2], "unpack2x16float({:#x})", words[i]);
    }
    let f = |x: f32| x.to_bits();
    assert_eq!(got[16..20], [f(1.0 / 255.0), f(128.0 / 255.0), f(1.0), f(0.0)], "unpack4x8unorm");
    assert_eq!(got[20..24], [f(-1.0 / 127.0), f(1.0 / 127.0), f(1.0), f(-1.0)], "unpack4x8snorm");
    assert_eq!(got[24..28], [f(1.0), f(32768.0 / 65535.0), f(-1.0 / 32767.0), f(-1.0)], "unpack2x16unorm, unpack2x16snorm");
}
