//! Expressions, in the interpreter's order (`interp/expr.rs`): operands
//! left to right, `&&` and `||` short-circuiting. A scalar is a `u32`
//! value in a register (`scalar`); an aggregate is written word by word
//! into frame words (`value_into`). Operations whose result Cranelift's
//! instruction gives bit for bit as Rust's operator does are inlined;
//! the rest (float-to-integer casts, built-in functions) call the
//! interpreter's arithmetic through the `op` shim.

use super::abi::{self, Op};
use super::emit::{Emitter, Off};
use super::Unsupported;
use crate::cpu::interp::arith::lit;
use crate::cpu::interp::frame::is_scalar;
use crate::cpu::twin::{AtomicOp as TwinOp, Mem};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Value};
use ld_compiler::ir::{AtomicOp, BinOp, Builtin, Expr, ExprKind, MemRef, Place, Scalar as S, Type, UnOp};

type R<T> = Result<T, Unsupported>;

impl Emitter<'_, '_> {
    /// A scalar expression's word (an atomic that yields `()`: 0).
    pub fn scalar(&mut self, e: &Expr) -> R<Value> {
        Ok(match &e.kind {
            ExprKind::Lit(l) => self.iconst(lit(*l, &e.ty)),
            ExprKind::Load(p) => self.load_word(p, e.span)?,
            ExprKind::Uniform(i) => self.uniform(*i),
            ExprKind::Builtin(Builtin::LocalIndex) => self.id(abi::LOCAL_INDEX),
            ExprKind::Unary(op, a) => {
                let x = self.scalar(a)?;
                self.unary(*op, &e.ty, x)
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b)?,
            ExprKind::Cast(to, a) => {
                let from = a.ty.scalar().expect("scalar cast");
                let x = self.scalar(a)?;
                self.cast(from, *to, x)
            }
            ExprKind::Intrinsic(i, args) => {
                let mut xs = [self.iconst(0); 3];
                for (x, a) in xs.iter_mut().zip(args.iter().take(3)) {
                    *x = self.scalar(a)?;
                }
                self.op(Op::Intrinsic(*i, args[0].ty.clone()), xs)
            }
            ExprKind::Atomic(op, p, args) => self.atomic(*op, p, args, e.span)?,
            ExprKind::Component(a, c) => self.component(a, *c)?,
            ExprKind::Len(m, off) => self.len(*m, off.as_deref())?,
            // A field of an aggregate, a call: through frame words.
            _ => {
                let mark = self.mark();
                let k = self.shapes.words(&e.ty);
                let at = self.temp(k);
                self.value_into(e, at)?;
                let w = if k == 0 { self.iconst(0) } else { self.load_frame(Off::at(at)) };
                self.release(mark);
                w
            }
        })
    }

    /// Writes `e`'s value (`shapes.words(&e.ty)` words) into the frame from `at`.
    pub fn value_into(&mut self, e: &Expr, at: u32) -> R<()> {
        match &e.kind {
            ExprKind::Load(p) if !is_scalar(&e.ty) => self.load_into(p, e.span, at)?,
            ExprKind::Builtin(b) if *b != Builtin::LocalIndex => {
                let first = builtin_word(*b);
                for c in 0..3 {
                    let v = self.id(first + c);
                    self.store_frame(Off::at(at + c), v);
                }
            }
            ExprKind::Call(f, args) => self.inline_call(*f, args, at)?,
            ExprKind::Field(a, f) => {
                let Type::Struct(s) = a.ty else { unreachable!("field of a non-struct") };
                let (off, k) = (self.shapes.field_offset(s, *f), self.shapes.words(&e.ty));
                let mark = self.mark();
                let whole = self.temp(self.shapes.words(&a.ty));
                self.value_into(a, whole)?;
                self.copy_frame(Off::at(whole + off), Off::at(at), k);
                self.release(mark);
            }
            ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => {
                let mut to = at;
                for x in xs {
                    self.value_into(x, to)?;
                    to += self.shapes.words(&x.ty);
                }
            }
            ExprKind::ArrayRepeat(x, n) => {
                let k = self.shapes.words(&x.ty);
                let mark = self.mark();
                // Evaluated once even for `n == 0`, as Rust does.
                let first = if *n == 0 { self.temp(k) } else { at };
                self.value_into(x, first)?;
                for i in 1..*n {
                    self.copy_frame(Off::at(at), Off::at(at + i * k), k);
                }
                self.release(mark);
            }
            ExprKind::Atomic(..) if e.ty == Type::Unit => {
                self.scalar(e)?;
            }
            _ => {
                let v = self.scalar(e)?;
                self.store_frame(Off::at(at), v);
            }
        }
        Ok(())
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> R<Value> {
        if matches!(op, BinOp::And | BinOp::Or) {
            return self.short_circuit(op == BinOp::And, a, b);
        }
        let x = self.scalar(a)?;
        let y = self.scalar(b)?;
        Ok(self.binary_op(op, &a.ty, x, y))
    }

    /// `x && y` / `x || y`: `y` only where `x` does not decide.
    fn short_circuit(&mut self, and: bool, a: &Expr, b: &Expr) -> R<Value> {
        let x = self.scalar(a)?;
        let (rhs, merge) = (self.b.create_block(), self.b.create_block());
        let r = self.b.append_block_param(merge, types::I32);
        let decided = [BlockArg::Value(x)];
        if and {
            self.b.ins().brif(x, rhs, &[], merge, &decided);
        } else {
            self.b.ins().brif(x, merge, &decided, rhs, &[]);
        }
        self.b.switch_to_block(rhs);
        let y = self.scalar(b)?;
        let y = self.b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
        let y = self.b.ins().uextend(types::I32, y);
        self.b.ins().jump(merge, &[BlockArg::Value(y)]);
        self.b.switch_to_block(merge);
        // `x` itself is a bool word, 0 or 1.
        Ok(r)
    }

    /// `x op y`, both of the left operand's type `ty` (a shift's amount is
    /// a word either way), as `arith::binary_fn` computes it.
    pub fn binary_op(&mut self, op: BinOp, ty: &Type, x: Value, y: Value) -> Value {
        match ty.scalar().expect("binary operator on a scalar") {
            S::F32 => self.float_op(op, x, y),
            S::I32 => self.int_op(op, true, x, y),
            S::U32 => self.int_op(op, false, x, y),
            S::Bool => self.bool_op(op, x, y),
        }
    }

    fn int_op(&mut self, op: BinOp, signed: bool, x: Value, y: Value) -> Value {
        let i = self.b.ins();
        match op {
            BinOp::Add => i.iadd(x, y),
            BinOp::Sub => i.isub(x, y),
            BinOp::Mul => i.imul(x, y),
            BinOp::Div | BinOp::Rem => self.division(op == BinOp::Div, signed, x, y),
            BinOp::BitAnd => i.band(x, y),
            BinOp::BitOr => i.bor(x, y),
            BinOp::BitXor => i.bxor(x, y),
            // Cranelift's shifts take the amount modulo 32, as `wrapping_shl`.
            BinOp::Shl => i.ishl(x, y),
            BinOp::Shr if signed => i.sshr(x, y),
            BinOp::Shr => i.ushr(x, y),
            _ => {
                let cc = int_cc(op, signed);
                let c = self.b.ins().icmp(cc, x, y);
                self.b.ins().uextend(types::I32, c)
            }
        }
    }

    /// WGSL's `/` and `%` (`ops::div_u32` and kin): by zero, `x / 0 == x`
    /// and `x % 0 == 0`; `i32::MIN / -1 == i32::MIN`, `i32::MIN % -1 == 0`.
    /// The divisor the instruction sees is never one that traps.
    fn division(&mut self, div: bool, signed: bool, x: Value, y: Value) -> Value {
        let mut bad = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
        if signed {
            let min = self.b.ins().icmp_imm_s(IntCC::Equal, x, i32::MIN as i64);
            let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
            let overflow = self.b.ins().band(min, minus_one);
            bad = self.b.ins().bor(bad, overflow);
        }
        let one = self.iconst(1);
        let d = self.b.ins().select(bad, one, y);
        let q = match (div, signed) {
            (true, true) => self.b.ins().sdiv(x, d),
            (true, false) => self.b.ins().udiv(x, d),
            (false, true) => self.b.ins().srem(x, d),
            (false, false) => self.b.ins().urem(x, d),
        };
        let otherwise = if div { x } else { self.iconst(0) };
        self.b.ins().select(bad, otherwise, q)
    }

    fn float_op(&mut self, op: BinOp, x: Value, y: Value) -> Value {
        let x = self.b.ins().bitcast(types::F32, MemFlagsData::new(), x);
        let y = self.b.ins().bitcast(types::F32, MemFlagsData::new(), y);
        let r = match op {
            BinOp::Add => self.b.ins().fadd(x, y),
            BinOp::Sub => self.b.ins().fsub(x, y),
            BinOp::Mul => self.b.ins().fmul(x, y),
            BinOp::Div => self.b.ins().fdiv(x, y),
            // `ops::rem_f32`: `a - b * trunc(a / b)`, each step rounded.
            BinOp::Rem => {
                let q = self.b.ins().fdiv(x, y);
                let t = self.b.ins().trunc(q);
                let p = self.b.ins().fmul(y, t);
                self.b.ins().fsub(x, p)
            }
            _ => {
                let c = self.b.ins().fcmp(float_cc(op), x, y);
                return self.b.ins().uextend(types::I32, c);
            }
        };
        self.b.ins().bitcast(types::I32, MemFlagsData::new(), r)
    }

    /// Bools: both sides evaluated (`&&`, `||` reach here from compound
    /// assignment only).
    fn bool_op(&mut self, op: BinOp, x: Value, y: Value) -> Value {
        match op {
            BinOp::BitAnd | BinOp::And => self.b.ins().band(x, y),
            BinOp::BitOr | BinOp::Or => self.b.ins().bor(x, y),
            BinOp::BitXor => self.b.ins().bxor(x, y),
            _ => {
                let c = self.b.ins().icmp(int_cc(op, false), x, y);
                self.b.ins().uextend(types::I32, c)
            }
        }
    }

    /// `op x` (`arith::unary`).
    fn unary(&mut self, op: UnOp, ty: &Type, x: Value) -> Value {
        match (op, ty) {
            // The sign bit, as Rust's `-` on an `f32`.
            (UnOp::Neg, Type::Scalar(S::F32)) => self.b.ins().bxor_imm_s(x, i32::MIN as i64),
            (UnOp::Neg, _) => self.b.ins().ineg(x),
            (UnOp::Not, Type::Scalar(S::Bool)) => self.b.ins().bxor_imm_u(x, 1),
            (UnOp::Not, _) => self.b.ins().bnot(x),
        }
    }

    /// `x as to` (`arith::cast`): integer to float rounds to nearest as
    /// Rust's `as`; float to integer goes through the shim.
    fn cast(&mut self, from: S, to: S, x: Value) -> Value {
        match (from, to) {
            (a, b) if a == b => x,
            (S::F32, S::U32 | S::I32) => {
                let z = self.iconst(0);
                self.op(Op::Cast(from, to), [x, z, z])
            }
            (_, S::U32 | S::I32) => x,
            (S::I32, S::F32) => {
                let f = self.b.ins().fcvt_from_sint(types::F32, x);
                self.b.ins().bitcast(types::I32, MemFlagsData::new(), f)
            }
            (_, S::F32) => {
                let f = self.b.ins().fcvt_from_uint(types::F32, x);
                self.b.ins().bitcast(types::I32, MemFlagsData::new(), f)
            }
            (_, S::Bool) => unreachable!("casts to bool are rejected"),
        }
    }

    /// The place (index, then path), then the operands, then `Cx::atomic`.
    fn atomic(&mut self, op: AtomicOp, p: &Place, args: &[Expr], span: ld_compiler::Span) -> R<Value> {
        let site = self.site(span);
        let (loc, ty) = self.place(p, site)?;
        let Type::Atomic(s) = ty else { unreachable!("atomics live in memory") };
        let signed = self.iconst((s == S::I32) as u32);
        let mut xs = [self.iconst(0); 2];
        for (x, a) in xs.iter_mut().zip(args.iter().take(2)) {
            *x = self.scalar(a)?;
        }
        let super::place::Loc::Mem { mem, index, inner } = loc else { unreachable!("atomics live in memory") };
        let twin: TwinOp = op.into();
        let code = abi::ATOMIC_OPS.iter().position(|o| *o == twin).expect("every atomic operation has a number");
        let (m, code, at) = (self.iconst(abi::mem_code(mem)), self.iconst(code as u32), self.b.ins().iconst(types::I64, site as i64));
        Ok(self.checked(abi::atomic as *const (), self.sigs.atomic, &[m, index, inner, code, signed, xs[0], xs[1], at]))
    }

    /// `.x/.y/.z`: an id's straight from the context, anything else's
    /// through frame words.
    fn component(&mut self, a: &Expr, c: u32) -> R<Value> {
        if let ExprKind::Builtin(b) = a.kind {
            return Ok(self.id(builtin_word(b) + c));
        }
        let mark = self.mark();
        let at = self.temp(self.shapes.words(&a.ty));
        self.value_into(a, at)?;
        let w = self.load_frame(Off::at(at + c));
        self.release(mark);
        Ok(w)
    }

    /// `Cx::len(mem)` minus the view's offset, wrapping.
    fn len(&mut self, m: MemRef, off: Option<&Expr>) -> R<Value> {
        let mem: Mem = self.mem(m);
        let o = match off {
            Some(o) => Some(self.scalar(o)?),
            None => None,
        };
        let n = self.mem_len(mem);
        Ok(match o {
            Some(o) => self.b.ins().isub(n, o),
            None => n,
        })
    }
}

/// The first of builtin `b`'s three words in `Cx::ids`.
fn builtin_word(b: Builtin) -> u32 {
    match b {
        Builtin::GlobalId => 0,
        Builtin::LocalId => 3,
        Builtin::WorkgroupId => 6,
        Builtin::NumWorkgroups => 9,
        Builtin::WorkgroupSize => 12,
        Builtin::LocalIndex => unreachable!("local_index is a u32"),
    }
}

fn int_cc(op: BinOp, signed: bool) -> IntCC {
    match (op, signed) {
        (BinOp::Eq, _) => IntCC::Equal,
        (BinOp::Ne, _) => IntCC::NotEqual,
        (BinOp::Lt, true) => IntCC::SignedLessThan,
        (BinOp::Le, true) => IntCC::SignedLessThanOrEqual,
        (BinOp::Gt, true) => IntCC::SignedGreaterThan,
        (BinOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (BinOp::Lt, false) => IntCC::UnsignedLessThan,
        (BinOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (BinOp::Gt, false) => IntCC::UnsignedGreaterThan,
        (BinOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
        _ => unreachable!("`{}` is not a comparison", op.symbol()),
    }
}

/// IEEE comparisons, as Rust's operators: NaN is unordered, so only `!=` holds.
fn float_cc(op: BinOp) -> FloatCC {
    match op {
        BinOp::Eq => FloatCC::Equal,
        BinOp::Ne => FloatCC::NotEqual,
        BinOp::Lt => FloatCC::LessThan,
        BinOp::Le => FloatCC::LessThanOrEqual,
        BinOp::Gt => FloatCC::GreaterThan,
        BinOp::Ge => FloatCC::GreaterThanOrEqual,
        _ => unreachable!("`{}` is not a comparison", op.symbol()),
    }
}
