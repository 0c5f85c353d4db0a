//! The kernel as a resumable invocation, as the twin's `step` runs it:
//! from block `pc`, each block's structured statements, then its
//! terminator, until a barrier suspends the invocation (resuming at the
//! block after it) or the body ends.

use super::eval::{barrier_kind, Eval, R};
use super::stmt::Flow;
use super::Program;
use crate::cpu::twin::{Cx, Fault, Invocation, Yield};
use ld_compiler::lower::Term;

/// The `pc` of a finished invocation: past every block.
const DONE: u32 = u32::MAX;

/// One invocation suspended between steps: its block, its locals, and the
/// buffers its aggregates and helper frames reuse.
pub(super) struct Interp {
    prog: &'static Program,
    pc: u32,
    frame: Vec<u32>,
    pool: Vec<Vec<u32>>,
}

impl Interp {
    pub fn new(prog: &'static Program) -> Self {
        let frame = vec![0; prog.kernel.words()];
        Interp { prog, pc: 0, frame, pool: Vec::new() }
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
        let mut ev = Eval { prog, scope: prog.kernel_scope(), frame, slices: &[], cx, pool, ret: Vec::new(), clamped: false };
        loop {
            let Some(block) = prog.machine.blocks.get(*pc as usize) else { return Ok(Yield::Done) };
            if ev.block(&block.stmts)? == Flow::Return {
                *pc = DONE;
                return Ok(Yield::Done);
            }
            if let Some(y) = ev.term(&block.term, pc)? {
                return Ok(y);
            }
        }
    }
}

impl Eval<'_, '_> {
    /// Leaves a block: sets `pc` to the next one, and yields where the
    /// invocation suspends or ends.
    fn term(&mut self, term: &Term, pc: &mut u32) -> R<Option<Yield>> {
        match term {
            Term::Return => {
                *pc = DONE;
                return Ok(Some(Yield::Done));
            }
            Term::Goto(t) => *pc = *t as u32,
            Term::Branch(c, a, b, tick) => {
                // A loop's head: the loop starts an iteration.
                if let Some(span) = tick {
                    self.cx.tick(self.site(*span))?;
                }
                *pc = if self.scalar(c)? != 0 { *a } else { *b } as u32;
            }
            Term::Barrier(kind, next, index, _) => {
                *pc = *next as u32;
                return Ok(Some(Yield::Barrier { kind: barrier_kind(*kind), id: *index as u32 }));
            }
        }
        Ok(None)
    }
}
