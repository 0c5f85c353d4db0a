//! The kernel IR: one typed description of a kernel that every back end
//! (native WGSL, instrumented WGSL, the CPU twin) is generated from.
//!
//! `parse` builds it from syn (resolving names and inferring types), the
//! passes in `analysis` read it, `lower` turns its control flow into a state
//! machine for the back ends that must suspend invocations at barriers.

mod expr;
mod stmt;
mod types;
pub mod visit;

pub use expr::*;
pub use stmt::*;
pub use types::*;

use crate::Span;

/// A local's index in its function's `Body::locals`.
pub type LocalId = usize;
/// A helper's index in `Module::functions`.
pub type FnId = usize;
/// A struct's index in `Module::structs`.
pub type StructId = usize;

/// Everything one `#[ld::kernel]` expansion sees: the kernel, its helper
/// functions and the structs they use.
#[derive(Debug, Clone)]
pub struct Module {
    /// The structs the kernel and its helpers use, indexed by [`StructId`].
    pub structs: Vec<StructDef>,
    /// The helper functions, indexed by [`FnId`].
    pub functions: Vec<Function>,
    /// The kernel: the compute entry point.
    pub kernel: Kernel,
}

/// A struct type of the kernel's values. Its layout in storage and
/// workgroup memory is its fields in order, one 32-bit word per scalar.
#[derive(Debug, Clone)]
pub struct StructDef {
    /// The struct's name as the kernel source spells it.
    pub name: String,
    /// Each field's name and type, in declaration order.
    pub fields: Vec<(String, Type)>,
}

impl StructDef {
    /// The offset of field number `field` from the struct's start, in 32-bit words.
    pub fn field_offset(&self, module: &Module, field: usize) -> u32 {
        self.field_offset_in(&module.structs, field)
    }

    /// [`StructDef::field_offset`], with struct ids looked up in `structs`.
    pub fn field_offset_in(&self, structs: &[StructDef], field: usize) -> u32 {
        self.fields[..field].iter().map(|(_, t)| t.words_in(structs)).sum()
    }
}

/// The kernel entry point: the compute shader every invocation of a dispatch runs.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Where the kernel function's name stands; diagnostics about the whole kernel point here.
    pub span: Span,
    /// Invocations per workgroup in x, y and z (dimensions left out are 1).
    pub workgroup_size: [u32; 3],
    /// The parameters in declaration order. A storage or atomic parameter is
    /// bound at its index; `MemRef::Param` and `ExprKind::Uniform` use it too.
    pub params: Vec<Param>,
    /// The workgroup arrays the body declares, indexed by `MemRef::Shared`.
    pub shared: Vec<SharedVar>,
    /// The kernel function's body: the only body that may hold barriers.
    pub body: Body,
    /// What an index out of bounds does: the source language's rule.
    pub bounds: Bounds,
}

/// What an index out of bounds does, by the rule of the language the
/// kernel is written in. Both backends implement both rules alike: the
/// generated WGSL's guard and the CPU reference (`ld_shaders`'
/// `guard.wgsl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bounds {
    /// Rust's: the access is not performed, and the launch ends in an
    /// error naming the invocation, the index and the line.
    Fault,
    /// WGSL's, as wgpu gives it: a read gives the last element, a write or
    /// an atomic is discarded, and the run goes on; the launch reports each
    /// place where it happened. (WGSL lets a read give any element, or
    /// zero, and a write go to any element or nowhere; this is the choice
    /// naga's `Restrict` policy makes for reads, and robust buffer access
    /// for writes, and the one every backend of ld repeats exactly.)
    Clamp,
}

/// A kernel parameter: a storage buffer binding or a scalar uniform.
#[derive(Debug, Clone)]
pub struct Param {
    /// The parameter's name as the kernel source spells it.
    pub name: String,
    /// What the parameter binds: a storage buffer, an atomic buffer or a uniform scalar.
    pub kind: ParamKind,
}

/// The kinds of kernel parameter, by their Rust type.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamKind {
    /// `&[T]` / `&mut [T]`: a runtime-sized storage array of `T`.
    Storage {
        /// The element type `T`.
        elem: Type,
        /// Whether the kernel may write the buffer (`&mut [T]`).
        access: Access,
    },
    /// `&[AtomicU32]` / `&[AtomicI32]`: every access is atomic.
    Atomic {
        /// The atomic's scalar type: `U32` or `I32`.
        elem: Scalar,
    },
    /// A scalar passed by value: lives in the uniform block.
    Uniform {
        /// The scalar's type.
        ty: Scalar,
    },
}

/// Whether a storage buffer parameter may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `&[T]`: the kernel only reads the buffer.
    Read,
    /// `&mut [T]`: the kernel may read and write the buffer.
    ReadWrite,
}

/// A workgroup (shared) array declared with `shared::<[T; N]>()`.
#[derive(Debug, Clone)]
pub struct SharedVar {
    /// The array's name as the kernel source spells it.
    pub name: String,
    /// The element type (`Type::Atomic` for an array of atomics).
    pub elem: Type,
    /// The number of elements, `N`.
    pub len: u32,
}

/// A function body with its local variable table. Locals are numbered
/// once per function, so shadowing in Rust becomes distinct locals here.
#[derive(Debug, Clone)]
pub struct Body {
    /// Every local of the body, indexed by [`LocalId`]: a helper's value
    /// parameters and slice offsets are locals too.
    pub locals: Vec<Local>,
    /// The body's statements.
    pub block: Block,
}

/// A local variable of a function body.
#[derive(Debug, Clone)]
pub struct Local {
    /// The variable's name as the kernel source spells it (a front-end names the locals it generates).
    pub name: String,
    /// The variable's type.
    pub ty: Type,
}

/// A helper function callable from kernels. Slice parameters are bound at
/// each call site to a concrete buffer or shared array (WGSL cannot pass
/// storage pointers), so back ends specialise helpers per binding.
#[derive(Debug, Clone)]
pub struct Function {
    /// The helper's name as the kernel source spells it.
    pub name: String,
    /// Where the helper's name stands in the source.
    pub span: Span,
    /// The parameters in declaration order.
    pub params: Vec<FnParam>,
    /// The return type (`Type::Unit` where the helper returns nothing).
    pub ret: Type,
    /// The helper's body; it never holds a barrier.
    pub body: Body,
}

/// A helper function's parameter.
#[derive(Debug, Clone)]
pub enum FnParam {
    /// A value parameter: the call's argument is assigned to this local.
    Value(LocalId),
    /// A slice parameter: its element type and the local holding the
    /// window's offset into whatever the call site binds.
    Slice {
        /// The slice's element type.
        elem: Type,
        /// The local holding the window's offset, in elements.
        offset: LocalId,
    },
}
