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
//!
//! The same flow gives the probe two more facts. An access is *own* where,
//! in every epoch it may run in that writes its array, every access of the
//! array indexes it at the invocation's own residue (`analysis::residue`):
//! no two invocations meet there, so the probe needs no tag for it (and
//! checks the residue as it runs). And a barrier need clear the tags of
//! only the arrays that a tagged access (neither settled nor own) may have
//! reached in the epochs it ends (`clears`).

use super::residue::{Fact, Frame, Residue};
use super::targets;
use crate::ir::*;
use std::collections::{BTreeSet, HashMap};

/// The barriers that may have opened an epoch (by the address of their
/// statement; [`START`] for the kernel's start). Empty: unreachable.
type Openings = BTreeSet<usize>;

/// The kernel's start, as an opening.
const START: usize = 0;

/// Marks every settled read in the kernel's body and its helpers
/// (`Root::Mem::settled`), and every access no other invocation meets
/// (`Root::Mem::own`, `analysis::residue`): in each epoch it may run in
/// where its array is written, every access of the array is at an own
/// residue.
pub fn mark(m: &mut Module) {
    let Flow { writes, seen, .. } = Flow::run(m);
    let none = Openings::new();
    let mut settled: HashMap<usize, bool> = HashMap::new();
    for s in seen.iter().filter(|s| !s.write) {
        *settled.entry(s.place).or_insert(true) &= s.at.is_disjoint(writes.get(&s.mem).unwrap_or(&none));
    }
    let own = own_places(&seen, &writes);
    let set = |p: &mut Place| {
        let key = p as *const Place as usize;
        if let Root::Mem { settled: st, own: o, .. } = &mut p.root {
            *st = settled.get(&key).copied().unwrap_or(false);
            *o = !*st && own.get(&key).copied().unwrap_or(false);
        }
    };
    let mut loads = |e: &mut Expr| {
        if let ExprKind::Load(p) = &mut e.kind {
            set(p);
        }
    };
    visit::exprs_mut(&mut m.kernel.body.block, &mut loads);
    for f in &mut m.functions {
        visit::exprs_mut(&mut f.body.block, &mut loads);
    }
    let mut stores = |st: &mut Stmt| {
        if let StmtKind::Assign(p, _, _) = &mut st.kind {
            set(p);
        }
    };
    walk_stmts_mut(&mut m.kernel.body.block, &mut stores);
    for f in &mut m.functions {
        walk_stmts_mut(&mut f.body.block, &mut stores);
    }
}

/// The places (by address) no other invocation meets: every visit of the
/// place is at an own residue, in write epochs of its array that hold only
/// such accesses. An epoch where one access is tagged is no such epoch, and
/// neither are the other epochs of its accesses: a tagged access's own
/// residue is not checked, so an untagged access of the same epoch could
/// meet it unseen. (A fixed point: untagging an epoch's accesses may
/// depend on another epoch.)
fn own_places(seen: &[Seen], writes: &HashMap<MemRef, Openings>) -> HashMap<usize, bool> {
    let none = Openings::new();
    let written = |s: &Seen| -> Openings { s.at.intersection(writes.get(&s.mem).unwrap_or(&none)).copied().collect() };
    // Per array, the write epochs that may hold own accesses alone (the
    // first round takes out those of the accesses at no own residue).
    let mut ok: HashMap<MemRef, Openings> = HashMap::new();
    for s in seen {
        ok.entry(s.mem).or_default().extend(written(s));
    }
    loop {
        let mut own: HashMap<usize, bool> = HashMap::new();
        for s in seen {
            let w = written(s);
            let fine = s.candidate && !w.is_empty() && w.is_subset(&ok[&s.mem]);
            *own.entry(s.place).or_insert(true) &= fine;
        }
        let mut changed = false;
        for s in seen.iter().filter(|s| !own[&s.place]) {
            let e = ok.get_mut(&s.mem).expect("every array seen");
            for o in written(s) {
                changed |= e.remove(&o);
            }
        }
        if !changed {
            return own;
        }
    }
}

/// The probe's tags to clear at each workgroup barrier of a marked kernel
/// (`mark`): the workgroup arrays (targets) with an access that is
/// tagged, neither settled nor own, in an epoch the barrier may end, by
/// the barrier statement's address; and those tagged anywhere. An array
/// that no tagged access reached since the last barrier holds no tag.
/// Also, per barrier (where every barrier is a workgroup barrier), the
/// barrier statements that can precede it (`None`: the kernel's start): the
/// regions it may close, one of which the probe notes by the barrier
/// before it (`ld_probe_note`).
pub struct Clears {
    /// Per workgroup barrier (by its statement's address), the arrays whose tags it clears.
    pub at: HashMap<usize, Vec<MemRef>>,
    /// Every workgroup array with a tagged access anywhere in the kernel.
    pub tagged: Vec<MemRef>,
    /// Per workgroup barrier (by its statement's address), the barriers that
    /// can precede it; empty where the kernel has a storage barrier.
    pub opened_by: HashMap<usize, Vec<Option<usize>>>,
}

/// The probe's [`Clears`] for a module whose accesses `mark` has marked.
pub fn clears(m: &Module) -> Clears {
    let mut out = Clears { at: HashMap::new(), tagged: Vec::new(), opened_by: HashMap::new() };
    let flow = Flow::run(m);
    let mut storage_barriers = false;
    walk_stmts(&m.kernel.body.block, &mut |s| storage_barriers |= matches!(s.kind, StmtKind::Barrier(BarrierKind::Storage)));
    if !storage_barriers {
        for (b, at) in &flow.barriers {
            out.opened_by.insert(*b, at.iter().map(|&o| (o != START).then_some(o)).collect());
        }
    }
    let tagged: Vec<&Seen> = flow.seen.iter().filter(|s| !s.marked).collect();
    for s in &tagged {
        if !out.tagged.contains(&s.mem) {
            out.tagged.push(s.mem);
        }
    }
    for (b, at) in &flow.barriers {
        let mut mems: Vec<MemRef> = Vec::new();
        for s in tagged.iter().filter(|s| !s.at.is_disjoint(at)) {
            if !mems.contains(&s.mem) {
                mems.push(s.mem);
            }
        }
        out.at.insert(*b, mems);
    }
    out
}

/// One access of a workgroup array (a target) where the walk met it.
struct Seen {
    /// Its place's address.
    place: usize,
    mem: MemRef,
    at: Openings,
    /// A store (else a load).
    write: bool,
    /// At an own residue (`analysis::residue`).
    candidate: bool,
    /// Already marked settled or own (`clears`, after `mark`).
    marked: bool,
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
    /// The enclosing loops' `break` and `continue` states.
    loops: Vec<Exits>,
    residue: Residue<'m>,
    /// The residue facts of the locals of the functions being walked
    /// (innermost last), and the helpers (`None`: the kernel's body).
    frames: Vec<Frame>,
    within: Vec<Option<&'m Function>>,
    /// Every access of a workgroup array, as often as the walk met it.
    seen: Vec<Seen>,
    /// Per workgroup barrier (by its statement's address), the openings
    /// of the epochs it may end.
    barriers: HashMap<usize, Openings>,
}

#[derive(Default)]
struct Exits {
    breaks: Openings,
    continues: Openings,
}

impl<'m> Flow<'m> {
    /// The walk of `m`'s body.
    fn run(m: &'m Module) -> Flow<'m> {
        let shared: Vec<MemRef> = targets::list(m).into_iter().filter(|t| matches!(t, MemRef::Shared(_))).collect();
        let residue = Residue::new(m);
        let frames = vec![residue.kernel_frame()];
        let mut flow = Flow {
            functions: &m.functions,
            shared,
            bound: Vec::new(),
            writes: HashMap::new(),
            loops: Vec::new(),
            residue,
            frames,
            within: vec![None],
            seen: Vec::new(),
            barriers: HashMap::new(),
        };
        flow.block(&m.kernel.body.block, Openings::from([START]));
        flow
    }

    /// Notes an access of `p` (at `at`; `write`: a store) where it is to
    /// a workgroup array.
    fn note(&mut self, p: &Place, at: &Openings, write: bool) {
        let Root::Mem { mem: local, index, settled, own } = &p.root else { return };
        let Some(mem) = self.resolve(*local).filter(|m| self.shared.contains(m)) else { return };
        let frame = self.frames.last().expect("a frame");
        let within = *self.within.last().expect("a function");
        let candidate = self.residue.element(frame, within, *local, index) == Some(Fact::Own);
        self.seen.push(Seen { place: p as *const Place as usize, mem, at: at.clone(), write, candidate, marked: *settled || *own });
    }

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
                self.note(p, &at, true);
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
            StmtKind::Barrier(BarrierKind::Workgroup) => {
                self.barriers.entry(s as *const Stmt as usize).or_default().extend(at);
                Openings::from([s as *const Stmt as usize])
            }
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
                self.note(p, at, false);
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
                let f = &functions[*fid];
                let frame = self.residue.helper_frame(self.frames.last().expect("a frame"), *self.within.last().expect("a function"), f, args);
                self.bound.push(binding);
                self.frames.push(frame);
                self.within.push(Some(f));
                self.block(&f.body.block, at.clone());
                self.within.pop();
                self.frames.pop();
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
