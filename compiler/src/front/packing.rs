//! WGSL's unpacking builtins written out in integer arithmetic, so both
//! back ends compute the same bits: `unpack2x16float` (each half's sign,
//! exponent and significand moved into an `f32`'s, which is exact: every
//! `f16` is an `f32`), and the normalized `unpack4x8unorm`,
//! `unpack4x8snorm`, `unpack2x16unorm`, `unpack2x16snorm` (a byte or half
//! word over its largest value, as WGSL defines them).

use super::vectors::bin;
use super::Cx;
use crate::ir::{BinOp, Expr, ExprKind, Intrinsic, Lit, Scalar, Type};
use naga::MathFunction as M;

impl Cx<'_> {
    /// `fun` of the packed word `x`, as a vector of type `ty`; `None` for a
    /// builtin that is not an unpacking one.
    pub(super) fn unpack(&self, fun: M, x: &Expr, ty: &Type, sp: crate::Span) -> Option<Expr> {
        let b = Bits { sp };
        let lanes: Vec<Expr> = match fun {
            M::Unpack2x16float => (0..2).map(|i| b.half(b.field(x, 16 * i, 0xffff))).collect(),
            M::Unpack4x8unorm => (0..4).map(|i| b.unorm(b.field(x, 8 * i, 0xff), 255.0)).collect(),
            M::Unpack2x16unorm => (0..2).map(|i| b.unorm(b.field(x, 16 * i, 0xffff), 65535.0)).collect(),
            M::Unpack4x8snorm => (0..4).map(|i| b.snorm(x, 8 * i, 8, 127.0)).collect(),
            M::Unpack2x16snorm => (0..2).map(|i| b.snorm(x, 16 * i, 16, 32767.0)).collect(),
            _ => return None,
        };
        Some(self.gather(ty, lanes, sp))
    }
}

/// Builds the expressions, at one span.
struct Bits {
    sp: crate::Span,
}

impl Bits {
    fn u32(&self, v: u32) -> Expr {
        Expr { kind: ExprKind::Lit(Lit::Int(v as i64)), ty: Type::U32, span: self.sp }
    }

    fn f32(&self, v: f32) -> Expr {
        Expr { kind: ExprKind::Lit(Lit::Float(v)), ty: Type::F32, span: self.sp }
    }

    fn op(&self, op: BinOp, a: Expr, b: Expr, ty: &Type) -> Expr {
        bin(op, a, b, ty, self.sp)
    }

    fn cast(&self, to: Scalar, x: Expr) -> Expr {
        Expr { kind: ExprKind::Cast(to, Box::new(x)), ty: Type::Scalar(to), span: self.sp }
    }

    fn bitcast(&self, to: Scalar, x: Expr) -> Expr {
        Expr { kind: ExprKind::Intrinsic(Intrinsic::Bitcast(to), vec![x]), ty: Type::Scalar(to), span: self.sp }
    }

    /// `(x >> shift) & mask`.
    fn field(&self, x: &Expr, shift: u32, mask: u32) -> Expr {
        let shifted = self.op(BinOp::Shr, x.clone(), self.u32(shift), &Type::U32);
        self.op(BinOp::BitAnd, shifted, self.u32(mask), &Type::U32)
    }

    /// `u32(cond)`: 1 or 0.
    fn flag(&self, cond: Expr) -> Expr {
        self.cast(Scalar::U32, cond)
    }

    /// The `f32` a half's 16 bits `h` stand for: a normal half rebiased, an
    /// infinity or NaN kept so, a subnormal (or zero) as its significand
    /// times 2^-24, which `f32` holds exactly. Each case is a word, and
    /// the one that applies is picked by multiplying by a 0 or 1 flag.
    fn half(&self, h: Expr) -> Expr {
        let u = Type::U32;
        let sign = self.op(BinOp::Shl, self.op(BinOp::BitAnd, h.clone(), self.u32(0x8000), &u), self.u32(16), &u);
        let exp = self.field(&h, 10, 0x1f);
        let mant = self.op(BinOp::BitAnd, h, self.u32(0x3ff), &u);
        let mant_bits = self.op(BinOp::Shl, mant.clone(), self.u32(13), &u);
        let or = |a: Expr, b: Expr| self.op(BinOp::BitOr, a, b, &u);
        let rebiased = self.op(BinOp::Shl, self.op(BinOp::Add, exp.clone(), self.u32(112), &u), self.u32(23), &u);
        let normal = or(or(sign.clone(), rebiased), mant_bits.clone());
        let special = or(or(sign.clone(), self.u32(0x7f80_0000)), mant_bits);
        let scaled = self.op(BinOp::Mul, self.cast(Scalar::F32, mant), self.f32(1.0 / 16_777_216.0), &Type::F32);
        let small = or(sign, self.bitcast(Scalar::U32, scaled));
        let is = |v: u32| self.flag(self.op(BinOp::Eq, exp.clone(), self.u32(v), &Type::BOOL));
        let (is_small, is_special) = (is(0), is(31));
        let is_normal = self.op(BinOp::Sub, self.op(BinOp::Sub, self.u32(1), is_small.clone(), &u), is_special.clone(), &u);
        let pick = |word: Expr, flag: Expr| self.op(BinOp::Mul, word, flag, &u);
        let bits = self.op(BinOp::Add, self.op(BinOp::Add, pick(normal, is_normal), pick(special, is_special), &u), pick(small, is_small), &u);
        self.bitcast(Scalar::F32, bits)
    }

    /// An unsigned field over its largest value.
    fn unorm(&self, v: Expr, max: f32) -> Expr {
        self.op(BinOp::Div, self.cast(Scalar::F32, v), self.f32(max), &Type::F32)
    }

    /// The signed field of `bits` bits at `shift` over its largest value,
    /// at least -1 (the most negative value is below -max).
    fn snorm(&self, x: &Expr, shift: u32, bits: u32, max: f32) -> Expr {
        let high = self.op(BinOp::Shl, x.clone(), self.u32(32 - bits - shift), &Type::U32);
        let signed = self.op(BinOp::Shr, self.cast(Scalar::I32, high), self.u32(32 - bits), &Type::I32);
        let ratio = self.op(BinOp::Div, self.cast(Scalar::F32, signed), self.f32(max), &Type::F32);
        Expr { kind: ExprKind::Intrinsic(Intrinsic::Max, vec![ratio, self.f32(-1.0)]), ty: Type::F32, span: self.sp }
    }
}
