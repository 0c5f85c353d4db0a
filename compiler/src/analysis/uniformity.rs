//! Barrier uniformity: WGSL requires every invocation of a workgroup to
//! reach the same barriers, so a barrier may only sit under control flow that
//! is the same for the whole workgroup. naga does not check this (it accepts
//! a barrier under `if local_index < 3`), and a GPU that meets a divergent
//! barrier hangs or corrupts silently, so we reject it at compile time,
//! pointing at the barrier, at the condition, and at what made it vary.
//!
//! A value is uniform when it depends only on literals, scalar parameters,
//! `workgroup_id()`, `num_workgroups()`, buffers the kernel does not write
//! (declared read-only, or writable and never written, as generated
//! shaders declare every buffer) at uniform indices, and locals whose
//! assignments that may run before the read (`Point::reaches`) all
//! assign such values under uniform control.

use crate::ir::*;
use crate::Span;
use crate::{Diagnostic, Diagnostics};

/// Every barrier that some invocations of a workgroup may miss, as an
/// error at the barrier, its condition and what made that vary.
pub fn check(m: &Module) -> Result<(), Diagnostics> {
    let kernel = &m.kernel;
    let written = written(m);
    let mut points = Points::default();
    points.block(&kernel.body.block, &[]);
    let (locals, here) = (vec![Vec::new(); kernel.body.locals.len()], Point::default());
    let mut a = Analysis { kernel, written, points, here, locals, changed: true, errors: Vec::new(), report: false };
    // Locals only ever move from uniform to non-uniform: iterate to a fixed point.
    while a.changed {
        a.changed = false;
        a.block(&kernel.body.block, &mut Flow::default());
    }
    a.report = true;
    a.block(&kernel.body.block, &mut Flow::default());
    if a.errors.is_empty() {
        Ok(())
    } else {
        Err(a.errors)
    }
}

/// Why something may differ between the invocations of a workgroup.
#[derive(Clone, Debug)]
struct Cause {
    span: Span,
    why: String,
    /// The assignment that made a local non-uniform, when that is the reason.
    via: Option<(Span, String)>,
}

impl Cause {
    fn new(span: Span, why: impl Into<String>) -> Self {
        Cause { span, why: why.into(), via: None }
    }
}

/// Control flow at a point: why it may differ between invocations.
#[derive(Clone, Default)]
struct Flow {
    divergent: Option<Cause>,
    /// Set once a non-uniform `return` may have been taken.
    returned: Option<Span>,
    /// Inside a loop of one iteration (and not in a loop nested in it):
    /// a jump some invocations take makes the rest of the body divergent
    /// (there are no later iterations for it to reach).
    jumps_diverge: bool,
}

impl Flow {
    fn cause(&self) -> Option<Cause> {
        self.returned
            .map(|s| Cause::new(s, "this `return` is taken by only some invocations, so they miss the barriers after it"))
            .or_else(|| self.divergent.clone())
    }
}

struct Analysis<'k> {
    kernel: &'k Kernel,
    /// Per parameter: whether the kernel may write the buffer.
    written: Vec<bool>,
    /// Where each statement stands (`Points`), and the statement being
    /// analysed.
    points: Points,
    here: Point,
    /// Per local: its assignments of values that may differ between
    /// invocations, each with why.
    locals: Vec<Vec<(Point, Cause)>>,
    changed: bool,
    errors: Diagnostics,
    report: bool,
}

/// The jumps some invocations take out of a statement.
#[derive(Default)]
struct Escapes {
    /// A `break` (or an inlined helper's `return`): those invocations
    /// leave the loop, which diverges from then on.
    jump: Option<Span>,
    /// A `continue`: those invocations skip the rest of this iteration's
    /// body, and meet the others again at `continuing`.
    skip: Option<Span>,
}

impl Analysis<'_> {
    fn block(&mut self, b: &[Stmt], flow: &mut Flow) -> Escapes {
        let mut esc = Escapes::default();
        for (i, s) in b.iter().enumerate() {
            self.here = self.points.get(s);
            if let Some((id, place)) = uniform_load(b, i) {
                // Every invocation reads the same word: nothing between the
                // two barriers writes it (see `uniform_load`).
                let c = self.place_indices(place).or_else(|| flow.cause());
                self.assign_local(id, c, s.span);
                continue;
            }
            let e = self.stmt(s, flow);
            esc.jump = esc.jump.or(e.jump);
            esc.skip = esc.skip.or(e.skip);
            if let (true, Some(j)) = (flow.jumps_diverge, e.jump) {
                flow.divergent
                    .get_or_insert(Cause::new(j, "this `break` (or a helper's `return`) is taken by only some invocations, so they skip what follows it"));
            }
            if let Some(j) = e.skip {
                flow.divergent.get_or_insert(Cause::new(j, "this `continue` is taken by only some invocations, so they skip what follows it in the iteration"));
            }
        }
        esc
    }

    fn stmt(&mut self, s: &Stmt, flow: &mut Flow) -> Escapes {
        let mut esc = Escapes::default();
        match &s.kind {
            StmtKind::Let(id, init) => {
                if let Some(e) = init {
                    let c = self.expr(e).or_else(|| flow.cause());
                    self.assign_local(*id, c, s.span);
                }
            }
            StmtKind::Assign(p, _, v) => {
                let c = self.expr(v).or_else(|| self.place_indices(p)).or_else(|| flow.cause());
                if let Root::Local(id) = p.root {
                    self.assign_local(id, c, s.span);
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::If(c, a, b) => {
                let mut inner = flow.clone();
                if let Some(cause) = self.expr(c) {
                    inner.divergent.get_or_insert(Cause { span: c.span, why: format!("this condition is not uniform: {}", cause.why), via: cause.via });
                }
                let (mut fa, mut fb) = (inner.clone(), inner);
                let ea = self.block(a, &mut fa);
                let eb = self.block(b, &mut fb);
                flow.returned = flow.returned.or(fa.returned).or(fb.returned);
                esc.jump = ea.jump.or(eb.jump);
                esc.skip = ea.skip.or(eb.skip);
            }
            StmtKind::Loop(l) if one_iteration(l) => {
                // No later iteration: a divergent `break` affects only the
                // rest of the body (a shader helper's early `return`,
                // inlined, is such a `break`).
                let mut body_flow = Flow { jumps_diverge: true, ..flow.clone() };
                self.block(&l.body, &mut body_flow);
                flow.returned = flow.returned.or(body_flow.returned);
            }
            StmtKind::Loop(l) => {
                // A loop that some invocations leave early (a divergent
                // `break` or `return`) diverges from then on, in its later
                // iterations too: find such jumps first, quietly. (A
                // divergent `continue` only skips the rest of its
                // iteration's body: all meet again at `continuing`.)
                // (Its jumps are its own: not those of a loop of one
                // iteration around it.)
                let flow_in = Flow { jumps_diverge: false, ..flow.clone() };
                let mut probe = flow_in.clone();
                if let Some(c) = &l.cond {
                    self.here = self.points.get(s);
                    if let Some(cause) = self.quiet(|a| a.expr(c)) {
                        probe.divergent.get_or_insert(cause);
                    }
                }
                let mut probe_body = probe.clone();
                let e = self.quiet(|a| a.block(&l.body, &mut probe_body));
                let mut inner = flow_in;
                if let Some(j) = e.jump {
                    inner.divergent.get_or_insert(Cause::new(j, "this `break` is taken by only some invocations, so the loop's later iterations diverge"));
                }
                if let Some(r) = probe_body.returned.filter(|_| flow.returned.is_none()) {
                    inner.divergent.get_or_insert(Cause::new(r, "this `return` is taken by only some invocations, so the loop's later iterations diverge"));
                }
                if let Some(c) = &l.cond {
                    self.here = self.points.get(s);
                    if let Some(cause) = self.expr(c) {
                        inner.divergent.get_or_insert(Cause {
                            span: c.span,
                            why: format!("this loop condition is not uniform: {}", cause.why),
                            via: cause.via,
                        });
                    }
                }
                // `continuing` runs as the body starts: a `continue` taken
                // by some invocations has them meet the others there.
                let mut body_flow = inner.clone();
                self.block(&l.body, &mut body_flow);
                self.block(&l.continuing, &mut inner);
                flow.returned = flow.returned.or(body_flow.returned);
            }
            StmtKind::Break if flow.divergent.is_some() => esc.jump = Some(s.span),
            StmtKind::Continue if flow.divergent.is_some() => esc.skip = Some(s.span),
            StmtKind::Break | StmtKind::Continue => {}
            StmtKind::Return(_) => {
                if flow.cause().is_some() && flow.returned.is_none() {
                    flow.returned = Some(s.span);
                }
            }
            StmtKind::Barrier(kind) => {
                if let Some(cause) = flow.cause() {
                    // Named by its kind, not its spelling: the kernel may
                    // be Rust (`barrier()`) or WGSL (`workgroupBarrier()`),
                    // and the caret shows the call.
                    let name = match kind {
                        BarrierKind::Workgroup => "workgroup",
                        BarrierKind::Storage => "storage",
                    };
                    self.error(
                        s.span,
                        format!("this {name} barrier is not reached by every invocation of the workgroup: WGSL requires barriers in uniform control flow (a divergent barrier hangs or corrupts the workgroup)"),
                    );
                    self.error(
                        cause.span,
                        format!("{}; move the barrier out of it, or make it depend only on uniform values (scalar parameters, `workgroup_id()`, `num_workgroups()`, constants, buffers the kernel never writes, read at uniform indices)", cause.why),
                    );
                    if let Some((span, why)) = cause.via {
                        self.error(span, why);
                    }
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
        self.errors.push(Diagnostic::new(span, msg));
    }

    fn assign_local(&mut self, id: LocalId, cause: Option<Cause>, at: Span) {
        let Some(c) = cause else { return };
        if self.locals[id].iter().any(|(p, _)| p.at == self.here.at) {
            return;
        }
        let name = &self.kernel.body.locals[id].name;
        let via = c.via.clone().unwrap_or_else(|| (at, format!("`{name}` stops being uniform here: {}", c.why)));
        self.locals[id].push((self.here.clone(), Cause { span: at, why: format!("`{name}` may differ between invocations"), via: Some(via) }));
        self.changed = true;
    }

    /// Why local `id` may differ between invocations where it is read
    /// now: an assignment of such a value that may run before this point.
    fn local(&self, id: LocalId) -> Option<Cause> {
        self.locals[id].iter().find(|(p, _)| p.reaches(&self.here)).map(|(_, c)| c.clone())
    }

    fn place_indices(&mut self, p: &Place) -> Option<Cause> {
        let mut c = None;
        if let Root::Mem { index, .. } = &p.root {
            c = c.or(self.expr(index));
        }
        for pr in &p.path {
            if let Proj::Index(i) = pr {
                c = c.or(self.expr(i));
            }
        }
        c
    }

    fn mem_name(&self, m: MemRef) -> String {
        match m {
            MemRef::Param(i) => self.kernel.params[i].name.clone(),
            MemRef::Shared(i) => self.kernel.shared[i].name.clone(),
            MemRef::FnSlice(_) => "a slice".into(),
        }
    }

    /// `None` when `e` is the same for every invocation of a workgroup.
    fn expr(&mut self, e: &Expr) -> Option<Cause> {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Uniform(_) => None,
            ExprKind::Builtin(b) => {
                let name = match b {
                    Builtin::GlobalId => "global_id()",
                    Builtin::LocalId => "local_id()",
                    Builtin::LocalIndex => "local_index()",
                    Builtin::WorkgroupId | Builtin::NumWorkgroups | Builtin::WorkgroupSize => return None,
                };
                Some(Cause::new(e.span, format!("`{name}` differs between invocations")))
            }
            ExprKind::Load(p) => {
                let idx = self.place_indices(p);
                let root = match &p.root {
                    Root::Local(id) => self.local(*id).map(|c| Cause { span: e.span, ..c }),
                    Root::Mem { mem: MemRef::Param(i), .. } if matches!(self.kernel.params[*i].kind, ParamKind::Storage { .. }) && !self.written[*i] => None,
                    Root::Mem { mem, .. } => Some(Cause::new(
                        e.span,
                        format!("it reads `{}`, memory other invocations may write, so the value read may differ between them", self.mem_name(*mem)),
                    )),
                };
                root.or(idx)
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Component(a, _) | ExprKind::Field(a, _) | ExprKind::ArrayRepeat(a, _) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                let x = self.expr(a);
                let y = self.expr(b);
                x.or(y)
            }
            ExprKind::Intrinsic(_, xs) | ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => {
                let cs: Vec<_> = xs.iter().map(|x| self.expr(x)).collect();
                cs.into_iter().flatten().next()
            }
            ExprKind::Call(_, args) => {
                let mut c = None;
                for a in args {
                    let x = match a {
                        CallArg::Value(x) => self.expr(x),
                        CallArg::Slice { mem, offset } => {
                            self.expr(offset);
                            Some(Cause::new(e.span, format!("this helper reads `{}`, memory other invocations may write", self.mem_name(*mem))))
                        }
                    };
                    c = c.or(x);
                }
                c
            }
            ExprKind::Atomic(_, p, xs) => {
                self.place_indices(p);
                for x in xs {
                    self.expr(x);
                }
                Some(Cause::new(e.span, "an atomic operation's result differs between invocations"))
            }
            ExprKind::Len(_, off) => off.as_ref().and_then(|o| self.expr(o)),
        }
    }
}

/// WGSL's `workgroupUniformLoad(p)`, as the shader front-end writes it: a
/// workgroup barrier, a `let` of one workgroup memory place, a workgroup
/// barrier. Every invocation runs the same statements between two
/// barriers (they are uniform), and the only one here reads, so all read
/// the same value when the place's indices are uniform: the local is
/// uniform as they are. The local and the place, at `b[i]`.
fn uniform_load(b: &[Stmt], i: usize) -> Option<(LocalId, &Place)> {
    let barrier = |s: Option<&Stmt>| matches!(s.map(|s| &s.kind), Some(StmtKind::Barrier(BarrierKind::Workgroup)));
    if i == 0 || !barrier(b.get(i - 1)) || !barrier(b.get(i + 1)) {
        return None;
    }
    match &b[i].kind {
        StmtKind::Let(id, Some(Expr { kind: ExprKind::Load(p), .. })) if matches!(p.root, Root::Mem { mem: MemRef::Shared(_), .. }) => Some((*id, p)),
        _ => None,
    }
}

/// A loop that runs its body once: no condition, no continuing block,
/// a `break` as the body's last statement and no `continue` of its own.
fn one_iteration(l: &Loop) -> bool {
    fn continues(b: &[Stmt]) -> bool {
        b.iter().any(|s| match &s.kind {
            StmtKind::Continue => true,
            StmtKind::If(_, a, b) => continues(a) || continues(b),
            _ => false,
        })
    }
    l.cond.is_none() && l.continuing.is_empty() && matches!(l.body.last().map(|s| &s.kind), Some(StmtKind::Break)) && !continues(&l.body)
}

/// Per parameter, whether the kernel may write its buffer: a store into
/// it, or a helper it is passed to (which may write it), as the target
/// analysis finds them. A buffer no invocation writes holds the same
/// words through the dispatch, so reads of it at uniform indices are
/// uniform, however it is declared.
fn written(m: &Module) -> Vec<bool> {
    let targets = super::targets::list(m);
    let mut w = vec![false; m.kernel.params.len()];
    super::targets::accesses(m, &mut |t, touch| {
        if let (MemRef::Param(i), false) = (targets[t], matches!(touch, super::targets::Touch::Load(_))) {
            w[i] = true;
        }
    });
    w
}

/// A statement's place in the kernel: its rank in source order and the
/// loops around it (by their own rank). An assignment may run before a
/// read if it comes first in source order, or if a loop holds both (an
/// earlier iteration's): structured control flow has no other way back.
/// So a local assigned a varying value late in a kernel is still
/// uniform where it is read before, as WGSL's analysis (flow-sensitive)
/// has it.
#[derive(Clone, Default, PartialEq)]
struct Point {
    at: usize,
    loops: std::rc::Rc<[usize]>,
}

impl Point {
    fn reaches(&self, read: &Point) -> bool {
        self.at < read.at || self.loops.iter().any(|l| read.loops.contains(l))
    }
}

/// Every statement's `Point`, by its address (the IR is not changed while
/// it is analysed). A loop's own point counts it among its loops: its
/// condition is read at each iteration.
#[derive(Default)]
struct Points {
    of: std::collections::HashMap<*const Stmt, Point>,
}

impl Points {
    fn block(&mut self, b: &[Stmt], loops: &[usize]) {
        for s in b {
            let at = self.of.len();
            let mut inner = loops.to_vec();
            if matches!(s.kind, StmtKind::Loop(_)) {
                inner.push(at);
            }
            self.of.insert(s as *const Stmt, Point { at, loops: inner.clone().into() });
            match &s.kind {
                StmtKind::If(_, a, b) => {
                    self.block(a, loops);
                    self.block(b, loops);
                }
                StmtKind::Loop(l) => {
                    self.block(&l.body, &inner);
                    self.block(&l.continuing, &inner);
                }
                _ => {}
            }
        }
    }

    fn get(&self, s: &Stmt) -> Point {
        self.of.get(&(s as *const Stmt)).cloned().unwrap_or_default()
    }
}
