//! Native code for the WGSL corpus (`tests/corpus`) and for mutants of
//! it: every entry point that loads compiles, never a panic and never a
//! fallback to the interpreter because of what the shader holds (a
//! loaded kernel is interpreted only on a host Cranelift has no back end
//! for). What the code computes is checked against the interpreter in
//! `interp::tests`, and against the GPU by every loaded-shader test of
//! the suite.

use super::Jitted;
use ld_compiler::front::Shader;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn corpus() -> Vec<(PathBuf, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "wgsl")).collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// Compiles every compute entry point of `text` that loads (overrides
/// without a default set to 1) to native code; how many, or the first
/// that did not compile.
fn compile_all(path: &std::path::Path, text: String) -> Result<usize, String> {
    let Ok(shader) = Shader::parse(text, path) else { return Ok(0) };
    let overrides: BTreeMap<String, f64> =
        shader.module.overrides.iter().filter(|(_, o)| o.init.is_none()).filter_map(|(_, o)| o.name.clone()).map(|n| (n, 1.0)).collect();
    let mut compiled = 0;
    for ep in shader.module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute) {
        // A refused construct: not loadable, so nothing to compile.
        let Ok(kernel) = shader.kernel(&ep.name, &overrides) else { continue };
        let Ok(c) = ld_compiler::compile(&kernel.module) else { continue };
        Jitted::new(&c.settled, &[]).map_err(|why| format!("{}: `{}` is not compiled to native code: {}", path.display(), ep.name, why.0))?;
        compiled += 1;
    }
    Ok(compiled)
}

#[test]
fn every_corpus_entry_point_compiles_to_native_code() {
    let mut compiled = 0;
    for (path, text) in corpus() {
        compiled += compile_all(&path, text).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(compiled >= 65, "only {compiled} corpus entry points loaded");
}

/// Every 16th line of each corpus shader removed in turn, and each
/// barrier's kind swapped: whatever still loads compiles.
#[test]
fn mutated_corpus_shaders_compile_to_native_code() {
    let mut compiled = 0;
    for (path, text) in corpus() {
        let lines: Vec<&str> = text.lines().collect();
        let mut mutants: Vec<String> = (0..lines.len()).step_by(16).map(|i| [&lines[..i], &lines[i + 1..]].concat().join("\n")).collect();
        for (from, to) in [("workgroupBarrier", "storageBarrier"), ("storageBarrier", "workgroupBarrier")] {
            mutants.extend(text.match_indices(from).map(|(at, _)| format!("{}{to}{}", &text[..at], &text[at + from.len()..])));
        }
        for m in mutants {
            compiled += compile_all(&path, m).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    assert!(compiled > 100, "only {compiled} mutants loaded");
}

/// Memories unlike those the code was made for (an element narrower than
/// the code's constant, or a memory missing) stop the region before the
/// code runs: the code multiplies by the IR's widths and would read past
/// the words.
#[test]
fn a_region_whose_memories_do_not_fit_the_code_is_refused() {
    use crate::cpu::twin::InPlace;
    let src = "struct P { a: f32, b: f32 }
@group(0) @binding(0) var<storage, read_write> ps: array<P>;
var<workgroup> tile: array<u32, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { tile[i] = i; ps[i].b = f32(tile[3u - i]); }";
    let shader = Shader::parse(src.to_string(), std::path::Path::new("t.wgsl")).unwrap();
    let kernel = shader.kernel("main", &BTreeMap::new()).unwrap();
    let prog = Jitted::new(&ld_compiler::compile(&kernel.module).unwrap().settled, &[]).unwrap();
    let words = std::ptr::null_mut();
    let mem = |elem_words| InPlace { words, bound: 4, len: 4, elem_words };
    let fits = |m: &[InPlace]| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prog.fits(&[], m))).is_ok();
    assert!(fits(&[mem(2), mem(1)]));
    assert!(!fits(&[mem(1), mem(1)]), "an element of one word where the code has two");
    assert!(!fits(&[mem(2)]), "the workgroup array missing");
}
