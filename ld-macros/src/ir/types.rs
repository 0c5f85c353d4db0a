use super::{Module, StructId};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scalar {
    U32,
    I32,
    F32,
    Bool,
}

impl Scalar {
    pub fn is_integer(self) -> bool {
        matches!(self, Scalar::U32 | Scalar::I32)
    }
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
    Unit,
    Scalar(Scalar),
    /// `vec3<u32>`: what the id builtins return; only `.x/.y/.z` are allowed.
    UVec3,
    Array(Box<Type>, u32),
    Struct(StructId),
    /// An element of an atomic slice or shared array: only reachable through
    /// atomic methods, never loaded as a value.
    Atomic(Scalar),
    Var(usize),
}

impl Type {
    pub const U32: Type = Type::Scalar(Scalar::U32);
    pub const I32: Type = Type::Scalar(Scalar::I32);
    pub const F32: Type = Type::Scalar(Scalar::F32);
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// Size in 32-bit words in storage/workgroup memory (every type we
    /// support is built from 4-byte scalars, so layouts agree with repr(C)).
    pub fn words(&self, module: &Module) -> u32 {
        match self {
            Type::Unit => 0,
            Type::Scalar(_) | Type::Atomic(_) => 1,
            Type::UVec3 => 3,
            Type::Array(t, n) => t.words(module) * n,
            Type::Struct(id) => module.structs[*id].fields.iter().map(|(_, t)| t.words(module)).sum(),
            Type::Var(_) => unreachable!("unresolved type variable"),
        }
    }

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
