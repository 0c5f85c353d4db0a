//! Helper calls, as the twin makes them: the arguments left to right into
//! temporaries (a slice argument: its memory, then its offset), then a
//! fresh zeroed frame with each value parameter's local and each slice's
//! offset local assigned, then the body, structured (helpers hold no
//! barrier). The frame comes from the pool and goes back to it.

use super::eval::{Compiler, Eval, MemAt, Scalar, Value};
use super::stmt::{run, Block, Flow};
use ld_compiler::ir::{CallArg, FnId, FnParam, Type};

/// A helper, compiled once for every call of it.
pub(super) struct Helper {
    pub name: String,
    pub body: Block,
    /// Its frame's size in words.
    pub words: usize,
    /// Each parameter's local in the frame: (offset, words), in order.
    pub params: Vec<(usize, usize)>,
    /// It returns nothing, so it may end without `return`.
    pub unit: bool,
}

/// One argument: a value's words, or a slice's memory and offset.
enum Arg {
    Value(Value),
    Slice(MemAt, Scalar),
}

impl Compiler<'_> {
    /// Helper `f`'s body and frame, compiled in `self`'s scope (the helper's).
    pub fn helper(&self, f: FnId) -> Helper {
        let func = &self.module.functions[f];
        let params = func
            .params
            .iter()
            .map(|p| match p {
                FnParam::Value(l) => (self.scope.layout.offset(*l) as usize, self.shapes.words(&func.body.locals[*l].ty) as usize),
                FnParam::Slice { offset, .. } => (self.scope.layout.offset(*offset) as usize, 1),
            })
            .collect();
        Helper { name: func.name.clone(), body: self.block(&func.body.block), words: self.scope.layout.words(), params, unit: func.ret == Type::Unit }
    }

    /// A call of helper `f`, appending its return value's words.
    pub fn call(&self, f: FnId, args: &[CallArg]) -> Value {
        let args: Vec<Arg> = args
            .iter()
            .map(|a| match a {
                CallArg::Value(v) => Arg::Value(self.value(v)),
                CallArg::Slice { mem, offset } => Arg::Slice(self.mem(*mem), self.scalar(offset)),
            })
            .collect();
        let any_slice = args.iter().any(|a| matches!(a, Arg::Slice(..)));
        Box::new(move |ev, out| {
            let prog = ev.prog;
            let helper = &prog.helpers[f];
            // The arguments' words in order (a slice's offset is one), and
            // the memory each slice parameter is bound to.
            let mut words = ev.buf();
            let mut slices = if any_slice { vec![None; args.len()] } else { Vec::new() };
            for (i, a) in args.iter().enumerate() {
                match a {
                    Arg::Value(v) => v(ev, &mut words)?,
                    Arg::Slice(mem, offset) => {
                        slices[i] = Some(mem.get(ev));
                        words.push(offset(ev)?);
                    }
                }
            }
            let mut frame = ev.buf();
            frame.resize(helper.words, 0);
            let mut at = 0;
            for &(off, k) in &helper.params {
                frame[off..off + k].copy_from_slice(&words[at..at + k]);
                at += k;
            }
            let ret = ev.buf();
            let mut callee = Eval { prog, frame: &mut frame, slices: &slices, cx: &mut *ev.cx, pool: &mut *ev.pool, ret, clamped: false };
            let flow = run(&helper.body, &mut callee)?;
            assert!(flow == Flow::Return || helper.unit, "helper `{}` fell off its end", helper.name);
            let ret = std::mem::take(&mut callee.ret);
            out.extend_from_slice(&ret);
            for b in [ret, frame, words] {
                ev.give(b);
            }
            Ok(())
        })
    }
}
