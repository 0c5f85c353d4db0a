//! The CPU twin: Rust code generated from the same IR as the WGSL, run by
//! `ld-runtime`'s CPU executor with WGSL semantics. The kernel becomes a
//! resumable invocation (`loop { match pc {..} }` over the lowered state
//! machine) so the executor can suspend it at barriers; helpers become plain
//! Rust functions. All memory goes through `Cx`, which checks bounds and
//! lets the executor choose what memory each access sees.

mod expr;
mod stmt;

use ld_compiler::ir::*;
use ld_compiler::lower::{self, Term};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// Emission state for one function (kernel or helper).
pub struct Emitter<'m> {
    pub module: &'m Module,
    pub locals: &'m [Local],
    /// `true` in the kernel's `step`, where locals live in `self`.
    pub in_kernel: bool,
    /// Labels of the enclosing structured loops: (break label, continue label).
    pub loops: Vec<(syn::Lifetime, syn::Lifetime)>,
    pub next_label: usize,
    /// Element types of the current helper's slice parameters, by index.
    pub slice_elems: Vec<Option<Type>>,
}

pub fn local_ident(id: LocalId) -> Ident {
    format_ident!("l{}", id)
}

pub fn helper_ident(id: FnId) -> Ident {
    format_ident!("ld_helper_{}", id)
}

/// The Rust type of an IR type.
pub fn rust_type(m: &Module, t: &Type) -> TokenStream {
    match t {
        Type::Unit => quote!(()),
        Type::Scalar(Scalar::U32) | Type::Atomic(Scalar::U32) => quote!(u32),
        Type::Scalar(Scalar::I32) | Type::Atomic(_) => quote!(i32),
        Type::Scalar(Scalar::F32) => quote!(f32),
        Type::Scalar(Scalar::Bool) => quote!(bool),
        Type::UVec3 => quote!(__ld::UVec3),
        Type::Array(e, n) => {
            let e = rust_type(m, e);
            let n = *n as usize;
            quote!([#e; #n])
        }
        Type::Struct(id) => {
            let name = Ident::new(&m.structs[*id].name, Span::call_site());
            quote!(#name)
        }
        Type::Var(_) => unreachable!(),
    }
}

/// The invocation type and its `step` method, plus the helper functions.
pub fn twin(m: &Module) -> TokenStream {
    let k = &m.kernel;
    let machine = lower::machine(&k.body.block);
    let fields = k.body.locals.iter().enumerate().map(|(i, l)| {
        let id = local_ident(i);
        let ty = rust_type(m, &l.ty);
        quote!(#id: #ty)
    });
    let inits = (0..k.body.locals.len()).map(|i| {
        let id = local_ident(i);
        quote!(#id: __ld::zeroed())
    });
    let mut e = Emitter { module: m, locals: &k.body.locals, in_kernel: true, loops: vec![], next_label: 0, slice_elems: vec![] };
    let arms = machine.blocks.iter().enumerate().map(|(id, b)| {
        let id = id as u32;
        let stmts = e.block(&b.stmts);
        let term = match &b.term {
            Term::Return => quote! { self.pc = u32::MAX; return Ok(__ld::Yield::Done); },
            Term::Goto(t) => {
                let t = *t as u32;
                quote! { self.pc = #t; }
            }
            Term::Branch(c, a, b, tick) => {
                let c = e.expr(c);
                let (a, b) = (*a as u32, *b as u32);
                // A loop's head: the loop starts an iteration.
                let tick = tick.map(|span| {
                    let site = expr::site(span);
                    quote!(cx.tick(#site)?;)
                });
                quote! { #tick self.pc = if #c { #a } else { #b }; }
            }
            Term::Barrier(kind, next, index, _) => {
                let next = *next as u32;
                let index = *index as u32;
                let kind = match kind {
                    BarrierKind::Workgroup => quote!(__ld::BarrierKind::Workgroup),
                    BarrierKind::Storage => quote!(__ld::BarrierKind::Storage),
                };
                quote! { self.pc = #next; return Ok(__ld::Yield::Barrier { kind: #kind, id: #index }); }
            }
        };
        quote! { #id => { #stmts #term } }
    });
    let arms: Vec<TokenStream> = arms.collect();
    let helpers = m.functions.iter().enumerate().map(|(i, f)| helper(m, i, f));
    quote! {
        #[allow(non_snake_case, unused_mut, unused_variables, unreachable_code, unused_parens, unused_assignments, clippy::all)]
        struct LdInvocation {
            pc: u32,
            #(#fields,)*
        }

        #[allow(non_snake_case, unused_mut, unused_variables, unreachable_code, unused_parens, unused_assignments, unused_braces, unused_labels, clippy::all)]
        impl __ld::Invocation for LdInvocation {
            fn step(&mut self, cx: &mut __ld::Cx<'_>) -> ::core::result::Result<__ld::Yield, __ld::Fault> {
                loop {
                    match self.pc {
                        #(#arms)*
                        _ => return Ok(__ld::Yield::Done),
                    }
                }
            }
        }

        fn ld_new_group(n: usize) -> ::std::boxed::Box<dyn __ld::Group> {
            __ld::Each::boxed(n, || LdInvocation { pc: 0, #(#inits,)* })
        }

        #(#helpers)*
    }
}

fn helper(m: &Module, id: FnId, f: &Function) -> TokenStream {
    let name = helper_ident(id);
    let mut params = Vec::new();
    let mut binds = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        match p {
            FnParam::Value(l) => {
                let a = format_ident!("a{}", i);
                let ty = rust_type(m, &f.body.locals[*l].ty);
                let l = local_ident(*l);
                params.push(quote!(#a: #ty));
                binds.push(quote!(#l = #a;));
            }
            FnParam::Slice { offset, .. } => {
                let s = format_ident!("m{}", i);
                let a = format_ident!("a{}", i);
                let l = local_ident(*offset);
                params.push(quote!(#s: __ld::Mem, #a: u32));
                binds.push(quote!(#l = #a;));
            }
        }
    }
    let decls = f.body.locals.iter().enumerate().map(|(i, l)| {
        let id = local_ident(i);
        let ty = rust_type(m, &l.ty);
        quote!(let mut #id: #ty = __ld::zeroed();)
    });
    let ret = rust_type(m, &f.ret);
    let slice_elems = f.params.iter().map(|p| if let FnParam::Slice { elem, .. } = p { Some(elem.clone()) } else { None }).collect();
    let mut e = Emitter { module: m, locals: &f.body.locals, in_kernel: false, loops: vec![], next_label: 0, slice_elems };
    let body = e.block(&f.body.block);
    let tail = if f.ret == Type::Unit { quote!(Ok(())) } else { quote!(unreachable!("helper fell off its end")) };
    quote! {
        #[allow(non_snake_case, unused_mut, unused_variables, unreachable_code, unused_parens, unused_assignments, unused_braces, unused_labels, clippy::all)]
        fn #name(cx: &mut __ld::Cx<'_>, #(#params),*) -> ::core::result::Result<#ret, __ld::Fault> {
            #(#decls)*
            #(#binds)*
            #body
            #tail
        }
    }
}
