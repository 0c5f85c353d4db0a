use super::{Expr, LocalId, Place};
use proc_macro2::Span;

pub type Block = Vec<Stmt>;

#[derive(Debug, Clone)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `let x = init;` (`None`: declared, assigned later).
    Let(LocalId, Option<Expr>),
    /// `place = value` or `place op= value`.
    Assign(Place, Option<super::BinOp>, Expr),
    /// An expression evaluated for its effect (helper call, atomic op).
    Expr(Expr),
    If(Expr, Block, Block),
    Loop(Loop),
    Break,
    Continue,
    Return(Option<Expr>),
    Barrier(BarrierKind),
}

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
    pub cond: Option<Expr>,
    pub body: Block,
    /// Generated code only: never holds a break, continue, return or barrier.
    pub continuing: Block,
}

impl Stmt {
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

pub fn contains_barrier(block: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(block, &mut |s| found |= matches!(s.kind, StmtKind::Barrier(_)));
    found
}
