//! Helper calls, as the twin makes them: the arguments left to right into
//! temporaries (a slice argument: its memory, then its offset), then a
//! fresh zeroed frame with each value parameter's local and each slice's
//! offset local assigned, then the body, structured (helpers hold no
//! barrier). The frame comes from the pool and goes back to it.

use super::eval::{Eval, Scope, R};
use super::stmt::Flow;
use crate::cpu::twin::Mem;
use ld_compiler::ir::{CallArg, FnId, FnParam, Function, Type};

impl Eval<'_, '_> {
    /// Calls helper `f`, appending its return value's words to `out`.
    pub fn call(&mut self, f: FnId, args: &[CallArg], out: &mut Vec<u32>) -> R<()> {
        let prog = self.prog;
        let func = &prog.module.functions[f];
        let mut words = self.buf();
        let mut slices = Vec::new();
        self.args(args, &mut words, &mut slices)?;
        let layout = &prog.helpers[f];
        let mut frame = self.buf();
        frame.resize(layout.words(), 0);
        self.bind(func, layout, &words, &mut frame);
        let scope = Scope { locals: &func.body.locals, layout, params: &func.params, kernel: false };
        let ret = self.buf();
        let mut callee = Eval { prog, scope, frame: &mut frame, slices: &slices, cx: &mut *self.cx, pool: &mut *self.pool, ret, clamped: false };
        let flow = callee.block(&func.body.block)?;
        assert!(flow == Flow::Return || func.ret == Type::Unit, "helper `{}` fell off its end", func.name);
        let ret = std::mem::take(&mut callee.ret);
        out.extend_from_slice(&ret);
        for b in [ret, frame, words] {
            self.give(b);
        }
        Ok(())
    }

    /// The arguments' words in order (a slice's offset is one), and the
    /// memory each slice parameter is bound to.
    fn args(&mut self, args: &[CallArg], words: &mut Vec<u32>, slices: &mut Vec<Option<Mem>>) -> R<()> {
        for (i, a) in args.iter().enumerate() {
            match a {
                CallArg::Value(v) => self.value(v, words)?,
                CallArg::Slice { mem, offset } => {
                    if slices.is_empty() {
                        slices.resize(args.len(), None);
                    }
                    slices[i] = Some(self.mem(*mem));
                    words.push(self.scalar(offset)?);
                }
            }
        }
        Ok(())
    }

    /// The parameters' locals in the callee's frame, from the arguments' words.
    fn bind(&self, func: &Function, layout: &super::frame::Layout, words: &[u32], frame: &mut [u32]) {
        let mut at = 0;
        for p in &func.params {
            let (local, k) = match p {
                FnParam::Value(l) => (*l, self.prog.shapes.words(&func.body.locals[*l].ty) as usize),
                FnParam::Slice { offset, .. } => (*offset, 1),
            };
            let off = layout.offset(local) as usize;
            frame[off..off + k].copy_from_slice(&words[at..at + k]);
            at += k;
        }
    }
}
