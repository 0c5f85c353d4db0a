use super::{FnId, LocalId, Scalar, Type};
use proc_macro2::Span;

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Lit(Lit),
    /// Read a place (local variable, buffer element, field, array element).
    Load(Place),
    /// A scalar kernel parameter (lives in the uniform block).
    Uniform(usize),
    Builtin(Builtin),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cast(Scalar, Box<Expr>),
    /// WGSL built-in function (math, bit counting, ...).
    Intrinsic(Intrinsic, Vec<Expr>),
    Call(FnId, Vec<CallArg>),
    Atomic(AtomicOp, Place, Vec<Expr>),
    /// `.x/.y/.z` of a `UVec3` value.
    Component(Box<Expr>, u32),
    /// Field of a struct value that is not a place (e.g. a call result).
    Field(Box<Expr>, usize),
    /// Runtime length of a memory (`buf.len()`), minus a view's offset.
    Len(MemRef, Option<Box<Expr>>),
    StructLit(Vec<Expr>),
    ArrayLit(Vec<Expr>),
    ArrayRepeat(Box<Expr>, u32),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lit {
    Int(i64),
    Float(f32),
    Bool(bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    GlobalId,
    LocalId,
    WorkgroupId,
    NumWorkgroups,
    LocalIndex,
    /// The kernel's `workgroup_size`, as a `UVec3`.
    WorkgroupSize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// WGSL built-in functions reachable from Rust method or function syntax.
/// The table in `parse::intrinsics` maps Rust names to these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intrinsic {
    Abs,
    Min,
    Max,
    Clamp,
    Sqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Pow,
    /// Rust `powi`: `f32` base, `i32` exponent (WGSL's `pow` is undefined for negative bases).
    Powi,
    Sin,
    Cos,
    Tan,
    Atan2,
    Floor,
    Ceil,
    /// Rust `round`: half away from zero.
    Round,
    /// WGSL `round`: half to even.
    RoundTiesEven,
    Trunc,
    /// Rust `fract`: `x - trunc(x)` (WGSL `fract` is `x - floor(x)`).
    Fract,
    Fma,
    CountOneBits,
    LeadingZeros,
    TrailingZeros,
    ReverseBits,
    Bitcast(Scalar),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Load,
    Store,
    Add,
    Sub,
    Max,
    Min,
    And,
    Or,
    Xor,
    Exchange,
    /// `compare_exchange(current, new)`: returns the old value.
    CompareExchange,
}

impl AtomicOp {
    pub fn arity(self) -> usize {
        match self {
            AtomicOp::Load => 0,
            AtomicOp::CompareExchange => 2,
            _ => 1,
        }
    }
}

/// An lvalue: a root (local or memory element) plus projections.
#[derive(Debug, Clone)]
pub struct Place {
    pub root: Root,
    pub path: Vec<Proj>,
}

#[derive(Debug, Clone)]
pub enum Root {
    Local(LocalId),
    /// Element `index` of a buffer, shared array or slice parameter.
    Mem {
        mem: MemRef,
        index: Box<Expr>,
        /// A read no write of its memory can meet: no invocation writes
        /// the workgroup array in any epoch the read may run in
        /// (`analysis::settled`). Check and deterministic modes read it
        /// from the warp's copy without tags.
        settled: bool,
        /// An access no other invocation of the workgroup meets: in every
        /// epoch it may run in, each access of the workgroup array that a
        /// write can meet indexes it at the invocation's local index plus
        /// a multiple of the workgroup's invocations (`analysis::residue`).
        /// The probe accesses it without a tag, checking that residue as
        /// it runs.
        own: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemRef {
    /// Kernel parameter (storage or atomic buffer) by parameter index.
    Param(usize),
    /// Workgroup array by index in `Kernel::shared`.
    Shared(usize),
    /// A helper's slice parameter, by parameter index; bound per call site.
    FnSlice(usize),
}

#[derive(Debug, Clone)]
pub enum Proj {
    Field(usize),
    Index(Box<Expr>),
    Component(u32),
}

#[derive(Debug, Clone)]
pub enum CallArg {
    Value(Expr),
    Slice { mem: MemRef, offset: Expr },
}
