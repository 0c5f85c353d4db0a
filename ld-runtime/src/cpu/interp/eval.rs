//! The two halves of interpretation. `Compiler` reads a function's IR
//! once, when the program is made, and resolves everything that does not
//! change between invocations (locals' offsets, field offsets, types,
//! source sites, which memory a name means) into closures. `Eval` is
//! what those closures run against: one function's frame, the memories
//! its slices are bound to, the invocation's `Cx`, and a pool of word
//! buffers that aggregates and helper frames borrow, so that a kernel's
//! steady state allocates nothing.

use super::frame::{Layout, Shapes};
use super::stmt::Flow;
use super::Program;
use crate::cpu::twin::{Cx, Fault, Mem};
use ld_compiler::ir::{FnParam, Local, LocalId, MemRef, Module, Type};
use ld_compiler::Span;

/// A fault travels boxed: a result is then two words, returned in
/// registers by every closure (a bare `Fault` would make every `R<u32>`
/// go through memory).
pub(super) type R<T> = Result<T, Box<Fault>>;

/// A source site, `(line, column)`, as `Fault`s carry it.
pub(super) type Site = (u32, u32);

/// A scalar expression: its word.
pub(super) type Scalar = Box<dyn Fn(&mut Eval<'_, '_>) -> R<u32> + Send + Sync>;
/// Any expression: its words, appended to the buffer.
pub(super) type Value = Box<dyn Fn(&mut Eval<'_, '_>, &mut Vec<u32>) -> R<()> + Send + Sync>;
/// A statement: how control leaves it.
pub(super) type Exec = Box<dyn Fn(&mut Eval<'_, '_>) -> R<Flow> + Send + Sync>;

/// A scalar operand: a whole local or a literal read in place, anything
/// else through its closure. Most operands are the first two, and a
/// match on them costs less than a call.
pub(super) enum Operand {
    Local(usize),
    Word(u32),
    Other(Scalar),
}

impl Operand {
    #[inline]
    pub fn get(&self, ev: &mut Eval) -> R<u32> {
        match self {
            Operand::Local(off) => Ok(ev.frame[*off]),
            Operand::Word(w) => Ok(*w),
            Operand::Other(f) => f(ev),
        }
    }
}

/// The function being compiled: the kernel, or a helper.
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

/// What compiling one function reads: the module, and the function.
pub(super) struct Compiler<'p> {
    pub module: &'p Module,
    pub shapes: &'p Shapes,
    /// Each kernel parameter's element type as places see it.
    pub param_elems: &'p [Type],
    /// Each kernel parameter's word in the uniform block.
    pub uniform_words: &'p [usize],
    pub sites: &'p [Site],
    pub scope: Scope<'p>,
}

/// The memory a place's root names: fixed for the kernel's memories, the
/// one the call bound for a helper's slice.
#[derive(Clone, Copy)]
pub(super) enum MemAt {
    Fixed(Mem),
    Slice(usize),
}

impl MemAt {
    pub fn get(self, ev: &Eval) -> Mem {
        match self {
            MemAt::Fixed(m) => m,
            MemAt::Slice(i) => ev.slices.get(i).copied().flatten().expect("slice parameter bound by the call"),
        }
    }
}

impl<'p> Compiler<'p> {
    /// Where `span` stands in the source; (0, 0) where no one knows.
    pub fn site(&self, span: Span) -> Site {
        span.index().and_then(|i| self.sites.get(i)).copied().unwrap_or((0, 0))
    }

    /// The first word of local `id` in the frame, and its type.
    pub fn local(&self, id: LocalId) -> (usize, &'p Type) {
        (self.scope.layout.offset(id) as usize, &self.scope.locals[id].ty)
    }

    pub fn mem(&self, m: MemRef) -> MemAt {
        match m {
            MemRef::Param(i) => MemAt::Fixed(Mem::Storage(i)),
            MemRef::Shared(i) => MemAt::Fixed(Mem::Shared(i)),
            MemRef::FnSlice(i) => MemAt::Slice(i),
        }
    }

    /// The element type of memory `m` (the twin's `mem_elem`).
    pub fn mem_elem(&self, m: MemRef) -> &'p Type {
        match m {
            MemRef::Param(i) => &self.param_elems[i],
            MemRef::Shared(i) => &self.module.kernel.shared[i].elem,
            MemRef::FnSlice(i) => match &self.scope.params[i] {
                FnParam::Slice { elem, .. } => elem,
                FnParam::Value(_) => unreachable!("parameter {i} is not a slice"),
            },
        }
    }
}

/// One function's evaluation.
pub(super) struct Eval<'e, 'cx> {
    pub prog: &'e Program,
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

impl Eval<'_, '_> {
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
