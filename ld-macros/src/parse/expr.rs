//! Expressions: name resolution, type inference and the mapping of Rust
//! operators, methods and builtins onto IR nodes.

use super::intrinsics::{self, Domain};
use super::scope::{Binding, FnCx, MemView, SigParam};
use super::types::last_ident;
use ld_compiler::ir::*;
use proc_macro2::Span;
use syn::{spanned::Spanned, Error, Result};

/// What an expression denotes before it is read: a place (assignable), a
/// memory (a buffer or window, only indexable), or a plain value.
pub enum Target {
    Place { place: Place, ty: Type, mutable: bool, name: String },
    Mem { mem: MemRef, offset: Option<LocalId>, len: Option<LocalId>, view: MemView },
    Value(Expr),
}

pub fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span: crate::spans::intern(span) }
}

pub fn lit_u32(v: u32, span: Span) -> Expr {
    mk(ExprKind::Lit(Lit::Int(v as i64)), Type::U32, span)
}

pub fn load_local(cx: &FnCx, id: LocalId, span: Span) -> Expr {
    mk(ExprKind::Load(Place { root: Root::Local(id), path: vec![] }), cx.locals[id].ty.clone(), span)
}

impl FnCx<'_> {
    pub fn expr(&mut self, e: &syn::Expr) -> Result<Expr> {
        let span = e.span();
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit),
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_) => {
                let t = self.target(e)?;
                self.read(t, span)
            }
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => {
                let lhs = self.expr(&b.left)?;
                let rhs = self.expr(&b.right)?;
                let op = bin_op(&b.op).ok_or_else(|| Error::new(b.op.span(), "compound assignment is a statement, not an expression"))?;
                self.binary(op, lhs, rhs, span)
            }
            syn::Expr::Cast(c) => {
                let inner = self.expr(&c.expr)?;
                let to = self.value_type(&c.ty)?;
                let Type::Scalar(to) = to else {
                    return Err(Error::new(c.ty.span(), "`as` converts between `u32`, `i32`, `f32` and `bool`"));
                };
                let from = self.shallow(&inner.ty);
                if !matches!(from, Type::Scalar(_) | Type::Var(_)) {
                    return Err(Error::new(c.expr.span(), "`as` applies to scalars only"));
                }
                if to == Scalar::Bool {
                    return Err(Error::new(c.ty.span(), "casting to `bool` is not allowed in Rust: compare with `!= 0`"));
                }
                Ok(mk(ExprKind::Cast(to, Box::new(inner)), Type::Scalar(to), span))
            }
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::MethodCall(m) => self.method_call(m),
            syn::Expr::Struct(s) => self.struct_lit(s),
            syn::Expr::Array(a) => {
                let mut elems = Vec::new();
                let mut ty = None::<Type>;
                for x in &a.elems {
                    let x = self.expr(x)?;
                    ty = Some(match ty {
                        Some(t) => self.unify(&t, &x.ty, crate::spans::get(x.span))?,
                        None => x.ty.clone(),
                    });
                    elems.push(x);
                }
                let Some(ty) = ty else { return Err(Error::new(span, "empty arrays are not allowed")) };
                let n = elems.len() as u32;
                Ok(mk(ExprKind::ArrayLit(elems), Type::Array(Box::new(ty), n), span))
            }
            syn::Expr::Repeat(r) => {
                let x = self.expr(&r.expr)?;
                let n = self.type_env().array_len(&r.len)?;
                let ty = x.ty.clone();
                Ok(mk(ExprKind::ArrayRepeat(Box::new(x), n), Type::Array(Box::new(ty), n), span))
            }
            syn::Expr::If(_) => Err(Error::new(
                span,
                "`if` expressions are supported as a whole `let` initializer, assignment value or function result, not nested inside other expressions",
            )),
            syn::Expr::Macro(m) => Err(Error::new(span, format!("macro `{}!` is not supported in kernels", last_ident(&m.mac.path).unwrap_or_default()))),
            syn::Expr::Closure(_) => Err(Error::new(span, "closures are not supported in kernels: use a helper `fn`")),
            syn::Expr::Reference(_) => {
                Err(Error::new(span, "references are only allowed as slice windows (`let w = &a[off..];`) and as slice arguments to helpers"))
            }
            syn::Expr::Tuple(_) => Err(Error::new(span, "tuples are not supported in kernels: use a struct")),
            syn::Expr::Range(_) => Err(Error::new(span, "ranges are only allowed in `for` loops and slice windows")),
            syn::Expr::Match(m) => Err(Error::new(m.match_token.span, "`match` is not supported in kernels yet: use `if`/`else if`")),
            syn::Expr::Let(l) => Err(Error::new(l.let_token.span, "`if let`/`while let` are not supported in kernels: compare with `==`")),
            syn::Expr::Unsafe(u) => Err(Error::new(u.unsafe_token.span, "`unsafe` blocks are not supported (or needed) in kernels: remove `unsafe`")),
            syn::Expr::Try(t) => Err(Error::new(t.question_token.spans[0], "the `?` operator is not supported in kernels")),
            syn::Expr::Loop(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => {
                Err(Error::new(span, "loops are statements in kernels, not values: assign the result to a `let mut` variable before `break`"))
            }
            syn::Expr::Block(_) => Err(Error::new(span, "block expressions are supported as a whole `let` initializer or assignment value only")),
            _ => Err(Error::new(span, "this expression is not supported in kernels (see KERNELS.md for the supported subset)")),
        }
    }

    pub fn type_env(&self) -> super::types::TypeEnv<'_> {
        super::types::TypeEnv { struct_names: self.struct_names, consts: self.consts }
    }

    pub fn value_type(&self, ty: &syn::Type) -> Result<Type> {
        self.type_env().value_type(ty)
    }

    fn literal(&mut self, lit: &syn::Lit) -> Result<Expr> {
        let span = lit.span();
        match lit {
            syn::Lit::Int(i) => {
                let v: u128 = i.base10_parse()?;
                let ty = match i.suffix() {
                    "" => self.int_var(),
                    "u32" => Type::U32,
                    "i32" => Type::I32,
                    "f32" => return Ok(mk(ExprKind::Lit(Lit::Float(v as f32)), Type::F32, span)),
                    s => return Err(Error::new(span, format!("`{s}` literals are not supported: kernels use `u32`, `i32` and `f32`"))),
                };
                if v > u32::MAX as u128 {
                    return Err(Error::new(span, "integer literal does not fit in 32 bits"));
                }
                Ok(mk(ExprKind::Lit(Lit::Int(v as i64)), ty, span))
            }
            syn::Lit::Float(f) => {
                if !matches!(f.suffix(), "" | "f32") {
                    return Err(Error::new(span, "only `f32` floats are supported by WGSL"));
                }
                let v: f32 = f.base10_parse()?;
                if !v.is_finite() {
                    return Err(Error::new(span, "float literal out of `f32` range"));
                }
                Ok(mk(ExprKind::Lit(Lit::Float(v)), Type::F32, span))
            }
            syn::Lit::Bool(b) => Ok(mk(ExprKind::Lit(Lit::Bool(b.value)), Type::BOOL, span)),
            _ => Err(Error::new(span, "only integer, float and bool literals are supported in kernels")),
        }
    }

    /// Reads a target as a value.
    pub fn read(&mut self, t: Target, span: Span) -> Result<Expr> {
        match t {
            Target::Value(e) => Ok(e),
            Target::Place { place, ty, .. } => {
                if let Type::Atomic(_) = ty {
                    return Err(Error::new(span, "atomic elements are read with `.load()` (every access to an atomic is atomic)"));
                }
                Ok(mk(ExprKind::Load(place), ty, span))
            }
            Target::Mem { view, .. } => Err(Error::new(span, format!("`{}` is a slice: index it (`{}[i]`) or ask its `.len()`", view.name, view.name))),
        }
    }

    /// Resolves names, indexing and field access to what they denote.
    pub fn target(&mut self, e: &syn::Expr) -> Result<Target> {
        let span = e.span();
        match e {
            syn::Expr::Paren(p) => self.target(&p.expr),
            syn::Expr::Path(p) => self.path_target(p),
            syn::Expr::Index(ix) => {
                let base = self.target(&ix.expr)?;
                let idx = self.expr(&ix.index)?;
                if !self.is_int(&idx.ty) {
                    return Err(Error::new(ix.index.span(), format!("index must be `u32` or `i32`, found `{}`", self.type_name(&idx.ty))));
                }
                match base {
                    Target::Mem { mem, offset, view, .. } => {
                        let index = match offset {
                            None => idx,
                            Some(off) => {
                                let off = load_local(self, off, span);
                                let idx = self.index_u32(idx)?;
                                mk(ExprKind::Binary(BinOp::Add, Box::new(off), Box::new(idx)), Type::U32, span)
                            }
                        };
                        let place = Place { root: Root::Mem { mem, index: Box::new(index), settled: false, own: false }, path: vec![] };
                        Ok(Target::Place { place, ty: view.elem.clone(), mutable: view.mutable, name: view.name })
                    }
                    Target::Place { mut place, ty, mutable, name } => match self.shallow(&ty) {
                        Type::Array(elem, _) => {
                            place.path.push(Proj::Index(Box::new(idx)));
                            Ok(Target::Place { place, ty: *elem, mutable, name })
                        }
                        other => Err(Error::new(ix.expr.span(), format!("cannot index a value of type `{}`", self.type_name(&other)))),
                    },
                    Target::Value(_) => {
                        Err(Error::new(ix.expr.span(), "only variables, buffers and shared arrays can be indexed: bind the array to a `let` first"))
                    }
                }
            }
            syn::Expr::Field(f) => {
                let member = match &f.member {
                    syn::Member::Named(i) => i.to_string(),
                    syn::Member::Unnamed(_) => return Err(Error::new(f.member.span(), "tuple fields are not supported")),
                };
                let base = self.target(&f.base)?;
                match base {
                    Target::Place { mut place, ty, mutable, name } => {
                        let (proj, fty) = self.member(&ty, &member, f.member.span())?;
                        place.path.push(proj);
                        Ok(Target::Place { place, ty: fty, mutable, name })
                    }
                    Target::Value(v) => {
                        let (proj, fty) = self.member(&v.ty, &member, f.member.span())?;
                        let kind = match proj {
                            Proj::Field(i) => ExprKind::Field(Box::new(v), i),
                            Proj::Component(c) => ExprKind::Component(Box::new(v), c),
                            Proj::Index(_) => unreachable!(),
                        };
                        Ok(Target::Value(mk(kind, fty, span)))
                    }
                    Target::Mem { view, .. } => Err(Error::new(span, format!("`{}` is a slice: index it before taking a field", view.name))),
                }
            }
            _ => Ok(Target::Value(self.expr(e)?)),
        }
    }

    fn member(&self, ty: &Type, member: &str, span: Span) -> Result<(Proj, Type)> {
        match self.shallow(ty) {
            Type::UVec3 => match member {
                "x" => Ok((Proj::Component(0), Type::U32)),
                "y" => Ok((Proj::Component(1), Type::U32)),
                "z" => Ok((Proj::Component(2), Type::U32)),
                _ => Err(Error::new(span, "`UVec3` has fields `x`, `y` and `z`")),
            },
            Type::Struct(id) => {
                let def = &self.structs[id];
                match def.fields.iter().position(|(n, _)| n == member) {
                    Some(i) => Ok((Proj::Field(i), def.fields[i].1.clone())),
                    None => Err(Error::new(span, format!("struct `{}` has no field `{member}`", def.name))),
                }
            }
            other => Err(Error::new(span, format!("type `{}` has no fields", self.type_name(&other)))),
        }
    }

    fn path_target(&mut self, p: &syn::ExprPath) -> Result<Target> {
        let span = p.span();
        if p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            return match self.lookup(&name) {
                Some(Binding::Local { id, mutable }) => {
                    Ok(Target::Place { place: Place { root: Root::Local(id), path: vec![] }, ty: self.locals[id].ty.clone(), mutable, name })
                }
                Some(Binding::Mem { mem, offset, len, view }) => Ok(Target::Mem { mem, offset, len, view }),
                Some(Binding::Uniform(i)) => {
                    let ty = match &self.kernel.as_ref().unwrap().params[i].kind {
                        ParamKind::Uniform { ty } => Type::Scalar(*ty),
                        _ => unreachable!(),
                    };
                    Ok(Target::Value(mk(ExprKind::Uniform(i), ty, span)))
                }
                Some(Binding::Const(l, t)) => Ok(Target::Value(mk(ExprKind::Lit(l), t, span))),
                None => Err(Error::new(span, format!("cannot find `{name}` in this kernel"))),
            };
        }
        // `u32::MAX`, `f32::consts::PI`, ...
        let lit = super::consts::named(&p.path, span)?;
        Ok(Target::Value(mk(ExprKind::Lit(lit.0), lit.1, span)))
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Result<Expr> {
        let span = u.span();
        // `-2147483648i32` must not overflow while negating the literal.
        if let (syn::UnOp::Neg(_), syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) = (&u.op, &*u.expr) {
            let v: i64 = i.base10_parse()?;
            if v == 1 << 31 {
                return Ok(mk(ExprKind::Lit(Lit::Int(i32::MIN as i64)), Type::I32, span));
            }
        }
        let x = self.expr(&u.expr)?;
        match u.op {
            syn::UnOp::Neg(_) => {
                if self.shallow(&x.ty) == Type::U32 {
                    return Err(Error::new(span, "cannot negate a `u32`: use `0u32.wrapping_sub(x)` or `!x + 1`"));
                }
                if !self.is_numeric(&x.ty) {
                    return Err(Error::new(span, format!("cannot negate `{}`", self.type_name(&x.ty))));
                }
                if let ExprKind::Lit(Lit::Float(f)) = x.kind {
                    return Ok(mk(ExprKind::Lit(Lit::Float(-f)), Type::F32, span));
                }
                let ty = x.ty.clone();
                Ok(mk(ExprKind::Unary(UnOp::Neg, Box::new(x)), ty, span))
            }
            syn::UnOp::Not(_) => {
                if !(self.is_bool(&x.ty) || self.is_int(&x.ty)) {
                    return Err(Error::new(span, format!("cannot apply `!` to `{}`", self.type_name(&x.ty))));
                }
                let ty = x.ty.clone();
                Ok(mk(ExprKind::Unary(UnOp::Not, Box::new(x)), ty, span))
            }
            syn::UnOp::Deref(_) => Err(Error::new(span, "dereferencing is not supported in kernels")),
            _ => Err(Error::new(span, "unsupported unary operator")),
        }
    }

    pub fn binary(&mut self, op: BinOp, lhs: Expr, rhs: Expr, span: Span) -> Result<Expr> {
        let ty = if op.is_shift() {
            if !self.is_int(&lhs.ty) || !self.is_int(&rhs.ty) {
                return Err(Error::new(span, "shifts apply to integers"));
            }
            lhs.ty.clone()
        } else if op.is_logical() {
            self.unify(&lhs.ty, &Type::BOOL, crate::spans::get(lhs.span))?;
            self.unify(&rhs.ty, &Type::BOOL, crate::spans::get(rhs.span))?;
            Type::BOOL
        } else {
            let t = self.unify(&lhs.ty, &rhs.ty, span)?;
            let ok = match op {
                BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => self.is_int(&t) || self.is_bool(&t),
                BinOp::Eq | BinOp::Ne => true,
                _ if op.is_comparison() => self.is_numeric(&t),
                _ => self.is_numeric(&t),
            };
            if !ok || matches!(self.shallow(&t), Type::Struct(_) | Type::Array(..) | Type::UVec3) {
                return Err(Error::new(span, format!("operator `{}` does not apply to `{}`", op.symbol(), self.type_name(&t))));
            }
            if op.is_comparison() {
                Type::BOOL
            } else {
                t
            }
        };
        Ok(mk(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), ty, span))
    }

    /// Converts an index to `u32` (window offsets are `u32`; a negative
    /// `i32` index becomes a huge one and is caught as out of bounds).
    pub fn index_u32(&mut self, e: Expr) -> Result<Expr> {
        match self.shallow(&e.ty) {
            Type::Var(_) => {
                self.unify(&e.ty, &Type::U32, crate::spans::get(e.span))?;
                Ok(e)
            }
            Type::Scalar(Scalar::U32) => Ok(e),
            _ => {
                let span = e.span;
                Ok(Expr { kind: ExprKind::Cast(Scalar::U32, Box::new(e)), ty: Type::U32, span })
            }
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> Result<Expr> {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            return Err(Error::new(c.func.span(), "only named functions can be called in kernels"));
        };
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let name = segs.last().unwrap().as_str();
        if segs.len() == 1 {
            if let Some(b) = builtin(name) {
                if self.kernel.is_none() {
                    return Err(Error::new(span, format!("`{name}()` is only available in the kernel body: pass it to the helper as an argument")));
                }
                if !c.args.is_empty() {
                    return Err(Error::new(span, format!("`{name}()` takes no arguments")));
                }
                let ty = if b == Builtin::LocalIndex { Type::U32 } else { Type::UVec3 };
                return Ok(mk(ExprKind::Builtin(b), ty, span));
            }
            if matches!(name, "barrier" | "storage_barrier") {
                return Err(Error::new(span, format!("`{name}()` is a statement: write `{name}();`")));
            }
            if name == "shared" {
                return Err(Error::new(span, "`shared::<[T; N]>()` must be the whole initializer of a `let` at the top of the kernel body"));
            }
            if let Some(&id) = self.fn_names.get(name) {
                return self.helper_call(id, c, span);
            }
            return Err(Error::new(
                c.func.span(),
                format!("cannot find function `{name}`: helpers must be defined in the kernel body or the `#[ld::kernels]` module"),
            ));
        }
        // `f32::sqrt(x)`-style calls: the first argument is the receiver.
        if segs.len() == 2 && matches!(segs[0].as_str(), "f32" | "u32" | "i32") {
            if segs[0] == "f32" && name == "from_bits" {
                let [arg] = &c.args.iter().collect::<Vec<_>>()[..] else {
                    return Err(Error::new(span, "`f32::from_bits` takes one argument"));
                };
                let x = self.expr(arg)?;
                self.unify(&x.ty, &Type::U32, crate::spans::get(x.span))?;
                return Ok(mk(ExprKind::Intrinsic(Intrinsic::Bitcast(Scalar::F32), vec![x]), Type::F32, span));
            }
            let mut args = c.args.iter();
            let Some(recv) = args.next() else {
                return Err(Error::new(span, "missing argument"));
            };
            let recv = self.expr(recv)?;
            let ty = self.value_type(&syn::parse_str(&segs[0]).unwrap())?;
            self.unify(&recv.ty, &ty, crate::spans::get(recv.span))?;
            let rest: Vec<syn::Expr> = args.cloned().collect();
            return self.number_method(recv, name, &rest, span);
        }
        if matches!(name, "fence" | "compiler_fence") {
            return Err(Error::new(
                c.func.span(),
                "memory fences are not supported in kernels: order memory with `barrier()` (workgroup memory) or `storage_barrier()` (storage) between the accesses, or use atomics",
            ));
        }
        Err(Error::new(c.func.span(), format!("`{}` is not supported in kernels", segs.join("::"))))
    }

    fn helper_call(&mut self, id: FnId, c: &syn::ExprCall, span: Span) -> Result<Expr> {
        let sig = self.fn_sigs[id].clone();
        if sig.params.len() != c.args.len() {
            return Err(Error::new(span, format!("`{}` takes {} arguments, {} given", sig.name, sig.params.len(), c.args.len())));
        }
        let mut args = Vec::new();
        for (p, a) in sig.params.iter().zip(&c.args) {
            match p {
                SigParam::Value(_, ty) => {
                    let x = self.expr(a)?;
                    self.unify(&x.ty, ty, a.span())?;
                    args.push(CallArg::Value(x));
                }
                SigParam::Slice(pname, want) => args.push(self.slice_arg(a, pname, want)?),
            }
        }
        Ok(mk(ExprKind::Call(id, args), sig.ret.clone(), span))
    }

    /// A slice argument: a buffer, shared array or window, possibly written
    /// as `&x`, `&mut x`, `&x[a..]` or `&mut x[a..]`.
    fn slice_arg(&mut self, a: &syn::Expr, pname: &str, want: &MemView) -> Result<CallArg> {
        let (target, offset) = self.window(a)?;
        let Target::Mem { mem, offset: base, view, .. } = target else {
            return Err(Error::new(a.span(), format!("parameter `{pname}` takes a slice: pass a buffer, a shared array or a window of one")));
        };
        if view.elem != want.elem || view.atomic != want.atomic {
            return Err(Error::new(a.span(), format!("`{}` does not have the element type of parameter `{pname}`", view.name)));
        }
        if want.mutable && !view.mutable {
            return Err(Error::new(a.span(), format!("parameter `{pname}` writes its slice but `{}` is read-only", view.name)));
        }
        let span = a.span();
        let mut off = match base {
            Some(b) => load_local(self, b, span),
            None => lit_u32(0, span),
        };
        if let Some(o) = offset {
            off = mk(ExprKind::Binary(BinOp::Add, Box::new(off), Box::new(o)), Type::U32, span);
        }
        Ok(CallArg::Slice { mem, offset: off })
    }

    /// `x`, `&x`, `&mut x`, `&x[a..]`, `&x[a..b]`: a memory target and the
    /// extra offset (and end) of the window, as `u32` expressions.
    pub fn window(&mut self, e: &syn::Expr) -> Result<(Target, Option<Expr>)> {
        let (inner, _mutable) = match e {
            syn::Expr::Reference(r) => (&*r.expr, r.mutability.is_some()),
            other => (other, false),
        };
        if let syn::Expr::Index(ix) = inner {
            if let syn::Expr::Range(r) = &*ix.index {
                let base = self.target(&ix.expr)?;
                if !matches!(base, Target::Mem { .. }) {
                    return Err(Error::new(ix.expr.span(), "windows (`&x[a..]`) are taken of buffers and shared arrays"));
                }
                if r.end.is_some() {
                    return Err(Error::new(r.span(), "windows are open-ended: write `&x[start..]`"));
                }
                let start = match &r.start {
                    Some(s) => {
                        let s = self.expr(s)?;
                        Some(self.index_u32(s)?)
                    }
                    None => None,
                };
                return Ok((base, start));
            }
        }
        Ok((self.target(inner)?, None))
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Result<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        let args: Vec<syn::Expr> = m.args.iter().cloned().collect();
        if let Some(op) = intrinsics::atomic(&name) {
            let recv = self.target(&m.receiver)?;
            if let Target::Mem { view, .. } = &recv {
                return Err(slice_method(&m.method, &name, &view.name));
            }
            if let Target::Place { place, ty: Type::Atomic(s), .. } = recv {
                return self.atomic_call(op, place, s, &args, span);
            }
            if name != "swap" && name != "load" {
                return Err(Error::new(m.receiver.span(), format!("`.{name}()` applies to elements of atomic slices (`&[AtomicU32]`)")));
            }
            let t = self.read(recv, m.receiver.span())?;
            return self.number_method(t, &name, &args, span);
        }
        if name == "len" {
            let recv = self.target(&m.receiver)?;
            let Target::Mem { mem, offset, view, .. } = recv else {
                return Err(Error::new(m.receiver.span(), "`.len()` applies to buffers, shared arrays and windows"));
            };
            let off = offset.map(|o| Box::new(load_local(self, o, span)));
            if let Some(n) = view.fixed_len {
                if off.is_none() {
                    return Ok(lit_u32(n, span));
                }
            }
            return Ok(mk(ExprKind::Len(mem, off), Type::U32, span));
        }
        let recv = match &*m.receiver {
            syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_) => match self.target(&m.receiver)? {
                Target::Place { ty: Type::Atomic(_), .. } => return Err(unknown_atomic(&m.method, &name)),
                Target::Mem { view, .. } => return Err(slice_method(&m.method, &name, &view.name)),
                t => self.read(t, m.receiver.span())?,
            },
            _ => self.expr(&m.receiver)?,
        };
        self.number_method(recv, &name, &args, span)
    }

    fn atomic_call(&mut self, op: AtomicOp, place: Place, s: Scalar, args: &[syn::Expr], span: Span) -> Result<Expr> {
        let mut args = args.to_vec();
        // Accept Rust's `Ordering::Relaxed` argument: WGSL atomics are relaxed.
        if args.len() == op.arity() + 1 {
            let last = args.pop().unwrap();
            let ok = matches!(&last, syn::Expr::Path(p) if last_ident(&p.path).as_deref() == Some("Relaxed"));
            if !ok {
                return Err(Error::new(last.span(), "WGSL atomics are relaxed: pass `Ordering::Relaxed` or no ordering"));
            }
        }
        if args.len() != op.arity() {
            return Err(Error::new(span, format!("this atomic operation takes {} argument(s)", op.arity())));
        }
        if matches!(op, AtomicOp::Load) || args.is_empty() {
            return Ok(mk(ExprKind::Atomic(op, place, vec![]), Type::Scalar(s), span));
        }
        let mut xs = Vec::new();
        for a in &args {
            let x = self.expr(a)?;
            self.unify(&x.ty, &Type::Scalar(s), crate::spans::get(x.span))?;
            xs.push(x);
        }
        let ty = if op == AtomicOp::Store { Type::Unit } else { Type::Scalar(s) };
        Ok(mk(ExprKind::Atomic(op, place, xs), ty, span))
    }

    fn number_method(&mut self, recv: Expr, name: &str, args: &[syn::Expr], span: Span) -> Result<Expr> {
        if matches!(name, "wrapping_add" | "wrapping_sub" | "wrapping_mul") {
            let [a] = args else {
                return Err(Error::new(span, format!("`{name}` takes one argument")));
            };
            let rhs = self.expr(a)?;
            let op = match name {
                "wrapping_add" => BinOp::Add,
                "wrapping_sub" => BinOp::Sub,
                _ => BinOp::Mul,
            };
            if !self.is_int(&recv.ty) {
                return Err(Error::new(span, format!("`{name}` applies to integers")));
            }
            return self.binary(op, recv, rhs, span);
        }
        if name == "powi" {
            let [a] = args else {
                return Err(Error::new(span, "`powi` takes one argument"));
            };
            let e = self.expr(a)?;
            self.unify(&e.ty, &Type::I32, crate::spans::get(e.span))?;
            self.unify(&recv.ty, &Type::F32, crate::spans::get(recv.span))?;
            return Ok(mk(ExprKind::Intrinsic(Intrinsic::Powi, vec![recv, e]), Type::F32, span));
        }
        if name == "recip" {
            self.unify(&recv.ty, &Type::F32, crate::spans::get(recv.span))?;
            let one = mk(ExprKind::Lit(Lit::Float(1.0)), Type::F32, span);
            return self.binary(BinOp::Div, one, recv, span);
        }
        let Some(info) = intrinsics::method(name) else {
            return Err(Error::new(span, format!("method `{name}` is not supported in kernels (see KERNELS.md for the list)")));
        };
        if args.len() != info.extra_args {
            return Err(Error::new(span, format!("`{name}` takes {} argument(s)", info.extra_args)));
        }
        let ok = match info.domain {
            Domain::Float => {
                if matches!(self.shallow(&recv.ty), Type::Var(_)) && self.is_float(&recv.ty) {
                    self.unify(&recv.ty, &Type::F32, span)?;
                }
                self.is_float(&recv.ty)
            }
            Domain::Int => self.is_int(&recv.ty),
            Domain::Number => self.is_numeric(&recv.ty),
        };
        if !ok {
            return Err(Error::new(span, format!("`{name}` does not apply to `{}`", self.type_name(&recv.ty))));
        }
        let ty = if info.returns_u32 { Type::U32 } else { recv.ty.clone() };
        let mut xs = vec![recv];
        for a in args {
            let x = self.expr(a)?;
            self.unify(&x.ty, &xs[0].ty, crate::spans::get(x.span))?;
            xs.push(x);
        }
        Ok(mk(ExprKind::Intrinsic(info.intrinsic, xs), ty, span))
    }

    fn struct_lit(&mut self, s: &syn::ExprStruct) -> Result<Expr> {
        let span = s.span();
        let name = last_ident(&s.path).unwrap_or_default();
        let Some(&id) = self.struct_names.get(&name) else {
            return Err(Error::new(s.path.span(), format!("unknown struct `{name}`")));
        };
        if s.rest.is_some() {
            return Err(Error::new(span, "`..` in struct literals is not supported"));
        }
        let def = self.structs[id].clone();
        let mut vals: Vec<Option<Expr>> = vec![None; def.fields.len()];
        for f in &s.fields {
            let syn::Member::Named(fname) = &f.member else {
                return Err(Error::new(f.span(), "named fields only"));
            };
            let Some(i) = def.fields.iter().position(|(n, _)| fname == n) else {
                return Err(Error::new(f.member.span(), format!("struct `{name}` has no field `{fname}`")));
            };
            let x = self.expr(&f.expr)?;
            self.unify(&x.ty, &def.fields[i].1, crate::spans::get(x.span))?;
            vals[i] = Some(x);
        }
        let mut out = Vec::new();
        for (i, v) in vals.into_iter().enumerate() {
            match v {
                Some(v) => out.push(v),
                None => return Err(Error::new(span, format!("missing field `{}` in `{name}`", def.fields[i].0))),
            }
        }
        Ok(mk(ExprKind::StructLit(out), Type::Struct(id), span))
    }
}

pub fn builtin(name: &str) -> Option<Builtin> {
    Some(match name {
        "global_id" => Builtin::GlobalId,
        "local_id" => Builtin::LocalId,
        "workgroup_id" => Builtin::WorkgroupId,
        "num_workgroups" => Builtin::NumWorkgroups,
        "local_index" => Builtin::LocalIndex,
        "workgroup_size" => Builtin::WorkgroupSize,
        _ => return None,
    })
}

pub fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        _ => return None,
    })
}

pub fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

/// A method called on a buffer, shared array or window: they have only
/// `.len()`; the rest is indexing.
fn slice_method(method: &syn::Ident, name: &str, slice: &str) -> Error {
    let how = match name {
        "swap" => format!("swap through a local (`let t = {slice}[i]; {slice}[i] = {slice}[j]; {slice}[j] = t;`)"),
        _ => format!("index them (`{slice}[i]`) or ask their `.len()`"),
    };
    Error::new(method.span(), format!("slices have no `.{name}()` in kernels: {how}"))
}

/// A method of an atomic element that is not one of ld's atomic operations.
fn unknown_atomic(method: &syn::Ident, name: &str) -> Error {
    let hint = match name {
        "compare_exchange" | "compare_exchange_weak" => {
            " (a compare-exchange is `.compare_and_swap(current, new)`: it returns the value the element held and stores `new` where that was `current`, never failing spuriously)"
        }
        "fetch_update" | "fetch_nand" => " (write it as a loop of `.load()` and `.compare_and_swap(current, new)`)",
        _ => "",
    };
    Error::new(
        method.span(),
        format!(
            "`.{name}()` is not an atomic operation kernels have: atomic elements take `.load()`, `.store(v)`, `.swap(v)`, `.compare_and_swap(current, new)` and `.fetch_add`, `_sub`, `_max`, `_min`, `_and`, `_or`, `_xor` (each with an optional `Ordering::Relaxed`){hint}"
        ),
    )
}
