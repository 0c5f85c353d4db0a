//! Expressions, evaluated in the twin's order (operands left to right,
//! `&&` and `||` short-circuiting, `&`, `|` and `^` not). A scalar takes
//! the fast path, `scalar`, which returns its word without a buffer;
//! only aggregates (structs, arrays, `UVec3`s: loads of them, literals,
//! calls returning them, builtins) are gathered word by word by `value`.

use super::arith::{binary, cast, intrinsic, lit, unary};
use super::eval::{atomic_op, Eval, R};
use super::frame::is_scalar;
use super::place::Loc;
use crate::cpu::twin::UVec3;
use ld_compiler::ir::{AtomicOp, BinOp, Builtin, Expr, ExprKind, Intrinsic, MemRef, Place, Root, Scalar, Type};
use ld_compiler::Span;

impl Eval<'_, '_> {
    /// A scalar expression's word (for an atomic that yields `()`, 0).
    ///
    /// The commonest expressions are evaluated here, the rest in
    /// `scalar_other`: this function recurses at every node, and kept
    /// small it saves few registers and a small frame.
    pub fn scalar(&mut self, e: &Expr) -> R<u32> {
        match &e.kind {
            ExprKind::Lit(l) => Ok(lit(*l, &e.ty)),
            // A local read whole: no place to find.
            ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() => Ok(self.frame[self.scope.layout.offset(*id) as usize]),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            _ => self.scalar_other(e),
        }
    }

    /// The scalar expressions `scalar` leaves: kept out of its frame.
    #[inline(never)]
    fn scalar_other(&mut self, e: &Expr) -> R<u32> {
        match &e.kind {
            ExprKind::Load(p) => self.load_word(p, e.span),
            ExprKind::Uniform(i) => Ok(self.cx.uniform(self.prog.uniform_words[*i])),
            ExprKind::Builtin(Builtin::LocalIndex) => Ok(self.cx.ids.local_index),
            ExprKind::Unary(op, a) => Ok(unary(*op, &e.ty, self.scalar(a)?)),
            ExprKind::Cast(to, a) => Ok(cast(a.ty.scalar().expect("scalar cast"), *to, self.scalar(a)?)),
            ExprKind::Intrinsic(i, args) => self.intrinsic(*i, args),
            ExprKind::Atomic(op, p, args) => self.atomic(*op, p, args, e.span),
            ExprKind::Component(a, c) => self.component(a, *c),
            ExprKind::Len(m, off) => self.len(*m, off.as_deref()),
            // A field of an aggregate, a call: through a buffer.
            _ => {
                let mut b = self.buf();
                self.value(e, &mut b)?;
                let w = b.first().copied().unwrap_or(0);
                self.give(b);
                Ok(w)
            }
        }
    }

    /// Appends the words of `e`'s value to `out` (none for `()`).
    pub fn value(&mut self, e: &Expr, out: &mut Vec<u32>) -> R<()> {
        match &e.kind {
            ExprKind::Load(p) if !is_scalar(&e.ty) => self.load_into(p, e.span, out),
            ExprKind::Builtin(b) if *b != Builtin::LocalIndex => {
                let v = self.vec3(*b);
                out.extend_from_slice(&[v.x, v.y, v.z]);
                Ok(())
            }
            ExprKind::Call(f, args) => self.call(*f, args, out),
            ExprKind::Field(a, f) => self.field(a, *f, &e.ty, out),
            ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => xs.iter().try_for_each(|x| self.value(x, out)),
            ExprKind::ArrayRepeat(x, n) => self.repeat(x, *n, out),
            ExprKind::Atomic(..) if e.ty == Type::Unit => self.scalar(e).map(drop),
            _ => {
                let w = self.scalar(e)?;
                out.push(w);
                Ok(())
            }
        }
    }

    /// An expression evaluated for its effect (`let _ = e;`).
    pub fn discard(&mut self, e: &Expr) -> R<()> {
        if is_scalar(&e.ty) || matches!(e.kind, ExprKind::Atomic(..)) {
            return self.scalar(e).map(drop);
        }
        let mut b = self.buf();
        self.value(e, &mut b)?;
        self.give(b);
        Ok(())
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> R<u32> {
        match op {
            BinOp::And => Ok((self.scalar(a)? != 0 && self.scalar(b)? != 0) as u32),
            BinOp::Or => Ok((self.scalar(a)? != 0 || self.scalar(b)? != 0) as u32),
            _ => {
                let x = self.scalar(a)?;
                let y = self.scalar(b)?;
                Ok(binary(op, &a.ty, x, y))
            }
        }
    }

    fn intrinsic(&mut self, i: Intrinsic, args: &[Expr]) -> R<u32> {
        let mut xs = [0; 3];
        for (x, a) in xs.iter_mut().zip(args) {
            *x = self.scalar(a)?;
        }
        Ok(intrinsic(i, &args[0].ty, xs))
    }

    /// The place (index, then path), then the operands, then `Cx::atomic`.
    fn atomic(&mut self, op: AtomicOp, p: &Place, args: &[Expr], span: Span) -> R<u32> {
        let site = self.site(span);
        let (loc, ty) = self.place(p, site)?;
        let (Loc::Mem { mem, index, inner }, Type::Atomic(s)) = (loc, ty) else { unreachable!("atomics live in memory") };
        let signed = *s == Scalar::I32;
        let mut xs = [0; 2];
        for (x, a) in xs.iter_mut().zip(args) {
            *x = self.scalar(a)?;
        }
        Ok(self.cx.atomic(mem, index, inner, atomic_op(op), signed, xs[0], xs[1], site)?)
    }

    /// `.x/.y/.z`: an id builtin's straight from `Cx`, anything else's
    /// through a buffer.
    fn component(&mut self, a: &Expr, c: u32) -> R<u32> {
        if let ExprKind::Builtin(b) = a.kind {
            let v = self.vec3(b);
            return Ok([v.x, v.y, v.z][c as usize]);
        }
        let mut b = self.buf();
        self.value(a, &mut b)?;
        let w = b[c as usize];
        self.give(b);
        Ok(w)
    }

    fn vec3(&self, b: Builtin) -> UVec3 {
        let ids = &self.cx.ids;
        match b {
            Builtin::GlobalId => ids.global_id,
            Builtin::LocalId => ids.local_id,
            Builtin::WorkgroupId => ids.workgroup_id,
            Builtin::NumWorkgroups => ids.num_workgroups,
            Builtin::WorkgroupSize => ids.workgroup_size,
            Builtin::LocalIndex => unreachable!("local_index is a u32"),
        }
    }

    /// `cx.len(mem)` minus the view's offset, wrapping.
    fn len(&mut self, m: MemRef, off: Option<&Expr>) -> R<u32> {
        let o = match off {
            Some(o) => self.scalar(o)?,
            None => 0,
        };
        Ok(self.cx.len(self.mem(m)).wrapping_sub(o))
    }

    /// Field `f` (of type `ty`) of struct value `a`: the whole value is
    /// evaluated, then only the field's words kept.
    fn field(&mut self, a: &Expr, f: usize, ty: &Type, out: &mut Vec<u32>) -> R<()> {
        let Type::Struct(s) = a.ty else { unreachable!("field of a non-struct") };
        let base = out.len();
        self.value(a, out)?;
        let off = base + self.prog.shapes.field_offset(s, f) as usize;
        let k = self.prog.shapes.words(ty) as usize;
        out.copy_within(off..off + k, base);
        out.truncate(base + k);
        Ok(())
    }

    /// `[x; n]`: `x` evaluated once (even for `n == 0`, as Rust does), then copied.
    fn repeat(&mut self, x: &Expr, n: u32, out: &mut Vec<u32>) -> R<()> {
        let base = out.len();
        self.value(x, out)?;
        let end = out.len();
        if n == 0 {
            out.truncate(base);
        }
        for _ in 1..n {
            out.extend_from_within(base..end);
        }
        Ok(())
    }
}
