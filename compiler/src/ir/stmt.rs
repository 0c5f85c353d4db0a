use super::{Expr, LocalId, Place};
use crate::Span;

/// A sequence of statements, run in order.
pub type Block = Vec<Stmt>;

/// A statement with its source span.
#[derive(Debug, Clone)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
    /// Where the statement stands in the kernel source.
    pub span: Span,
}

/// The forms a statement takes.
#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `let x = init;` (`None`: declared, assigned later).
    Let(LocalId, Option<Expr>),
    /// `place = value` or `place op= value`.
    Assign(Place, Option<super::BinOp>, Expr),
    /// An expression evaluated for its effect (helper call, atomic op).
    Expr(Expr),
    /// `if cond { a } else { b }`: `b` is empty where the source has no `else`.
    If(Expr, Block, Block),
    /// A loop, whatever its Rust form (see [`Loop`]).
    Loop(Loop),
    /// `break` out of the innermost loop.
    Break,
    /// `continue`: the innermost loop's `continuing` block runs, then its next iteration.
    Continue,
    /// `return`, with the helper's value (`None` where the function returns `()`).
    Return(Option<Expr>),
    /// A barrier call; only the kernel's body holds them, never a helper's.
    Barrier(BarrierKind),
}

/// Which barrier a `Barrier` statement calls: each one waits for every invocation of the workgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    /// `barrier()`: WGSL `workgroupBarrier()`, orders workgroup memory.
    Workgroup,
    /// `storage_barrier()`: WGSL `storageBarrier()`, orders storage memory.
    Storage,
}

/// The one loop form every Rust loop is desugared to (like WGSL's `loop`):
/// `cond` is tested before each iteration, `continuing` runs after the body
/// and on `continue`. `for` ranges put their counter update in `continuing`.
#[derive(Debug, Clone)]
pub struct Loop {
    /// Tested before each iteration; the loop ends when it is false (`None`: no condition).
    pub cond: Option<Expr>,
    /// The statements of one iteration.
    pub body: Block,
    /// Generated code only: never holds a break, continue, return or barrier.
    pub continuing: Block,
}

impl Stmt {
    /// A statement of `kind` at `span`.
    pub fn new(kind: StmtKind, span: Span) -> Self {
        Stmt { kind, span }
    }
}

/// Walks every statement (nested) in a block, loops' continuing blocks
/// included.
pub fn walk_stmts<'a>(block: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in block {
        f(s);
        match &s.kind {
            StmtKind::If(_, a, b) => {
                walk_stmts(a, f);
                walk_stmts(b, f);
            }
            StmtKind::Loop(l) => {
                walk_stmts(&l.body, f);
                walk_stmts(&l.continuing, f);
            }
            _ => {}
        }
    }
}

/// [`walk_stmts`], each statement mutable.
pub fn walk_stmts_mut(block: &mut [Stmt], f: &mut dyn FnMut(&mut Stmt)) {
    for s in block {
        f(s);
        match &mut s.kind {
            StmtKind::If(_, a, b) => {
                walk_stmts_mut(a, f);
                walk_stmts_mut(b, f);
            }
            StmtKind::Loop(l) => {
                walk_stmts_mut(&mut l.body, f);
                walk_stmts_mut(&mut l.continuing, f);
            }
            _ => {}
        }
    }
}

/// Whether the block holds a barrier at any depth (helpers never hold one).
pub fn contains_barrier(block: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(block, &mut |s| found |= matches!(s.kind, StmtKind::Barrier(_)));
    found
}
