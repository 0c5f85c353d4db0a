//! Front end: syn items → typed IR. Names are resolved and types inferred
//! here, so every later stage works on a checked, fully typed kernel.

mod consts;
mod expr;
mod intrinsics;
mod scope;
mod stmt;
mod types;

use ld_compiler::ir::*;
use scope::{Binding, FnCx, FnSig, KernelCx, MemView, SigParam};
use std::collections::HashMap;
use syn::{spanned::Spanned, Error, Result};
use types::TypeEnv;

/// `#[ld::kernel(workgroup_size = 64)]` arguments.
pub struct KernelAttr {
    pub workgroup_size: [u32; 3],
}

impl KernelAttr {
    pub fn parse(tokens: proc_macro2::TokenStream) -> Result<Self> {
        let span = proc_macro2::Span::call_site();
        let args = syn::parse::Parser::parse2(syn::punctuated::Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated, tokens)?;
        let mut wg = None;
        for a in &args {
            if !a.path.is_ident("workgroup_size") {
                return Err(Error::new(a.path.span(), "unknown kernel option: expected `workgroup_size = N` or `workgroup_size = (X, Y, Z)`"));
            }
            wg = Some(workgroup_size(&a.value)?);
        }
        let Some(workgroup_size) = wg else {
            return Err(Error::new(span, "missing `workgroup_size`: write `#[ld::kernel(workgroup_size = 64)]`"));
        };
        Ok(KernelAttr { workgroup_size })
    }
}

fn workgroup_size(e: &syn::Expr) -> Result<[u32; 3]> {
    let dims: Vec<&syn::Expr> = match e {
        syn::Expr::Tuple(t) => t.elems.iter().collect(),
        syn::Expr::Array(a) => a.elems.iter().collect(),
        syn::Expr::Paren(p) => vec![&*p.expr],
        other => vec![other],
    };
    if dims.is_empty() || dims.len() > 3 {
        return Err(Error::new(e.span(), "workgroup_size has one to three dimensions"));
    }
    let mut out = [1u32; 3];
    for (i, d) in dims.iter().enumerate() {
        let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) = d else {
            return Err(Error::new(d.span(), "workgroup_size dimensions must be integer literals"));
        };
        out[i] = n.base10_parse()?;
        if out[i] == 0 {
            return Err(Error::new(d.span(), "workgroup_size dimensions must be at least 1"));
        }
    }
    let total: u64 = out.iter().map(|&x| x as u64).product();
    if total > 1024 {
        return Err(Error::new(
            e.span(),
            format!("workgroup_size has {total} invocations; WGSL devices guarantee at most 256 (wgpu's default limit) and never more than 1024"),
        ));
    }
    Ok(out)
}

/// Parses one kernel together with the helpers, structs and consts it may
/// use (`items`: the kernel body's nested items, or its module's items).
pub fn module(items: &[&syn::Item], kernel: &syn::ItemFn, attr: &KernelAttr) -> Result<Module> {
    let mut consts = HashMap::new();
    let mut struct_names = HashMap::new();
    let mut structs = Vec::new();
    for it in items {
        match it {
            syn::Item::Const(c) => {
                let env = TypeEnv { struct_names: &struct_names, consts: &consts };
                let ty = env.value_type(&c.ty)?;
                let v = consts::eval(&c.expr, &ty, &consts)?;
                consts.insert(c.ident.to_string(), (v, ty));
            }
            syn::Item::Struct(s) => {
                let def = struct_def(s, &struct_names, &consts)?;
                struct_names.insert(def.name.clone(), structs.len());
                structs.push(def);
            }
            _ => {}
        }
    }
    let helpers: Vec<&syn::ItemFn> = items.iter().filter_map(|it| if let syn::Item::Fn(f) = it { Some(f) } else { None }).collect();
    let env = TypeEnv { struct_names: &struct_names, consts: &consts };
    let mut sigs = Vec::new();
    let mut fn_names = HashMap::new();
    for f in &helpers {
        sigs.push(helper_sig(f, &env)?);
        fn_names.insert(f.sig.ident.to_string(), sigs.len() - 1);
    }
    let mut functions = Vec::new();
    for (f, sig) in helpers.iter().zip(&sigs) {
        functions.push(helper(f, sig, &structs, &struct_names, &sigs, &fn_names, &consts)?);
    }
    no_recursion(&functions)?;
    let mut cx = FnCx::new(&structs, &struct_names, &sigs, &fn_names, &consts, Type::Unit);
    let kernel = kernel_fn(&mut cx, kernel, attr)?;
    Ok(Module { structs, functions, kernel })
}

fn struct_def(s: &syn::ItemStruct, names: &HashMap<String, StructId>, consts: &HashMap<String, (Lit, Type)>) -> Result<StructDef> {
    if !s.generics.params.is_empty() {
        return Err(Error::new(s.generics.span(), "kernel structs cannot be generic"));
    }
    let syn::Fields::Named(fields) = &s.fields else {
        return Err(Error::new(s.span(), "kernel structs have named fields"));
    };
    let env = TypeEnv { struct_names: names, consts };
    let mut out = Vec::new();
    for f in &fields.named {
        let ty = env.value_type(&f.ty)?;
        if matches!(ty, Type::Scalar(Scalar::Bool) | Type::UVec3) {
            return Err(Error::new(f.ty.span(), "struct fields must be `u32`, `i32`, `f32`, arrays or structs of them (they are shared with the host)"));
        }
        out.push((f.ident.as_ref().unwrap().to_string(), ty));
    }
    if out.is_empty() {
        return Err(Error::new(s.span(), "kernel structs need at least one field"));
    }
    Ok(StructDef { name: s.ident.to_string(), fields: out })
}

fn no_generics(sig: &syn::Signature) -> Result<()> {
    if !sig.generics.params.is_empty() {
        return Err(Error::new(sig.generics.span(), "kernels and helpers cannot be generic"));
    }
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span(), "kernels and helpers cannot be `async`"));
    }
    if let Some(v) = &sig.variadic {
        return Err(Error::new(v.span(), "variadic functions are not supported"));
    }
    Ok(())
}

fn param_name(arg: &syn::FnArg) -> Result<(String, bool, &syn::Type)> {
    let syn::FnArg::Typed(pt) = arg else {
        return Err(Error::new(arg.span(), "`self` parameters are not supported in kernels"));
    };
    let syn::Pat::Ident(id) = &*pt.pat else {
        return Err(Error::new(pt.pat.span(), "parameters must be plain names"));
    };
    Ok((id.ident.to_string(), id.mutability.is_some(), &pt.ty))
}

fn helper_sig(f: &syn::ItemFn, env: &TypeEnv) -> Result<FnSig> {
    no_generics(&f.sig)?;
    let mut params = Vec::new();
    for a in &f.sig.inputs {
        let (name, _, ty) = param_name(a)?;
        match env.slice_view(ty, &name)? {
            Some(view) => params.push(SigParam::Slice(name, view)),
            None => params.push(SigParam::Value(name, env.value_type(ty)?)),
        }
    }
    let ret = match &f.sig.output {
        syn::ReturnType::Default => Type::Unit,
        syn::ReturnType::Type(_, t) => env.value_type(t)?,
    };
    Ok(FnSig { name: f.sig.ident.to_string(), params, ret })
}

#[allow(clippy::too_many_arguments)]
fn helper(
    f: &syn::ItemFn,
    sig: &FnSig,
    structs: &[StructDef],
    struct_names: &HashMap<String, StructId>,
    sigs: &[FnSig],
    fn_names: &HashMap<String, FnId>,
    consts: &HashMap<String, (Lit, Type)>,
) -> Result<Function> {
    let mut cx = FnCx::new(structs, struct_names, sigs, fn_names, consts, sig.ret.clone());
    let mut params = Vec::new();
    for (i, (p, arg)) in sig.params.iter().zip(&f.sig.inputs).enumerate() {
        let (_, mutable, _) = param_name(arg)?;
        match p {
            SigParam::Value(name, ty) => {
                let id = cx.new_local(name, ty.clone(), arg.span());
                cx.bind(name, Binding::Local { id, mutable });
                params.push(FnParam::Value(id));
            }
            SigParam::Slice(name, view) => {
                let offset = cx.hidden_local(&format!("{name}_offset"), Type::U32, arg.span());
                let v = MemView { name: name.clone(), ..view.clone() };
                cx.bind(name, Binding::Mem { mem: MemRef::FnSlice(i), offset: Some(offset), len: None, view: v });
                params.push(FnParam::Slice { elem: view.elem.clone(), offset });
            }
        }
    }
    let block = cx.fn_body(&f.block)?;
    let body = finish(&cx, block)?;
    Ok(Function { name: sig.name.clone(), span: crate::spans::intern(f.sig.ident.span()), params, ret: sig.ret.clone(), body })
}

fn kernel_fn(cx: &mut FnCx, f: &syn::ItemFn, attr: &KernelAttr) -> Result<Kernel> {
    no_generics(&f.sig)?;
    if let syn::ReturnType::Type(_, t) = &f.sig.output {
        return Err(Error::new(t.span(), "kernels return nothing: write results to a `&mut [T]` parameter"));
    }
    let mut params = Vec::new();
    for a in &f.sig.inputs {
        let (name, _, ty) = param_name(a)?;
        let kind = cx.type_env().kernel_param(ty, &name)?;
        let i = params.len();
        let b = match &kind {
            ParamKind::Uniform { .. } => Binding::Uniform(i),
            ParamKind::Storage { elem, access } => Binding::Mem {
                mem: MemRef::Param(i),
                offset: None,
                len: None,
                view: MemView { elem: elem.clone(), mutable: *access == Access::ReadWrite, atomic: false, fixed_len: None, name: name.clone() },
            },
            ParamKind::Atomic { elem } => Binding::Mem {
                mem: MemRef::Param(i),
                offset: None,
                len: None,
                view: MemView { elem: Type::Atomic(*elem), mutable: true, atomic: true, fixed_len: None, name: name.clone() },
            },
        };
        cx.bind(&name, b);
        params.push(Param { name, kind });
    }
    cx.kernel = Some(KernelCx { params: params.clone(), shared: vec![] });
    let block = cx.fn_body(&f.block)?;
    let body = finish(cx, block)?;
    let shared = cx.kernel.take().unwrap().shared;
    Ok(Kernel { span: crate::spans::intern(f.sig.ident.span()), workgroup_size: attr.workgroup_size, params, shared, body, bounds: Bounds::Fault })
}

/// Resolves every type variable and checks literals fit their final type.
fn finish(cx: &FnCx, mut block: Block) -> Result<Body> {
    let mut err = None;
    visit::exprs_mut(&mut block, &mut |e| {
        let defaulted = matches!(cx.shallow(&e.ty), Type::Var(_));
        e.ty = cx.resolve(&e.ty);
        if let (ExprKind::Lit(Lit::Int(v)), Type::Scalar(s)) = (&e.kind, &e.ty) {
            let ok = match s {
                Scalar::I32 => *v >= i32::MIN as i64 && *v <= i32::MAX as i64,
                Scalar::U32 => *v >= 0 && *v <= u32::MAX as i64,
                _ => true,
            };
            if !ok && err.is_none() {
                let hint = if defaulted { format!("; unsuffixed integer literals default to `i32`: write `{v}u32`") } else { String::new() };
                err = Some(Error::new(crate::spans::get(e.span), format!("literal out of range for `{}`{hint}", s.rust_name())));
            }
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let locals = cx.locals.iter().map(|l| Local { ty: cx.resolve(&l.ty), ..l.clone() }).collect();
    Ok(Body { locals, block })
}

fn no_recursion(fns: &[Function]) -> Result<()> {
    fn calls(f: &Function) -> Vec<FnId> {
        let mut out = Vec::new();
        visit::exprs(&f.body.block, &mut |e| {
            if let ExprKind::Call(id, _) = e.kind {
                out.push(id)
            }
        });
        out
    }
    let graph: Vec<Vec<FnId>> = fns.iter().map(calls).collect();
    fn visit(n: FnId, g: &[Vec<FnId>], state: &mut [u8]) -> Option<FnId> {
        if state[n] == 1 {
            return Some(n);
        }
        if state[n] == 2 {
            return None;
        }
        state[n] = 1;
        for &m in &g[n] {
            if let Some(c) = visit(m, g, state) {
                return Some(c);
            }
        }
        state[n] = 2;
        None
    }
    let mut state = vec![0u8; fns.len()];
    for i in 0..fns.len() {
        if let Some(c) = visit(i, &graph, &mut state) {
            return Err(Error::new(crate::spans::get(fns[c].span), format!("`{}` is recursive: WGSL does not allow recursion", fns[c].name)));
        }
    }
    Ok(())
}
