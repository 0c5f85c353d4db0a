//! The Rust method names kernels may call on numbers, and the WGSL built-in
//! each one becomes. Names and argument orders follow Rust's `f32`/`u32`
//! methods; where WGSL's function differs (`fract`, `round`), the back ends
//! emit Rust's meaning.

use ld_compiler::ir::{AtomicOp, Intrinsic};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    Float,
    Int,
    Number,
}

pub struct MethodInfo {
    pub intrinsic: Intrinsic,
    pub domain: Domain,
    /// Arguments besides the receiver.
    pub extra_args: usize,
    /// Result is `u32` whatever the receiver (Rust's `count_ones`, `to_bits`...).
    pub returns_u32: bool,
}

pub fn method(name: &str) -> Option<MethodInfo> {
    use Domain::*;
    use Intrinsic::*;
    let (intrinsic, domain, extra_args, returns_u32) = match name {
        "abs" => (Abs, Number, 0, false),
        "min" => (Min, Number, 1, false),
        "max" => (Max, Number, 1, false),
        "clamp" => (Clamp, Number, 2, false),
        "sqrt" => (Sqrt, Float, 0, false),
        "exp" => (Exp, Float, 0, false),
        "exp2" => (Exp2, Float, 0, false),
        "ln" => (Log, Float, 0, false),
        "log2" => (Log2, Float, 0, false),
        "powf" => (Pow, Float, 1, false),
        "sin" => (Sin, Float, 0, false),
        "cos" => (Cos, Float, 0, false),
        "tan" => (Tan, Float, 0, false),
        "atan2" => (Atan2, Float, 1, false),
        "floor" => (Floor, Float, 0, false),
        "ceil" => (Ceil, Float, 0, false),
        "round" => (Round, Float, 0, false),
        "round_ties_even" => (RoundTiesEven, Float, 0, false),
        "trunc" => (Trunc, Float, 0, false),
        "fract" => (Fract, Float, 0, false),
        "mul_add" => (Fma, Float, 2, false),
        "to_bits" => (Bitcast(ld_compiler::ir::Scalar::U32), Float, 0, true),
        "count_ones" => (CountOneBits, Int, 0, true),
        "leading_zeros" => (LeadingZeros, Int, 0, true),
        "trailing_zeros" => (TrailingZeros, Int, 0, true),
        "reverse_bits" => (ReverseBits, Int, 0, false),
        _ => return None,
    };
    Some(MethodInfo { intrinsic, domain, extra_args, returns_u32 })
}

pub fn atomic(name: &str) -> Option<AtomicOp> {
    Some(match name {
        "load" => AtomicOp::Load,
        "store" => AtomicOp::Store,
        "fetch_add" => AtomicOp::Add,
        "fetch_sub" => AtomicOp::Sub,
        "fetch_max" => AtomicOp::Max,
        "fetch_min" => AtomicOp::Min,
        "fetch_and" => AtomicOp::And,
        "fetch_or" => AtomicOp::Or,
        "fetch_xor" => AtomicOp::Xor,
        "swap" => AtomicOp::Exchange,
        "compare_and_swap" => AtomicOp::CompareExchange,
        _ => return None,
    })
}
