//! Statements: `let` (including shared arrays and slice windows),
//! assignment, control flow, and the desugaring of every Rust loop into the
//! IR's single loop form.

use super::expr::{compound_op, load_local, mk, Target};
use super::scope::{Binding, FnCx, MemView};
use super::types::last_ident;
use ld_compiler::ir::*;
use proc_macro2::Span;
use syn::{spanned::Spanned, Error, Result};

/// WebGPU's guaranteed `maxComputeWorkgroupStorageSize`.
const MAX_WORKGROUP_BYTES: u64 = 16384;

/// Where the value of an `if`/block expression goes.
enum Dest {
    NewLocal { id: Option<LocalId>, name: String, ty: Option<Type>, span: Span },
    Place(Place, Type),
    Return,
}

impl FnCx<'_> {
    /// A block in a new scope; `tail` receives its final expression if any.
    pub fn block(&mut self, b: &syn::Block, out: &mut Block) -> Result<()> {
        self.push_scope();
        let r = self.stmts(&b.stmts, out, None);
        self.pop_scope();
        r
    }

    /// Checks statements; a trailing expression without `;` is handed back
    /// through `tail` when the caller wants one, else it must be unit.
    fn stmts(&mut self, stmts: &[syn::Stmt], out: &mut Block, mut tail: Option<&mut Option<syn::Expr>>) -> Result<()> {
        for (i, s) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            match s {
                syn::Stmt::Local(l) => self.let_stmt(l, out)?,
                syn::Stmt::Item(_) => {} // helpers and consts were collected up front
                syn::Stmt::Macro(m) => {
                    return Err(Error::new(m.span(), format!("macro `{}!` is not supported in kernels", last_ident(&m.mac.path).unwrap_or_default())))
                }
                syn::Stmt::Expr(e, semi) => {
                    let is_value = semi.is_none() && last && !is_statement_like(e);
                    if let (true, Some(t)) = (is_value, tail.as_deref_mut()) {
                        *t = Some(e.clone());
                    } else {
                        self.expr_stmt(e, out)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The body of a function: statements, then the tail value (if any) as
    /// the return value.
    pub fn fn_body(&mut self, b: &syn::Block) -> Result<Block> {
        let mut out = Vec::new();
        let mut tail = None;
        let wants = self.ret != Type::Unit;
        self.stmts(&b.stmts, &mut out, if wants { Some(&mut tail) } else { None })?;
        if let Some(t) = tail {
            self.value_into(&t, &mut Dest::Return, &mut out)?;
        } else if self.ret != Type::Unit && !ends_in_return(&out) {
            return Err(Error::new(b.span(), "this function must end with its result value or a `return`"));
        }
        Ok(out)
    }

    fn let_stmt(&mut self, l: &syn::Local, out: &mut Block) -> Result<()> {
        let span = l.span();
        let (name, mutable, ty) = match &l.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p.ident.to_string(), p.mutability.is_some(), None),
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(p) if p.by_ref.is_none() => (p.ident.to_string(), p.mutability.is_some(), Some(self.value_type_or_shared(&pt.ty)?)),
                _ => return Err(Error::new(pt.pat.span(), "only simple `let name` patterns are supported")),
            },
            syn::Pat::Wild(_) => {
                if let Some(init) = &l.init {
                    self.expr_stmt(&init.expr, out)?;
                }
                return Ok(());
            }
            _ => return Err(Error::new(l.pat.span(), "only simple `let name` patterns are supported (no tuples or destructuring)")),
        };
        let Some(init) = &l.init else {
            let Some(ty) = ty else {
                return Err(Error::new(span, "a `let` without initializer needs a type: `let x: f32;`"));
            };
            let id = self.new_local(&name, ty, span);
            out.push(stmt(StmtKind::Let(id, None), span));
            self.bind(&name, Binding::Local { id, mutable: true });
            return Ok(());
        };
        if init.diverge.is_some() {
            return Err(Error::new(span, "`let ... else` is not supported"));
        }
        let e = &*init.expr;
        if let Some(elem_ty) = shared_decl(e, &l.pat) {
            return self.shared_decl(&name, elem_ty.as_ref(), span);
        }
        if matches!(e, syn::Expr::Reference(_)) {
            return self.window_decl(&name, e, out);
        }
        if matches!(e, syn::Expr::If(_) | syn::Expr::Block(_)) {
            let mut dest = Dest::NewLocal { id: None, name: name.clone(), ty, span };
            self.value_into(e, &mut dest, out)?;
            let Dest::NewLocal { id: Some(id), .. } = dest else { unreachable!() };
            self.bind(&name, Binding::Local { id, mutable });
            return Ok(());
        }
        let x = self.expr(e)?;
        let ty = match ty {
            Some(t) => self.unify(&t, &x.ty, e.span())?,
            None => x.ty.clone(),
        };
        if matches!(ty, Type::Unit) {
            return Err(Error::new(span, "cannot bind a value of type `()`"));
        }
        let id = self.new_local(&name, ty, span);
        out.push(stmt(StmtKind::Let(id, Some(x)), span));
        self.bind(&name, Binding::Local { id, mutable });
        Ok(())
    }

    fn value_type_or_shared(&self, ty: &syn::Type) -> Result<Type> {
        // `let s: [AtomicU32; 64] = shared();` keeps its atomic element type.
        if let syn::Type::Array(a) = ty {
            if let Some(s) = super::types::atomic_scalar(&a.elem) {
                return Ok(Type::Array(Box::new(Type::Atomic(s)), self.type_env().array_len(&a.len)?));
            }
        }
        self.value_type(ty)
    }

    fn shared_decl(&mut self, name: &str, ty: Option<&syn::Type>, span: Span) -> Result<()> {
        let Some(k) = self.kernel.as_mut() else {
            return Err(Error::new(span, "shared arrays can only be declared in a kernel body"));
        };
        let _ = k;
        if self.scope_depth() != 1 {
            return Err(Error::new(span, "shared arrays must be declared at the top level of the kernel body (they live for the whole workgroup)"));
        }
        let Some(ty) = ty else {
            return Err(Error::new(span, "give the shared array's type: `shared::<[f32; 256]>()`"));
        };
        let full = self.value_type_or_shared(ty)?;
        let Type::Array(elem, len) = full else {
            return Err(Error::new(ty.span(), "shared memory is declared as an array: `shared::<[T; N]>()`"));
        };
        let atomic = matches!(*elem, Type::Atomic(_));
        let words: u64 = self.kernel.as_ref().unwrap().shared.iter().map(|s| self.type_words(&s.elem) as u64 * s.len as u64).sum::<u64>()
            + self.type_words(&elem) as u64 * len as u64;
        if words * 4 > MAX_WORKGROUP_BYTES {
            return Err(Error::new(
                ty.span(),
                format!("the kernel's shared arrays need {} bytes of workgroup memory; WebGPU guarantees {MAX_WORKGROUP_BYTES} (`maxComputeWorkgroupStorageSize`): use fewer or smaller shared arrays", words * 4),
            ));
        }
        let k = self.kernel.as_mut().unwrap();
        k.shared.push(SharedVar { name: name.to_string(), elem: (*elem).clone(), len });
        let idx = k.shared.len() - 1;
        let view = MemView { elem: *elem, mutable: true, atomic, fixed_len: Some(len), name: name.to_string() };
        self.bind(name, Binding::Mem { mem: MemRef::Shared(idx), offset: None, len: None, view });
        Ok(())
    }

    fn window_decl(&mut self, name: &str, e: &syn::Expr, out: &mut Block) -> Result<()> {
        let span = e.span();
        let wants_mut = matches!(e, syn::Expr::Reference(r) if r.mutability.is_some());
        let (target, extra) = self.window(e)?;
        let Target::Mem { mem, offset, len, mut view } = target else {
            return Err(Error::new(span, "references are only allowed as windows into buffers and shared arrays: `&a[off..]`"));
        };
        if wants_mut && !view.mutable {
            return Err(Error::new(span, format!("cannot take a mutable window of read-only `{}`", view.name)));
        }
        view.mutable = wants_mut && view.mutable || view.atomic;
        view.name = name.to_string();
        let base = offset.map(|o| load_local(self, o, span));
        let off = match (base, extra) {
            (None, None) => None,
            (Some(b), None) => Some(b),
            (None, Some(x)) => Some(x),
            (Some(b), Some(x)) => Some(mk(ExprKind::Binary(BinOp::Add, Box::new(b), Box::new(x)), Type::U32, span)),
        };
        let offset = match off {
            Some(o) => {
                let id = self.hidden_local(&format!("{name}_offset"), Type::U32, span);
                out.push(stmt(StmtKind::Let(id, Some(o)), span));
                Some(id)
            }
            None => None,
        };
        if offset.is_some() {
            view.fixed_len = None;
        }
        self.bind(name, Binding::Mem { mem, offset, len, view });
        Ok(())
    }

    fn expr_stmt(&mut self, e: &syn::Expr, out: &mut Block) -> Result<()> {
        let span = e.span();
        match e {
            syn::Expr::If(i) => self.if_stmt(i, out),
            syn::Expr::While(w) => {
                no_label(&w.label)?;
                let cond = self.expr(&w.cond)?;
                self.unify(&cond.ty, &Type::BOOL, w.cond.span())?;
                let body = self.loop_body(&w.body, vec![])?;
                out.push(stmt(StmtKind::Loop(Loop { cond: Some(cond), body, continuing: vec![] }), span));
                Ok(())
            }
            syn::Expr::Loop(l) => {
                no_label(&l.label)?;
                let body = self.loop_body(&l.body, vec![])?;
                out.push(stmt(StmtKind::Loop(Loop { cond: None, body, continuing: vec![] }), span));
                Ok(())
            }
            syn::Expr::ForLoop(f) => self.for_loop(f, out),
            syn::Expr::Block(b) => {
                if b.label.is_some() {
                    return Err(Error::new(span, "labeled blocks are not supported"));
                }
                self.block(&b.block, out)
            }
            syn::Expr::Assign(a) => {
                let (place, ty) = self.assignable(&a.left)?;
                if matches!(&*a.right, syn::Expr::If(_) | syn::Expr::Block(_)) {
                    return self.value_into(&a.right, &mut Dest::Place(place, ty), out);
                }
                let v = self.expr(&a.right)?;
                self.unify(&ty, &v.ty, a.right.span())?;
                out.push(stmt(StmtKind::Assign(place, None, v), span));
                Ok(())
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).unwrap();
                let (place, ty) = self.assignable(&b.left)?;
                let v = self.expr(&b.right)?;
                // Type-check `place op value` exactly as the binary operator.
                let cur = mk(ExprKind::Load(place.clone()), ty, span);
                self.binary(op, cur, v.clone(), span)?;
                out.push(stmt(StmtKind::Assign(place, Some(op), v), span));
                Ok(())
            }
            syn::Expr::Break(b) => {
                no_label(&b.label)?;
                if b.expr.is_some() {
                    return Err(Error::new(span, "`break` with a value is not supported: assign the result to a `let mut` variable before `break`"));
                }
                if self.loop_depth == 0 {
                    return Err(Error::new(span, "`break` outside of a loop"));
                }
                out.push(stmt(StmtKind::Break, span));
                Ok(())
            }
            syn::Expr::Continue(c) => {
                no_label(&c.label)?;
                if self.loop_depth == 0 {
                    return Err(Error::new(span, "`continue` outside of a loop"));
                }
                out.push(stmt(StmtKind::Continue, span));
                Ok(())
            }
            syn::Expr::Return(r) => match &r.expr {
                None => {
                    if self.ret != Type::Unit {
                        return Err(Error::new(span, "this function must return a value"));
                    }
                    out.push(stmt(StmtKind::Return(None), span));
                    Ok(())
                }
                Some(v) => {
                    if self.ret == Type::Unit {
                        return Err(Error::new(span, "kernels return nothing: write results to a `&mut` buffer"));
                    }
                    self.value_into(v, &mut Dest::Return, out)
                }
            },
            syn::Expr::Call(c) if is_barrier_call(c).is_some() => {
                if self.kernel.is_none() {
                    return Err(Error::new(span, "barriers are only allowed in the kernel body, not in helpers"));
                }
                if !c.args.is_empty() {
                    return Err(Error::new(span, "barriers take no arguments"));
                }
                out.push(stmt(StmtKind::Barrier(is_barrier_call(c).unwrap()), span));
                Ok(())
            }
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) => {
                let x = self.expr(e)?;
                out.push(stmt(StmtKind::Expr(x), span));
                Ok(())
            }
            syn::Expr::Paren(p) => self.expr_stmt(&p.expr, out),
            syn::Expr::Match(_) => Err(Error::new(span, "`match` is not supported in kernels yet: use `if`/`else if`")),
            _ => {
                // Check it (for its errors), then reject: it has no effect.
                self.expr(e)?;
                Err(Error::new(span, "this expression has no effect"))
            }
        }
    }

    fn assignable(&mut self, e: &syn::Expr) -> Result<(Place, Type)> {
        match self.target(e)? {
            Target::Place { place, ty, mutable, name } => {
                if let Type::Atomic(_) = ty {
                    return Err(Error::new(e.span(), "atomic elements are written with `.store(v)` or `.fetch_add(v)`"));
                }
                if !mutable {
                    let hint = match &place.root {
                        Root::Local(id) if self.loop_vars.contains(id) => {
                            format!("`{name}` is the loop variable; copy it into a `let mut` local to change it")
                        }
                        Root::Local(_) => format!("declare it `let mut {name}`"),
                        Root::Mem { .. } => "declare it `&mut [..]` to write it".to_string(),
                    };
                    return Err(Error::new(e.span(), format!("cannot assign to `{name}`: {hint}")));
                }
                Ok((place, ty))
            }
            Target::Mem { view, .. } => Err(Error::new(e.span(), format!("cannot assign to the whole slice `{}`: assign its elements", view.name))),
            Target::Value(_) => Err(Error::new(e.span(), "cannot assign to this expression")),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf, out: &mut Block) -> Result<()> {
        let cond = self.expr(&i.cond)?;
        self.unify(&cond.ty, &Type::BOOL, i.cond.span())?;
        let mut then = Vec::new();
        self.block(&i.then_branch, &mut then)?;
        let mut els = Vec::new();
        if let Some((_, e)) = &i.else_branch {
            self.expr_stmt(e, &mut els)?;
        }
        out.push(stmt(StmtKind::If(cond, then, els), i.span()));
        Ok(())
    }

    fn loop_body(&mut self, b: &syn::Block, prefix: Block) -> Result<Block> {
        self.loop_depth += 1;
        let mut body = prefix;
        let r = self.block(b, &mut body);
        self.loop_depth -= 1;
        r.map(|_| body)
    }

    /// Puts the value of an `if`/block expression (or a plain expression)
    /// into `dest`, turning `if` expressions into statements so each branch
    /// is only evaluated when taken.
    fn value_into(&mut self, e: &syn::Expr, dest: &mut Dest, out: &mut Block) -> Result<()> {
        let span = e.span();
        match e {
            syn::Expr::Paren(p) => self.value_into(&p.expr, dest, out),
            syn::Expr::If(i) => {
                let Some((_, els)) = &i.else_branch else {
                    return Err(Error::new(span, "an `if` used as a value needs an `else`"));
                };
                let cond = self.expr(&i.cond)?;
                self.unify(&cond.ty, &Type::BOOL, i.cond.span())?;
                let mut then = Vec::new();
                self.push_scope();
                let mut tail = None;
                let r = self.stmts_with_tail(&i.then_branch.stmts, &mut then, &mut tail);
                let r = r.and_then(|_| match tail {
                    Some(t) => self.value_into(&t, dest, &mut then),
                    None => Err(Error::new(i.then_branch.span(), "this branch must end with a value")),
                });
                self.pop_scope();
                r?;
                let mut other = Vec::new();
                self.value_into(els, dest, &mut other)?;
                out.push(stmt(StmtKind::If(cond, then, other), span));
                Ok(())
            }
            syn::Expr::Block(b) => {
                self.push_scope();
                let mut tail = None;
                let r = self.stmts_with_tail(&b.block.stmts, out, &mut tail).and_then(|_| match tail {
                    Some(t) => self.value_into(&t, dest, out),
                    None => Err(Error::new(span, "this block must end with a value")),
                });
                self.pop_scope();
                r
            }
            _ => {
                let x = self.expr(e)?;
                match dest {
                    Dest::Return => {
                        let ret = self.ret.clone();
                        self.unify(&ret, &x.ty, span)?;
                        out.push(stmt(StmtKind::Return(Some(x)), span));
                    }
                    Dest::Place(p, ty) => {
                        let ty = ty.clone();
                        self.unify(&ty, &x.ty, span)?;
                        out.push(stmt(StmtKind::Assign(p.clone(), None, x), span));
                    }
                    Dest::NewLocal { id, name, ty, span: lspan } => {
                        let lid = match id {
                            Some(l) => *l,
                            None => {
                                let t = match ty {
                                    Some(t) => t.clone(),
                                    None => x.ty.clone(),
                                };
                                // Locals are function-wide in every back end, so the
                                // branches can assign it without a declaration here.
                                let l = self.new_local(name, t, *lspan);
                                *id = Some(l);
                                l
                            }
                        };
                        let lty = self.locals[lid].ty.clone();
                        self.unify(&lty, &x.ty, span)?;
                        let place = Place { root: Root::Local(lid), path: vec![] };
                        out.push(stmt(StmtKind::Assign(place, None, x), span));
                    }
                }
                Ok(())
            }
        }
    }

    fn stmts_with_tail(&mut self, stmts: &[syn::Stmt], out: &mut Block, tail: &mut Option<syn::Expr>) -> Result<()> {
        self.stmts(stmts, out, Some(tail))
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Block) -> Result<()> {
        no_label(&f.label)?;
        let span = f.span();
        let var_name = match &*f.pat {
            syn::Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() => p.ident.to_string(),
            syn::Pat::Wild(_) => "_".to_string(),
            _ => return Err(Error::new(f.pat.span(), "the loop variable must be a plain name")),
        };
        let spec = range_spec(&f.expr)?;
        let start = self.expr(spec.start)?;
        let end = self.expr(spec.end)?;
        let ty = self.unify(&start.ty, &end.ty, f.expr.span())?;
        if !self.is_int(&ty) {
            return Err(Error::new(f.expr.span(), "`for` loops run over integer ranges"));
        }
        let step = match spec.step {
            Some(s) => {
                let s = self.expr(s)?;
                self.unify(&s.ty, &ty, crate::spans::get(s.span))?;
                Some(s)
            }
            None => None,
        };
        let local = |cx: &mut Self, name: &str, init: Expr, out: &mut Block| {
            let id = cx.hidden_local(name, ty.clone(), span);
            out.push(stmt(StmtKind::Let(id, Some(init)), span));
            id
        };
        let assign = |id: LocalId, v: Expr| stmt(StmtKind::Assign(Place { root: Root::Local(id), path: vec![] }, None, v), span);
        let bin = |op: BinOp, a: Expr, b: Expr, t: Type| mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), t, span);
        let one = mk(ExprKind::Lit(Lit::Int(1)), ty.clone(), span);

        // The counter, the bound, and (for the general forms) a "more" flag.
        let (ctr, bound) = if spec.rev {
            let c = local(self, "ctr", end, out);
            let b = local(self, "lo", start, out);
            (c, b)
        } else {
            let c = local(self, "ctr", start, out);
            let b = local(self, "end", end, out);
            (c, b)
        };
        let l = |cx: &Self, id| load_local(cx, id, span);
        let step_e = match step {
            Some(s) => {
                let id = local(self, "step", s, out);
                l(self, id)
            }
            None => one.clone(),
        };

        self.push_scope();
        let var = self.new_local(&var_name, ty.clone(), f.pat.span());
        self.loop_vars.insert(var);
        self.bind(&var_name, Binding::Local { id: var, mutable: false });
        let bind_var = |cx: &Self| stmt(StmtKind::Let(var, Some(l(cx, ctr))), span);

        let simple_forward = !spec.rev && !spec.inclusive && spec.step.is_none();
        let simple_rev = spec.rev && !spec.inclusive;
        let lp = if simple_forward {
            // for (i = start; i < end; i++): the form GPU compilers like best.
            let cond = bin(BinOp::Lt, l(self, ctr), l(self, bound), Type::BOOL);
            let body = self.loop_body(&f.body, vec![bind_var(self)]);
            let inc = assign(ctr, bin(BinOp::Add, l(self, ctr), one.clone(), ty.clone()));
            Loop { cond: Some(cond), body: body?, continuing: vec![inc] }
        } else if simple_rev {
            // (lo..hi).rev(): decrement first, so `continue` needs no update.
            let cond = bin(BinOp::Gt, l(self, ctr), l(self, bound), Type::BOOL);
            let dec = assign(ctr, bin(BinOp::Sub, l(self, ctr), one.clone(), ty.clone()));
            let body = self.loop_body(&f.body, vec![dec, bind_var(self)]);
            Loop { cond: Some(cond), body: body?, continuing: vec![] }
        } else {
            // General form: a flag, so no update can overflow past the bound.
            let first = if spec.inclusive { BinOp::Le } else { BinOp::Lt };
            let init = if spec.rev { bin(first, l(self, bound), l(self, ctr), Type::BOOL) } else { bin(first, l(self, ctr), l(self, bound), Type::BOOL) };
            let more = self.hidden_local("more", Type::BOOL, span);
            out.push(stmt(StmtKind::Let(more, Some(init)), span));
            let remaining =
                if spec.rev { bin(BinOp::Sub, l(self, ctr), l(self, bound), ty.clone()) } else { bin(BinOp::Sub, l(self, bound), l(self, ctr), ty.clone()) };
            let fits = bin(if spec.inclusive { BinOp::Le } else { BinOp::Lt }, step_e.clone(), remaining, Type::BOOL);
            let advance = assign(ctr, bin(if spec.rev { BinOp::Sub } else { BinOp::Add }, l(self, ctr), step_e, ty.clone()));
            let stop = assign(more, mk(ExprKind::Lit(Lit::Bool(false)), Type::BOOL, span));
            let update = stmt(StmtKind::If(fits, vec![advance], vec![stop]), span);
            let body = self.loop_body(&f.body, vec![bind_var(self)]);
            Loop { cond: Some(l(self, more)), body: body?, continuing: vec![update] }
        };
        self.pop_scope();
        out.push(stmt(StmtKind::Loop(lp), span));
        Ok(())
    }

    fn scope_depth(&self) -> usize {
        self.scope_count()
    }
}

struct RangeSpec<'a> {
    start: &'a syn::Expr,
    end: &'a syn::Expr,
    inclusive: bool,
    step: Option<&'a syn::Expr>,
    rev: bool,
}

/// An IR statement at a place in the kernel's source.
fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt::new(kind, crate::spans::intern(span))
}

fn range_spec(e: &syn::Expr) -> Result<RangeSpec<'_>> {
    let unsupported = || Error::new(e.span(), "`for` loops run over `a..b`, `a..=b`, `(a..b).step_by(s)` or `(a..b).rev()`");
    match e {
        syn::Expr::Paren(p) => range_spec(&p.expr),
        syn::Expr::Range(r) => {
            let (Some(start), Some(end)) = (&r.start, &r.end) else {
                return Err(unsupported());
            };
            Ok(RangeSpec { start, end, inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)), step: None, rev: false })
        }
        syn::Expr::MethodCall(m) => {
            let mut inner = range_spec(&m.receiver)?;
            if inner.step.is_some() || inner.rev {
                return Err(unsupported());
            }
            match (m.method.to_string().as_str(), m.args.len()) {
                ("step_by", 1) => inner.step = Some(&m.args[0]),
                ("rev", 0) => inner.rev = true,
                _ => return Err(unsupported()),
            }
            if inner.rev && inner.step.is_some() {
                return Err(unsupported());
            }
            Ok(inner)
        }
        _ => Err(unsupported()),
    }
}

fn no_label(l: &Option<impl Spanned>) -> Result<()> {
    match l {
        Some(l) => Err(Error::new(l.span(), "loop labels are not supported in kernels")),
        None => Ok(()),
    }
}

fn is_statement_like(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::While(_) | syn::Expr::Loop(_) | syn::Expr::ForLoop(_)) || matches!(e, syn::Expr::If(i) if i.else_branch.is_none())
}

fn ends_in_return(b: &Block) -> bool {
    match b.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => true,
        Some(StmtKind::If(_, a, e)) => ends_in_return(a) && ends_in_return(e),
        Some(StmtKind::Loop(l)) => l.cond.is_none() && !has_break(&l.body),
        _ => false,
    }
}

fn has_break(b: &Block) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If(_, a, e) => has_break(a) || has_break(e),
        _ => false,
    })
}

pub fn is_barrier_call(c: &syn::ExprCall) -> Option<BarrierKind> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    if p.path.segments.len() != 1 {
        return None;
    }
    match p.path.segments[0].ident.to_string().as_str() {
        "barrier" => Some(BarrierKind::Workgroup),
        "storage_barrier" => Some(BarrierKind::Storage),
        _ => None,
    }
}

/// `shared::<[T; N]>()` or `let s: [T; N] = shared();`: the element type
/// syntax, if this initializer declares a shared array.
fn shared_decl(e: &syn::Expr, pat: &syn::Pat) -> Option<Option<syn::Type>> {
    let syn::Expr::Call(c) = e else { return None };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let seg = p.path.segments.last()?;
    if seg.ident != "shared" || !c.args.is_empty() {
        return None;
    }
    if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
        if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
            return Some(Some(t.clone()));
        }
    }
    if let syn::Pat::Type(pt) = pat {
        return Some(Some((*pt.ty).clone()));
    }
    Some(None)
}
