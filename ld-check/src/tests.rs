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
    assert!(e.contains("s.wgsl:2:") && e.contains("`tex` is not a buffer"), "{e}");
}

#[test]
fn naga_errors_come_with_the_shader_line() {
    let e = error("naga", LAUNCH, &SHADER.replace("input[g.x].x", "input[g.x].q"));
    assert!(e.contains("s.wgsl:10:"), "{e}");
}

/// Every case of `tests/corpus/` is a launch file its shaders accept, with
/// a verdict, the real shader it follows, and for a mutant its base case.
#[test]
fn every_corpus_case_resolves() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    cases.sort();
    let mut failures = Vec::new();
    for path in &cases {
        let checked = LaunchFile::load(path).and_then(|f| f.resolve().map(|_| f));
        match checked {
            Err(e) => failures.push(e.to_string()),
            Ok(f) => {
                let case = f.case.as_ref().unwrap_or_else(|| panic!("{}: no [case]", path.display()));
                assert!(case.follows.contains('/') && case.follows.contains(' '), "{}: `follows` names a repository and a file", path.display());
                if let Some(base) = &case.mutant_of {
                    let base = LaunchFile::load(&dir.join(base)).unwrap();
                    assert!(case.bug.is_some(), "{}: a mutant names its bug", path.display());
                    assert_eq!(base.case.unwrap().verdict, Verdict::RaceFree, "{}: a mutant's base is race-free", path.display());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} corpus cases are rejected:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}
