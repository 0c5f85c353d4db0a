use super::{Module, StructId};

/// A scalar type: 32-bit integers and floats, and `bool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scalar {
    /// `u32`: an unsigned 32-bit integer.
    U32,
    /// `i32`: a signed 32-bit integer.
    I32,
    /// `f32`: a 32-bit float.
    F32,
    /// `bool`: a boolean; buffers cannot hold one.
    Bool,
}

impl Scalar {
    /// Whether this is `u32` or `i32`.
    pub fn is_integer(self) -> bool {
        matches!(self, Scalar::U32 | Scalar::I32)
    }
    /// The type's name in Rust source.
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::F32 => "f32",
            Scalar::Bool => "bool",
        }
    }
}

/// A value type. `Var` only exists while `parse` infers the type of an
/// unsuffixed literal; the finished IR never holds one.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    /// `()`: what helpers without a return value and effect-only expressions yield.
    Unit,
    /// A scalar value.
    Scalar(Scalar),
    /// `vec3<u32>`: what the id builtins return; only `.x/.y/.z` are allowed.
    UVec3,
    /// `[T; N]`: a fixed-size array of `N` elements of `T`.
    Array(Box<Type>, u32),
    /// A struct, by its index in `Module::structs`.
    Struct(StructId),
    /// An element of an atomic slice or shared array: only reachable through
    /// atomic methods, never loaded as a value.
    Atomic(Scalar),
    /// A type variable of the front-end's inference, by number (see above).
    Var(usize),
}

impl Type {
    /// The scalar type `u32`.
    pub const U32: Type = Type::Scalar(Scalar::U32);
    /// The scalar type `i32`.
    pub const I32: Type = Type::Scalar(Scalar::I32);
    /// The scalar type `f32`.
    pub const F32: Type = Type::Scalar(Scalar::F32);
    /// The scalar type `bool`.
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);

    /// The scalar this type is, if it is `Type::Scalar`.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// Size in 32-bit words in storage/workgroup memory (every type we
    /// support is built from 4-byte scalars, so layouts agree with repr(C)).
    pub fn words(&self, module: &Module) -> u32 {
        self.words_in(&module.structs)
    }

    /// [`Type::words`], with struct ids looked up in `structs` (a module
    /// a front-end is still building).
    pub fn words_in(&self, structs: &[super::StructDef]) -> u32 {
        match self {
            Type::Unit => 0,
            Type::Scalar(_) | Type::Atomic(_) => 1,
            Type::UVec3 => 3,
            Type::Array(t, n) => t.words_in(structs) * n,
            Type::Struct(id) => structs[*id].fields.iter().map(|(_, t)| t.words_in(structs)).sum(),
            Type::Var(_) => unreachable!("unresolved type variable"),
        }
    }

    /// The type as Rust source spells it, for diagnostics; struct ids are
    /// looked up in `module_structs` (`Module::structs`).
    pub fn display(&self, module_structs: &[super::StructDef]) -> String {
        match self {
            Type::Unit => "()".into(),
            Type::Scalar(s) => s.rust_name().into(),
            Type::UVec3 => "UVec3".into(),
            Type::Array(t, n) => format!("[{}; {}]", t.display(module_structs), n),
            Type::Struct(id) => module_structs.get(*id).map(|s| s.name.clone()).unwrap_or_default(),
            Type::Atomic(Scalar::U32) => "AtomicU32".into(),
            Type::Atomic(_) => "AtomicI32".into(),
            Type::Var(_) => "{integer}".into(),
        }
    }
}
