//! Own residues: indices of a workgroup array that are the invocation's
//! local index plus a multiple of the workgroup's invocations W
//! (`s_hist[k * THREAD_N + tid]`, histogram64's per-invocation columns of
//! sub-histograms; `s[tid]`). Two invocations' residues modulo W differ,
//! so such indices never meet: where every access of an array that a
//! write can meet in an epoch has one, no two invocations share a word of
//! it there, and the probe needs no tag (an atomic per access, most of
//! histogram64's probe) and no clearing for them (`analysis::settled`).
//!
//! The forms are recognised syntactically: `local_index()` (or in a
//! one-dimensional workgroup `local_id().x` or `global_id().x`), plus terms
//! with a constant factor that W divides, through casts, locals bound once
//! and never assigned, and a helper's parameters and slice offsets bound to
//! such forms at its call. The recognition is a prediction, not a proof
//! (`u32` arithmetic wraps, and a multiple of W wraps to one of W only
//! where W is a power of two): the probe checks each such access's residue
//! as it runs and, where one differs, cuts its run short (the engine runs).

use super::targets::{assigned_in, bound_once_in, grow_locals};
use crate::ir::*;

/// What an index expression is modulo W.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fact {
    /// The invocation's local index.
    Own,
    /// Zero.
    Multiple,
    /// A vector whose `x` is the invocation's local index (`let lid =
    /// local_id();` in a one-dimensional workgroup).
    OwnX,
}

impl Fact {
    fn plus(a: Option<Fact>, b: Option<Fact>) -> Option<Fact> {
        match (a?, b?) {
            (Fact::Multiple, f @ (Fact::Own | Fact::Multiple)) | (f @ Fact::Own, Fact::Multiple) => Some(f),
            _ => None,
        }
    }
}

/// The facts of a function's locals where an index is read: the kernel's
/// bound-once locals, or a helper's parameters and bound-once locals.
pub(super) type Frame = Vec<(LocalId, Fact)>;

/// Recognises own residues in one kernel.
pub(super) struct Residue<'m> {
    m: &'m Module,
    /// The workgroup's invocations.
    w: u32,
    /// One-dimensional workgroup: `local_id().x` is the local index.
    flat: bool,
}

impl<'m> Residue<'m> {
    pub fn new(m: &'m Module) -> Self {
        let [x, y, z] = m.kernel.workgroup_size;
        Residue { m, w: x * y * z, flat: y == 1 && z == 1 }
    }

    /// The kernel body's frame.
    pub fn kernel_frame(&self) -> Frame {
        self.locals(&self.m.kernel.body.block, Vec::new())
    }

    /// A helper's frame at a call with `args`, evaluated in the caller's
    /// frame (`caller`, a helper's: `within`, whose slices the call may
    /// hand on): its value parameters and slice offsets (a slice of the
    /// caller's own slice adds that one's offset), then its bound-once
    /// locals. A parameter the helper assigns has no fact.
    pub fn helper_frame(&self, caller: &Frame, within: Option<&Function>, f: &Function, args: &[CallArg]) -> Frame {
        let assigned = assigned_in(&f.body.block);
        let mut frame = Frame::new();
        for (p, a) in f.params.iter().zip(args) {
            let (id, fact) = match (p, a) {
                (FnParam::Value(id), CallArg::Value(e)) => (*id, self.of(caller, e)),
                (FnParam::Slice { offset, .. }, CallArg::Slice { mem, offset: e }) => (*offset, self.element(caller, within, *mem, e)),
                _ => continue,
            };
            if let Some(fact) = fact.filter(|_| !assigned.contains(&id)) {
                frame.push((id, fact));
            }
        }
        self.locals(&f.body.block, frame)
    }

    /// Adds the facts of `block`'s bound-once locals to `frame`.
    fn locals(&self, block: &[Stmt], frame: Frame) -> Frame {
        let lets = bound_once_in(block);
        let grown = grow_locals(&lets, |found: &[(LocalId, Fact)], e| {
            let mut known = frame.clone();
            known.extend_from_slice(found);
            self.of(&known, e)
        });
        let mut all = frame;
        all.extend(grown);
        all
    }

    /// The fact of element `index` of `mem` as an index of the kernel
    /// memory it views: a helper's slice (of the helper `within`) adds its
    /// offset.
    pub fn element(&self, frame: &Frame, within: Option<&Function>, mem: MemRef, index: &Expr) -> Option<Fact> {
        let base = match mem {
            MemRef::FnSlice(i) => match within?.params.get(i)? {
                FnParam::Slice { offset, .. } => lookup(frame, *offset),
                FnParam::Value(_) => None,
            },
            _ => Some(Fact::Multiple),
        };
        Fact::plus(base, self.of(frame, index))
    }

    /// The fact of `e`, if any.
    pub fn of(&self, frame: &Frame, e: &Expr) -> Option<Fact> {
        match &e.kind {
            ExprKind::Builtin(Builtin::LocalIndex) => Some(Fact::Own),
            ExprKind::Builtin(Builtin::LocalId | Builtin::GlobalId) if self.flat => Some(Fact::OwnX),
            ExprKind::Component(v, 0) if self.flat && matches!(v.kind, ExprKind::Builtin(Builtin::WorkgroupSize)) => Some(Fact::Multiple),
            ExprKind::Component(v, 0) => (self.of(frame, v) == Some(Fact::OwnX)).then_some(Fact::Own),
            ExprKind::Load(Place { root: Root::Local(id), path }) if matches!(path[..], [Proj::Component(0)]) => {
                (lookup(frame, *id) == Some(Fact::OwnX)).then_some(Fact::Own)
            }
            ExprKind::Lit(Lit::Int(v)) => (*v >= 0 && *v % self.w as i64 == 0).then_some(Fact::Multiple),
            ExprKind::Cast(Scalar::U32 | Scalar::I32, inner) => self.of(frame, inner),
            ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() => lookup(frame, *id),
            ExprKind::Binary(BinOp::Add, a, b) => Fact::plus(self.of(frame, a), self.of(frame, b)),
            ExprKind::Binary(BinOp::Mul, a, b) => {
                (self.of(frame, a) == Some(Fact::Multiple) || self.of(frame, b) == Some(Fact::Multiple)).then_some(Fact::Multiple)
            }
            _ => None,
        }
    }
}

fn lookup(frame: &Frame, id: LocalId) -> Option<Fact> {
    frame.iter().find(|(l, _)| *l == id).map(|(_, f)| *f)
}
