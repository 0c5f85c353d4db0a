//! The round trip at compile time: every Rust kernel of the test suite,
//! the samples and the benches, its plain WGSL (`wgsl::plain`, the native
//! kernel without ld's guard) read back through the shader front-end,
//! validated by naga and compiled again into every variant.
//! (`tests/suite/round_trip.rs` runs them against the Rust kernels.)

use super::parse;
use ld_compiler::front::Shader;
use quote::ToTokens;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whether an item carries `#[ld::kernel]` or `#[ld::kernels]`.
fn is_kernel(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
        segs == ["ld", "kernel"] || segs == ["ld", "kernels"]
    })
}

/// The kernel items of a file, each as a source of its own: at the top
/// level, in inline modules and inside functions.
fn kernel_items(items: &[syn::Item], out: &mut Vec<String>) {
    for item in items {
        match item {
            syn::Item::Fn(f) if is_kernel(&f.attrs) => out.push(item.to_token_stream().to_string()),
            syn::Item::Mod(m) if is_kernel(&m.attrs) => out.push(item.to_token_stream().to_string()),
            syn::Item::Mod(m) => kernel_items(m.content.as_ref().map_or(&[][..], |c| &c.1), out),
            syn::Item::Fn(f) => {
                let inner: Vec<syn::Item> = f.block.stmts.iter().filter_map(|s| if let syn::Stmt::Item(i) = s { Some(i.clone()) } else { None }).collect();
                kernel_items(&inner, out);
            }
            _ => {}
        }
    }
}

#[test]
fn every_rust_kernels_plain_wgsl_reads_back_through_the_front_end() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for dir in ["tests", "samples", "benches"] {
        sources(&root.join(dir), &mut files);
    }
    files.sort();
    let (mut kernels, mut failures) = (0, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let Ok(ast) = syn::parse_file(&text) else { continue };
        let mut items = Vec::new();
        kernel_items(&ast.items, &mut items);
        for src in items {
            let modules = match parse(&src) {
                Ok(m) => m,
                Err(d) => {
                    failures.push(format!("{}: does not parse alone: {}", file.display(), d[0]));
                    continue;
                }
            };
            for (name, m) in modules {
                kernels += 1;
                let wgsl = ld_compiler::wgsl::plain(&m);
                let back = Shader::parse(wgsl.clone(), format!("{name}.wgsl").as_ref())
                    .map_err(|e| e.to_string())
                    .and_then(|s| s.kernel("main", &Default::default()).map_err(|e| e.to_string()))
                    .and_then(|k| ld_compiler::compile(&k.module).map(|_| ()).map_err(|d| format!("{d:?}")));
                if let Err(e) = back {
                    failures.push(format!("{}: `{name}`: {e}\n--- its plain WGSL:\n{wgsl}", file.display()));
                }
            }
        }
    }
    eprintln!("{kernels} kernels read back, {} failures", failures.len());
    assert!(kernels >= 300, "only {kernels} kernels found");
    assert!(failures.is_empty(), "{} of {kernels} kernels do not read back:\n\n{}", failures.len(), failures.join("\n\n"));
}
