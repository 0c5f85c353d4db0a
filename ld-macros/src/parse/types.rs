//! Rust type syntax → IR types, and the kernel parameter forms.

use super::scope::MemView;
use ld_compiler::ir::*;
use std::collections::HashMap;
use syn::{spanned::Spanned, Error, Result};

pub struct TypeEnv<'a> {
    pub struct_names: &'a HashMap<String, StructId>,
    pub consts: &'a HashMap<String, (Lit, Type)>,
}

impl TypeEnv<'_> {
    /// A value type: scalars, `UVec3`, fixed arrays, structs.
    pub fn value_type(&self, ty: &syn::Type) -> Result<Type> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let name = last_ident(&p.path).ok_or_else(|| unsupported(ty))?;
                match name.as_str() {
                    "u32" => Ok(Type::U32),
                    "i32" => Ok(Type::I32),
                    "f32" => Ok(Type::F32),
                    "bool" => Ok(Type::BOOL),
                    "UVec3" => Ok(Type::UVec3),
                    "usize" | "isize" | "u64" | "i64" | "u8" | "i8" | "u16" | "i16" => {
                        Err(Error::new(ty.span(), format!("`{name}` is not a WGSL type: kernels use 32-bit `u32`, `i32`, `f32` and `bool`")))
                    }
                    "f64" => Err(Error::new(ty.span(), "`f64` is not supported by WGSL: use `f32`")),
                    "AtomicU32" | "AtomicI32" => Err(Error::new(
                        ty.span(),
                        format!("`{name}` cannot be a struct field or a local in a kernel: atomics live in buffers, a parameter `&[{name}]`"),
                    )),
                    other => match self.struct_names.get(other) {
                        Some(id) => Ok(Type::Struct(*id)),
                        None => Err(Error::new(
                            ty.span(),
                            format!("unknown type `{other}` in a kernel: structs must be declared inside the same `#[ld::kernels]` module"),
                        )),
                    },
                }
            }
            syn::Type::Array(a) => {
                let elem = self.value_type(&a.elem)?;
                let len = self.array_len(&a.len)?;
                Ok(Type::Array(Box::new(elem), len))
            }
            syn::Type::Paren(p) => self.value_type(&p.elem),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Type::Unit),
            _ => Err(unsupported(ty)),
        }
    }

    pub fn array_len(&self, e: &syn::Expr) -> Result<u32> {
        match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
                let n: u32 = i.base10_parse()?;
                if n == 0 {
                    return Err(Error::new(e.span(), "zero-length arrays are not allowed in WGSL"));
                }
                Ok(n)
            }
            syn::Expr::Path(p) => {
                let name = last_ident(&p.path).unwrap_or_default();
                match self.consts.get(&name) {
                    Some((Lit::Int(n), _)) if *n > 0 && *n <= u32::MAX as i64 => Ok(*n as u32),
                    _ => Err(Error::new(e.span(), "array length must be an integer literal or a positive integer `const`")),
                }
            }
            _ => Err(Error::new(e.span(), "array length must be an integer literal or a positive integer `const`")),
        }
    }

    /// A slice type `&[T]`, `&mut [T]`, `&[AtomicU32]`: a view of memory.
    pub fn slice_view(&self, ty: &syn::Type, name: &str) -> Result<Option<MemView>> {
        let syn::Type::Reference(r) = ty else {
            return Ok(None);
        };
        let syn::Type::Slice(s) = &*r.elem else {
            return Err(Error::new(ty.span(), "kernel references must be slices: `&[T]`, `&mut [T]` or `&[AtomicU32]`"));
        };
        let mutable = r.mutability.is_some();
        if let Some(atomic) = atomic_scalar(&s.elem) {
            if mutable {
                return Err(Error::new(ty.span(), "atomic slices are shared, not exclusive: write `&[AtomicU32]`, not `&mut [AtomicU32]`"));
            }
            return Ok(Some(MemView { elem: Type::Atomic(atomic), mutable: true, atomic: true, fixed_len: None, name: name.into() }));
        }
        let elem = self.value_type(&s.elem)?;
        if matches!(elem, Type::UVec3 | Type::Unit) {
            return Err(Error::new(s.elem.span(), "buffer elements must be `u32`, `i32`, `f32`, a struct of them, or a fixed array"));
        }
        if elem == Type::BOOL {
            return Err(Error::new(s.elem.span(), "`bool` has no defined layout in buffers: use `u32`"));
        }
        Ok(Some(MemView { elem, mutable, atomic: false, fixed_len: None, name: name.into() }))
    }

    /// A kernel parameter: storage slice, atomic slice or scalar uniform.
    pub fn kernel_param(&self, ty: &syn::Type, name: &str) -> Result<ParamKind> {
        if let Some(view) = self.slice_view(ty, name)? {
            return Ok(match view.elem {
                Type::Atomic(s) => ParamKind::Atomic { elem: s },
                elem => ParamKind::Storage { elem, access: if view.mutable { Access::ReadWrite } else { Access::Read } },
            });
        }
        match self.value_type(ty)? {
            Type::Scalar(s) if s != Scalar::Bool => Ok(ParamKind::Uniform { ty: s }),
            _ => Err(Error::new(ty.span(), "kernel parameters are slices (`&[T]`, `&mut [T]`, `&[AtomicU32]`) or scalars (`u32`, `i32`, `f32`)")),
        }
    }
}

pub fn atomic_scalar(ty: &syn::Type) -> Option<Scalar> {
    let syn::Type::Path(p) = ty else { return None };
    match last_ident(&p.path)?.as_str() {
        "AtomicU32" => Some(Scalar::U32),
        "AtomicI32" => Some(Scalar::I32),
        _ => None,
    }
}

pub fn last_ident(path: &syn::Path) -> Option<String> {
    path.segments.last().map(|s| s.ident.to_string())
}

fn unsupported(ty: &syn::Type) -> Error {
    Error::new(ty.span(), "unsupported type in a kernel: use `u32`, `i32`, `f32`, `bool`, `UVec3`, fixed arrays `[T; N]` or a kernel struct")
}
