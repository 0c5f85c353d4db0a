//! naga's statements as the IR's, with every helper call inlined.
//!
//! naga evaluates an expression where a `Statement::Emit` names it; the IR
//! evaluates a tree where it is used. So an emitted load (whose value a
//! later store may change), any value used more than once, and `select`
//! (WGSL evaluates both operands, the IR has no such node) become a local
//! assigned at the emit; everything else is inlined where it is used, which
//! gives the same values: what it reads has been fixed in locals.

use super::expr::Ptr;
use super::{Cx, Rejected, R};
use crate::ir::{self, BarrierKind, Block, Builtin, Expr, ExprKind, Lit, LocalId, Place, Root, Stmt, StmtKind, Type};
use naga::{Expression, Handle, Statement};
use std::collections::{HashMap, HashSet};

/// One function being inlined (the entry point is the outermost).
pub(super) struct Frame<'f> {
    pub func: &'f naga::Function,
    pub finfo: &'f naga::valid::FunctionInfo,
    /// Each argument: a builtin, a struct of builtins, or a local.
    pub args: Vec<Arg>,
    pub locals: HashMap<Handle<naga::LocalVariable>, LocalId>,
    /// Expressions evaluated into a local at their emit or statement.
    pub values: HashMap<Handle<Expression>, LocalId>,
    /// `atomicCompareExchangeWeak`'s result: its old value and whether
    /// it exchanged.
    pub exchanged: HashMap<Handle<Expression>, (LocalId, LocalId)>,
    /// Where a helper's `return` goes; `None` in the entry point.
    pub ret: Option<Return>,
    /// Loops of this function around the statement being translated.
    pub loops: usize,
}

impl<'f> Frame<'f> {
    /// A function about to be translated, none of its locals or values
    /// made yet.
    fn new(func: &'f naga::Function, finfo: &'f naga::valid::FunctionInfo, args: Vec<Arg>, ret: Option<Return>) -> Self {
        Frame { func, finfo, args, locals: HashMap::new(), values: HashMap::new(), exchanged: HashMap::new(), ret, loops: 0 }
    }
}

/// An argument of the function being inlined.
#[derive(Debug, Clone)]
pub(super) enum Arg {
    Builtin(Builtin, Type),
    /// A struct whose members are builtins (`None`: a member that is not).
    Builtins(Vec<Option<Input>>),
    /// A builtin ld does not model (`subgroup_size`): refused where it is
    /// used, so a shader that only declares it is read.
    Unsupported(Rejected),
    Local(LocalId, Type),
    /// A pointer parameter: the caller's place (helpers are inlined).
    Ptr(super::expr::Ptr),
}

/// An entry point input: a builtin ld models, or why it does not.
pub(super) type Input = Result<(Builtin, Type), Rejected>;

/// A helper's `return`: its value's local, the flag that ends the loops
/// around a `return` taken inside them, and the `return`s in tail
/// position (nothing of the helper runs after them: no jump needed).
pub(super) struct Return {
    pub value: Option<LocalId>,
    pub flag: Option<LocalId>,
    pub tails: HashSet<*const Statement>,
}

/// The kernel's locals, shared by every inlined frame.
pub(super) struct Locals {
    pub all: Vec<ir::Local>,
}

impl Locals {
    pub fn add(&mut self, name: &str, ty: Type) -> LocalId {
        let base: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        let base = if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) || base.starts_with("ld_") { format!("v_{base}") } else { base };
        self.all.push(ir::Local { name: base, ty });
        self.all.len() - 1
    }
}

pub(super) fn load_local(id: LocalId, ty: Type, span: crate::Span) -> Expr {
    Expr { kind: ExprKind::Load(Place { root: Root::Local(id), path: Vec::new() }), ty, span }
}

pub(super) fn local_place(id: LocalId) -> Place {
    Place { root: Root::Local(id), path: Vec::new() }
}

impl Cx<'_> {
    /// The statements of `block`, in frame `fr`.
    pub(super) fn block(&mut self, fr: &mut Frame, ls: &mut Locals, block: &naga::Block) -> R<Block> {
        let mut out = Vec::new();
        for (stmt, span) in block.span_iter() {
            self.statement(fr, ls, stmt, *span, &mut out)?;
        }
        Ok(out)
    }

    fn statement(&mut self, fr: &mut Frame, ls: &mut Locals, stmt: &Statement, at: naga::Span, out: &mut Block) -> R<()> {
        let sp = self.span(at);
        let push = |out: &mut Block, kind| out.push(Stmt::new(kind, sp));
        match stmt {
            Statement::Emit(range) => {
                for h in range.clone() {
                    self.emit(fr, ls, h, out)?;
                }
            }
            Statement::Block(b) => {
                let inner = self.block(fr, ls, b)?;
                out.extend(inner);
            }
            Statement::If { condition, accept, reject } => {
                let c = self.expr(fr, ls, *condition)?;
                let a = self.block(fr, ls, accept)?;
                let r = self.block(fr, ls, reject)?;
                push(out, StmtKind::If(c, a, r));
            }
            Statement::Switch { selector, cases } => {
                let chain = self.switch(fr, ls, *selector, cases, at)?;
                out.extend(chain);
            }
            Statement::Loop { body, continuing, break_if } => {
                let continues = super::loops::continues(body);
                fr.loops += 1;
                let b = self.block(fr, ls, body);
                let c = self.block(fr, ls, continuing);
                let e = break_if.map(|e| self.expr(fr, ls, e)).transpose();
                fr.loops -= 1;
                let (mut body, mut c) = (b?, c?);
                let e = e?;
                if e.is_some() || !super::loops::plain(&c) {
                    // The IR's `continuing` holds no barrier and no jump
                    // (`break if` is one): the body runs into it, so it
                    // and the test end the body instead.
                    if continues {
                        body = self.run_once(ls, body, fr.ret.as_ref().and_then(|r| r.flag), sp);
                    }
                    body.append(&mut c);
                    body.extend(e.map(|e| Stmt::new(StmtKind::If(e, vec![Stmt::new(StmtKind::Break, sp)], Vec::new()), sp)));
                }
                let cond = super::loops::condition(&mut body);
                push(out, StmtKind::Loop(ir::Loop { cond, body, continuing: c }));
                // A helper's `return` inside this loop ends the loops around it too.
                // (The loop around it: the helper's, or the one its body runs in.)
                if let Some(flag) = fr.ret.as_ref().and_then(|r| r.flag) {
                    let f = load_local(flag, Type::BOOL, sp);
                    push(out, StmtKind::If(f, vec![Stmt::new(StmtKind::Break, sp)], Vec::new()));
                }
            }
            Statement::Break => push(out, StmtKind::Break),
            Statement::Continue => push(out, StmtKind::Continue),
            Statement::Return { value } => self.ret(fr, ls, stmt, *value, sp, out)?,
            Statement::ControlBarrier(b) => {
                // GLSL's `barrier()` is every flag at once: its workgroup
                // and storage parts order what ld checks; a subgroup part
                // adds nothing to a workgroup barrier, and a kernel ld
                // checks has no textures.
                if !b.intersects(naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE) {
                    return Err(self.reject(at, "subgroup and texture barriers are not supported"));
                }
                if b.contains(naga::Barrier::WORK_GROUP) {
                    push(out, StmtKind::Barrier(BarrierKind::Workgroup));
                }
                if b.contains(naga::Barrier::STORAGE) {
                    push(out, StmtKind::Barrier(BarrierKind::Storage));
                }
            }
            Statement::MemoryBarrier(_) => {
                return Err(self.reject(at, "a memory barrier without a control barrier is not supported: use `workgroupBarrier()` or `storageBarrier()`"))
            }
            Statement::Store { pointer, value } => {
                let v = self.expr(fr, ls, *value)?;
                self.store(fr, ls, *pointer, v, at, out)?;
            }
            Statement::Atomic { pointer, fun, value, result } => self.atomic(fr, ls, *pointer, fun, *value, *result, at, out)?,
            Statement::WorkGroupUniformLoad { pointer, result } => {
                // Its definition: a workgroup barrier, the load, a barrier.
                push(out, StmtKind::Barrier(BarrierKind::Workgroup));
                let load = self.load(fr, ls, *pointer, at)?;
                let id = ls.add(&self.name_of(fr, *result), load.ty.clone());
                push(out, StmtKind::Let(id, Some(load)));
                fr.values.insert(*result, id);
                push(out, StmtKind::Barrier(BarrierKind::Workgroup));
            }
            Statement::Call { function, arguments, result } => self.call(fr, ls, *function, arguments, *result, at, out)?,
            Statement::Kill => return Err(self.reject(at, "`discard` is a fragment shader statement")),
            Statement::ImageStore { .. } | Statement::ImageAtomic { .. } => {
                return Err(self.reject(at, "textures are not supported: ld checks storage, uniform and workgroup memory"))
            }
            Statement::SubgroupBallot { .. } | Statement::SubgroupGather { .. } | Statement::SubgroupCollectiveOperation { .. } => {
                return Err(
                    self.reject(at, "subgroup operations are not supported: their results depend on which invocations run together, which ld does not model")
                )
            }
            _ => return Err(self.reject(at, "this statement is not supported in kernels ld checks")),
        }
        Ok(())
    }

    /// A `switch` as an `if`/`else if` chain on its selector (fixed in a
    /// local), its `default` clause last. A case ends at its end: a
    /// `break` out of the switch is supported as a case's last statement.
    fn switch(&mut self, fr: &mut Frame, ls: &mut Locals, selector: Handle<Expression>, cases: &[naga::SwitchCase], at: naga::Span) -> R<Block> {
        let sp = self.span(at);
        let sel = self.expr(fr, ls, selector)?;
        let ty = sel.ty.clone();
        let id = ls.add("selector", ty.clone());
        let mut out = vec![Stmt::new(StmtKind::Let(id, Some(sel)), sp)];
        // Clauses: the values that select a body (`case 1, 2:` is two
        // cases, the first empty and falling through).
        let mut clauses: Vec<(Vec<naga::SwitchValue>, &naga::Block)> = Vec::new();
        let mut values = Vec::new();
        for c in cases {
            values.push(c.value);
            if c.fall_through {
                if !c.body.is_empty() {
                    return Err(self.reject(at, "a case that falls through into the next is not supported"));
                }
                continue;
            }
            clauses.push((std::mem::take(&mut values), &c.body));
        }
        let mut default = Vec::new();
        let mut arms = Vec::new();
        for (values, body) in clauses {
            let n = body.len();
            if switch_break(body, n) {
                return Err(self.reject(at, "a `break` out of a switch is supported as a case's last statement only"));
            }
            let mut stmts = Vec::new();
            for (stmt, span) in body.span_iter().take(if matches!(body.last(), Some(Statement::Break)) { n - 1 } else { n }) {
                self.statement(fr, ls, stmt, *span, &mut stmts)?;
            }
            if values.contains(&naga::SwitchValue::Default) {
                default = stmts;
                continue;
            }
            let mut cond: Option<Expr> = None;
            for v in values {
                let lit = match v {
                    naga::SwitchValue::I32(x) => Lit::Int(x as i64),
                    naga::SwitchValue::U32(x) => Lit::Int(x as i64),
                    naga::SwitchValue::Default => unreachable!("handled above"),
                };
                let eq = Expr {
                    kind: ExprKind::Binary(
                        ir::BinOp::Eq,
                        Box::new(load_local(id, ty.clone(), sp)),
                        Box::new(Expr { kind: ExprKind::Lit(lit), ty: ty.clone(), span: sp }),
                    ),
                    ty: Type::BOOL,
                    span: sp,
                };
                cond = Some(match cond {
                    None => eq,
                    Some(c) => Expr { kind: ExprKind::Binary(ir::BinOp::Or, Box::new(c), Box::new(eq)), ty: Type::BOOL, span: sp },
                });
            }
            if let Some(c) = cond {
                arms.push((c, stmts));
            }
        }
        let chain = arms.into_iter().rev().fold(default, |els, (c, then)| vec![Stmt::new(StmtKind::If(c, then, els), sp)]);
        out.extend(chain);
        Ok(out)
    }

    /// A loop body whose `continue`s must reach the statements put after
    /// it: the body in a loop run once, where a `continue` of the loop
    /// leaves that inner loop and a `break` leaves it with a flag set,
    /// which then breaks the loop. (`ret`: the flag of a helper's
    /// `return` taken inside, which ends every loop around it.)
    fn run_once(&mut self, ls: &mut Locals, mut body: Block, ret: Option<LocalId>, sp: crate::Span) -> Block {
        let broke = ls.add("broke", Type::BOOL);
        let flag = |b: bool| Expr { kind: ExprKind::Lit(Lit::Bool(b)), ty: Type::BOOL, span: sp };
        super::loops::retarget(&mut body, &|s: &Stmt| match s.kind {
            StmtKind::Continue => vec![Stmt::new(StmtKind::Break, s.span)],
            StmtKind::Break => vec![Stmt::new(StmtKind::Assign(local_place(broke), None, flag(true)), s.span), Stmt::new(StmtKind::Break, s.span)],
            _ => vec![s.clone()],
        });
        body.push(Stmt::new(StmtKind::Break, sp));
        let breaks = |f: LocalId| Stmt::new(StmtKind::If(load_local(f, Type::BOOL, sp), vec![Stmt::new(StmtKind::Break, sp)], Vec::new()), sp);
        let mut out =
            vec![Stmt::new(StmtKind::Let(broke, Some(flag(false))), sp), Stmt::new(StmtKind::Loop(ir::Loop { cond: None, body, continuing: Vec::new() }), sp)];
        out.extend(ret.into_iter().chain([broke]).map(breaks));
        out
    }

    /// `v[i]`, a vector value's component chosen at run time: the last
    /// component, unless `i` names another (so an index past the end
    /// gives the last, as wgpu's clamping would).
    fn vector_component(
        &mut self,
        fr: &mut Frame,
        ls: &mut Locals,
        h: Handle<Expression>,
        base: Handle<Expression>,
        index: Handle<Expression>,
        out: &mut Block,
    ) -> R<()> {
        let at = fr.func.expressions.get_span(h);
        let sp = self.span(at);
        let (v, i) = (self.expr(fr, ls, base)?, self.expr(fr, ls, index)?);
        let it = i.ty.clone();
        let i_id = ls.add(&format!("{}_index", self.name_of(fr, h)), it.clone());
        out.push(Stmt::new(StmtKind::Let(i_id, Some(i)), sp));
        let mut lanes = self.lanes(&v);
        let last = lanes.pop().expect("a vector has components");
        let id = ls.add(&self.name_of(fr, h), last.ty.clone());
        out.push(Stmt::new(StmtKind::Let(id, Some(last)), sp));
        for (k, lane) in lanes.into_iter().enumerate() {
            let k = Expr { kind: ExprKind::Lit(Lit::Int(k as i64)), ty: it.clone(), span: sp };
            let is_k = super::vectors::bin(ir::BinOp::Eq, load_local(i_id, it.clone(), sp), k, &Type::BOOL, sp);
            out.push(Stmt::new(StmtKind::If(is_k, vec![Stmt::new(StmtKind::Assign(local_place(id), None, lane), sp)], Vec::new()), sp));
        }
        fr.values.insert(h, id);
        Ok(())
    }

    /// `(vector pointer, index)` where pointer `p` is `&v[i]`: a vector's
    /// component chosen at run time.
    pub(super) fn dynamic_lane(&self, fr: &Frame, p: Handle<Expression>) -> Option<(Handle<Expression>, Handle<Expression>)> {
        let Expression::Access { base, index } = fr.func.expressions[p] else { return None };
        let to_vector = match fr.finfo[base].ty.inner_with(&self.naga.types) {
            naga::TypeInner::Pointer { base: t, .. } => matches!(self.naga.types[*t].inner, naga::TypeInner::Vector { .. }),
            naga::TypeInner::ValuePointer { size, .. } => size.is_some(),
            _ => false,
        };
        to_vector.then_some((base, index))
    }

    /// The index of `&v[i]` into a local, and a pointer to each of `v`'s
    /// lanes. A uniform vector is read from its copy (`uniform_copy`).
    fn lane_ptrs(
        &mut self,
        fr: &mut Frame,
        ls: &mut Locals,
        base: Handle<Expression>,
        index: Handle<Expression>,
        at: naga::Span,
        out: &mut Block,
    ) -> R<(LocalId, Type, Vec<Ptr>)> {
        let sp = self.span(at);
        let i = self.expr(fr, ls, index)?;
        let it = i.ty.clone();
        let i_id = ls.add("lane_index", it.clone());
        out.push(Stmt::new(StmtKind::Let(i_id, Some(i)), sp));
        let v = match self.ptr(fr, ls, base)? {
            Ptr::Uniform { first, ty } => Ptr::Place(self.uniform_copy(ls, first, ty.clone(), sp), ty),
            p => p,
        };
        let n = match &v {
            Ptr::Place(_, ty) | Ptr::Words { ty, .. } => self.vector_of(ty).map(|(_, n)| n),
            _ => None,
        };
        let Some(n) = n else { return Err(self.reject(at, "a vector in this memory indexed at run time is not supported yet: use `.x`, `.y`, ...")) };
        let lanes = (0..n).map(|k| self.member(v.clone(), k, sp, at)).collect::<R<_>>()?;
        Ok((i_id, it, lanes))
    }

    /// `branches[k]` for the lane `i` names, as a chain of `if`s: the last
    /// lane unless `i` names another (an index past the end is the last,
    /// as wgpu's clamping makes it). Exactly one lane is touched.
    fn lane_chain(&self, i_id: LocalId, it: &Type, mut branches: Vec<Block>, sp: crate::Span) -> Block {
        let last = branches.pop().expect("a vector has lanes");
        branches.into_iter().enumerate().rev().fold(last, |els, (k, then)| {
            let k_lit = Expr { kind: ExprKind::Lit(Lit::Int(k as i64)), ty: it.clone(), span: sp };
            let is_k = super::vectors::bin(ir::BinOp::Eq, load_local(i_id, it.clone(), sp), k_lit, &Type::BOOL, sp);
            vec![Stmt::new(StmtKind::If(is_k, then, els), sp)]
        })
    }

    /// `let x = v[i];` through a pointer: only the chosen lane is read.
    fn load_lane(
        &mut self,
        fr: &mut Frame,
        ls: &mut Locals,
        h: Handle<Expression>,
        base: Handle<Expression>,
        index: Handle<Expression>,
        out: &mut Block,
    ) -> R<()> {
        let at = fr.func.expressions.get_span(h);
        let sp = self.span(at);
        let ty = self.value_ty(fr, h, at)?;
        let (i_id, it, lanes) = self.lane_ptrs(fr, ls, base, index, at, out)?;
        let id = ls.add(&self.name_of(fr, h), ty);
        let mut reads = Vec::new();
        for lane in lanes {
            let value = self.load_ptr(lane, at)?;
            reads.push(vec![Stmt::new(StmtKind::Assign(local_place(id), None, value), sp)]);
        }
        out.extend(self.lane_chain(i_id, &it, reads, sp));
        fr.values.insert(h, id);
        Ok(())
    }

    /// `v[i] = x;`: the value once, then only the chosen lane written.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_lane(
        &mut self,
        fr: &mut Frame,
        ls: &mut Locals,
        base: Handle<Expression>,
        index: Handle<Expression>,
        v: Expr,
        at: naga::Span,
        out: &mut Block,
    ) -> R<()> {
        let sp = self.span(at);
        let (ty, v_id) = (v.ty.clone(), ls.add("lane_value", v.ty.clone()));
        out.push(Stmt::new(StmtKind::Let(v_id, Some(v)), sp));
        let (i_id, it, lanes) = self.lane_ptrs(fr, ls, base, index, at, out)?;
        let mut writes = Vec::new();
        for lane in lanes {
            let mut w = Vec::new();
            self.store_ptr(ls, lane, load_local(v_id, ty.clone(), sp), at, &mut w)?;
            writes.push(w);
        }
        out.extend(self.lane_chain(i_id, &it, writes, sp));
        Ok(())
    }

    /// An emitted expression: evaluated into a local where its value
    /// must be fixed here (see the module's comment).
    fn emit(&mut self, fr: &mut Frame, ls: &mut Locals, h: Handle<Expression>, out: &mut Block) -> R<()> {
        if self.is_pointer(fr, h) || fr.values.contains_key(&h) {
            return Ok(());
        }
        let expr = &fr.func.expressions[h];
        let at = fr.func.expressions.get_span(h);
        let sp = self.span(at);
        if let Expression::Select { condition, accept, reject } = expr {
            let ty = self.value_ty(fr, h, at)?;
            let (c, a, r) = (self.expr(fr, ls, *condition)?, self.expr(fr, ls, *accept)?, self.expr(fr, ls, *reject)?);
            let id = ls.add(&self.name_of(fr, h), ty);
            out.push(Stmt::new(StmtKind::Let(id, Some(r)), sp));
            if self.vector_of(&c.ty).is_some() {
                // A vector condition selects per component.
                for (i, ci) in self.lanes(&c).into_iter().enumerate() {
                    let place = Place { root: Root::Local(id), path: vec![ir::Proj::Field(i)] };
                    out.push(Stmt::new(StmtKind::If(ci, vec![Stmt::new(StmtKind::Assign(place, None, self.lane(&a, i as u32)), sp)], Vec::new()), sp));
                }
            } else {
                out.push(Stmt::new(StmtKind::If(c, vec![Stmt::new(StmtKind::Assign(local_place(id), None, a), sp)], Vec::new()), sp));
            }
            fr.values.insert(h, id);
            return Ok(());
        }
        if let Expression::Access { base, index } = *expr {
            if !self.is_pointer(fr, base) && matches!(fr.finfo[base].ty.inner_with(&self.naga.types), naga::TypeInner::Vector { .. }) {
                return self.vector_component(fr, ls, h, base, index, out);
            }
        }
        // An array value indexed at run time (a `const` table, a `let`
        // array): the IR indexes places, so the array goes to a local.
        if let Expression::Access { base, .. } = *expr {
            if !self.is_pointer(fr, base) && !fr.values.contains_key(&base) {
                let b = self.expr(fr, ls, base)?;
                let id = ls.add(&self.name_of(fr, base), b.ty.clone());
                out.push(Stmt::new(StmtKind::Let(id, Some(b)), sp));
                fr.values.insert(base, id);
            }
        }
        if let Expression::Load { pointer } = *expr {
            if let Some((base, index)) = self.dynamic_lane(fr, pointer) {
                return self.load_lane(fr, ls, h, base, index, out);
            }
        }
        let is_load = matches!(expr, Expression::Load { .. });
        // A vector's components are read one by one: fixed in a local, the
        // operation that made it runs once.
        let is_vector = matches!(fr.finfo[h].ty.inner_with(&self.naga.types), naga::TypeInner::Vector { .. });
        if is_load || is_vector || fr.finfo[h].ref_count > 1 || fr.func.named_expressions.contains_key(&h) {
            let e = self.expr(fr, ls, h)?;
            let id = ls.add(&self.name_of(fr, h), e.ty.clone());
            out.push(Stmt::new(StmtKind::Let(id, Some(e)), sp));
            fr.values.insert(h, id);
        }
        Ok(())
    }

    /// The name a local for `h` gets: the shader's `let` name, or `tN`.
    pub(super) fn name_of(&self, fr: &Frame, h: Handle<Expression>) -> String {
        fr.func.named_expressions.get(&h).cloned().unwrap_or_else(|| format!("t{}", h.index()))
    }

    fn ret(&mut self, fr: &mut Frame, ls: &mut Locals, stmt: &Statement, value: Option<Handle<Expression>>, sp: crate::Span, out: &mut Block) -> R<()> {
        let Some(ret) = fr.ret.as_ref() else {
            out.push(Stmt::new(StmtKind::Return(None), sp));
            return Ok(());
        };
        let (slot, flag, tail) = (ret.value, ret.flag, ret.tails.contains(&(stmt as *const Statement)));
        if let (Some(v), Some(slot)) = (value, slot) {
            let e = self.expr(fr, ls, v)?;
            out.push(Stmt::new(StmtKind::Assign(local_place(slot), None, e), sp));
        }
        if tail {
            return Ok(());
        }
        if let Some(flag) = flag {
            out.push(Stmt::new(StmtKind::Assign(local_place(flag), None, Expr { kind: ExprKind::Lit(Lit::Bool(true)), ty: Type::BOOL, span: sp }), sp));
        }
        // The helper's body is a loop of one iteration when it returns
        // anywhere but in tail position (see `call`).
        out.push(Stmt::new(StmtKind::Break, sp));
        Ok(())
    }

    /// A helper call, inlined: its arguments into fresh locals, its body
    /// in a loop of one iteration that its `return`s break out of.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        fr: &mut Frame,
        ls: &mut Locals,
        function: Handle<naga::Function>,
        arguments: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        at: naga::Span,
        out: &mut Block,
    ) -> R<()> {
        let sp = self.span(at);
        let func = &self.naga.functions[function];
        let finfo = &self.info[function];
        let mut args = Vec::new();
        for (a, decl) in arguments.iter().zip(&func.arguments) {
            if matches!(self.naga.types[decl.ty].inner, naga::TypeInner::Pointer { .. }) {
                // The place is fixed here: its indices are trees over
                // locals that nothing assigns again (see the module's
                // comment), so the helper reaches what the caller named.
                args.push(Arg::Ptr(self.ptr(fr, ls, *a)?));
                continue;
            }
            let ty = self.ty(decl.ty, at)?;
            let e = self.expr(fr, ls, *a)?;
            let id = ls.add(decl.name.as_deref().unwrap_or("arg"), ty.clone());
            out.push(Stmt::new(StmtKind::Let(id, Some(e)), sp));
            args.push(Arg::Local(id, ty));
        }
        let value = match (result, func.result.as_ref()) {
            (Some(r), Some(res)) => {
                let ty = self.ty(res.ty, at)?;
                let id = ls.add(&format!("{}_result", func.name.as_deref().unwrap_or("call")), ty);
                fr.values.insert(r, id);
                Some(id)
            }
            _ => None,
        };
        let tails = tail_returns(&func.body);
        let early = returns_early(&func.body, &tails);
        let flag = if early.in_loop {
            let id = ls.add("returned", Type::BOOL);
            out.push(Stmt::new(StmtKind::Let(id, Some(Expr { kind: ExprKind::Lit(Lit::Bool(false)), ty: Type::BOOL, span: sp })), sp));
            Some(id)
        } else {
            None
        };
        if let Some(v) = value {
            let ty = ls.all[v].ty.clone();
            let zero = self.zero(&ty, sp);
            out.push(Stmt::new(StmtKind::Let(v, Some(zero)), sp));
        }
        let mut inner = Frame::new(func, finfo, args, Some(Return { value, flag, tails }));
        let mut body = self.locals_init(&mut inner, ls)?;
        let mut stmts = self.block(&mut inner, ls, &func.body)?;
        body.append(&mut stmts);
        if early.anywhere {
            body.push(Stmt::new(StmtKind::Break, sp));
            out.push(Stmt::new(StmtKind::Loop(ir::Loop { cond: None, body, continuing: Vec::new() }), sp));
        } else {
            out.append(&mut body);
        }
        Ok(())
    }

    /// A frame's local variables, each declared with its initializer (or
    /// zero: WGSL zero-initializes them).
    pub(super) fn locals_init(&mut self, fr: &mut Frame, ls: &mut Locals) -> R<Block> {
        let mut out = Vec::new();
        for (h, var) in fr.func.local_variables.iter() {
            let at = fr.func.local_variables.get_span(h);
            let sp = self.span(at);
            let ty = self.ty(var.ty, at)?;
            let id = ls.add(var.name.as_deref().unwrap_or("local"), ty.clone());
            fr.locals.insert(h, id);
            // An initializer is a constant expression (naga stores a
            // runtime one as a statement).
            let init = match var.init {
                Some(e) => self.expr(fr, ls, e)?,
                None => self.zero(&ty, sp),
            };
            out.push(Stmt::new(StmtKind::Let(id, Some(init)), sp));
        }
        Ok(out)
    }

    /// The zero value of `ty`.
    pub(super) fn zero(&self, ty: &Type, sp: crate::Span) -> Expr {
        let kind = match ty {
            Type::Scalar(ir::Scalar::F32) => ExprKind::Lit(Lit::Float(0.0)),
            Type::Scalar(ir::Scalar::Bool) => ExprKind::Lit(Lit::Bool(false)),
            Type::Array(e, n) => ExprKind::ArrayRepeat(Box::new(self.zero(e, sp)), *n),
            Type::Struct(id) => ExprKind::StructLit(self.structs[*id].fields.iter().map(|(_, t)| self.zero(t, sp)).collect()),
            _ => ExprKind::Lit(Lit::Int(0)),
        };
        Expr { kind, ty: ty.clone(), span: sp }
    }

    /// The entry point as the IR's kernel.
    pub(super) fn kernel(&mut self, ep: &naga::EntryPoint, ep_info: &naga::valid::FunctionInfo) -> R<ir::Kernel> {
        let func = &ep.function;
        let mut args = Vec::new();
        for (i, a) in func.arguments.iter().enumerate() {
            args.push(self.entry_arg(a, argument_span(func, i))?);
        }
        let mut ls = Locals { all: Vec::new() };
        let mut fr = Frame::new(func, ep_info, args, None);
        let first = func.body.span_iter().next().map(|(_, s)| *s).unwrap_or_default();
        let span = self.span(first);
        let mut block = self.privates(&mut ls, span)?;
        block.append(&mut self.locals_init(&mut fr, &mut ls)?);
        block.append(&mut self.block(&mut fr, &mut ls, &func.body)?);
        block.splice(0..0, std::mem::take(&mut self.uniform_copies).into_iter().map(|(_, _, init)| init));
        Ok(ir::Kernel {
            span,
            workgroup_size: ep.workgroup_size,
            params: std::mem::take(&mut self.params),
            shared: std::mem::take(&mut self.shared),
            body: ir::Body { locals: ls.all, block },
            bounds: ir::Bounds::Clamp,
        })
    }

    /// `var<private>` globals, as locals set at the kernel's start.
    fn privates(&mut self, ls: &mut Locals, sp: crate::Span) -> R<Block> {
        let mut out = Vec::new();
        let mut privates: Vec<_> =
            self.globals.iter().filter_map(|(h, g)| if let super::globals::Global::Private { ty } = g { Some((*h, ty.clone())) } else { None }).collect();
        privates.sort_by_key(|(h, _)| h.index());
        for (h, ty) in privates {
            let var = &self.naga.global_variables[h];
            let id = ls.add(var.name.as_deref().unwrap_or("private"), ty.clone());
            let init = match var.init {
                Some(c) => self.const_expr(c, sp)?,
                None => self.zero(&ty, sp),
            };
            out.push(Stmt::new(StmtKind::Let(id, Some(init)), sp));
            self.private_locals.insert(h, id);
        }
        Ok(out)
    }

    /// Entry point argument `a`, declared at `at`.
    fn entry_arg(&mut self, a: &naga::FunctionArgument, at: naga::Span) -> R<Arg> {
        match &a.binding {
            Some(naga::Binding::BuiltIn(b)) => Ok(match builtin(*b) {
                Some((bi, ty)) => Arg::Builtin(bi, ty),
                None => Arg::Unsupported(Rejected::one(at, unsupported_builtin(*b))),
            }),
            None => {
                let naga::TypeInner::Struct { members, .. } = &self.naga.types[a.ty].inner else {
                    return Err(self.reject(at, "an entry point argument without a builtin"));
                };
                let mut out = Vec::new();
                for m in members {
                    match &m.binding {
                        Some(naga::Binding::BuiltIn(b)) => out.push(Some(builtin(*b).ok_or_else(|| Rejected::one(at, unsupported_builtin(*b))))),
                        _ => out.push(None),
                    }
                }
                Ok(Arg::Builtins(out))
            }
            Some(other) => Err(self.reject(at, format!("the entry point input {other:?} is not a compute builtin"))),
        }
    }
}

/// The IR's builtin, and its type, for a compute shader's builtin.
fn builtin(b: naga::BuiltIn) -> Option<(Builtin, Type)> {
    Some(match b {
        naga::BuiltIn::GlobalInvocationId => (Builtin::GlobalId, Type::UVec3),
        naga::BuiltIn::LocalInvocationId => (Builtin::LocalId, Type::UVec3),
        naga::BuiltIn::WorkGroupId => (Builtin::WorkgroupId, Type::UVec3),
        naga::BuiltIn::NumWorkGroups => (Builtin::NumWorkgroups, Type::UVec3),
        naga::BuiltIn::LocalInvocationIndex => (Builtin::LocalIndex, Type::U32),
        naga::BuiltIn::WorkGroupSize => (Builtin::WorkgroupSize, Type::UVec3),
        _ => return None,
    })
}

/// Where a function's `return`s that are not in tail position are:
/// anywhere, and inside a loop.
#[derive(Default)]
struct Early {
    anywhere: bool,
    in_loop: bool,
}

/// The `return`s after which nothing of the function runs: the last
/// statement of its body, or of both branches of an `if` that is itself
/// in tail position (`if c { ...; return; } else { return; }`).
fn tail_returns(body: &naga::Block) -> HashSet<*const Statement> {
    fn tail(b: &[Statement], out: &mut HashSet<*const Statement>) {
        match b.last() {
            Some(s @ Statement::Return { .. }) => {
                out.insert(s as *const Statement);
            }
            Some(Statement::If { accept, reject, .. }) => {
                tail(accept, out);
                tail(reject, out);
            }
            Some(Statement::Block(inner)) => tail(inner, out),
            _ => {}
        }
    }
    let mut out = HashSet::new();
    tail(body, &mut out);
    out
}

fn returns_early(body: &naga::Block, tails: &HashSet<*const Statement>) -> Early {
    fn scan(s: &Statement, loops: usize, tails: &HashSet<*const Statement>, e: &mut Early) {
        match s {
            Statement::Return { .. } if loops == 0 && tails.contains(&(s as *const Statement)) => {}
            Statement::Return { .. } => {
                e.anywhere = true;
                e.in_loop |= loops > 0;
            }
            Statement::Block(b) => b.iter().for_each(|s| scan(s, loops, tails, e)),
            Statement::If { accept, reject, .. } => accept.iter().chain(reject.iter()).for_each(|s| scan(s, loops, tails, e)),
            Statement::Loop { body, continuing, .. } => body.iter().chain(continuing.iter()).for_each(|s| scan(s, loops + 1, tails, e)),
            Statement::Switch { cases, .. } => cases.iter().flat_map(|c| c.body.iter()).for_each(|s| scan(s, loops, tails, e)),
            _ => {}
        }
    }
    let mut e = Early::default();
    body.iter().for_each(|s| scan(s, 0, tails, &mut e));
    e
}

/// Whether a case body breaks out of its switch anywhere but as its last
/// statement (`break`s inside its loops end those loops).
fn switch_break(body: &naga::Block, n: usize) -> bool {
    fn inner(s: &Statement) -> bool {
        match s {
            Statement::Break => true,
            Statement::Block(b) => b.iter().any(inner),
            Statement::If { accept, reject, .. } => accept.iter().chain(reject.iter()).any(inner),
            _ => false,
        }
    }
    body.iter().enumerate().any(|(i, s)| !(i + 1 == n && matches!(s, Statement::Break)) && inner(s))
}

/// Where argument `i` of `func` is declared: the span naga gives the
/// expression that reads it (none where naga kept no such expression).
fn argument_span(func: &naga::Function, i: usize) -> naga::Span {
    let reads = func.expressions.iter().find(|(_, e)| matches!(e, naga::Expression::FunctionArgument(j) if *j as usize == i));
    reads.map_or(naga::Span::default(), |(h, _)| func.expressions.get_span(h))
}

/// A builtin ld does not take, named as WGSL spells it
/// (`subgroup_invocation_id`: naga's variant name in snake case).
fn unsupported_builtin(b: naga::BuiltIn) -> String {
    let debug = format!("{b:?}");
    let variant = debug.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
    let mut name = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            name.push('_');
        }
        name.push(c.to_ascii_lowercase());
    }
    let subgroup = if name.contains("subgroup") { ": ld checks shaders without subgroup operations" } else { "" };
    format!("`@builtin({name})` is not supported in the kernels ld checks{subgroup}")
}
