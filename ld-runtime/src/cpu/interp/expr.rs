//! Expressions, evaluated in the twin's order (operands left to right,
//! `&&` and `||` short-circuiting, `&`, `|` and `^` not). A scalar takes
//! the fast path, `scalar`, which yields its word without a buffer; only
//! aggregates (structs, arrays, `UVec3`s: loads of them, literals, calls
//! returning them, builtins) are gathered word by word by `value`.

use super::arith::{binary_fn, cast, intrinsic, lit, unary};
use super::eval::{Compiler, Operand, Scalar, Value};
use super::frame::is_scalar;
use super::place::Loc;
use crate::cpu::twin::{Ids, UVec3};
use ld_compiler::ir::{AtomicOp, BinOp, Builtin, Expr, ExprKind, Intrinsic, MemRef, Place, Root, Scalar as S, Type};
use ld_compiler::Span;

impl Compiler<'_> {
    /// A scalar expression as an operand: read in place where it is a
    /// whole local or a literal.
    pub fn operand(&self, e: &Expr) -> Operand {
        match &e.kind {
            ExprKind::Lit(l) => Operand::Word(lit(*l, &e.ty)),
            ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() => Operand::Local(self.local(*id).0),
            _ => Operand::Other(self.scalar(e)),
        }
    }

    /// A scalar expression's word (for an atomic that yields `()`, 0).
    pub fn scalar(&self, e: &Expr) -> Scalar {
        match &e.kind {
            ExprKind::Lit(l) => {
                let w = lit(*l, &e.ty);
                Box::new(move |_| Ok(w))
            }
            ExprKind::Load(p) => self.load_word(p, e.span),
            ExprKind::Uniform(i) => {
                let w = self.uniform_words[*i];
                Box::new(move |ev| Ok(ev.cx.uniform(w)))
            }
            ExprKind::Builtin(Builtin::LocalIndex) => Box::new(|ev| Ok(ev.cx.ids.local_index)),
            ExprKind::Unary(op, a) => {
                let (op, ty, a) = (*op, e.ty.clone(), self.scalar(a));
                Box::new(move |ev| Ok(unary(op, &ty, a(ev)?)))
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::Cast(to, a) => {
                let (from, to, a) = (a.ty.scalar().expect("scalar cast"), *to, self.scalar(a));
                Box::new(move |ev| Ok(cast(from, to, a(ev)?)))
            }
            ExprKind::Intrinsic(i, args) => self.intrinsic(*i, args),
            ExprKind::Atomic(op, p, args) => self.atomic(*op, p, args, e.span),
            ExprKind::Component(a, c) => self.component(a, *c),
            ExprKind::Len(m, off) => self.len(*m, off.as_deref()),
            // A field of an aggregate, a call: through a buffer.
            _ => {
                let v = self.value(e);
                Box::new(move |ev| {
                    let mut b = ev.buf();
                    v(ev, &mut b)?;
                    let w = b.first().copied().unwrap_or(0);
                    ev.give(b);
                    Ok(w)
                })
            }
        }
    }

    /// Appends the words of `e`'s value (none for `()`).
    pub fn value(&self, e: &Expr) -> Value {
        match &e.kind {
            ExprKind::Load(p) if !is_scalar(&e.ty) => self.load_into(p, e.span),
            ExprKind::Builtin(b) if *b != Builtin::LocalIndex => {
                let b = *b;
                Box::new(move |ev, out| {
                    let v = vec3(&ev.cx.ids, b);
                    out.extend_from_slice(&[v.x, v.y, v.z]);
                    Ok(())
                })
            }
            ExprKind::Call(f, args) => self.call(*f, args),
            ExprKind::Field(a, f) => self.field(a, *f, &e.ty),
            ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => {
                let xs: Vec<Value> = xs.iter().map(|x| self.value(x)).collect();
                Box::new(move |ev, out| xs.iter().try_for_each(|x| x(ev, out)))
            }
            ExprKind::ArrayRepeat(x, n) => self.repeat(x, *n),
            ExprKind::Atomic(..) if e.ty == Type::Unit => {
                let s = self.scalar(e);
                Box::new(move |ev, _| s(ev).map(drop))
            }
            _ => {
                let s = self.scalar(e);
                Box::new(move |ev, out| {
                    out.push(s(ev)?);
                    Ok(())
                })
            }
        }
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr) -> Scalar {
        let (x, y) = (self.operand(a), self.operand(b));
        match op {
            BinOp::And => Box::new(move |ev| Ok((x.get(ev)? != 0 && y.get(ev)? != 0) as u32)),
            BinOp::Or => Box::new(move |ev| Ok((x.get(ev)? != 0 || y.get(ev)? != 0) as u32)),
            _ => {
                let f = binary_fn(op, &a.ty);
                Box::new(move |ev| {
                    let l = x.get(ev)?;
                    let r = y.get(ev)?;
                    Ok(f(l, r))
                })
            }
        }
    }

    fn intrinsic(&self, i: Intrinsic, args: &[Expr]) -> Scalar {
        let ty = args[0].ty.clone();
        let args: Vec<Scalar> = args.iter().take(3).map(|a| self.scalar(a)).collect();
        Box::new(move |ev| {
            let mut xs = [0; 3];
            for (x, a) in xs.iter_mut().zip(&args) {
                *x = a(ev)?;
            }
            Ok(intrinsic(i, &ty, xs))
        })
    }

    /// The place (index, then path), then the operands, then `Cx::atomic`.
    fn atomic(&self, op: AtomicOp, p: &Place, args: &[Expr], span: Span) -> Scalar {
        let site = self.site(span);
        let (place, ty) = self.place(p, site);
        let Type::Atomic(s) = ty else { unreachable!("atomics live in memory") };
        let (signed, op) = (*s == S::I32, op.into());
        let args: Vec<Scalar> = args.iter().take(2).map(|a| self.scalar(a)).collect();
        Box::new(move |ev| {
            let Loc::Mem { mem, index, inner } = place(ev)? else { unreachable!("atomics live in memory") };
            let mut xs = [0; 2];
            for (x, a) in xs.iter_mut().zip(&args) {
                *x = a(ev)?;
            }
            Ok(ev.cx.atomic(mem, index, inner, op, signed, xs[0], xs[1], site)?)
        })
    }

    /// `.x/.y/.z`: an id builtin's straight from `Cx`, anything else's
    /// through a buffer.
    fn component(&self, a: &Expr, c: u32) -> Scalar {
        if let ExprKind::Builtin(b) = a.kind {
            return Box::new(move |ev| {
                let v = vec3(&ev.cx.ids, b);
                Ok([v.x, v.y, v.z][c as usize])
            });
        }
        let v = self.value(a);
        Box::new(move |ev| {
            let mut b = ev.buf();
            v(ev, &mut b)?;
            let w = b[c as usize];
            ev.give(b);
            Ok(w)
        })
    }

    /// `cx.len(mem)` minus the view's offset, wrapping.
    fn len(&self, m: MemRef, off: Option<&Expr>) -> Scalar {
        let (mem, off) = (self.mem(m), off.map(|o| self.scalar(o)));
        Box::new(move |ev| {
            let o = match &off {
                Some(o) => o(ev)?,
                None => 0,
            };
            Ok(ev.cx.len(mem.get(ev)).wrapping_sub(o))
        })
    }

    /// Field `f` (of type `ty`) of struct value `a`: the whole value is
    /// evaluated, then only the field's words kept.
    fn field(&self, a: &Expr, f: usize, ty: &Type) -> Value {
        let Type::Struct(s) = a.ty else { unreachable!("field of a non-struct") };
        let (v, off, k) = (self.value(a), self.shapes.field_offset(s, f) as usize, self.shapes.words(ty) as usize);
        Box::new(move |ev, out| {
            let base = out.len();
            v(ev, out)?;
            out.copy_within(base + off..base + off + k, base);
            out.truncate(base + k);
            Ok(())
        })
    }

    /// `[x; n]`: `x` evaluated once (even for `n == 0`, as Rust does), then copied.
    fn repeat(&self, x: &Expr, n: u32) -> Value {
        let x = self.value(x);
        Box::new(move |ev, out| {
            let base = out.len();
            x(ev, out)?;
            let end = out.len();
            if n == 0 {
                out.truncate(base);
            }
            for _ in 1..n {
                out.extend_from_within(base..end);
            }
            Ok(())
        })
    }
}

fn vec3(ids: &Ids, b: Builtin) -> UVec3 {
    match b {
        Builtin::GlobalId => ids.global_id,
        Builtin::LocalId => ids.local_id,
        Builtin::WorkgroupId => ids.workgroup_id,
        Builtin::NumWorkgroups => ids.num_workgroups,
        Builtin::WorkgroupSize => ids.workgroup_size,
        Builtin::LocalIndex => unreachable!("local_index is a u32"),
    }
}
