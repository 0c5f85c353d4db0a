//! `ld-check` as a user runs it: the binary, its output and exit status,
//! on shaders written to a temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A tile shifted by one through workgroup memory; `barrier` is the line
/// between the tile's store and its neighbour's load.
fn shift_shader(barrier: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(global_invocation_id) gid: vec3<u32>) {{
    tile[lid.x] = data[gid.x];
{barrier}
    data[gid.x] = tile[(lid.x + 1u) % 64u];
}}
"
    )
}

const GLSL_SHIFT: &str = "#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
shared uint tile[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    tile[l] = data[g];
    data[g] = tile[(l + 1u) % 64u];
}
";

const TEXTURE: &str = "@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(img, vec2<i32>(0, 0), 0).x;
}
";

/// A fresh directory for one test's files.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ld-check-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// 256 words 0, 1, 2, ... as raw bytes.
fn iota(dir: &Path) -> PathBuf {
    let bytes: Vec<u8> = (0u32..256).flat_map(|x| x.to_le_bytes()).collect();
    let p = dir.join("iota.bin");
    std::fs::write(&p, bytes).unwrap();
    p
}

fn ld_check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ld-check")).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("status {:?}\n--- stdout:\n{}\n--- stderr:\n{}", o.status.code(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_planted_race_shows_both_source_lines_and_exits_3() {
    let d = dir("race");
    let shader = write(&d, "shift.wgsl", &shift_shader(""));
    let data = format!("0:0={}", iota(&d).display());
    let o = ld_check(&[shader.to_str().unwrap(), "--workgroups", "4", "--bind", &data]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("tile[lid.x] = data[gid.x];"), "the write's line is missing:\n{out}");
    assert!(out.contains("data[gid.x] = tile[(lid.x + 1u) % 64u];"), "the read's line is missing:\n{out}");
    assert!(out.contains("shift.wgsl:6:5") && out.contains("8 │     data[gid.x]"), "the lines' places are missing:\n{out}");
}

#[test]
fn the_same_shader_fixed_exits_0_in_every_mode() {
    let d = dir("fixed");
    let shader = write(&d, "shift.wgsl", &shift_shader("    workgroupBarrier();"));
    let data = format!("0:0={}", iota(&d).display());
    for mode in ["--check", "--exact", "--deterministic", "--native"] {
        let o = ld_check(&[shader.to_str().unwrap(), "--workgroups", "4", "--bind", &data, mode]);
        assert_eq!(o.status.code(), Some(0), "{mode}: {}", text(&o));
    }
}

/// Each element plus its left neighbour, read as WGSL code often reads
/// it: `select` evaluates both operands, so invocation 0 reads `a[0u - 1u]`.
const LEFT_SUM: &str = "@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    out[i] = a[i] + select(0u, a[i - 1u], i > 0u);
}
";

#[test]
fn an_index_out_of_bounds_goes_on_with_a_warning_in_every_mode() {
    let d = dir("oob");
    let shader = write(&d, "left.wgsl", LEFT_SUM);
    let a = format!("0:0={}", iota(&d).display());
    for mode in ["--check", "--exact", "--deterministic", "--native"] {
        let out = d.join(&mode[2..]);
        let o = ld_check(&[shader.to_str().unwrap(), "--workgroups", "4", "--bind", &a, "--bind", "0:1=zeros:1024", mode, "--out", out.to_str().unwrap()]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{mode}: {t}");
        assert!(t.contains("warning: index out of bounds") && t.contains("left.wgsl:7:32"), "{mode}: {t}");
        assert!(t.contains("index 4294967295 into `a` of length 256"), "{mode}: {t}");
        // The result is whole: the read past the end was selected away.
        let npy = std::fs::read(out.join("0_1.npy")).unwrap();
        let words: Vec<u32> = npy[npy.len() - 1024..].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(words, (0u32..256).map(|i| if i == 0 { 0 } else { 2 * i - 1 }).collect::<Vec<_>>(), "{mode}");
    }
}

#[test]
fn out_writes_every_buffer_as_npy() {
    let d = dir("out");
    let shader = write(&d, "shift.wgsl", &shift_shader("    workgroupBarrier();"));
    let data = format!("0:0={}", iota(&d).display());
    let out = d.join("out");
    let o = ld_check(&[shader.to_str().unwrap(), "--workgroups", "4", "--bind", &data, "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let npy = std::fs::read(out.join("0_0.npy")).unwrap();
    assert!(npy.starts_with(b"\x93NUMPY"), "not a .npy file");
    // The data: the last 1024 bytes, each word its neighbour in the tile.
    let words: Vec<u32> = npy[npy.len() - 1024..].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let want: Vec<u32> = (0u32..256).map(|i| i / 64 * 64 + (i % 64 + 1) % 64).collect();
    assert_eq!(words, want);
}

#[test]
fn json_and_html_reports() {
    let d = dir("json");
    let shader = write(&d, "shift.wgsl", &shift_shader(""));
    let data = format!("0:0={}", iota(&d).display());
    let html = d.join("report.html");
    let o = ld_check(&[shader.to_str().unwrap(), "--workgroups", "4", "--bind", &data, "--json", "--html", html.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let race = &doc["launches"][0]["races"][0];
    assert_eq!(race["variable"], "tile", "{doc:#}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("<!DOCTYPE html>"));
}

#[test]
fn a_glsl_compute_shader_is_checked() {
    let d = dir("glsl");
    let shader = write(&d, "shift.comp", GLSL_SHIFT);
    let data = format!("0:0={}", iota(&d).display());
    let o = ld_check(&[shader.to_str().unwrap(), "--workgroups", "4", "--bind", &data]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("tile[l] = data[g];") && out.contains("shift.comp:8:"), "{out}");
}

#[test]
fn a_texture_binding_is_rejected_at_its_line() {
    let d = dir("texture");
    let shader = write(&d, "img.wgsl", TEXTURE);
    let o = ld_check(&[shader.to_str().unwrap(), "--bind", "0:1=zeros:4"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(err.contains("img.wgsl:1:") && err.contains("`img` is a texture") && !err.contains("error: error"), "{err}");
}

#[test]
fn a_flag_that_does_not_fit_the_shader_is_named() {
    let d = dir("flags");
    let src = "override N: u32;\n@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
               @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { out[g.x] = N; }\n";
    let shader = write(&d, "sized.wgsl", src);
    let o = ld_check(&[shader.to_str().unwrap(), "--bind", "0:0=zeros:256"]);
    let err = String::from_utf8_lossy(&o.stderr);
    // Bad usage, as a malformed flag is: exit status 2.
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(err.starts_with("error: --override: override `N` has no default"), "{err}");
    let o = ld_check(&[shader.to_str().unwrap(), "--override", "N=3"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(err.starts_with("error: --bind: ") && err.contains("\"0:0\""), "{err}");
}

#[test]
fn a_bad_launch_file_names_the_field() {
    let d = dir("launch");
    write(&d, "shift.wgsl", &shift_shader("    workgroupBarrier();"));
    let launch = write(
        &d,
        "run.toml",
        "[buffers.data]\nzeros = 1024\n\n[[dispatch]]\nshader = \"shift.wgsl\"\nentry = \"main\"\nworkgroups = [4]\nbindings = { \"0:0\" = \"dta\" }\n",
    );
    let o = ld_check(&["--launch", launch.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(err.contains("dispatch[0].bindings.\"0:0\"") && err.contains("`dta`"), "{err}");
}

#[test]
fn bad_usage_exits_2() {
    let o = ld_check(&["--workgroups", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}
