//! WGSL's arithmetic on 32-bit words, exactly as the twin's operators and
//! helpers compute it (`ld-macros/src/cpu/expr.rs`: `lit`, `binary`,
//! `cast`, `intrinsic`): a word is a `u32` as is, an `i32`'s bits, an
//! `f32`'s `to_bits`, a `bool` as 0 or 1. Each function decodes its
//! operands by the IR type the twin dispatches on, applies the same Rust
//! operation (or `ops` helper) and encodes the result.

use crate::cpu::ops;
use ld_compiler::ir::{BinOp, Intrinsic, Lit, Scalar, Type, UnOp};

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// A literal of type `ty` as a word (the twin's `lit`).
pub(in crate::cpu) fn lit(l: Lit, ty: &Type) -> u32 {
    match (l, ty) {
        (Lit::Int(v), Type::Scalar(Scalar::U32)) => v as u32,
        (Lit::Int(v), _) => v as i32 as u32,
        (Lit::Float(x), _) => x.to_bits(),
        (Lit::Bool(b), _) => b as u32,
    }
}

/// `x op y` with operands of type `ty` (the left operand's, as the twin
/// dispatches; a shift's amount is a word either way), as a function
/// chosen once per operator of the program. Expressions short-circuit
/// `&&` and `||` before they get here.
pub(in crate::cpu) fn binary_fn(op: BinOp, ty: &Type) -> fn(u32, u32) -> u32 {
    // Each arm a function of its own, `op` a constant in it.
    macro_rules! per_op {
        ($f:expr) => {
            match op {
                BinOp::Add => |x, y| $f(BinOp::Add, x, y),
                BinOp::Sub => |x, y| $f(BinOp::Sub, x, y),
                BinOp::Mul => |x, y| $f(BinOp::Mul, x, y),
                BinOp::Div => |x, y| $f(BinOp::Div, x, y),
                BinOp::Rem => |x, y| $f(BinOp::Rem, x, y),
                BinOp::BitAnd => |x, y| $f(BinOp::BitAnd, x, y),
                BinOp::BitOr => |x, y| $f(BinOp::BitOr, x, y),
                BinOp::BitXor => |x, y| $f(BinOp::BitXor, x, y),
                BinOp::Shl => |x, y| $f(BinOp::Shl, x, y),
                BinOp::Shr => |x, y| $f(BinOp::Shr, x, y),
                BinOp::Eq => |x, y| $f(BinOp::Eq, x, y),
                BinOp::Ne => |x, y| $f(BinOp::Ne, x, y),
                BinOp::Lt => |x, y| $f(BinOp::Lt, x, y),
                BinOp::Le => |x, y| $f(BinOp::Le, x, y),
                BinOp::Gt => |x, y| $f(BinOp::Gt, x, y),
                BinOp::Ge => |x, y| $f(BinOp::Ge, x, y),
                BinOp::And => |x, y| $f(BinOp::And, x, y),
                BinOp::Or => |x, y| $f(BinOp::Or, x, y),
            }
        };
    }
    match ty {
        Type::Scalar(Scalar::U32) => per_op!(unsigned),
        Type::Scalar(Scalar::I32) => per_op!(|op, x: u32, y| signed(op, x as i32, y)),
        Type::Scalar(Scalar::F32) => per_op!(|op, x, y| float(op, f(x), f(y))),
        Type::Scalar(Scalar::Bool) => per_op!(|op, x, y| logical(op, x != 0, y != 0)),
        other => unreachable!("`{}` on a value of type {other:?}", op.symbol()),
    }
}

/// A comparison's result as a bool word; IEEE for floats (NaN compares
/// false, `-0.0 == 0.0`), as Rust's operators.
fn compare<T: PartialOrd>(op: BinOp, x: T, y: T) -> u32 {
    let r = match op {
        BinOp::Eq => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        _ => unreachable!("`{}` is not defined on this type", op.symbol()),
    };
    r as u32
}

fn unsigned(op: BinOp, x: u32, y: u32) -> u32 {
    match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => ops::div_u32(x, y),
        BinOp::Rem => ops::rem_u32(x, y),
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Shl => x.wrapping_shl(y),
        BinOp::Shr => x.wrapping_shr(y),
        _ => compare(op, x, y),
    }
}

/// `y` stays a word: a shift amount is `(y) as u32` in the twin.
fn signed(op: BinOp, x: i32, y: u32) -> u32 {
    let r = match op {
        BinOp::Add => x.wrapping_add(y as i32),
        BinOp::Sub => x.wrapping_sub(y as i32),
        BinOp::Mul => x.wrapping_mul(y as i32),
        BinOp::Div => ops::div_i32(x, y as i32),
        BinOp::Rem => ops::rem_i32(x, y as i32),
        BinOp::BitAnd => x & y as i32,
        BinOp::BitOr => x | y as i32,
        BinOp::BitXor => x ^ y as i32,
        BinOp::Shl => x.wrapping_shl(y),
        // Arithmetic: the sign bit fills in.
        BinOp::Shr => x.wrapping_shr(y),
        _ => return compare(op, x, y as i32),
    };
    r as u32
}

fn float(op: BinOp, x: f32, y: f32) -> u32 {
    let r = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::Rem => ops::rem_f32(x, y),
        _ => return compare(op, x, y),
    };
    r.to_bits()
}

/// Bools: `&`, `|` and `^` evaluate both sides (the caller has); `&&`
/// and `||` reach here from compound assignment only, which has both.
fn logical(op: BinOp, x: bool, y: bool) -> u32 {
    let r = match op {
        BinOp::BitAnd | BinOp::And => x & y,
        BinOp::BitOr | BinOp::Or => x | y,
        BinOp::BitXor => x ^ y,
        _ => return compare(op, x, y),
    };
    r as u32
}

/// `op x`, the result of type `ty`: `-` negates floats (the sign bit) and
/// wraps integers, `!` is logical on bools and bitwise on integers.
pub(in crate::cpu) fn unary(op: UnOp, ty: &Type, x: u32) -> u32 {
    match (op, ty) {
        (UnOp::Neg, Type::Scalar(Scalar::F32)) => (-f(x)).to_bits(),
        (UnOp::Neg, _) => x.wrapping_neg(),
        (UnOp::Not, Type::Scalar(Scalar::Bool)) => (x == 0) as u32,
        (UnOp::Not, _) => !x,
    }
}

/// `x as to`, `x` of scalar type `from` (the twin's `cast`): floats to
/// integers round toward zero and clamp (`ops`), integers reinterpret or
/// convert as Rust's `as`.
pub(in crate::cpu) fn cast(from: Scalar, to: Scalar, x: u32) -> u32 {
    use Scalar::*;
    match (from, to) {
        (a, b) if a == b => x,
        (F32, U32) => ops::f32_to_u32(f(x)),
        (F32, I32) => ops::f32_to_i32(f(x)) as u32,
        // `u32 as i32`, `i32 as u32`, `bool as u32/i32`: the word as is.
        (_, U32 | I32) => x,
        (I32, F32) => (x as i32 as f32).to_bits(),
        // `u32 as f32`, and `bool` through `u32`.
        (_, F32) => (x as f32).to_bits(),
        (_, Bool) => unreachable!("casts to bool are rejected"),
    }
}

/// Built-in function `i` of `xs` (as many as it takes), the first of type
/// `ty` (the twin's `intrinsic`).
pub(in crate::cpu) fn intrinsic(i: Intrinsic, ty: &Type, xs: [u32; 3]) -> u32 {
    match ty {
        Type::Scalar(Scalar::F32) => float_fn(i, f(xs[0]), f(xs[1]), f(xs[2])),
        Type::Scalar(Scalar::I32) => int_fn(i, xs, true),
        _ => int_fn(i, xs, false),
    }
}

fn float_fn(i: Intrinsic, x: f32, y: f32, z: f32) -> u32 {
    use Intrinsic::*;
    let r = match i {
        Abs => x.abs(),
        Min => ops::min_f32(x, y),
        Max => ops::max_f32(x, y),
        Clamp => ops::clamp_f32(x, y, z),
        Sqrt => x.sqrt(),
        Exp => x.exp(),
        Exp2 => x.exp2(),
        Log => x.ln(),
        Log2 => x.log2(),
        Pow => x.powf(y),
        Powi => x.powi(y.to_bits() as i32),
        Sin => x.sin(),
        Cos => x.cos(),
        Tan => x.tan(),
        Atan2 => x.atan2(y),
        Floor => x.floor(),
        Ceil => x.ceil(),
        Round => x.round(),
        RoundTiesEven => x.round_ties_even(),
        Trunc => x.trunc(),
        Fract => ops::fract(x),
        Fma => x.mul_add(y, z),
        _ => return bits_fn(i, x.to_bits()),
    };
    r.to_bits()
}

/// Integer built-ins; `signed` orders min, max and clamp as `i32` and
/// makes `abs` wrap (`i32::MIN` stays).
fn int_fn(i: Intrinsic, [x, y, z]: [u32; 3], signed: bool) -> u32 {
    use Intrinsic::*;
    let (sx, sy, sz) = (x as i32, y as i32, z as i32);
    match i {
        Abs if signed => sx.wrapping_abs() as u32,
        Abs => x,
        Min if signed => sx.min(sy) as u32,
        Max if signed => sx.max(sy) as u32,
        Clamp if signed => sx.max(sy).min(sz) as u32,
        Min => x.min(y),
        Max => x.max(y),
        Clamp => x.max(y).min(z),
        _ => bits_fn(i, x),
    }
}

/// The built-ins that see only bits: counts, reversal, and bitcasts (the
/// same word under another type).
fn bits_fn(i: Intrinsic, x: u32) -> u32 {
    use Intrinsic::*;
    match i {
        CountOneBits => x.count_ones(),
        LeadingZeros => x.leading_zeros(),
        TrailingZeros => x.trailing_zeros(),
        ReverseBits => x.reverse_bits(),
        Bitcast(_) => x,
        other => unreachable!("{other:?} on a value of the wrong type"),
    }
}
