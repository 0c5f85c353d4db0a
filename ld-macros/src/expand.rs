//! Final expansion: the kernel's unit struct, its `ld::Kernel` impl with the
//! metadata the runtime checks launches against, the WGSL, and the CPU twin.

use crate::parse::{self, KernelAttr};
use crate::{cpu, spans};
use ld_compiler::ir::*;
use ld_compiler::{analysis, wgsl};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;

/// `#[ld::kernel]` on proc_macro2 tokens: everything the attribute does
/// (the unit tests call this to see exactly the macro's diagnostics).
pub fn kernel(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    spans::reset();
    kernel_fn(attr, syn::parse2(item)?)
}

/// `#[ld::kernels]` on proc_macro2 tokens.
pub fn kernels(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(Span::call_site(), "`#[ld::kernels]` takes no arguments"));
    }
    spans::reset();
    kernels_mod(syn::parse2(item)?)
}

/// The typed IR of an `#[ld::kernel]` function with its nested items.
pub fn fn_module(attr: TokenStream, f: &syn::ItemFn) -> syn::Result<Module> {
    let attr = KernelAttr::parse(attr)?;
    let items: Vec<&syn::Item> = f.block.stmts.iter().filter_map(|s| if let syn::Stmt::Item(i) = s { Some(i) } else { None }).collect();
    check_items(&items)?;
    parse::module(&items, f, &attr)
}

/// The typed IR of a `#[kernel]` function of an `#[ld::kernels]` module
/// (`items`: the module's other items), and the function without that
/// attribute.
pub fn mod_kernel_module(items: &[&syn::Item], f: &syn::ItemFn) -> syn::Result<(syn::ItemFn, Module)> {
    let attr = kernel_attr(f)?;
    let mut f = f.clone();
    f.attrs.retain(|a| !a.path().is_ident("kernel"));
    let module = parse::module(items, &f, &attr)?;
    Ok((f, module))
}

/// The non-kernel items of an `#[ld::kernels]` module, after checking they
/// are items kernels may use.
pub fn mod_items(content: &[syn::Item]) -> syn::Result<Vec<&syn::Item>> {
    let items: Vec<&syn::Item> = content.iter().filter(|i| !is_kernel_fn(i)).collect();
    check_items(&items)?;
    Ok(items)
}

pub fn kernel_fn(attr: TokenStream, f: syn::ItemFn) -> syn::Result<TokenStream> {
    let module = fn_module(attr, &f)?;
    let structs = module.structs.iter().map(|s| struct_impls(&module, s, true)).collect::<Vec<_>>();
    let kernel = kernel_impl(&module, &f)?;
    let k = kernel_struct(&f);
    let launch = typed_launch(&module, &f);
    Ok(quote! {
        #k
        const _: () = {
            use ::ld::__private as __ld;
            #(#structs)*
            #kernel
            #launch
        };
    })
}

pub fn kernels_mod(m: syn::ItemMod) -> syn::Result<TokenStream> {
    let Some((_, content)) = &m.content else {
        return Err(syn::Error::new(m.span(), "`#[ld::kernels]` needs an inline module: `mod name { ... }`"));
    };
    let items = mod_items(content)?;
    let mut out = Vec::new();
    let mut first = None;
    for it in content {
        match it {
            syn::Item::Fn(f) if is_kernel_fn(it) => {
                let (f, module) = mod_kernel_module(&items, f)?;
                let kernel = kernel_impl(&module, &f)?;
                let k = kernel_struct(&f);
                let launch = typed_launch(&module, &f);
                out.push(quote! {
                    #k
                    const _: () = { use ::ld::__private as __ld; #kernel #launch };
                });
                first.get_or_insert(module);
            }
            syn::Item::Fn(_) => {} // helpers only exist inside kernels
            syn::Item::Struct(s) => out.push(quote!(#s)),
            // Kernels see consts as literals; the host may or may not use them.
            syn::Item::Const(c) => out.push(quote!(#[allow(dead_code)] #c)),
            syn::Item::Use(u) => out.push(quote!(#[allow(unused_imports)] #u)),
            other => out.push(quote!(#other)),
        }
    }
    let Some(module) = first else {
        return Err(syn::Error::new(m.span(), "this module has no `#[kernel(workgroup_size = N)]` function"));
    };
    let impls = module.structs.iter().map(|s| struct_impls(&module, s, false));
    let (vis, ident, attrs) = (&m.vis, &m.ident, &m.attrs);
    let structs_fixed: Vec<TokenStream> = out
        .into_iter()
        .map(|t| {
            // Struct items get the derives that make them buffer elements.
            match syn::parse2::<syn::ItemStruct>(t.clone()) {
                Ok(s) => {
                    let (vis, name, fields) = (&s.vis, &s.ident, &s.fields);
                    let (attrs, extra) = struct_attrs(&s.attrs);
                    quote! {
                        #(#attrs)*
                        #[repr(C)]
                        #[derive(Clone, Copy, Debug, PartialEq #(, #extra)*)]
                        #vis struct #name #fields
                    }
                }
                Err(_) => t,
            }
        })
        .collect();
    Ok(quote! {
        #(#attrs)*
        #vis mod #ident {
            #(#structs_fixed)*
            const _: () = {
                use ::ld::__private as __ld;
                #(#impls)*
            };
        }
    })
}

/// A kernel struct's own attributes, minus the `repr` and derives ld adds,
/// plus any other derives the user asked for.
fn struct_attrs(attrs: &[syn::Attribute]) -> (Vec<&syn::Attribute>, Vec<syn::Path>) {
    const OURS: [&str; 5] = ["Clone", "Copy", "Debug", "Default", "PartialEq"];
    // (`Default` is implemented by hand as all zeroes: arrays longer than 32
    // have no derived `Default`.)
    let mut keep = Vec::new();
    let mut extra = Vec::new();
    for a in attrs {
        if a.path().is_ident("repr") {
            continue;
        }
        if a.path().is_ident("derive") {
            let _ = a.parse_nested_meta(|m| {
                if !OURS.iter().any(|o| m.path.is_ident(o)) {
                    extra.push(m.path.clone());
                }
                Ok(())
            });
            continue;
        }
        keep.push(a);
    }
    (keep, extra)
}

pub fn is_kernel_fn(i: &syn::Item) -> bool {
    matches!(i, syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("kernel")))
}

fn kernel_attr(f: &syn::ItemFn) -> syn::Result<KernelAttr> {
    let a = f.attrs.iter().find(|a| a.path().is_ident("kernel")).unwrap();
    match &a.meta {
        syn::Meta::List(l) => KernelAttr::parse(l.tokens.clone()),
        _ => Err(syn::Error::new(a.span(), "write `#[kernel(workgroup_size = N)]`")),
    }
}

fn check_items(items: &[&syn::Item]) -> syn::Result<()> {
    for it in items {
        match it {
            syn::Item::Fn(_) | syn::Item::Const(_) | syn::Item::Struct(_) | syn::Item::Use(_) => {}
            other => return Err(syn::Error::new(other.span(), "only helper `fn`s, `const`s and `struct`s may appear alongside kernels")),
        }
    }
    Ok(())
}

fn kernel_struct(f: &syn::ItemFn) -> TokenStream {
    let (vis, name) = (&f.vis, &f.sig.ident);
    let docs = f.attrs.iter().filter(|a| a.path().is_ident("doc"));
    quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name;
    }
}

/// The kernel's typed launch: an inherent `launch` method whose parameters
/// are the kernel's own (`&[T]` as `&Buffer<T>`, `&mut [T]` and atomics as
/// `&mut Buffer<T>`, scalars by value), so that a wrong argument count,
/// type or mutability is a compile error at the call rather than an
/// `Error::Arg` at run time.
fn typed_launch(m: &Module, f: &syn::ItemFn) -> TokenStream {
    let (vis, name) = (&f.vis, &f.sig.ident);
    let taken = |n: &str| m.kernel.params.iter().any(|p| p.name == n);
    let fresh = |base: &str| {
        let mut n = base.to_string();
        while taken(&n) {
            n.push('_');
        }
        format_ident!("{}", n)
    };
    let (rt, grid) = (fresh("runtime"), fresh("grid"));
    let params: Vec<_> = m.kernel.params.iter().map(|p| format_ident!("{}", p.name)).collect();
    let tys = m.kernel.params.iter().map(|p| match &p.kind {
        ParamKind::Storage { elem, access: Access::Read } => {
            let t = cpu::rust_type(m, elem);
            quote!(&'ld ::ld::Buffer<#t>)
        }
        ParamKind::Storage { elem, access: Access::ReadWrite } => {
            let t = cpu::rust_type(m, elem);
            quote!(&'ld mut ::ld::Buffer<#t>)
        }
        ParamKind::Atomic { elem } => {
            let t = cpu::rust_type(m, &Type::Scalar(*elem));
            quote!(&'ld mut ::ld::Buffer<#t>)
        }
        ParamKind::Uniform { ty } => cpu::rust_type(m, &Type::Scalar(*ty)),
    });
    let doc = format!(
        "Launches `{name}` on `{rt}` over `{grid}` with these arguments, typed as the kernel's parameters: \
         `&[T]` as `&Buffer<T>`, `&mut [T]` and atomic arrays as `&mut Buffer<T>`, scalars by value. \
         Run it with `.run()`, `.check()` or `.exact()`."
    );
    quote! {
        impl #name {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, private_interfaces, dead_code)]
            #vis fn launch<'ld>(
                self,
                #rt: &'ld ::ld::Runtime,
                #grid: impl ::core::convert::Into<::ld::Grid>,
                #(#params: #tys),*
            ) -> ::ld::Launch<'ld> {
                #rt.launch(self, #grid, ::std::vec![#(::ld::Arg::from(#params)),*])
            }
        }
    }
}

fn elem_info(m: &Module, t: &Type) -> TokenStream {
    let rt = cpu::rust_type(m, t);
    let words = t.words(m);
    let name = t.display(&m.structs);
    quote!(__ld::ElemInfo { name: #name, words: #words, type_id: || ::core::any::TypeId::of::<#rt>(), place: &<#rt as __ld::Words>::place, whole: false })
}

fn scalar_kind(s: Scalar) -> TokenStream {
    match s {
        Scalar::U32 => quote!(__ld::ScalarKind::U32),
        Scalar::I32 => quote!(__ld::ScalarKind::I32),
        Scalar::F32 => quote!(__ld::ScalarKind::F32),
        Scalar::Bool => unreachable!(),
    }
}

fn kernel_impl(m: &Module, f: &syn::ItemFn) -> syn::Result<TokenStream> {
    let compiled = ld_compiler::compile(m).map_err(|ds| spans::errors(&ds))?;
    let twin = cpu::twin(&compiled.settled);
    let facts = compiled.facts;
    let (native, native_sites) = compiled.native;
    let plain = compiled.plain;
    let (instrumented, instrumented_sites) = compiled.instrumented;
    let (folded, folded_sites) = compiled.folded;
    let (probe, probe_sites) = compiled.probe;
    // The guard's sites, with the line and column the CPU twin's own
    // `line!()` and `column!()` give the same spans.
    let sites = [native_sites, instrumented_sites, folded_sites, probe_sites].map(|v| {
        let v = v.iter().map(|s| {
            let what = match s.what {
                wgsl::SiteWhat::Buffer => quote!(__ld::SiteKind::Buffer),
                wgsl::SiteWhat::Shared => quote!(__ld::SiteKind::Shared),
                wgsl::SiteWhat::Array => quote!(__ld::SiteKind::Array),
                wgsl::SiteWhat::Loop => quote!(__ld::SiteKind::Loop),
            };
            let (array, len) = (&s.array, s.len.unwrap_or(0));
            let line = quote::quote_spanned!(spans::get(s.span)=> line!());
            let column = quote::quote_spanned!(spans::get(s.span)=> column!());
            quote!(__ld::Site { what: #what, array: #array, len: #len, line: #line, column: #column })
        });
        quote!(&[#(#v),*])
    });
    let [native_sites, instrumented_sites, folded_sites, probe_sites] = sites;
    let k = &m.kernel;
    let name = &f.sig.ident;
    let name_str = name.to_string();
    let params = k.params.iter().zip(&facts.classes).map(|(p, class)| {
        let pname = &p.name;
        let check = match class {
            analysis::targets::Class::ReadOnly => quote!(__ld::CheckClass::ReadOnly),
            analysis::targets::Class::Atomic => quote!(__ld::CheckClass::Atomic),
            analysis::targets::Class::Target => quote!(__ld::CheckClass::Target),
        };
        let kind = match &p.kind {
            ParamKind::Storage { elem, access } => {
                let e = elem_info(m, elem);
                let w = *access == Access::ReadWrite;
                quote!(__ld::ParamKind::Storage { elem: #e, writable: #w })
            }
            ParamKind::Atomic { elem } => {
                let e = elem_info(m, &Type::Scalar(*elem));
                quote!(__ld::ParamKind::Atomic { elem: #e })
            }
            ParamKind::Uniform { ty } => {
                let s = scalar_kind(*ty);
                quote!(__ld::ParamKind::Uniform { scalar: #s })
            }
        };
        quote!(__ld::ParamInfo { name: #pname, kind: #kind, check: #check })
    });
    let shared = k.shared.iter().zip(&facts.shared_targets).map(|(s, target)| {
        let n = &s.name;
        let w = s.elem.words(m);
        let len = s.len;
        let rt = cpu::rust_type(m, &s.elem);
        quote!(__ld::SharedInfo { name: #n, elem_words: #w, len: #len, place: &<#rt as __ld::Words>::place, target: #target, whole: false })
    });
    let targets = facts.targets.iter().map(|mem| match mem {
        &MemRef::Param(i) => quote!(__ld::TargetPlace::Param(#i)),
        &MemRef::Shared(a) => quote!(__ld::TargetPlace::Shared(#a)),
        MemRef::FnSlice(_) => unreachable!("targets are kernel memories"),
    });
    let (lane_safe, one_value) = (facts.lane_safe, facts.one_value);
    let analysis::in_place::InPlace { row, plane, stride } = facts.in_place;
    let barriers = facts.barriers.iter().enumerate().map(|(index, &(kind, span))| {
        let id = index as u32;
        let kind = match kind {
            BarrierKind::Workgroup => quote!(__ld::BarrierKind::Workgroup),
            BarrierKind::Storage => quote!(__ld::BarrierKind::Storage),
        };
        let line = quote::quote_spanned!(spans::get(span)=> line!());
        quote!(__ld::BarrierInfo { id: #id, kind: #kind, line: #line })
    });
    // The body's text for report snippets; `line!()` at its opening brace
    // numbers its first line as the twin's sites number theirs.
    let body = f.block.brace_token.span.join();
    let body_text = body.source_text().unwrap_or_default();
    let body_line = quote::quote_spanned!(body=> line!());
    let body_file = quote::quote_spanned!(body=> file!());
    let [x, y, z] = k.workgroup_size;
    let bounds = match k.bounds {
        Bounds::Fault => quote!(__ld::Bounds::Fault),
        Bounds::Clamp => quote!(__ld::Bounds::Clamp),
    };
    Ok(quote! {
        #twin
        // (The sites' `line!()` and `column!()` carry spans of the kernel's
        // code, some of them literals that clippy's literal lints misread.)
        #[allow(clippy::all)]
        static LD_INFO: __ld::KernelInfo = __ld::KernelInfo {
            name: #name_str,
            workgroup_size: [#x, #y, #z],
            params: &[#(#params),*],
            shared: &[#(#shared),*],
            targets: &[#(#targets),*],
            lane_safe: #lane_safe,
            one_value: #one_value,
            in_place: __ld::InPlace { row: #row, plane: #plane, stride: #stride },
            barriers: &[#(#barriers),*],
            wgsl: #native,
            wgsl_plain: #plain,
            wgsl_instrumented: #instrumented,
            wgsl_folded: #folded,
            wgsl_probe: #probe,
            sites: [#native_sites, #instrumented_sites, #folded_sites, #probe_sites],
            new_group: &ld_new_group,
            source: __ld::Source { file: #body_file, first_line: #body_line, text: #body_text },
            bounds: #bounds,
        };
        impl ::ld::Kernel for #name {
            fn info(&self) -> &'static __ld::KernelInfo {
                &LD_INFO
            }
        }
    })
}

/// Buffer-element impls for a kernel struct: bytemuck's `Pod` (all fields
/// are 4-byte scalars or arrays of them, so `repr(C)` has no padding), the
/// runtime's element trait, and word-level access for the CPU twin.
fn struct_impls(m: &Module, s: &StructDef, define: bool) -> TokenStream {
    let name = format_ident!("{}", s.name);
    let fields: Vec<_> = s.fields.iter().map(|(n, _)| format_ident!("{}", n)).collect();
    let tys: Vec<_> = s.fields.iter().map(|(_, t)| cpu::rust_type(m, t)).collect();
    let names: Vec<String> = s.fields.iter().map(|(n, _)| format!(".{n}")).collect();
    let mut offs = Vec::new();
    let mut ends = Vec::new();
    let mut o = 0u32;
    for (_, t) in &s.fields {
        offs.push(o);
        o += t.words(m);
        ends.push(o);
    }
    let words = o;
    let def = if define {
        quote! {
            #[repr(C)]
            #[derive(Clone, Copy, Debug, PartialEq)]
            struct #name { #(#fields: #tys),* }
        }
    } else {
        quote!()
    };
    let _ = Span::call_site();
    quote! {
        #def
        unsafe impl __ld::bytemuck::Zeroable for #name {}
        unsafe impl __ld::bytemuck::Pod for #name {}
        impl ::core::default::Default for #name {
            fn default() -> Self {
                __ld::zeroed()
            }
        }
        impl __ld::Words for #name {
            const WORDS: u32 = #words;
            fn from_words<F: FnMut(u32) -> u32>(f: &mut F) -> Self {
                #name { #(#fields: <#tys as __ld::Words>::from_words(&mut |i| f(i + #offs))),* }
            }
            fn to_words<F: FnMut(u32, u32)>(&self, f: &mut F) {
                #( <#tys as __ld::Words>::to_words(&self.#fields, &mut |i, w| f(i + #offs, w)); )*
            }
            fn place(word: u32, out: &mut ::std::string::String) {
                #(
                    if word < #ends {
                        out.push_str(#names);
                        <#tys as __ld::Words>::place(word - #offs, out);
                    } else
                )* {}
            }
        }
    }
}
