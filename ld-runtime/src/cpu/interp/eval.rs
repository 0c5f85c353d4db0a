//! The evaluation context: one function's frame being run, with the
//! memories its slices are bound to, the invocation's `Cx`, and a pool of
//! word buffers that aggregates and helper frames borrow, so that a
//! kernel's steady state allocates nothing.

use super::frame::Layout;
use super::Program;
use crate::cpu::twin::{self, Cx, Fault, Mem};
use ld_compiler::ir::{self, FnParam, Local, MemRef, Type};
use ld_compiler::Span;

/// A fault travels boxed: a result is then two words, returned in
/// registers by every recursive call of the evaluator (a bare `Fault`
/// would make every `R<u32>` go through memory).
pub(super) type R<T> = Result<T, Box<Fault>>;

/// A source site, `(line, column)`, as `Fault`s carry it.
pub(super) type Site = (u32, u32);

/// The function being run: the kernel, or a helper.
#[derive(Clone, Copy)]
pub(super) struct Scope<'p> {
    pub locals: &'p [Local],
    pub layout: &'p Layout,
    /// A helper's parameters: their slices' element types type its
    /// `MemRef::FnSlice` places (none for the kernel).
    pub params: &'p [FnParam],
    /// The kernel's `return` ends the invocation without evaluating
    /// anything (as the twin's); a helper's yields its value.
    pub kernel: bool,
}

/// One function's evaluation.
pub(super) struct Eval<'e, 'cx> {
    pub prog: &'e Program,
    pub scope: Scope<'e>,
    pub frame: &'e mut [u32],
    /// The memory each slice parameter is bound to, by parameter index.
    pub slices: &'e [Option<Mem>],
    pub cx: &'e mut Cx<'cx>,
    pub pool: &'e mut Vec<Vec<u32>>,
    /// A helper's return value, once its `return` has run.
    pub ret: Vec<u32>,
    /// The last place found had an index out of bounds inside its value,
    /// clamped under WGSL's rule (`Cx::index`): a write there is skipped.
    /// (Every write follows its place at once: the value comes first.)
    pub clamped: bool,
}

impl<'e> Eval<'e, '_> {
    pub fn site(&self, span: Span) -> Site {
        self.prog.site(span)
    }

    /// The memory a place's root names; a slice's is the one its call bound.
    pub fn mem(&self, m: MemRef) -> Mem {
        match m {
            MemRef::Param(i) => Mem::Storage(i),
            MemRef::Shared(i) => Mem::Shared(i),
            MemRef::FnSlice(i) => self.slices.get(i).copied().flatten().expect("slice parameter bound by the call"),
        }
    }

    /// The element type of memory `m` (the twin's `mem_elem`).
    pub fn mem_elem(&self, m: MemRef) -> &'e Type {
        match m {
            MemRef::Param(i) => &self.prog.param_elems[i],
            MemRef::Shared(i) => &self.prog.module.kernel.shared[i].elem,
            MemRef::FnSlice(i) => match &self.scope.params[i] {
                FnParam::Slice { elem, .. } => elem,
                FnParam::Value(_) => unreachable!("parameter {i} is not a slice"),
            },
        }
    }

    /// An empty word buffer, from the pool.
    pub fn buf(&mut self) -> Vec<u32> {
        self.pool.pop().unwrap_or_default()
    }

    /// Returns a buffer to the pool (one lost to a fault is just not reused).
    pub fn give(&mut self, mut b: Vec<u32>) {
        b.clear();
        self.pool.push(b);
    }
}

/// The runtime's name for an IR atomic operation.
pub(super) fn atomic_op(op: ir::AtomicOp) -> twin::AtomicOp {
    use ir::AtomicOp as A;
    use twin::AtomicOp as T;
    match op {
        A::Load => T::Load,
        A::Store => T::Store,
        A::Add => T::Add,
        A::Sub => T::Sub,
        A::Max => T::Max,
        A::Min => T::Min,
        A::And => T::And,
        A::Or => T::Or,
        A::Xor => T::Xor,
        A::Exchange => T::Exchange,
        A::CompareExchange => T::CompareExchange,
    }
}

/// The runtime's name for an IR barrier.
pub(super) fn barrier_kind(k: ir::BarrierKind) -> twin::BarrierKind {
    match k {
        ir::BarrierKind::Workgroup => twin::BarrierKind::Workgroup,
        ir::BarrierKind::Storage => twin::BarrierKind::Storage,
    }
}
