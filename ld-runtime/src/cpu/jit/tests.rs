//! Every entry point of the WGSL corpus (`tests/corpus`) that loads
//! compiles to native code: a loaded kernel falls back to the
//! interpreter only on a host Cranelift has no back end for, never
//! because of what the shader holds. (What the code computes is checked
//! against the interpreter in `interp::tests`, and against the GPU by
//! every loaded-shader test of the suite.)

use super::Jitted;
use ld_compiler::front::Shader;
use std::collections::BTreeMap;

#[test]
fn every_corpus_entry_point_compiles_to_native_code() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut compiled = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        let shader = Shader::parse(std::fs::read_to_string(&path).unwrap(), &path).unwrap_or_else(|e| panic!("{e}"));
        let entries: Vec<String> = shader.module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute).map(|e| e.name.clone()).collect();
        for entry in entries {
            // An override without a default, a refused construct: not
            // loadable as it stands, so nothing to compile.
            let Ok(kernel) = shader.kernel(&entry, &BTreeMap::new()) else { continue };
            let Ok(c) = ld_compiler::compile(&kernel.module) else { continue };
            if let Err(why) = Jitted::new(&c.settled, &[]) {
                panic!("{}: `{entry}` is not compiled to native code: {}", path.display(), why.0);
            }
            compiled += 1;
        }
    }
    assert!(compiled >= 55, "only {compiled} corpus entry points loaded");
}
