//! Structured statements, as the twin runs them (`ld-macros/src/cpu/stmt.rs`):
//! a helper's whole body, and the barrier-free statements of the kernel's
//! blocks. Every loop iteration first spends fuel at the loop's site, so
//! a kernel that never ends faults instead of hanging.

use super::arith::binary;
use super::eval::{Eval, R};
use super::frame::is_scalar;
use ld_compiler::ir::{BinOp, Expr, LocalId, Loop, Place, Root, Stmt, StmtKind};
use ld_compiler::Span;

/// How a statement ends: control goes on, or leaves what encloses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Next,
    /// Out of the innermost loop.
    Break,
    /// To the innermost loop's `continuing` block.
    Continue,
    /// Out of the function (the kernel's: the invocation is done).
    Return,
}

impl Eval<'_, '_> {
    pub fn block(&mut self, stmts: &[Stmt]) -> R<Flow> {
        for s in stmts {
            let f = self.stmt(s)?;
            if f != Flow::Next {
                return Ok(f);
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, s: &Stmt) -> R<Flow> {
        match &s.kind {
            StmtKind::Let(id, Some(e)) => self.set_local(*id, e)?,
            // Declared only: the local keeps what it holds.
            StmtKind::Let(_, None) => {}
            StmtKind::Assign(p, op, v) => self.assign(p, *op, v, s.span)?,
            StmtKind::Expr(e) => self.discard(e)?,
            StmtKind::If(c, a, b) => return if self.scalar(c)? != 0 { self.block(a) } else { self.block(b) },
            StmtKind::Loop(l) => return self.run_loop(l, s.span),
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(v) => return self.ret(v.as_ref()),
            StmtKind::Barrier(_) => unreachable!("barriers are block terminators after lowering"),
        }
        Ok(Flow::Next)
    }

    /// `let l = e;`: the value, then the whole local.
    fn set_local(&mut self, id: LocalId, e: &Expr) -> R<()> {
        let off = self.scope.layout.offset(id) as usize;
        if is_scalar(&e.ty) {
            self.frame[off] = self.scalar(e)?;
            return Ok(());
        }
        let mut b = self.buf();
        self.value(e, &mut b)?;
        self.frame[off..off + b.len()].copy_from_slice(&b);
        self.give(b);
        Ok(())
    }

    /// `p = v` or `p op= v`: the value first, then the place (its index,
    /// then its path), then (compound) the current value, read unsettled,
    /// then the write; every access at the statement's site.
    fn assign(&mut self, p: &Place, op: Option<BinOp>, v: &Expr, span: Span) -> R<()> {
        let site = self.site(span);
        if !is_scalar(&v.ty) {
            let mut b = self.buf();
            self.value(v, &mut b)?;
            let (loc, _) = self.place(p, site)?;
            self.write(loc, &b, site)?;
            self.give(b);
            return Ok(());
        }
        let x = self.scalar(v)?;
        if let (Root::Local(id), true) = (&p.root, p.path.is_empty()) {
            // A whole scalar local: no place to find, nothing to check.
            let off = self.scope.layout.offset(*id) as usize;
            self.frame[off] = match op {
                Some(op) => binary(op, &self.scope.locals[*id].ty, self.frame[off], x),
                None => x,
            };
            return Ok(());
        }
        let (loc, ty) = self.place(p, site)?;
        let new = match op {
            // A compound assignment out of bounds neither reads nor writes
            // (the generated WGSL's guard skips the whole statement).
            Some(_) if !self.lands(loc, site)? => return Ok(()),
            Some(op) => binary(op, ty, self.read(loc, false, site)?, x),
            None => x,
        };
        self.write(loc, &[new], site)
    }

    /// Each iteration: fuel, the condition, the body, `continuing`. A jump
    /// out of `continuing` (which the IR never holds) would leave this loop
    /// for the one around it, as the twin's labels would.
    fn run_loop(&mut self, l: &Loop, span: Span) -> R<Flow> {
        let site = self.site(span);
        loop {
            self.cx.tick(site)?;
            if let Some(c) = &l.cond {
                if self.scalar(c)? == 0 {
                    return Ok(Flow::Next);
                }
            }
            match self.block(&l.body)? {
                Flow::Break => return Ok(Flow::Next),
                Flow::Return => return Ok(Flow::Return),
                Flow::Next | Flow::Continue => {}
            }
            let f = self.block(&l.continuing)?;
            if f != Flow::Next {
                return Ok(f);
            }
        }
    }

    /// A helper's `return v` keeps `v`'s words; the kernel's evaluates nothing.
    fn ret(&mut self, v: Option<&Expr>) -> R<Flow> {
        if let (Some(v), false) = (v, self.scope.kernel) {
            let mut r = std::mem::take(&mut self.ret);
            r.clear();
            let done = self.value(v, &mut r);
            self.ret = r;
            done?;
        }
        Ok(Flow::Return)
    }
}
