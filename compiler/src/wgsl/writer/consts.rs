//! What WGSL's constant evaluation would reject: integer operations ld
//! emits as helpers of its own, and float arithmetic it hides behind an
//! identity function.

use super::*;

/// An integer operation ld emits as a call to a helper of its own.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum IntOp {
    Div,
    Rem,
    Shl,
    Shr,
}

/// The helper for `op` on a value of type `ty`, if it needs one: integer
/// division, remainder and shifts, always. WGSL rejects at shader creation
/// what KERNELS.md defines for them when operands are constants (and
/// `#[ld::kernels]` consts reach WGSL as literals): naga's constant
/// evaluator a divisor of zero, `i32::MIN / -1`, a shift amount of 32 or
/// more, bits shifted out of a constant; its validator a constant zero
/// divisor or shift amount of 32 or more even beside a run-time operand. A
/// helper's operands are parameters, never constants, and its body spells
/// out KERNELS.md's results rather than leave them to the back end:
/// `x / 0 == x`, `x % 0 == 0`, `MIN / -1 == MIN`, `MIN % -1 == 0`, amounts
/// taken mod 32, as the CPU twin computes them.
pub(super) fn int_op(op: BinOp, ty: &Type) -> Option<IntOp> {
    if !matches!(ty, Type::Scalar(s) if s.is_integer()) {
        return None;
    }
    Some(match op {
        BinOp::Div => IntOp::Div,
        BinOp::Rem => IntOp::Rem,
        BinOp::Shl => IntOp::Shl,
        BinOp::Shr => IntOp::Shr,
        _ => return None,
    })
}

pub(super) fn int_op_name(op: IntOp, s: Scalar) -> String {
    let op = match op {
        IntOp::Div => "div",
        IntOp::Rem => "rem",
        IntOp::Shl => "shl",
        IntOp::Shr => "shr",
    };
    format!("ld_{op}_{}", s.rust_name())
}

/// The WGSL of an integer operation helper (see [`int_op`]).
pub(super) fn int_op_fn(op: IntOp, s: Scalar) -> String {
    let name = int_op_name(op, s);
    let t = s.rust_name();
    let body = match (op, s) {
        // Dividing by one gives KERNELS.md's quotient (x) and remainder (0).
        (IntOp::Div | IntOp::Rem, Scalar::U32) => format!("a {} select(b, 1u, b == 0u)", if op == IntOp::Div { "/" } else { "%" }),
        (IntOp::Div | IntOp::Rem, _) => {
            format!("a {} select(b, 1i, b == 0i || (a == -2147483647i - 1i && b == -1i))", if op == IntOp::Div { "/" } else { "%" })
        }
        (IntOp::Shl, _) => "a << (b & 31u)".to_string(),
        (IntOp::Shr, _) => "a >> (b & 31u)".to_string(),
    };
    let b = if matches!(op, IntOp::Shl | IntOp::Shr) { "u32" } else { t };
    format!("fn {name}(a: {t}, b: {b}) -> {t} {{\n    return {body};\n}}\n\n")
}

/// Whether WGSL's constant evaluation can reject this operation for some
/// constant operands: a float result that is not finite (`1.0 / 0.0`,
/// `f32::MAX * 2.0`, `(-1.0f32).sqrt()`), `clamp` with `low > high`.
/// (Integer `+ - *` and negation wrap in constant evaluation, as at run
/// time; division, remainder and shifts are helper calls, see [`int_op`].)
pub(super) fn may_reject(e: &Expr) -> bool {
    match &e.kind {
        // Calls to ld's own functions, never constant.
        ExprKind::Intrinsic(Intrinsic::Powi | Intrinsic::Round, _) => false,
        ExprKind::Intrinsic(Intrinsic::Clamp, _) => true,
        ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::Intrinsic(..) => e.ty == Type::F32,
        _ => false,
    }
}

/// The operands of an operation `may_reject` covers.
pub(super) fn operands(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Unary(_, a) => vec![a],
        ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Intrinsic(_, xs) => xs.iter().collect(),
        _ => vec![],
    }
}

/// Whether `e` is an operation WGSL's constant evaluation would reject, or
/// might: its first operand then goes through an identity function
/// (`ld_opaque_f32`), so that the GPU computes it at run time, as the CPU
/// twin does. Float arithmetic whose result ld can compute here and finds
/// finite stays a constant.
pub(super) fn hidden(e: &Expr) -> bool {
    may_reject(e) && operands(e).into_iter().all(is_const) && !fold_f32(e).is_some_and(f32::is_finite)
}

/// The value of constant float arithmetic, computed in `f32` as naga's
/// constant evaluator does; `None` for anything else.
pub(super) fn fold_f32(e: &Expr) -> Option<f32> {
    Some(match &e.kind {
        ExprKind::Lit(Lit::Float(x)) => *x,
        ExprKind::Cast(Scalar::F32, a) => match (&a.kind, &a.ty) {
            (ExprKind::Lit(Lit::Int(v)), Type::Scalar(Scalar::U32)) => *v as u32 as f32,
            (ExprKind::Lit(Lit::Int(v)), Type::Scalar(Scalar::I32)) => *v as i32 as f32,
            _ => fold_f32(a)?,
        },
        ExprKind::Unary(UnOp::Neg, a) => -fold_f32(a)?,
        ExprKind::Binary(op, a, b) if e.ty == Type::F32 => {
            let (x, y) = (fold_f32(a)?, fold_f32(b)?);
            match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Whether the WGSL of `e` is a const-expression (may err towards `true`:
/// that only hides one more constant).
pub(super) fn is_const(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        // Hidden, or with a run-time operand, unless it folds to a finite float.
        _ if may_reject(e) => operands(e).into_iter().all(is_const) && fold_f32(e).is_some_and(f32::is_finite),
        ExprKind::Binary(op, a, _) if int_op(*op, &a.ty).is_some() => false,
        ExprKind::Intrinsic(Intrinsic::Powi | Intrinsic::Round, _) => false,
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Component(a, _) | ExprKind::Field(a, _) | ExprKind::ArrayRepeat(a, _) => is_const(a),
        ExprKind::Binary(_, a, b) => is_const(a) && is_const(b),
        ExprKind::Intrinsic(_, xs) | ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => xs.iter().all(is_const),
        // A workgroup array's length is a literal.
        ExprKind::Len(_, off) => off.as_deref().is_none_or(is_const),
        ExprKind::Load(_) | ExprKind::Uniform(_) | ExprKind::Builtin(_) | ExprKind::Call(..) | ExprKind::Atomic(..) => false,
    }
}
