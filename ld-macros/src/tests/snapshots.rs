//! Native WGSL snapshots, in naga's `in -> out` style: each
//! `ld-macros/tests/snapshots/NAME.rs` holds a kernel (an `#[ld::kernel]`
//! function or an `#[ld::kernels]` module) and `NAME.wgsl` the WGSL that
//! `wgsl::native` emits for it (for a module, each kernel's in turn, after
//! a `// kernel NAME` line). Rewrite the expected files after an intended
//! change with `LD_BLESS=1 cargo test -p ld-macros snapshots`, and review
//! the diff.

use super::modules;
use ld_compiler::wgsl;
use std::path::{Path, PathBuf};

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// The native WGSL of every kernel in `src`; the guard's declarations,
/// the same in every kernel (`ld_shaders::abi::guard_prelude`), as one line.
fn native(src: &str) -> String {
    let one = |m: &ld_compiler::ir::Module| {
        let prelude = ld_shaders::abi::guard_prelude(m.kernel.params.len(), ld_shaders::abi::guard::NATIVE, true);
        let got = wgsl::native(m).0;
        assert!(got.contains(&prelude), "the guard is declared");
        got.replace(&prelude, "// (the guard: ld_shaders::abi::guard_prelude)\n")
    };
    let ms = modules(src);
    if let [(_, m)] = &ms[..] {
        return one(m);
    }
    ms.iter().map(|(name, m)| format!("// kernel {name}\n{}", one(m))).collect::<Vec<_>>().join("\n")
}

/// Where `expected` and `got` first differ, as a few lines of context.
fn first_difference(expected: &str, got: &str) -> String {
    let (e, g): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), got.lines().collect());
    let at = e.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(e.len().min(g.len()));
    let mut out = format!("first difference at line {}:\n", at + 1);
    for l in e.iter().skip(at).take(3) {
        out += &format!("  - {l}\n");
    }
    for l in g.iter().skip(at).take(3) {
        out += &format!("  + {l}\n");
    }
    out
}

#[test]
fn native_wgsl() {
    let bless = std::env::var("LD_BLESS").is_ok_and(|v| v == "1");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(snapshot_dir())
        .expect("ld-macros/tests/snapshots")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 8, "snapshot inputs missing from {}", snapshot_dir().display());
    let mut failures = Vec::new();
    for input in &inputs {
        let name = input.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(input).unwrap();
        eprintln!("snapshot {name}");
        let got = native(&src);
        let path = input.with_extension("wgsl");
        let expected = std::fs::read_to_string(&path).ok();
        if bless {
            if expected.as_deref() != Some(got.as_str()) {
                std::fs::write(&path, &got).unwrap();
                eprintln!("blessed {}", path.display());
            }
            continue;
        }
        match expected {
            None => failures.push(format!("{name}: no {name}.wgsl (run with LD_BLESS=1 to write it)")),
            Some(e) if e != got => failures.push(format!("{name}: native WGSL differs from {name}.wgsl\n{}", first_difference(&e, &got))),
            Some(_) => {}
        }
    }
    // An expected file whose input is gone is stale.
    for e in std::fs::read_dir(snapshot_dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "wgsl") && !p.with_extension("rs").exists() {
            failures.push(format!("{}: no input next to it", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}\n(if the change is intended: LD_BLESS=1 cargo test -p ld-macros snapshots)", failures.join("\n"));
}

/// The kernel reads its targets' configurations from the uniform binding
/// (`ld_cfg.t[t]`), one per privatized memory (a read-only buffer is
/// none), and holds no copy of them.
#[test]
fn the_kernel_reads_a_configuration_per_target_from_the_uniform_binding() {
    let two = "#[ld::kernel(workgroup_size = 64)]\nfn k(data: &mut [u32]) {\n    let s = shared::<[u32; 64]>();\n    s[local_index()] = 1;\n    barrier();\n    data[global_id().x] = s[63 - local_index()];\n}";
    let one = "#[ld::kernel(workgroup_size = 64)]\nfn k(data: &[u32], out: &mut [u32]) {\n    out[global_id().x] = data[global_id().x];\n}";
    for (src, n) in [(two, 2), (one, 1)] {
        let m = super::module(src);
        for (variant, wgsl) in [("instrumented", ld_compiler::wgsl::instrumented(&m).0), ("folded", ld_compiler::wgsl::folded(&m).0)] {
            assert!(wgsl.contains("var<uniform> ld_cfg: LdConfig;"), "{variant} kernel: no uniform configuration");
            for copy in ["var<private> ld_c:", "var<private> ld_tc:"] {
                assert!(!wgsl.contains(copy), "{variant} kernel: holds a copy of its configuration (`{copy}`)");
            }
            // The flat entries' target: the second target's first entry is where its own start.
            let second = wgsl.contains("j >= ld_cfg.t[1u].first_entry");
            assert_eq!(second, n == 2, "{variant} kernel with {n} targets");
        }
    }
}
