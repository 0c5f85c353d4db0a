//! Barrier uniformity: WGSL requires every invocation of a workgroup to
//! reach the same barriers, so a barrier may only sit under control flow that
//! is the same for the whole workgroup. naga does not catch every case, and
//! a GPU that meets a divergent barrier hangs or corrupts silently, so we
//! reject it at compile time, pointing at the barrier and the condition.
//!
//! A value is uniform when it depends only on literals, scalar parameters,
//! `workgroup_id()`, `num_workgroups()`, read-only buffers at uniform
//! indices, and locals only ever assigned such values under uniform control.

use crate::ir::*;
use proc_macro2::Span;
use syn::Error;

pub fn check(kernel: &Kernel) -> syn::Result<()> {
    let mut a = Analysis { kernel, uniform: vec![true; kernel.body.locals.len()], changed: true, errors: None, report: false };
    // Locals only ever move from uniform to non-uniform: iterate to a fixed point.
    while a.changed {
        a.changed = false;
        a.block(&kernel.body.block, &mut Flow::uniform());
    }
    a.report = true;
    a.block(&kernel.body.block, &mut Flow::uniform());
    match a.errors {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Why control flow here may differ between invocations (the first cause).
#[derive(Clone)]
struct Flow {
    divergent: Option<(Span, &'static str)>,
    /// Set once a non-uniform `return` may have been taken.
    returned: Option<Span>,
}

impl Flow {
    fn uniform() -> Self {
        Flow { divergent: None, returned: None }
    }
    fn cause(&self) -> Option<(Span, &'static str)> {
        self.returned.map(|s| (s, "this `return` is taken by only some invocations, so they miss later barriers")).or(self.divergent)
    }
}

struct Analysis<'k> {
    kernel: &'k Kernel,
    uniform: Vec<bool>,
    changed: bool,
    errors: Option<Error>,
    report: bool,
}

/// What a loop body did that makes later iterations divergent.
#[derive(Default)]
struct Escapes {
    divergent_jump: Option<Span>,
}

impl Analysis<'_> {
    fn block(&mut self, b: &[Stmt], flow: &mut Flow) -> Escapes {
        let mut esc = Escapes::default();
        for s in b {
            let e = self.stmt(s, flow);
            if esc.divergent_jump.is_none() {
                esc.divergent_jump = e.divergent_jump;
            }
        }
        esc
    }

    fn stmt(&mut self, s: &Stmt, flow: &mut Flow) -> Escapes {
        let mut esc = Escapes::default();
        match &s.kind {
            StmtKind::Let(id, init) => {
                if let Some(e) = init {
                    let u = self.expr(e) && flow.cause().is_none();
                    self.assign_local(*id, u);
                }
            }
            StmtKind::Assign(p, _, v) => {
                let u = self.expr(v) && flow.cause().is_none() && self.place_indices(p);
                if let Root::Local(id) = p.root {
                    self.assign_local(id, u);
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::If(c, a, b) => {
                let mut inner = flow.clone();
                if !self.expr(c) && inner.divergent.is_none() {
                    inner.divergent = Some((c.span, "this condition depends on the invocation"));
                }
                let mut fa = inner.clone();
                let mut fb = inner.clone();
                let ea = self.block(a, &mut fa);
                let eb = self.block(b, &mut fb);
                flow.returned = flow.returned.or(fa.returned).or(fb.returned);
                esc.divergent_jump = ea.divergent_jump.or(eb.divergent_jump);
            }
            StmtKind::Loop(l) => {
                let mut inner = flow.clone();
                if let Some(c) = &l.cond {
                    if !self.expr(c) && inner.divergent.is_none() {
                        inner.divergent = Some((c.span, "this loop condition depends on the invocation"));
                    }
                }
                // A loop some invocations leave early diverges from then on,
                // including in its next iterations: analyse the body again
                // under that divergence if it has such a jump.
                let mut body_flow = inner.clone();
                let e = self.quiet(|a| a.block(&l.body, &mut body_flow.clone()));
                if let Some(j) = e.divergent_jump {
                    if body_flow.divergent.is_none() {
                        body_flow.divergent = Some((j, "this `break`/`continue` is taken by only some invocations"));
                    }
                }
                self.block(&l.body, &mut body_flow);
                self.block(&l.continuing, &mut body_flow.clone());
                flow.returned = flow.returned.or(body_flow.returned);
            }
            StmtKind::Break | StmtKind::Continue => {
                if flow.divergent.is_some() {
                    esc.divergent_jump = Some(s.span);
                }
            }
            StmtKind::Return(_) => {
                if flow.cause().is_some() && flow.returned.is_none() {
                    flow.returned = Some(s.span);
                }
            }
            StmtKind::Barrier(kind) => {
                if let Some((cause_span, why)) = flow.cause() {
                    let name = match kind {
                        BarrierKind::Workgroup => "barrier()",
                        BarrierKind::Storage => "storage_barrier()",
                    };
                    self.error(
                        s.span,
                        format!("`{name}` is not reached by every invocation of the workgroup: WGSL requires barriers in uniform control flow (a divergent barrier hangs or corrupts the workgroup)"),
                    );
                    self.error(cause_span, format!("{why}; move the barrier outside it, or make the condition depend only on uniform values (parameters, `workgroup_id()`, constants)"));
                }
            }
        }
        esc
    }

    fn quiet<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let r = self.report;
        self.report = false;
        let out = f(self);
        self.report = r;
        out
    }

    fn error(&mut self, span: Span, msg: String) {
        if !self.report {
            return;
        }
        let e = Error::new(span, msg);
        match &mut self.errors {
            Some(all) => all.combine(e),
            None => self.errors = Some(e),
        }
    }

    fn assign_local(&mut self, id: LocalId, uniform: bool) {
        if !uniform && self.uniform[id] {
            self.uniform[id] = false;
            self.changed = true;
        }
    }

    fn place_indices(&mut self, p: &Place) -> bool {
        let mut u = true;
        if let Root::Mem { index, .. } = &p.root {
            u &= self.expr(index);
        }
        for pr in &p.path {
            if let Proj::Index(i) = pr {
                u &= self.expr(i);
            }
        }
        u
    }

    /// Whether `e` is the same for every invocation of a workgroup.
    fn expr(&mut self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Uniform(_) => true,
            ExprKind::Builtin(b) => b.is_uniform(),
            ExprKind::Load(p) => {
                let idx = self.place_indices(p);
                let root = match &p.root {
                    Root::Local(id) => self.uniform[*id],
                    Root::Mem { mem: MemRef::Param(i), .. } => {
                        matches!(self.kernel.params[*i].kind, ParamKind::Storage { access: Access::Read, .. })
                    }
                    Root::Mem { .. } => false,
                };
                idx && root
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Component(a, _) | ExprKind::Field(a, _) | ExprKind::ArrayRepeat(a, _) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                let x = self.expr(a);
                self.expr(b) && x
            }
            ExprKind::Intrinsic(_, xs) | ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => xs.iter().fold(true, |u, x| self.expr(x) && u),
            ExprKind::Call(_, args) => {
                let mut u = true;
                for a in args {
                    match a {
                        CallArg::Value(x) => u &= self.expr(x),
                        CallArg::Slice { offset, .. } => {
                            self.expr(offset);
                            u = false;
                        }
                    }
                }
                u
            }
            ExprKind::Atomic(_, p, xs) => {
                self.place_indices(p);
                xs.iter().for_each(|x| {
                    self.expr(x);
                });
                false
            }
            ExprKind::Len(_, off) => off.as_ref().map(|o| self.expr(o)).unwrap_or(true),
        }
    }
}
