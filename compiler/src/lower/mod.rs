//! Lowering to a state machine: the kernel body becomes basic blocks whose
//! terminators may be barriers. A back end that must suspend an invocation
//! at a barrier (the CPU twin, which runs a workgroup region by region)
//! emits `loop { match pc { .. } }` from this, the way rustc lowers an
//! `async fn`. Only statements that contain a barrier (or jump out of one)
//! are exploded into blocks; everything else stays structured code.

use crate::ir::*;

/// A block's index in `Machine::blocks`.
pub type BlockId = usize;

/// A body lowered to basic blocks; execution starts at block 0.
#[derive(Debug)]
pub struct Machine {
    /// The blocks, indexed by [`BlockId`].
    pub blocks: Vec<MBlock>,
}

/// A basic block: structured statements, then the terminator that leaves it.
#[derive(Debug, Default)]
pub struct MBlock {
    /// Structured, barrier-free statements; any `break`/`continue` in them
    /// targets a loop that is also inside them.
    pub stmts: Vec<Stmt>,
    /// Where control goes once `stmts` have run.
    pub term: Term,
}

/// How a basic block ends.
#[derive(Debug, Default)]
pub enum Term {
    /// The end of the body: the invocation is done.
    #[default]
    Return,
    /// Go on at the block.
    Goto(BlockId),
    /// On the condition, to the first block or the second. A loop's head
    /// carries the loop statement's span: each time it is reached, the
    /// loop starts an iteration, which spends fuel (the loop guard; a
    /// loop without a condition branches on `true`).
    Branch(Expr, BlockId, BlockId, Option<crate::Span>),
    /// Suspend at a barrier, resume at the block. The barrier's index is
    /// its statement's position among the body's barriers in source order
    /// (how every back end numbers it); the span is the statement's.
    Barrier(BarrierKind, BlockId, usize, crate::Span),
}

/// Lowers a kernel body to blocks, splitting it at barriers and at the control flow around them.
pub fn machine(body: &Block) -> Machine {
    let mut l = Lowerer { blocks: vec![MBlock::default()], loops: vec![], barriers: 0 };
    if let Some(end) = l.seq(body, 0) {
        l.blocks[end].term = Term::Return;
    }
    Machine { blocks: l.blocks }
}

struct Lowerer {
    blocks: Vec<MBlock>,
    /// (break target, continue target) of the exploded loops we are inside.
    loops: Vec<(BlockId, BlockId)>,
    /// Barrier statements seen so far (statements are visited in source order).
    barriers: usize,
}

impl Lowerer {
    fn new_block(&mut self) -> BlockId {
        self.blocks.push(MBlock::default());
        self.blocks.len() - 1
    }

    /// Lowers `stmts` starting in block `cur`; returns the block control
    /// falls out of, or `None` if every path jumped away.
    fn seq(&mut self, stmts: &[Stmt], mut cur: BlockId) -> Option<BlockId> {
        for s in stmts {
            if !self.explode(s) {
                self.blocks[cur].stmts.push(s.clone());
                continue;
            }
            cur = match &s.kind {
                StmtKind::Barrier(kind) => {
                    let next = self.new_block();
                    self.blocks[cur].term = Term::Barrier(*kind, next, self.barriers, s.span);
                    self.barriers += 1;
                    next
                }
                StmtKind::If(c, a, b) => {
                    let (ta, tb, join) = (self.new_block(), self.new_block(), self.new_block());
                    self.blocks[cur].term = Term::Branch(c.clone(), ta, tb, None);
                    for (arm, start) in [(a, ta), (b, tb)] {
                        if let Some(end) = self.seq(arm, start) {
                            self.blocks[end].term = Term::Goto(join);
                        }
                    }
                    join
                }
                StmtKind::Loop(lp) => {
                    let (head, body, cont, exit) = (self.new_block(), self.new_block(), self.new_block(), self.new_block());
                    self.blocks[cur].term = Term::Goto(head);
                    let always = Expr { kind: ExprKind::Lit(Lit::Bool(true)), ty: Type::BOOL, span: s.span };
                    let cond = lp.cond.clone().unwrap_or(always);
                    self.blocks[head].term = Term::Branch(cond, body, exit, Some(s.span));
                    self.loops.push((exit, cont));
                    if let Some(end) = self.seq(&lp.body, body) {
                        self.blocks[end].term = Term::Goto(cont);
                    }
                    self.loops.pop();
                    self.blocks[cont].stmts = lp.continuing.clone();
                    self.blocks[cont].term = Term::Goto(head);
                    exit
                }
                StmtKind::Break | StmtKind::Continue => {
                    let (brk, cont) = *self.loops.last().expect("break outside loop");
                    let target = if matches!(s.kind, StmtKind::Break) { brk } else { cont };
                    self.blocks[cur].term = Term::Goto(target);
                    // Anything after a jump is unreachable: give it a dead block.
                    self.new_block()
                }
                _ => unreachable!("only control flow is exploded"),
            };
        }
        Some(cur)
    }

    /// A statement must become blocks if it holds a barrier, or is (or
    /// holds) a `break`/`continue` aimed at an exploded loop.
    fn explode(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Barrier(_) => true,
            StmtKind::Break | StmtKind::Continue => !self.loops.is_empty() && self.in_exploded_loop_body(),
            StmtKind::If(_, a, b) => contains_barrier(a) || contains_barrier(b) || (self.in_exploded_loop_body() && (free_jump(a) || free_jump(b))),
            StmtKind::Loop(l) => contains_barrier(&l.body),
            _ => false,
        }
    }

    fn in_exploded_loop_body(&self) -> bool {
        !self.loops.is_empty()
    }
}

/// A `break`/`continue` not enclosed by a loop inside `b`.
fn free_jump(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::If(_, x, y) => free_jump(x) || free_jump(y),
        _ => false,
    })
}
