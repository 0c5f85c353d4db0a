use super::{FnId, LocalId, Scalar, Type};
use crate::Span;

/// An expression with its type and source span.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What the expression computes.
    pub kind: ExprKind,
    /// The expression's type (never `Type::Var` in finished IR).
    pub ty: Type,
    /// Where the expression stands in the kernel source.
    pub span: Span,
}

/// The forms an expression takes.
#[derive(Debug, Clone)]
pub enum ExprKind {
    /// A literal constant; the expression's type says which integer type an `Int` is.
    Lit(Lit),
    /// Read a place (local variable, buffer element, field, array element).
    Load(Place),
    /// A scalar kernel parameter (lives in the uniform block).
    Uniform(usize),
    /// A builtin such as `global_id()`.
    Builtin(Builtin),
    /// A unary operator applied to its operand.
    Unary(UnOp, Box<Expr>),
    /// A binary operator applied to its left and right operands.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `x as T`: the operand converted to scalar type `T`, as Rust's `as` converts it.
    Cast(Scalar, Box<Expr>),
    /// WGSL built-in function (math, bit counting, ...).
    Intrinsic(Intrinsic, Vec<Expr>),
    /// A call of a helper, with one argument per parameter.
    Call(FnId, Vec<CallArg>),
    /// An atomic method on the atomic element at the place, with its operands
    /// ([`AtomicOp::arity`] of them).
    Atomic(AtomicOp, Place, Vec<Expr>),
    /// `.x/.y/.z` of a `UVec3` value.
    Component(Box<Expr>, u32),
    /// Field of a struct value that is not a place (e.g. a call result).
    Field(Box<Expr>, usize),
    /// Runtime length of a memory (`buf.len()`), minus a view's offset.
    Len(MemRef, Option<Box<Expr>>),
    /// A struct literal: one value per field, in declaration order.
    StructLit(Vec<Expr>),
    /// `[a, b, c]`: an array of the listed elements.
    ArrayLit(Vec<Expr>),
    /// `[x; N]`: an array of `N` copies of `x`.
    ArrayRepeat(Box<Expr>, u32),
}

/// A literal constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lit {
    /// An integer literal; its expression's type (`u32` or `i32`) holds it.
    Int(i64),
    /// A float literal, rounded to `f32`.
    Float(f32),
    /// `true` or `false`.
    Bool(bool),
}

/// The builtins a kernel body reads, ids and sizes: `UVec3` values, except `LocalIndex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `global_id()`: the invocation's id in the whole dispatch.
    GlobalId,
    /// `local_id()`: the invocation's id in its workgroup.
    LocalId,
    /// `workgroup_id()`: the workgroup's id in the dispatch.
    WorkgroupId,
    /// `num_workgroups()`: the dispatch's size, in workgroups.
    NumWorkgroups,
    /// `local_index()`: the invocation's linear index in its workgroup, a `u32`.
    LocalIndex,
    /// The kernel's `workgroup_size`, as a `UVec3`.
    WorkgroupSize,
}

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`: arithmetic negation (`i32` and `f32`).
    Neg,
    /// `!x`: logical not of a `bool`, bitwise complement of an integer.
    Not,
}

/// A binary operator; compound assignments carry theirs in `StmtKind::Assign`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`: addition.
    Add,
    /// `-`: subtraction.
    Sub,
    /// `*`: multiplication.
    Mul,
    /// `/`: division.
    Div,
    /// `%`: remainder.
    Rem,
    /// `&`: bitwise and (logical and, without short circuit, on `bool`s).
    BitAnd,
    /// `|`: bitwise or (logical or, without short circuit, on `bool`s).
    BitOr,
    /// `^`: bitwise exclusive or (not equal, on `bool`s).
    BitXor,
    /// `<<`: shift left.
    Shl,
    /// `>>`: shift right (arithmetic on `i32`, logical on `u32`).
    Shr,
    /// `==`: equal.
    Eq,
    /// `!=`: not equal.
    Ne,
    /// `<`: less than.
    Lt,
    /// `<=`: less than or equal.
    Le,
    /// `>`: greater than.
    Gt,
    /// `>=`: greater than or equal.
    Ge,
    /// `&&`: logical and, short-circuiting.
    And,
    /// `||`: logical or, short-circuiting.
    Or,
}

impl BinOp {
    /// Whether the operator compares its operands, yielding a `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
    /// Whether the operator is `&&` or `||`.
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
    /// Whether the operator is `<<` or `>>`.
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
    /// The operator's symbol, the same in Rust and WGSL.
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
    /// `abs`: the absolute value.
    Abs,
    /// `min`: the smaller of two values.
    Min,
    /// `max`: the larger of two values.
    Max,
    /// `clamp(lo, hi)`: the value limited to `lo..=hi`.
    Clamp,
    /// `sqrt`: the square root.
    Sqrt,
    /// `exp`: e raised to the value.
    Exp,
    /// `exp2`: 2 raised to the value.
    Exp2,
    /// Rust `ln`: the natural logarithm (WGSL `log`).
    Log,
    /// `log2`: the base-2 logarithm.
    Log2,
    /// Rust `powf`: an `f32` raised to an `f32` power (WGSL `pow`).
    Pow,
    /// Rust `powi`: `f32` base, `i32` exponent (WGSL's `pow` is undefined for negative bases).
    Powi,
    /// `sin`: the sine of an angle in radians.
    Sin,
    /// `cos`: the cosine of an angle in radians.
    Cos,
    /// `tan`: the tangent of an angle in radians.
    Tan,
    /// `y.atan2(x)`: the angle of the point `(x, y)`, in radians.
    Atan2,
    /// `floor`: rounds toward negative infinity.
    Floor,
    /// `ceil`: rounds toward positive infinity.
    Ceil,
    /// Rust `round`: half away from zero.
    Round,
    /// WGSL `round`: half to even.
    RoundTiesEven,
    /// `trunc`: rounds toward zero.
    Trunc,
    /// Rust `fract`: `x - trunc(x)` (WGSL `fract` is `x - floor(x)`).
    Fract,
    /// Rust `mul_add`: `a * b + c` (WGSL `fma`).
    Fma,
    /// Rust `count_ones`: the number of set bits, as a `u32`.
    CountOneBits,
    /// Rust `leading_zeros`: the number of zero bits above the highest set bit, as a `u32`.
    LeadingZeros,
    /// Rust `trailing_zeros`: the number of zero bits below the lowest set bit, as a `u32`.
    TrailingZeros,
    /// `reverse_bits`: the bits in reverse order.
    ReverseBits,
    /// The same bits as the given scalar type: `f32::to_bits` (to `u32`) and `f32::from_bits` (to `f32`).
    Bitcast(Scalar),
}

/// An atomic method on an atomic element. Every operation but `Load` and
/// `Store` returns the element's old value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `load()`: reads the element.
    Load,
    /// `store(v)`: writes `v`; yields `()`.
    Store,
    /// `fetch_add(v)`: adds `v`.
    Add,
    /// `fetch_sub(v)`: subtracts `v`.
    Sub,
    /// `fetch_max(v)`: keeps the larger of the element and `v`.
    Max,
    /// `fetch_min(v)`: keeps the smaller of the element and `v`.
    Min,
    /// `fetch_and(v)`: bitwise and with `v`.
    And,
    /// `fetch_or(v)`: bitwise or with `v`.
    Or,
    /// `fetch_xor(v)`: bitwise exclusive or with `v`.
    Xor,
    /// `swap(v)`: writes `v`.
    Exchange,
    /// `compare_exchange(current, new)`: returns the old value.
    CompareExchange,
}

impl AtomicOp {
    /// The number of operands the operation takes besides the element.
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
    /// Where the place starts: a local, or an element of a memory.
    pub root: Root,
    /// The field, index and component steps from the root, in order.
    pub path: Vec<Proj>,
}

/// The start of a place.
#[derive(Debug, Clone)]
pub enum Root {
    /// A local variable.
    Local(LocalId),
    /// Element `index` of a buffer, shared array or slice parameter.
    Mem {
        /// The memory holding the element.
        mem: MemRef,
        /// The element's index in the memory, any window's offset added.
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

/// A memory that elements are read from and written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemRef {
    /// Kernel parameter (storage or atomic buffer) by parameter index.
    Param(usize),
    /// Workgroup array by index in `Kernel::shared`.
    Shared(usize),
    /// A helper's slice parameter, by parameter index; bound per call site.
    FnSlice(usize),
}

/// One step from a place to a part of it.
#[derive(Debug, Clone)]
pub enum Proj {
    /// A struct field, by its index in `StructDef::fields`.
    Field(usize),
    /// An element of a fixed-size array, by an index computed at run time.
    Index(Box<Expr>),
    /// A component of a `UVec3`: 0, 1 or 2 for `.x`, `.y`, `.z`.
    Component(u32),
}

/// An argument of a helper call, matching the helper's [`FnParam`](super::FnParam).
#[derive(Debug, Clone)]
pub enum CallArg {
    /// A value argument.
    Value(Expr),
    /// A slice argument: a memory, or a window of one.
    Slice {
        /// The memory the helper's slice is bound to.
        mem: MemRef,
        /// Where the window starts in the memory, in elements.
        offset: Expr,
    },
}
