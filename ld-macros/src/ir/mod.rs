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

use proc_macro2::Span;

pub type LocalId = usize;
pub type FnId = usize;
pub type StructId = usize;

/// Everything one `#[ld::kernel]` expansion sees: the kernel, its helper
/// functions and the structs they use.
#[derive(Debug, Clone)]
pub struct Module {
    pub structs: Vec<StructDef>,
    pub functions: Vec<Function>,
    pub kernel: Kernel,
}

#[derive(Debug, Clone)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Type)>,
}

impl StructDef {
    pub fn field_offset(&self, module: &Module, field: usize) -> u32 {
        self.fields[..field].iter().map(|(_, t)| t.words(module)).sum()
    }
}

#[derive(Debug, Clone)]
pub struct Kernel {
    pub span: Span,
    pub workgroup_size: [u32; 3],
    pub params: Vec<Param>,
    pub shared: Vec<SharedVar>,
    pub body: Body,
}

/// A kernel parameter: a storage buffer binding or a scalar uniform.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamKind {
    /// `&[T]` / `&mut [T]`: a runtime-sized storage array of `T`.
    Storage { elem: Type, access: Access },
    /// `&[AtomicU32]` / `&[AtomicI32]`: every access is atomic.
    Atomic { elem: Scalar },
    /// A scalar passed by value: lives in the uniform block.
    Uniform { ty: Scalar },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    ReadWrite,
}

/// A workgroup (shared) array declared with `shared::<[T; N]>()`.
#[derive(Debug, Clone)]
pub struct SharedVar {
    pub name: String,
    pub elem: Type,
    pub len: u32,
}

/// A function body with its local variable table. Locals are numbered
/// once per function, so shadowing in Rust becomes distinct locals here.
#[derive(Debug, Clone)]
pub struct Body {
    pub locals: Vec<Local>,
    pub block: Block,
}

#[derive(Debug, Clone)]
pub struct Local {
    pub name: String,
    pub ty: Type,
}

/// A helper function callable from kernels. Slice parameters are bound at
/// each call site to a concrete buffer or shared array (WGSL cannot pass
/// storage pointers), so back ends specialise helpers per binding.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub span: Span,
    pub params: Vec<FnParam>,
    pub ret: Type,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum FnParam {
    Value(LocalId),
    /// A slice parameter: its element type and the local holding the
    /// window's offset into whatever the call site binds.
    Slice {
        elem: Type,
        offset: LocalId,
    },
}
