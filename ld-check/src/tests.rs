//! Launch files as their authors get them wrong, and the corpus.

use crate::{LaunchError, LaunchFile, Verdict};
use std::path::{Path, PathBuf};

const SHADER: &str = "\
struct Params { n: u32, scale: f32 }
override BLOCK: u32 = 64u;
override UNSET: u32;
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(1) @binding(0) var<storage, read_write> out: array<f32>;
@group(1) @binding(1) var<storage, read_write> unused: array<u32>;
@compute @workgroup_size(BLOCK) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < params.n && UNSET == 0u {
        out[g.x] = input[g.x].x * params.scale;
    }
}
";

const LAUNCH: &str = r#"
[buffers.params]
uniform = { n = 64, scale = 0.5 }
[buffers.input]
random = { type = "f32", count = 256, min = -1.0, max = 1.0, seed = 3 }
[buffers.out]
zeros = 256

[[dispatch]]
shader = "s.wgsl"
entry = "main"
workgroups = [1]
overrides = { UNSET = 0 }
bindings = { "0:0" = "params", "0:1" = "input", "1:0" = "out" }
"#;

/// A launch file and its shader in a directory of their own.
fn scratch(name: &str, launch: &str, shader: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ld-check-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s.wgsl"), shader).unwrap();
    let path = dir.join("launch.toml");
    std::fs::write(&path, launch).unwrap();
    path
}

fn resolve(name: &str, launch: &str, shader: &str) -> Result<crate::Resolved, LaunchError> {
    LaunchFile::load(&scratch(name, launch, shader))?.resolve()
}

fn error(name: &str, launch: &str, shader: &str) -> String {
    resolve(name, launch, shader).expect_err("the launch should be rejected").to_string()
}

#[test]
fn a_good_launch_resolves_to_the_bindings_the_entry_point_uses() {
    let r = resolve("good", LAUNCH, SHADER).unwrap();
    let d = &r.dispatches[0];
    assert_eq!(d.grid, [1, 1, 1]);
    let got: Vec<(u32, u32, &str, bool, bool, u64)> =
        d.bindings.iter().map(|b| (b.group, b.binding, b.variable.as_str(), b.writable, b.uniform, b.min_bytes)).collect();
    // `unused` is declared but not used by `main`: nothing need be bound to it.
    assert_eq!(got, vec![(0, 0, "params", false, true, 8), (0, 1, "input", false, false, 16), (1, 0, "out", true, false, 4)]);
}

#[test]
fn a_misspelt_field_is_named_with_its_line() {
    let e = error("misspelt", &LAUNCH.replace("shader = ", "shadr = "), SHADER);
    assert!(e.contains("shadr") && e.contains("line"), "{e}");
}

#[test]
fn an_unbound_binding_names_the_variable() {
    let e = error("unbound", &LAUNCH.replace(", \"1:0\" = \"out\"", ""), SHADER);
    assert!(e.contains("`out`") && e.contains("\"1:0\"") && e.contains("dispatch[0].bindings"), "{e}");
}

#[test]
fn a_binding_the_shader_lacks_is_named() {
    let e = error("lacks", &LAUNCH.replace("\"1:0\" = \"out\"", "\"1:0\" = \"out\", \"2:0\" = \"out\""), SHADER);
    assert!(e.contains("@group(2) @binding(0)"), "{e}");
}

#[test]
fn a_buffer_too_small_names_both_sizes() {
    let e = error("small", &LAUNCH.replace("count = 256", "count = 3"), SHADER);
    assert!(e.contains("12 bytes") && e.contains("at least 16") && e.contains("`input`"), "{e}");
}

#[test]
fn overrides_must_exist_and_those_without_default_be_set() {
    let e = error("override", &LAUNCH.replace("UNSET = 0", "UNSET = 0, BLOK = 32"), SHADER);
    assert!(e.contains("BLOK") && e.contains("BLOCK"), "{e}");
    let e = error("unset", &LAUNCH.replace("overrides = { UNSET = 0 }", ""), SHADER);
    assert!(e.contains("`UNSET` has no default"), "{e}");
}

#[test]
fn a_uniform_field_the_struct_lacks_is_named() {
    let e = error("uniform", &LAUNCH.replace("scale = 0.5", "scael = 0.5"), SHADER);
    assert!(e.contains("scael") && e.contains("it has: n, scale"), "{e}");
}

#[test]
fn a_buffer_names_exactly_one_kind_of_contents() {
    let e = error("contents", &LAUNCH.replace("zeros = 256", "zeros = 256\niota = { type = \"u32\", count = 64 }"), SHADER);
    assert!(e.contains("buffers.out") && e.contains("exactly one"), "{e}");
}

#[test]
fn a_grid_out_of_range_is_an_error() {
    let e = error("grid", &LAUNCH.replace("workgroups = [1]", "workgroups = [0, 1]"), SHADER);
    assert!(e.contains("dispatch[0].workgroups"), "{e}");
}

#[test]
fn a_texture_is_rejected_at_its_line() {
    let shader = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@group(0) @binding(1) var tex: texture_2d<f32>;\n\
                  @compute @workgroup_size(1) fn main() { out[0] = textureLoad(tex, vec2<i32>(0, 0), 0).x; }\n";
    let launch = "[buffers.out]\nzeros = 4\n[[dispatch]]\nshader = \"s.wgsl\"\nentry = \"main\"\nworkgroups = [1]\nbindings = { \"0:0\" = \"out\" }\n";
    let e = error("texture", launch, shader);
    assert!(e.contains("s.wgsl:2:") && e.contains("`tex` is a texture"), "{e}");
}

#[test]
fn a_texture_is_rejected_before_any_binding_is_asked_for() {
    let shader = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@group(0) @binding(1) var smp: sampler;\n\
                  @group(0) @binding(2) var tex: texture_2d<f32>;\n\
                  @compute @workgroup_size(1) fn main() { out[0] = textureSampleLevel(tex, smp, vec2<f32>(0.0), 0.0).x; }\n";
    let launch = "[[dispatch]]\nshader = \"s.wgsl\"\nentry = \"main\"\nworkgroups = [1]\n";
    let e = error("texture_first", launch, shader);
    assert!(e.contains("s.wgsl:2:") && e.contains("`smp` is a sampler") && !e.contains("bound"), "{e}");
}

#[test]
fn naga_errors_come_with_the_shader_line() {
    let e = error("naga", LAUNCH, &SHADER.replace("input[g.x].x", "input[g.x].q"));
    assert!(e.contains("s.wgsl:10:"), "{e}");
}

/// Every case of `tests/corpus/` is a launch file its shaders accept, whose
/// buffers all get their bytes, with a verdict, the real shader it follows,
/// and for a mutant its race-free base case.
#[test]
fn every_corpus_case_resolves() {
    let cases = corpus();
    let mut failures = Vec::new();
    for path in &cases {
        let checked = LaunchFile::load(path).and_then(|f| f.resolve().map(|_| f));
        let checked = checked.and_then(|f| f.resolve().and_then(|r| r.buffer_bytes(&f)).map(|_| f));
        match checked {
            Err(e) => failures.push(e.to_string()),
            Ok(f) => {
                let case = f.case.as_ref().unwrap_or_else(|| panic!("{}: no [case]", path.display()));
                assert!(case.follows.contains('/') && case.follows.contains(' '), "{}: `follows` names a repository and a file", path.display());
                if let Some(base) = &case.mutant_of {
                    let base = LaunchFile::load(&path.with_file_name(base)).unwrap();
                    assert!(case.bug.is_some(), "{}: a mutant names its bug", path.display());
                    assert_eq!(base.case.unwrap().verdict, Verdict::RaceFree, "{}: a mutant's base is race-free", path.display());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} corpus cases are rejected:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

#[test]
fn buffers_get_their_bytes_and_a_uniform_the_shaders_layout() {
    let shader = "struct P { n: u32, offset: vec3<f32>, scale: f32, m: mat2x2<f32>, k: array<vec4<i32>, 2> }\n\
                  @group(0) @binding(0) var<uniform> p: P;\n@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
                  @compute @workgroup_size(1) fn main() { out[0] = p.n + u32(p.offset.x + p.scale + p.m[0].x) + u32(p.k[1].x); }\n";
    let launch = r#"
[buffers.p]
uniform = { n = 7, offset = [1.0, 2.0, 3.0], scale = 0.5, m = [[1.0, 2.0], [3.0, 4.0]], k = [[-1, 9, 0, 0], [2, 3, 4, 5]] }
[buffers.out]
iota = { type = "u32", count = 4, start = 5 }
[buffers.r]
random = { type = "i32", count = 64, min = -3, max = 3, seed = 11 }
[[dispatch]]
shader = "s.wgsl"
entry = "main"
workgroups = [1]
bindings = { "0:0" = "p", "0:1" = "out" }
"#;
    let path = scratch("bytes", launch, shader);
    let file = LaunchFile::load(&path).unwrap();
    let bytes = file.resolve().unwrap().buffer_bytes(&file).unwrap();
    let words = |b: &[u8]| b.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect::<Vec<u32>>();
    let f = |x: f32| x.to_bits();
    // n at 0, offset (vec3, aligned to 16) at 16, scale right after it at
    // 28, the matrix's columns at 32 and 40, the array (a uniform's
    // elements 16 bytes apart) at 48: 80 bytes.
    let k = [-1i32, 9, 0, 0, 2, 3, 4, 5].map(|v| v as u32);
    let want: Vec<u32> = [7, 0, 0, 0, f(1.0), f(2.0), f(3.0), f(0.5), f(1.0), f(2.0), f(3.0), f(4.0)].into_iter().chain(k).collect();
    assert_eq!(words(&bytes["p"]), want);
    assert_eq!(words(&bytes["out"]), vec![5, 6, 7, 8]);
    let r: Vec<i32> = words(&bytes["r"]).into_iter().map(|w| w as i32).collect();
    assert!(r.iter().all(|v| (-3..=3).contains(v)) && r.contains(&-3) && r.contains(&3), "{r:?}");
    // The same seed gives the same words.
    assert_eq!(file.resolve().unwrap().buffer_bytes(&file).unwrap()["r"], bytes["r"]);
}

#[test]
fn a_value_that_does_not_fit_its_type_is_named() {
    let e = {
        let path = scratch("negative", &LAUNCH.replace("zeros = 256", "values = { type = \"u32\", data = [1, -2] }"), SHADER);
        let file = LaunchFile::load(&path).unwrap();
        // (`out` is then 8 bytes, enough for one f32.)
        file.resolve().unwrap().buffer_bytes(&file).unwrap_err().to_string()
    };
    assert!(e.contains("buffers.out.values.data[1]") && e.contains("-2 is not a u32"), "{e}");
    let path = scratch("missing", &LAUNCH.replace("n = 64, ", ""), SHADER);
    let file = LaunchFile::load(&path).unwrap();
    let e = file.resolve().unwrap().buffer_bytes(&file).unwrap_err().to_string();
    assert!(e.contains("buffers.params.uniform.n") && e.contains("missing"), "{e}");
}

/// Every corpus case's launch files, sorted.
fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    cases.sort();
    cases
}

/// Every dispatch of the corpus either compiles (its kernel passes the
/// compiler's checks and every variant validates) or is refused with an
/// error at a line of its shader, naming the construct.
#[test]
fn every_corpus_dispatch_compiles_or_is_refused_at_a_line() {
    let (mut compiled, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for path in corpus() {
        let file = LaunchFile::load(&path).unwrap();
        let resolved = file.resolve().unwrap();
        for (i, d) in resolved.dispatches.iter().enumerate() {
            let shader = &resolved.shaders[d.shader];
            let entry = &shader.module.entry_points[d.entry].name;
            match shader.kernel(entry, &d.overrides) {
                Ok(k) => match ld_compiler::compile(&k.module) {
                    Ok(_) => compiled += 1,
                    Err(ds) => failures.push(format!("{} dispatch {i}: {:?}", path.display(), ds)),
                },
                Err(ld_compiler::front::ShaderError::Unsupported { message }) => {
                    let at = format!(" --> {}:", shader.path.display());
                    let caret = message.lines().any(|l| l.trim_start().starts_with("| ") && l.ends_with('^'));
                    let located = message.starts_with("error: ") && message.contains(&at) && caret;
                    if !located {
                        failures.push(format!("{} dispatch {i}: an error without its place:\n{message}", path.display()));
                    }
                    refused += 1;
                }
                Err(e) => failures.push(format!("{} dispatch {i}: {e}", path.display())),
            }
        }
    }
    println!("{compiled} dispatches compile, {refused} are refused");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The front-end never panics: every corpus shader with one line
/// removed, or one operator or barrier changed, that naga still accepts
/// is translated or refused for each entry point.
#[test]
fn mutated_corpus_shaders_are_translated_or_refused_never_a_panic() {
    let mut shaders: Vec<PathBuf> = corpus().iter().map(|p| p.with_extension("wgsl")).filter(|p| p.exists()).collect();
    shaders.dedup();
    let swaps = [
        ("workgroupBarrier", "storageBarrier"),
        ("storageBarrier", "workgroupBarrier"),
        (" + ", " - "),
        (" < ", " <= "),
        ("atomicAdd", "atomicMax"),
        ("u;", "u + 1u;"),
    ];
    let (mut tried, mut translated, mut panics) = (0, 0, Vec::new());
    for path in &shaders {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut mutants: Vec<String> = (0..lines.len()).map(|i| [&lines[..i], &lines[i + 1..]].concat().join("\n")).collect();
        for (from, to) in swaps {
            for (at, _) in text.match_indices(from) {
                mutants.push(format!("{}{to}{}", &text[..at], &text[at + from.len()..]));
            }
        }
        for m in mutants {
            let Ok(shader) = crate::Shader::parse(m, path) else { continue };
            for ep in shader.module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute) {
                // Overrides without a default get 1, so that the module processes.
                let overrides =
                    shader.module.overrides.iter().filter(|(_, o)| o.init.is_none()).filter_map(|(_, o)| o.name.clone()).map(|n| (n, 1.0)).collect();
                tried += 1;
                // Every 32nd translated kernel is compiled too: the
                // front-end's IR must not make the compiler panic either
                // (all of them take about fifty times as long).
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if let Ok(k) = shader.kernel(&ep.name, &overrides) {
                        translated += 1;
                        if translated % 32 == 0 {
                            let _ = ld_compiler::compile(&k.module);
                        }
                    }
                }));
                if run.is_err() {
                    panics.push(format!("{} `{}`:\n{}", path.display(), ep.name, shader.source));
                }
            }
        }
    }
    println!("{tried} mutated entry points: {translated} translated, the rest refused");
    assert!(tried > 0);
    assert!(panics.is_empty(), "{} panics, the first:\n{}", panics.len(), panics[0]);
}

/// A GLSL compute shader (`.comp`) goes through naga's GLSL front-end:
/// its launch file resolves against its blocks, and its kernel compiles.
#[test]
fn a_glsl_compute_shader_resolves_and_compiles() {
    let glsl = "\
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
shared uint tile[64];
void main() {
    uint li = gl_LocalInvocationIndex;
    tile[li] = data[gl_GlobalInvocationID.x];
    barrier();
    data[gl_GlobalInvocationID.x] = tile[63u - li];
}
";
    let dir = std::env::temp_dir().join(format!("ld-check-{}-glsl", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("reverse.comp"), glsl).unwrap();
    let launch = "[buffers.data]\niota = { type = \"u32\", count = 128 }\n\n[[dispatch]]\nshader = \"reverse.comp\"\nentry = \"main\"\nworkgroups = [2]\nbindings = { \"0:0\" = \"data\" }\n";
    std::fs::write(dir.join("launch.toml"), launch).unwrap();
    let file = LaunchFile::load(&dir.join("launch.toml")).unwrap();
    let resolved = file.resolve().unwrap();
    let d = &resolved.dispatches[0];
    assert_eq!((d.bindings.len(), d.bindings[0].group, d.bindings[0].binding, d.bindings[0].writable), (1, 0, 0, true));
    let kernel = resolved.shaders[0].kernel("main", &d.overrides).unwrap();
    ld_compiler::compile(&kernel.module).unwrap();
    assert_eq!(kernel.module.kernel.workgroup_size, [64, 1, 1]);
}
