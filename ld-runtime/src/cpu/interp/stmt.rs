//! Structured statements, as the twin runs them (`ld-macros/src/cpu/stmt.rs`):
//! a helper's whole body, and the barrier-free statements of the kernel's
//! blocks. Every loop iteration first spends fuel at the loop's site, so
//! a kernel that never ends faults instead of hanging.

use super::arith::binary_fn;
use super::eval::{Compiler, Eval, Exec, R};
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

/// A block's statements, compiled.
pub(super) type Block = Vec<Exec>;

/// Runs a block's statements until one leaves it.
pub(super) fn run(block: &[Exec], ev: &mut Eval) -> R<Flow> {
    for s in block {
        let f = s(ev)?;
        if f != Flow::Next {
            return Ok(f);
        }
    }
    Ok(Flow::Next)
}

impl Compiler<'_> {
    pub fn block(&self, stmts: &[Stmt]) -> Block {
        // A local declared only keeps what it holds: nothing to run.
        stmts.iter().filter(|s| !matches!(s.kind, StmtKind::Let(_, None))).map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: &Stmt) -> Exec {
        let flow = |f: Flow| -> Exec { Box::new(move |_| Ok(f)) };
        match &s.kind {
            StmtKind::Let(id, Some(e)) => self.set_local(*id, e),
            StmtKind::Let(_, None) => flow(Flow::Next),
            StmtKind::Assign(p, op, v) => self.assign(p, *op, v, s.span),
            StmtKind::Expr(e) => self.discard(e),
            StmtKind::If(c, a, b) => {
                let (c, a, b) = (self.operand(c), self.block(a), self.block(b));
                Box::new(move |ev| if c.get(ev)? != 0 { run(&a, ev) } else { run(&b, ev) })
            }
            StmtKind::Loop(l) => self.run_loop(l, s.span),
            StmtKind::Break => flow(Flow::Break),
            StmtKind::Continue => flow(Flow::Continue),
            StmtKind::Return(v) => self.ret(v.as_ref()),
            StmtKind::Barrier(_) => Box::new(|_| unreachable!("barriers are block terminators after lowering")),
        }
    }

    /// `let l = e;`: the value, then the whole local.
    fn set_local(&self, id: LocalId, e: &Expr) -> Exec {
        let (off, _) = self.local(id);
        if is_scalar(&e.ty) {
            let s = self.operand(e);
            return Box::new(move |ev| {
                ev.frame[off] = s.get(ev)?;
                Ok(Flow::Next)
            });
        }
        let v = self.value(e);
        Box::new(move |ev| {
            let mut b = ev.buf();
            v(ev, &mut b)?;
            ev.frame[off..off + b.len()].copy_from_slice(&b);
            ev.give(b);
            Ok(Flow::Next)
        })
    }

    /// An expression evaluated for its effect (`let _ = e;`).
    fn discard(&self, e: &Expr) -> Exec {
        if is_scalar(&e.ty) || matches!(e.kind, ld_compiler::ir::ExprKind::Atomic(..)) {
            let s = self.scalar(e);
            return Box::new(move |ev| s(ev).map(|_| Flow::Next));
        }
        let v = self.value(e);
        Box::new(move |ev| {
            let mut b = ev.buf();
            v(ev, &mut b)?;
            ev.give(b);
            Ok(Flow::Next)
        })
    }

    /// `p = v` or `p op= v`: the value first, then the place (its index,
    /// then its path), then (compound) the current value, read unsettled,
    /// then the write; every access at the statement's site.
    fn assign(&self, p: &Place, op: Option<BinOp>, v: &Expr, span: Span) -> Exec {
        let site = self.site(span);
        if !is_scalar(&v.ty) {
            let (v, (place, _)) = (self.value(v), self.place(p, site));
            return Box::new(move |ev| {
                let mut b = ev.buf();
                v(ev, &mut b)?;
                let loc = place(ev)?;
                ev.write(loc, &b, site)?;
                ev.give(b);
                Ok(Flow::Next)
            });
        }
        let x = self.operand(v);
        if let (Root::Local(id), true) = (&p.root, p.path.is_empty()) {
            // A whole scalar local: no place to find, nothing to check.
            let (off, ty) = self.local(*id);
            return match op.map(|op| binary_fn(op, ty)) {
                Some(f) => Box::new(move |ev| {
                    let x = x.get(ev)?;
                    ev.frame[off] = f(ev.frame[off], x);
                    Ok(Flow::Next)
                }),
                None => Box::new(move |ev| {
                    ev.frame[off] = x.get(ev)?;
                    Ok(Flow::Next)
                }),
            };
        }
        let (place, ty) = self.place(p, site);
        let op = op.map(|op| binary_fn(op, ty));
        Box::new(move |ev| {
            let x = x.get(ev)?;
            let loc = place(ev)?;
            let new = match op {
                // A compound assignment out of bounds neither reads nor
                // writes (the generated WGSL's guard skips the statement).
                Some(_) if !ev.lands(loc, site)? => return Ok(Flow::Next),
                Some(f) => f(ev.read(loc, false, site)?, x),
                None => x,
            };
            ev.write(loc, &[new], site)?;
            Ok(Flow::Next)
        })
    }

    /// Each iteration: fuel, the condition, the body, `continuing`. A jump
    /// out of `continuing` (which the IR never holds) would leave this loop
    /// for the one around it, as the twin's labels would.
    fn run_loop(&self, l: &Loop, span: Span) -> Exec {
        let site = self.site(span);
        let cond = l.cond.as_ref().map(|c| self.scalar(c));
        let (body, continuing) = (self.block(&l.body), self.block(&l.continuing));
        Box::new(move |ev| loop {
            ev.cx.tick(site)?;
            if let Some(c) = &cond {
                if c(ev)? == 0 {
                    return Ok(Flow::Next);
                }
            }
            match run(&body, ev)? {
                Flow::Break => return Ok(Flow::Next),
                Flow::Return => return Ok(Flow::Return),
                Flow::Next | Flow::Continue => {}
            }
            let f = run(&continuing, ev)?;
            if f != Flow::Next {
                return Ok(f);
            }
        })
    }

    /// A helper's `return v` keeps `v`'s words; the kernel's evaluates nothing.
    fn ret(&self, v: Option<&Expr>) -> Exec {
        let Some(v) = v.filter(|_| !self.scope.kernel) else { return Box::new(|_| Ok(Flow::Return)) };
        let v = self.value(v);
        Box::new(move |ev| {
            let mut r = std::mem::take(&mut ev.ret);
            r.clear();
            let done = v(ev, &mut r);
            ev.ret = r;
            done?;
            Ok(Flow::Return)
        })
    }
}
