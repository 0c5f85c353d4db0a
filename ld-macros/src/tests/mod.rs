//! Unit tests of the kernel compiler, run in-process on kernel source text.
//!
//! A test source holds one `#[ld::kernel]` function or `#[ld::kernels]`
//! module, written as in a user's crate. [`expand`] hands it to the same
//! entry points the proc macros call (`expand::kernel`, `expand::kernels`),
//! so a diagnostic seen here is the diagnostic a user sees. proc-macro2's
//! `span-locations` feature (a dev-dependency) gives spans the line and
//! column of the test source, as rustc would show them.

/// The first error of every rejected `barrier()`.
const BARRIER: &str =
    "this workgroup barrier is not reached by every invocation of the workgroup: WGSL requires barriers in uniform control flow (a divergent barrier hangs or corrupts the workgroup)";
/// The first error of every rejected `storage_barrier()`.
const STORAGE_BARRIER: &str =
    "this storage barrier is not reached by every invocation of the workgroup: WGSL requires barriers in uniform control flow (a divergent barrier hangs or corrupts the workgroup)";

/// The second error of a rejected barrier: why its control flow diverges,
/// and the advice every such error ends with.
macro_rules! diverges {
    ($why:expr) => {
        concat!($why, "; move the barrier out of it, or make it depend only on uniform values (scalar parameters, `workgroup_id()`, `num_workgroups()`, constants, buffers the kernel never writes, read at uniform indices)")
    };
}

mod diagnostics;
mod in_place;
mod lowering;
mod names;
mod residue;
mod round_trip;
mod settled;
mod snapshots;
mod targets;
mod uniformity;

use crate::expand;
use ld_compiler::ir::Module;
use proc_macro2::TokenStream;
use quote::ToTokens;

/// The macro attribute of a test source's item, and the item without it
/// (what rustc passes to an attribute macro).
struct Invocation {
    /// `true` for `#[ld::kernels]`, `false` for `#[ld::kernel]`.
    module: bool,
    attr: TokenStream,
    item: syn::Item,
    /// Where rustc points errors spanned at the macro's call site: the
    /// attribute.
    call_site: (usize, usize),
}

fn invocation(src: &str) -> Invocation {
    let file = syn::parse_file(src).expect("test source is not valid Rust");
    let mut found = None;
    for mut item in file.items {
        let attrs = match &mut item {
            syn::Item::Fn(f) => &mut f.attrs,
            syn::Item::Mod(m) => &mut m.attrs,
            _ => continue,
        };
        let Some(pos) = attrs.iter().position(|a| {
            let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
            segs == ["ld", "kernel"] || segs == ["ld", "kernels"]
        }) else {
            continue;
        };
        let a = attrs.remove(pos);
        let module = a.path().segments.last().unwrap().ident == "kernels";
        let attr = match a.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(l) => l.tokens,
            syn::Meta::NameValue(_) => panic!("write `#[ld::kernel(...)]`"),
        };
        let at = a.pound_token.span.start();
        assert!(found.is_none(), "a test source holds one `#[ld::kernel]` or `#[ld::kernels]` item");
        found = Some(Invocation { module, attr, item, call_site: (at.line, at.column + 1) });
    }
    found.expect("no `#[ld::kernel]` or `#[ld::kernels]` item in the test source")
}

/// A compile error as rustc reports it: the 1-based line and column where
/// its span starts, and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for Diag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// Runs the macro on `src` exactly as rustc would; its errors, in the
/// order rustc prints them, on failure.
pub fn expand(src: &str) -> Result<TokenStream, Vec<Diag>> {
    let inv = invocation(src);
    let item = inv.item.into_token_stream();
    let out = if inv.module { expand::kernels(inv.attr, item) } else { expand::kernel(inv.attr, item) };
    out.map_err(|e| diags(e, inv.call_site))
}

/// A (possibly combined) error as rustc would list it; `call_site`: where
/// errors spanned at the macro's call site point.
fn diags(e: syn::Error, call_site: (usize, usize)) -> Vec<Diag> {
    e.into_iter()
        .map(|e| {
            let span = e.span();
            let (line, column) = if span.byte_range() == (0..0) {
                call_site
            } else {
                let at = span.start();
                (at.line, at.column + 1)
            };
            Diag { line, column, message: e.to_string() }
        })
        .collect()
}

/// The name and typed IR of every kernel in `src` (one for an
/// `#[ld::kernel]` function, one per `#[kernel]` of an `#[ld::kernels]`
/// module), as the front end makes it, before any analysis.
pub fn parse(src: &str) -> Result<Vec<(String, Module)>, Vec<Diag>> {
    let inv = invocation(src);
    let call_site = inv.call_site;
    let parsed = match inv.item {
        syn::Item::Fn(f) => expand::fn_module(inv.attr, &f).map(|m| vec![(f.sig.ident.to_string(), m)]),
        syn::Item::Mod(m) => {
            let content = &m.content.as_ref().expect("an inline module").1;
            expand::mod_items(content).and_then(|items| {
                content
                    .iter()
                    .filter(|it| expand::is_kernel_fn(it))
                    .map(|it| match it {
                        syn::Item::Fn(f) => expand::mod_kernel_module(&items, f).map(|(_, m)| (f.sig.ident.to_string(), m)),
                        _ => unreachable!(),
                    })
                    .collect()
            })
        }
        _ => unreachable!(),
    };
    parsed.map_err(|e| diags(e, call_site))
}

/// The name and typed IR of every kernel in `src`, after checking that the
/// macro accepts `src`.
pub fn modules(src: &str) -> Vec<(String, Module)> {
    if let Err(d) = expand(src) {
        panic!("the kernel does not compile:\n{}", show(&d));
    }
    parse(src).unwrap()
}

/// The typed IR of the one kernel in `src`, which the macro accepts.
pub fn module(src: &str) -> Module {
    let mut ms = modules(src);
    assert_eq!(ms.len(), 1, "expected one kernel");
    ms.pop().unwrap().1
}

fn show(ds: &[Diag]) -> String {
    ds.iter().map(|d| format!("  {d}\n")).collect()
}

/// `got` must be exactly `expected`, `("line:column", message)` in order.
#[track_caller]
fn assert_diags(got: &[Diag], expected: &[(&str, &str)]) {
    let want: Vec<Diag> = expected
        .iter()
        .map(|(at, m)| {
            let (l, c) = at.split_once(':').expect("line:column");
            Diag { line: l.parse().unwrap(), column: c.parse().unwrap(), message: m.to_string() }
        })
        .collect();
    assert!(got == want, "wrong diagnostics\n--- expected:\n{}--- got:\n{}", show(&want), show(got));
}
