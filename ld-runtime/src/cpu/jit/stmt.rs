//! Statements, as the interpreter runs them (`interp/stmt.rs`,
//! `interp/call.rs`): structured control flow becomes Cranelift blocks,
//! and a helper call is inlined (its frame above the caller's, zeroed,
//! its parameters assigned, its `return` a jump to the call's exit).
//! Every loop iteration first spends fuel at the loop's site.

use super::emit::{Emitter, Off, Scope};
use super::place::Words;
use super::Unsupported;
use crate::cpu::interp::frame::{is_scalar, Layout};
use cranelift_codegen::ir::InstBuilder;
use ld_compiler::ir::{BinOp, CallArg, Expr, ExprKind, FnId, FnParam, LocalId, Loop, Place, Root, Stmt, StmtKind};
use ld_compiler::Span;

type R<T> = Result<T, Unsupported>;

/// Helpers inlined into one another deeper than this are not compiled
/// (WGSL forbids recursion; this bounds the code a chain of calls makes).
const MAX_INLINE_DEPTH: usize = 32;

impl Emitter<'_, '_> {
    pub fn block(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            let mark = self.mark();
            self.stmt(s)?;
            self.release(mark);
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match &s.kind {
            StmtKind::Let(id, Some(e)) => self.set_local(*id, e)?,
            // A local declared only keeps what it holds.
            StmtKind::Let(_, None) => {}
            StmtKind::Assign(p, op, v) => self.assign(p, *op, v, s.span)?,
            StmtKind::Expr(e) => self.discard(e)?,
            StmtKind::If(c, a, b) => {
                let c = self.scalar(c)?;
                let (then, other, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                self.b.ins().brif(c, then, &[], other, &[]);
                self.b.switch_to_block(then);
                self.block(a)?;
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(other);
                self.block(b)?;
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
            }
            StmtKind::Loop(l) => self.run_loop(l, s.span)?,
            StmtKind::Break | StmtKind::Continue => {
                let (cont, exit) = *self.loops.last().expect("`break` and `continue` are inside a loop");
                let to = if matches!(s.kind, StmtKind::Break) { exit } else { cont };
                self.b.ins().jump(to, &[]);
                self.unreachable_after();
            }
            StmtKind::Return(v) => self.ret(v.as_ref())?,
            StmtKind::Barrier(_) => unreachable!("barriers are block terminators after lowering"),
        }
        Ok(())
    }

    /// `let l = e;`: the value, then the whole local.
    fn set_local(&mut self, id: LocalId, e: &Expr) -> R<()> {
        let (off, _) = self.local(id);
        if is_scalar(&e.ty) {
            let v = self.scalar(e)?;
            self.store_frame(Off::at(off), v);
            return Ok(());
        }
        // Through a temporary: the value may read the local it replaces.
        let k = self.shapes.words(&e.ty);
        let t = self.temp(k);
        self.value_into(e, t)?;
        self.copy_frame(Off::at(t), Off::at(off), k);
        Ok(())
    }

    /// An expression evaluated for its effect.
    fn discard(&mut self, e: &Expr) -> R<()> {
        if is_scalar(&e.ty) || matches!(e.kind, ExprKind::Atomic(..)) {
            self.scalar(e)?;
            return Ok(());
        }
        let t = self.temp(self.shapes.words(&e.ty));
        self.value_into(e, t)
    }

    /// `p = v` or `p op= v`: the value first, then the place, then
    /// (compound) the current value, read unsettled, then the write.
    fn assign(&mut self, p: &Place, op: Option<BinOp>, v: &Expr, span: Span) -> R<()> {
        let site = self.site(span);
        if !is_scalar(&v.ty) {
            let k = self.shapes.words(&v.ty);
            let t = self.temp(k);
            self.value_into(v, t)?;
            let (loc, _) = self.place(p, site)?;
            self.write(loc, Words::Frame(t, k), site);
            return Ok(());
        }
        let x = self.scalar(v)?;
        if let (Root::Local(id), true) = (&p.root, p.path.is_empty()) {
            // A whole scalar local: no place to find, nothing to check.
            let (off, ty) = self.local(*id);
            let new = match op {
                Some(op) => {
                    let old = self.load_frame(Off::at(off));
                    self.binary_op(op, ty, old, x)
                }
                None => x,
            };
            self.store_frame(Off::at(off), new);
            return Ok(());
        }
        let (loc, ty) = self.place(p, site)?;
        let Some(op) = op else {
            self.write(loc, Words::One(x), site);
            return Ok(());
        };
        // A compound assignment out of bounds neither reads nor writes.
        let lands = self.lands(loc, site);
        let (go, join) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(lands, go, &[], join, &[]);
        self.b.switch_to_block(go);
        let old = self.read(loc, false, site);
        let new = self.binary_op(op, &ty, old, x);
        self.write(loc, Words::One(new), site);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Ok(())
    }

    /// Each iteration: fuel, the condition, the body, `continuing`. A
    /// jump out of `continuing` (which the IR never holds) leaves for the
    /// loop around this one, as the interpreter's would.
    fn run_loop(&mut self, l: &Loop, span: Span) -> R<()> {
        let site = self.site(span);
        let (head, body, cont, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        self.tick(site);
        match &l.cond {
            Some(c) => {
                let c = self.scalar(c)?;
                self.b.ins().brif(c, body, &[], exit, &[]);
            }
            None => {
                self.b.ins().jump(body, &[]);
            }
        }
        self.b.switch_to_block(body);
        self.loops.push((cont, exit));
        let inner = self.block(&l.body);
        self.loops.pop();
        inner?;
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        self.block(&l.continuing)?;
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// A helper's `return v` keeps `v`'s words and leaves the call; the
    /// kernel's evaluates nothing and ends the invocation.
    fn ret(&mut self, v: Option<&Expr>) -> R<()> {
        match self.scope().ret {
            Some((exit, at)) => {
                if let Some(v) = v {
                    self.value_into(v, at)?;
                }
                self.b.ins().jump(exit, &[]);
            }
            None => {
                self.b.ins().jump(self.done, &[]);
            }
        }
        self.unreachable_after();
        Ok(())
    }

    /// A call of helper `f`, its return value's words into the frame from
    /// `at`: the arguments left to right into temporaries (a slice's
    /// offset is one word, its memory known here), then the helper's
    /// frame zeroed and its parameters assigned, then its body.
    pub fn inline_call(&mut self, f: FnId, args: &[CallArg], at: u32) -> R<()> {
        if self.scopes.len() > MAX_INLINE_DEPTH {
            return Err(Unsupported(format!("helper calls nest deeper than {MAX_INLINE_DEPTH}")));
        }
        let module = self.module;
        let func = &module.functions[f];
        let mut words = Vec::new();
        let mut slices = vec![None; args.len()];
        for (i, a) in args.iter().enumerate() {
            match a {
                CallArg::Value(v) => {
                    let k = self.shapes.words(&v.ty);
                    let t = self.temp(k);
                    self.value_into(v, t)?;
                    words.push((t, k));
                }
                CallArg::Slice { mem, offset } => {
                    slices[i] = Some(self.mem(*mem));
                    let o = self.scalar(offset)?;
                    let t = self.temp(1);
                    self.store_frame(Off::at(t), o);
                    words.push((t, 1));
                }
            }
        }
        let layout = Layout::new(&func.body, self.shapes);
        let base = self.temp(layout.words() as u32);
        self.zero_frame(base, layout.words() as u32);
        for (p, (t, k)) in func.params.iter().zip(words) {
            let local = match p {
                FnParam::Value(l) => *l,
                FnParam::Slice { offset, .. } => *offset,
            };
            self.copy_frame(Off::at(t), Off::at(base + layout.offset(local)), k);
        }
        let exit = self.b.create_block();
        self.scopes.push(Scope { base, layout, locals: &func.body.locals, params: &func.params, slices, ret: Some((exit, at)) });
        let loops = std::mem::take(&mut self.loops);
        let body = self.block(&func.body.block);
        self.loops = loops;
        self.scopes.pop();
        body?;
        self.b.ins().jump(exit, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }
}
