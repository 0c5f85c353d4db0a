//! The kernel as a resumable invocation, as the twin's `step` runs it:
//! from block `pc`, each block's structured statements, then its
//! terminator, until a barrier suspends the invocation (resuming at the
//! block after it) or the body ends.

use super::eval::{Compiler, Eval, Operand, Site, R};
use super::frame::Frame;
use super::stmt::{run, Block, Flow};
use super::Program;
use crate::cpu::twin::{BarrierKind, Cx, Fault, Invocation, Yield};
use ld_compiler::lower::{MBlock, Term};

/// The `pc` of a finished invocation: past every block.
const DONE: u32 = u32::MAX;

/// One of the kernel's blocks, compiled.
pub(super) struct KBlock {
    stmts: Block,
    term: KTerm,
}

/// How a block is left (`lower::Term`, its condition compiled).
enum KTerm {
    Return,
    Goto(u32),
    /// A loop's head carries its site: reaching it starts an iteration.
    Branch(Operand, u32, u32, Option<Site>),
    Barrier {
        kind: BarrierKind,
        next: u32,
        id: u32,
    },
}

impl Compiler<'_> {
    pub fn kernel_block(&self, b: &MBlock) -> KBlock {
        let term = match &b.term {
            Term::Return => KTerm::Return,
            Term::Goto(t) => KTerm::Goto(*t as u32),
            Term::Branch(c, a, b, tick) => KTerm::Branch(self.operand(c), *a as u32, *b as u32, tick.map(|s| self.site(s))),
            Term::Barrier(kind, next, index, _) => KTerm::Barrier { kind: (*kind).into(), next: *next as u32, id: *index as u32 },
        };
        KBlock { stmts: self.block(&b.stmts), term }
    }
}

/// One invocation suspended between steps: its block, its locals, and the
/// buffers its aggregates and helper frames reuse.
pub(super) struct Interp {
    prog: &'static Program,
    pc: u32,
    frame: Frame,
    pool: Vec<Vec<u32>>,
}

impl Interp {
    pub fn new(prog: &'static Program) -> Self {
        Interp { prog, pc: 0, frame: Frame::new(prog.kernel_words), pool: Vec::new() }
    }
}

impl Invocation for Interp {
    fn step(&mut self, cx: &mut Cx<'_>) -> Result<Yield, Fault> {
        self.run(cx).map_err(|f| *f)
    }
}

impl Interp {
    /// From block `pc` to the next suspension.
    fn run(&mut self, cx: &mut Cx<'_>) -> R<Yield> {
        let Interp { prog, pc, frame, pool } = self;
        let prog: &Program = prog;
        let frame = frame.words(prog.kernel_words);
        let mut ev = Eval { prog, frame, slices: &[], cx, pool, ret: Vec::new(), clamped: false };
        loop {
            let Some(block) = prog.blocks.get(*pc as usize) else { return Ok(Yield::Done) };
            if run(&block.stmts, &mut ev)? == Flow::Return {
                *pc = DONE;
                return Ok(Yield::Done);
            }
            if let Some(y) = term(&block.term, &mut ev, pc)? {
                return Ok(y);
            }
        }
    }
}

/// Leaves a block: sets `pc` to the next one, and yields where the
/// invocation suspends or ends.
fn term(term: &KTerm, ev: &mut Eval, pc: &mut u32) -> R<Option<Yield>> {
    match term {
        KTerm::Return => {
            *pc = DONE;
            return Ok(Some(Yield::Done));
        }
        KTerm::Goto(t) => *pc = *t,
        KTerm::Branch(c, a, b, tick) => {
            // A loop's head: the loop starts an iteration.
            if let Some(site) = tick {
                ev.cx.tick(*site)?;
            }
            *pc = if c.get(ev)? != 0 { *a } else { *b };
        }
        KTerm::Barrier { kind, next, id } => {
            *pc = *next;
            return Ok(Some(Yield::Barrier { kind: *kind, id: *id }));
        }
    }
    Ok(None)
}
