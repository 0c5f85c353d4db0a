//! Per-function checking state: name scopes, the local table, and the type
//! variables that unsuffixed literals get until their use decides them.

use ld_compiler::ir::*;
use proc_macro2::Span;
use std::collections::HashMap;
use syn::{Error, Result};

/// What a name in a kernel or helper body refers to.
#[derive(Debug, Clone)]
pub enum Binding {
    Local {
        id: LocalId,
        mutable: bool,
    },
    /// A storage/atomic buffer, shared array or slice parameter, possibly a
    /// window (`&s[off..]`) starting at the value held in local `offset`.
    Mem {
        mem: MemRef,
        offset: Option<LocalId>,
        len: Option<LocalId>,
        view: MemView,
    },
    Uniform(usize),
    Const(Lit, Type),
}

/// What can be done through a memory binding.
#[derive(Debug, Clone, PartialEq)]
pub struct MemView {
    pub elem: Type,
    pub mutable: bool,
    pub atomic: bool,
    /// Number of elements when known at compile time (shared arrays).
    pub fixed_len: Option<u32>,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VarKind {
    Int,
    Float,
}

pub struct FnCx<'m> {
    pub structs: &'m [StructDef],
    pub struct_names: &'m HashMap<String, StructId>,
    pub fn_sigs: &'m [FnSig],
    pub fn_names: &'m HashMap<String, FnId>,
    pub consts: &'m HashMap<String, (Lit, Type)>,
    pub locals: Vec<Local>,
    scopes: Vec<HashMap<String, Binding>>,
    vars: Vec<(VarKind, Option<Type>)>,
    pub loop_depth: usize,
    /// Locals that are `for` loop variables (immutable, and said so in errors).
    pub loop_vars: std::collections::HashSet<LocalId>,
    /// `Some` while checking a kernel body (builtins, barriers, shared allowed).
    pub kernel: Option<KernelCx>,
    pub ret: Type,
}

/// Kernel-only state.
pub struct KernelCx {
    pub params: Vec<Param>,
    pub shared: Vec<SharedVar>,
}

/// A helper's signature, known before any body is checked so that helpers
/// may call each other in any order.
#[derive(Debug, Clone)]
pub struct FnSig {
    pub name: String,
    pub params: Vec<SigParam>,
    pub ret: Type,
}

#[derive(Debug, Clone)]
pub enum SigParam {
    Value(String, Type),
    Slice(String, MemView),
}

impl<'m> FnCx<'m> {
    pub fn new(
        structs: &'m [StructDef],
        struct_names: &'m HashMap<String, StructId>,
        fn_sigs: &'m [FnSig],
        fn_names: &'m HashMap<String, FnId>,
        consts: &'m HashMap<String, (Lit, Type)>,
        ret: Type,
    ) -> Self {
        FnCx {
            structs,
            struct_names,
            fn_sigs,
            fn_names,
            consts,
            locals: Vec::new(),
            scopes: vec![HashMap::new()],
            vars: Vec::new(),
            loop_depth: 0,
            loop_vars: Default::default(),
            kernel: None,
            ret,
        }
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Words a type occupies in memory.
    pub fn type_words(&self, t: &Type) -> u32 {
        match t {
            Type::Unit => 0,
            Type::Scalar(_) | Type::Atomic(_) | Type::Var(_) => 1,
            Type::UVec3 => 3,
            Type::Array(e, n) => self.type_words(e) * n,
            Type::Struct(id) => self.structs[*id].fields.iter().map(|(_, t)| self.type_words(t)).sum(),
        }
    }

    pub fn scope_count(&self) -> usize {
        self.scopes.len()
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub fn bind(&mut self, name: &str, b: Binding) {
        self.scopes.last_mut().unwrap().insert(name.to_string(), b);
    }

    pub fn lookup(&self, name: &str) -> Option<Binding> {
        for s in self.scopes.iter().rev() {
            if let Some(b) = s.get(name) {
                return Some(b.clone());
            }
        }
        self.consts.get(name).map(|(l, t)| Binding::Const(*l, t.clone()))
    }

    pub fn new_local(&mut self, name: &str, ty: Type, _span: Span) -> LocalId {
        self.locals.push(Local { name: name.to_string(), ty });
        self.locals.len() - 1
    }

    /// A compiler-made local (loop counters, hoisted `if` values).
    pub fn hidden_local(&mut self, name: &str, ty: Type, span: Span) -> LocalId {
        self.new_local(&format!("ld_{name}"), ty, span)
    }

    pub fn int_var(&mut self) -> Type {
        self.vars.push((VarKind::Int, None));
        Type::Var(self.vars.len() - 1)
    }

    /// Follows type-variable bindings (one level of structure is enough:
    /// variables only ever stand for scalars).
    pub fn shallow(&self, t: &Type) -> Type {
        let mut t = t.clone();
        while let Type::Var(v) = t {
            match &self.vars[v].1 {
                Some(b) => t = b.clone(),
                None => return Type::Var(v),
            }
        }
        t
    }

    pub fn is_float(&self, t: &Type) -> bool {
        match self.shallow(t) {
            Type::Scalar(Scalar::F32) => true,
            Type::Var(v) => self.vars[v].0 == VarKind::Float,
            _ => false,
        }
    }

    pub fn is_int(&self, t: &Type) -> bool {
        match self.shallow(t) {
            Type::Scalar(s) => s.is_integer(),
            Type::Var(v) => self.vars[v].0 == VarKind::Int,
            _ => false,
        }
    }

    pub fn is_numeric(&self, t: &Type) -> bool {
        self.is_int(t) || self.is_float(t)
    }

    pub fn is_bool(&self, t: &Type) -> bool {
        self.shallow(t) == Type::BOOL
    }

    pub fn type_name(&self, t: &Type) -> String {
        match self.shallow(t) {
            Type::Var(v) if self.vars[v].0 == VarKind::Float => "{float}".into(),
            t => t.display(self.structs),
        }
    }

    /// Makes two types equal or explains, at `span`, why they cannot be.
    pub fn unify(&mut self, a: &Type, b: &Type, span: Span) -> Result<Type> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        if a == b {
            return Ok(a);
        }
        match (&a, &b) {
            (Type::Var(x), Type::Var(y)) => {
                if self.vars[*x].0 != self.vars[*y].0 {
                    return Err(self.mismatch(&a, &b, span));
                }
                self.vars[*x].1 = Some(b.clone());
                Ok(b)
            }
            (Type::Var(x), other) | (other, Type::Var(x)) => {
                let ok = match (self.vars[*x].0, other) {
                    (VarKind::Int, Type::Scalar(s)) => s.is_integer(),
                    (VarKind::Float, Type::Scalar(Scalar::F32)) => true,
                    _ => false,
                };
                if !ok {
                    return Err(self.mismatch(&a, &b, span));
                }
                self.vars[*x].1 = Some(other.clone());
                Ok(other.clone())
            }
            _ => Err(self.mismatch(&a, &b, span)),
        }
    }

    fn mismatch(&self, a: &Type, b: &Type, span: Span) -> Error {
        Error::new(span, format!("mismatched types: `{}` and `{}` (kernels never convert implicitly: use `as`)", self.type_name(a), self.type_name(b)))
    }

    /// The final type of `t`: unconstrained integer literals become `i32`
    /// and float literals `f32`, as in Rust.
    pub fn resolve(&self, t: &Type) -> Type {
        match self.shallow(t) {
            Type::Var(v) => match self.vars[v].0 {
                VarKind::Int => Type::I32,
                VarKind::Float => Type::F32,
            },
            Type::Array(e, n) => Type::Array(Box::new(self.resolve(&e)), n),
            t => t,
        }
    }
}
