//! Settled reads: reads of a workgroup array in an epoch in which no
//! invocation of the workgroup writes it.
//!
//! A workgroup array's epoch runs from one `barrier()` to the next (a
//! `storage_barrier()` does not order workgroup memory, so it does not end
//! one). Reads that share an epoch with no write of their array cannot
//! race: there is nothing to race with, within a warp or across warps, and
//! every warp's copy holds what the epoch started with. This is the tiled
//! kernel's inner loop (load a tile, `barrier()`, read it many times,
//! `barrier()`): the reads that dominate its time need no lane tag, no
//! touched mask and no place on the region's list, in check and
//! deterministic mode alike (the paper's target analysis, 4.2, skips what
//! cannot race for the same reason).
//!
//! The analysis is a forward data flow over the body's structured control
//! flow. Its state at a statement is the set of barriers that may have
//! opened the statement's epoch (or the kernel's start). Barriers are
//! uniform (`analysis::uniformity`), so every invocation passes the same
//! barriers: a read and a write in one epoch were both opened by the same
//! barrier, which is in both their sets. A read is settled where no barrier
//! in its set opens an epoch that writes its array. A helper's body is
//! walked at each call, its slices bound to the call's memories, so its
//! reads and writes count where it is called; a read in a helper is
//! settled where it is at every call (the back ends honour the mark only
//! where the slice is bound to a workgroup array).

use super::targets;
use crate::ir::*;
use std::collections::{BTreeSet, HashMap};

/// The barriers that may have opened an epoch (by the address of their
/// statement; [`START`] for the kernel's start). Empty: unreachable.
type Openings = BTreeSet<usize>;

/// The kernel's start, as an opening.
const START: usize = 0;

/// Marks every settled read in the kernel's body and its helpers
/// (`Root::Mem::settled`).
pub fn mark(m: &mut Module) {
    let shared: Vec<MemRef> = targets::list(m).into_iter().filter(|t| matches!(t, MemRef::Shared(_))).collect();
    if shared.is_empty() {
        return;
    }
    let mut flow = Flow { functions: &m.functions, shared, bound: Vec::new(), writes: HashMap::new(), reads: HashMap::new(), loops: Vec::new() };
    flow.block(&m.kernel.body.block, Openings::from([START]));
    let Flow { writes, reads, .. } = flow;
    let none = Openings::new();
    let mut set = |e: &mut Expr| {
        if let ExprKind::Load(p) = &mut e.kind {
            if let Some(seen) = reads.get(&(p as *const Place as usize)) {
                if let Root::Mem { settled, .. } = &mut p.root {
                    *settled = seen.iter().all(|(mem, at)| at.is_disjoint(writes.get(mem).unwrap_or(&none)));
                }
            }
        }
    };
    visit::exprs_mut(&mut m.kernel.body.block, &mut set);
    for f in &mut m.functions {
        visit::exprs_mut(&mut f.body.block, &mut set);
    }
}

/// The data flow's state while it walks the body.
struct Flow<'m> {
    functions: &'m [Function],
    /// The workgroup arrays that are targets.
    shared: Vec<MemRef>,
    /// The memories the slices of the helpers being walked are bound to
    /// (innermost last), by parameter.
    bound: Vec<Vec<Option<MemRef>>>,
    /// Per array, the openings of the epochs that write it.
    writes: HashMap<MemRef, Openings>,
    /// Per read of an array (by its place's address), each array it reads
    /// (a helper's, per binding) with the openings of the epochs it may
    /// run in.
    reads: HashMap<usize, Vec<(MemRef, Openings)>>,
    /// The enclosing loops' `break` and `continue` states.
    loops: Vec<Exits>,
}

#[derive(Default)]
struct Exits {
    breaks: Openings,
    continues: Openings,
}

impl Flow<'_> {
    /// Walks `block` entered with `at`; returns the state after it.
    fn block(&mut self, block: &[Stmt], mut at: Openings) -> Openings {
        for s in block {
            at = self.stmt(s, at);
        }
        at
    }

    fn stmt(&mut self, s: &Stmt, at: Openings) -> Openings {
        match &s.kind {
            StmtKind::Let(_, e) => {
                e.iter().for_each(|e| self.expr(e, &at));
                at
            }
            StmtKind::Assign(p, _, e) => {
                self.place(p, &at);
                self.expr(e, &at);
                if let Root::Mem { mem, .. } = &p.root {
                    self.write(*mem, &at);
                }
                at
            }
            StmtKind::Expr(e) => {
                self.expr(e, &at);
                at
            }
            StmtKind::If(c, a, b) => {
                self.expr(c, &at);
                let mut after = self.block(a, at.clone());
                after.extend(self.block(b, at));
                after
            }
            StmtKind::Loop(l) => self.looped(l, at),
            StmtKind::Break => {
                self.loops.last_mut().expect("break in a loop").breaks.extend(at);
                Openings::new()
            }
            StmtKind::Continue => {
                self.loops.last_mut().expect("continue in a loop").continues.extend(at);
                Openings::new()
            }
            StmtKind::Return(e) => {
                e.iter().for_each(|e| self.expr(e, &at));
                Openings::new()
            }
            StmtKind::Barrier(BarrierKind::Workgroup) => Openings::from([s as *const Stmt as usize]),
            StmtKind::Barrier(BarrierKind::Storage) => at,
        }
    }

    /// A loop, to the fixed point of the states at its head.
    fn looped(&mut self, l: &Loop, at: Openings) -> Openings {
        let mut head = at;
        loop {
            self.loops.push(Exits::default());
            if let Some(c) = &l.cond {
                self.expr(c, &head);
            }
            let mut end = self.block(&l.body, head.clone());
            let exits = self.loops.pop().expect("the loop's exits");
            end.extend(exits.continues);
            let end = self.block(&l.continuing, end);
            let before = head.len();
            head.extend(end);
            if head.len() == before {
                // Leaving: the condition failed at the head, or a break.
                head.extend(exits.breaks);
                return head;
            }
        }
    }

    /// The kernel memory `mem` names where the walk is.
    fn resolve(&self, mem: MemRef) -> Option<MemRef> {
        match mem {
            MemRef::FnSlice(i) => self.bound.last().and_then(|b| b[i]),
            m => Some(m),
        }
    }

    fn write(&mut self, mem: MemRef, at: &Openings) {
        let Some(mem) = self.resolve(mem) else { return };
        if self.shared.contains(&mem) {
            self.writes.entry(mem).or_default().extend(at.iter().copied());
        }
    }

    fn mem_of(&self, p: &Place) -> Option<MemRef> {
        match &p.root {
            Root::Mem { mem, .. } => self.resolve(*mem),
            Root::Local(_) => None,
        }
    }

    fn place(&mut self, p: &Place, at: &Openings) {
        if let Root::Mem { index, .. } = &p.root {
            self.expr(index, at);
        }
        for pr in &p.path {
            if let Proj::Index(i) = pr {
                self.expr(i, at);
            }
        }
    }

    fn expr(&mut self, e: &Expr, at: &Openings) {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Uniform(_) | ExprKind::Builtin(_) => {}
            ExprKind::Load(p) => {
                self.place(p, at);
                if let Some(mem) = self.mem_of(p).filter(|m| self.shared.contains(m)) {
                    let seen = self.reads.entry(p as *const Place as usize).or_default();
                    match seen.iter_mut().find(|(m, _)| *m == mem) {
                        Some((_, o)) => o.extend(at.iter().copied()),
                        None => seen.push((mem, at.clone())),
                    }
                }
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Component(a, _) | ExprKind::Field(a, _) | ExprKind::ArrayRepeat(a, _) => self.expr(a, at),
            ExprKind::Binary(_, a, b) => {
                self.expr(a, at);
                self.expr(b, at);
            }
            ExprKind::Intrinsic(_, xs) | ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => xs.iter().for_each(|x| self.expr(x, at)),
            ExprKind::Call(fid, args) => {
                let mut binding = Vec::new();
                for a in args {
                    match a {
                        CallArg::Value(x) => {
                            self.expr(x, at);
                            binding.push(None);
                        }
                        CallArg::Slice { mem, offset } => {
                            self.expr(offset, at);
                            binding.push(self.resolve(*mem));
                        }
                    }
                }
                // Helpers hold no barrier: the whole call runs in `at`.
                let functions = self.functions;
                self.bound.push(binding);
                self.block(&functions[*fid].body.block, at.clone());
                self.bound.pop();
            }
            // (Atomic memory is never a target: no atomic op writes one.)
            ExprKind::Atomic(_, p, xs) => {
                self.place(p, at);
                xs.iter().for_each(|x| self.expr(x, at));
            }
            ExprKind::Len(_, off) => off.iter().for_each(|o| self.expr(o, at)),
        }
    }
}
