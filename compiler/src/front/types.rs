//! naga's types as the IR's. The IR lays every type out as consecutive
//! 32-bit words, so a WGSL type maps where WGSL's host-shareable layout
//! can be written that way: 4-byte scalars, arrays whose stride is their
//! element's size, and structs, whose padding (before a member WGSL
//! aligns, as a `vec3` or a nested struct, and at the end) becomes fields
//! of `u32` words of the IR's struct that the kernel never names. In a
//! storage buffer, a fixed-size array whose stride pads its elements
//! (`array<vec3<f32>, 8>`) is an error at the declaration, never a
//! silently different layout; a runtime-sized one is read word by word
//! (`words.rs`). Workgroup memory, which no host reads, takes the IR's
//! layout whatever WGSL's.

use super::{Cx, R};
use crate::ir::{Expr, ExprKind, Scalar, StructDef, Type};
use naga::{Handle, TypeInner};

impl Cx<'_> {
    /// The IR type of a value, local or memory element of naga type `h`
    /// (vectors as structs: `vectors.rs`). Whether memory of the type is
    /// laid out as the IR lays it out is `check_layout`'s question.
    pub(super) fn ty(&mut self, h: Handle<naga::Type>, at: naga::Span) -> R<Type> {
        let t = &self.naga.types[h];
        match &t.inner {
            TypeInner::Scalar(s) => Ok(Type::Scalar(scalar(*s, at)?)),
            TypeInner::Atomic(s) => match scalar(*s, at)? {
                // naga reads `atomic<f32>` (a device feature); WGSL has
                // `atomic<u32>` and `atomic<i32>` only, and so has ld.
                Scalar::F32 => Err(self.reject(
                    at,
                    "`atomic<f32>` is not supported: WGSL's atomics are `atomic<u32>` and `atomic<i32>` (a float sum can loop on `atomicCompareExchangeWeak` over the bits)",
                )),
                s => Ok(Type::Atomic(s)),
            },
            TypeInner::Vector { size, scalar: s } => {
                let s = scalar(*s, at)?;
                Ok(self.vector_type(s, *size as u32))
            }
            TypeInner::Matrix { columns, rows, scalar: s } => {
                let s = scalar(*s, at)?;
                Ok(self.matrix_type(*columns as u32, *rows as u32, s))
            }
            TypeInner::Array { base, size, .. } => {
                let n = match size {
                    naga::ArraySize::Constant(n) => n.get(),
                    naga::ArraySize::Pending(o) => self.override_value(*o, at)?,
                    naga::ArraySize::Dynamic => {
                        return Err(self.reject(at, "a runtime-sized array is supported only as a whole storage buffer (`var<storage> a: array<T>`)"))
                    }
                };
                let elem = self.ty(*base, at)?;
                Ok(Type::Array(Box::new(elem), n))
            }
            TypeInner::Struct { members, .. } => self.struct_type(h, members, at),
            TypeInner::Image { .. } | TypeInner::Sampler { .. } => {
                Err(self.reject(at, "textures and samplers are not supported: ld checks compute shaders over storage, uniform and workgroup memory"))
            }
            _ => Err(self.reject(at, format!("the type `{}` is not supported in kernels ld checks", self.type_name(h)))),
        }
    }

    /// Refuses a type of storage memory whose WGSL layout is not the
    /// IR's consecutive words: padding between an array's elements (a
    /// `vec3` in an array) or a matrix's columns (`mat3x3`). A struct's
    /// padding is fields of its IR struct (`struct_type`). Workgroup
    /// memory needs no check: no host reads its bytes, and the IR lays it
    /// out as it likes.
    pub(super) fn check_layout(&mut self, h: Handle<naga::Type>, at: naga::Span) -> R<()> {
        let (base, stride) = match &self.naga.types[h].inner {
            TypeInner::Array { base, stride, .. } => (*base, *stride),
            TypeInner::Matrix { columns, rows: naga::VectorSize::Tri, .. } => {
                let columns = *columns as u32;
                return Err(self.reject(
                    at,
                    format!(
                        "`mat{columns}x3` in a buffer is not supported yet: WGSL pads each of its columns to 16 bytes (a `mat{columns}x4` has the same layout)"
                    ),
                ));
            }
            TypeInner::Struct { members, .. } => {
                for m in members.clone() {
                    self.check_layout(m.ty, at)?;
                }
                return Ok(());
            }
            _ => return Ok(()),
        };
        let elem = self.ty(base, at)?;
        if self.words(&elem) * 4 != stride {
            return Err(self.reject(
                at,
                format!(
                    "`{}` has padding between its elements (a stride of {stride} bytes for {} of data): ld supports memory laid out without padding for now",
                    self.type_name(h),
                    self.words(&elem) * 4
                ),
            ));
        }
        self.check_layout(base, at)
    }

    /// The value of an override that sizes an array (set by then: the
    /// caller applies the pipeline's constants before translating).
    fn override_value(&self, o: Handle<naga::Override>, at: naga::Span) -> R<u32> {
        let value = self.naga.overrides[o].init.map(|e| &self.naga.global_expressions[e]);
        match value {
            Some(naga::Expression::Literal(naga::Literal::U32(n))) => Ok(*n),
            Some(naga::Expression::Literal(naga::Literal::I32(n))) if *n > 0 => Ok(*n as u32),
            _ => Err(self.reject(at, format!("the array's size, override `{}`, has no value: set it", self.naga.overrides[o].name.as_deref().unwrap_or("?")))),
        }
    }

    /// Whether `h` is a runtime-sized array.
    pub(super) fn is_runtime_array(&self, h: Handle<naga::Type>) -> bool {
        matches!(self.naga.types[h].inner, TypeInner::Array { size: naga::ArraySize::Dynamic, .. })
    }

    /// The element type of a runtime-sized array.
    pub(super) fn runtime_array_elem(&mut self, h: Handle<naga::Type>, at: naga::Span) -> R<Option<Type>> {
        let TypeInner::Array { base, size: naga::ArraySize::Dynamic, .. } = self.naga.types[h].inner else {
            return Ok(None);
        };
        Ok(Some(self.ty(base, at)?))
    }

    /// The 32-bit words of a value of `t`.
    pub(super) fn words(&self, t: &Type) -> u32 {
        t.words_in(&self.structs)
    }

    fn struct_type(&mut self, h: Handle<naga::Type>, members: &[naga::StructMember], at: naga::Span) -> R<Type> {
        if let Some(&id) = self.struct_ids.get(&h) {
            return Ok(Type::Struct(id));
        }
        let TypeInner::Struct { span, .. } = self.naga.types[h].inner else { unreachable!("a struct") };
        let t = self.struct_of(self.type_name(h), members, span, at)?;
        if let Type::Struct(id) = t {
            self.struct_ids.insert(h, id);
        }
        Ok(t)
    }

    /// The IR struct named `name` of `members`, padded as WGSL lays them
    /// out up to byte `size`.
    pub(super) fn struct_of(&mut self, name: String, members: &[naga::StructMember], size: u32, at: naga::Span) -> R<Type> {
        let (mut fields, mut fields_of) = (Vec::new(), Vec::new());
        let mut end = 0;
        for m in members {
            pad(&mut fields, end, m.offset);
            let t = self.ty(m.ty, at)?;
            end = m.offset + self.words(&t) * 4;
            fields_of.push(fields.len());
            fields.push((m.name.clone().unwrap_or_default(), t));
        }
        pad(&mut fields, end, size);
        if fields_of.len() != fields.len() {
            self.members.insert(self.structs.len(), fields_of);
        }
        self.structs.push(StructDef { name, fields });
        Ok(Type::Struct(self.structs.len() - 1))
    }

    /// The IR field of member `member` of struct `id`.
    pub(super) fn field_of(&self, id: crate::ir::StructId, member: u32) -> usize {
        self.members.get(&id).map_or(member as usize, |m| m[member as usize])
    }

    /// Whether field `field` of struct `id` is padding.
    pub(super) fn is_pad(&self, id: crate::ir::StructId, field: usize) -> bool {
        self.members.get(&id).is_some_and(|m| !m.contains(&field))
    }

    /// A value of struct `id` from its members' values, its padding zero.
    pub(super) fn struct_lit(&self, id: crate::ir::StructId, members: Vec<Expr>, sp: crate::Span) -> ExprKind {
        let Some(of) = self.members.get(&id) else { return ExprKind::StructLit(members) };
        let mut members = members.into_iter();
        let fields = (0..self.structs[id].fields.len()).map(|f| match of.contains(&f) {
            true => members.next().expect("a value per member"),
            false => self.zero(&self.structs[id].fields[f].1, sp),
        });
        ExprKind::StructLit(fields.collect())
    }

    /// The type as WGSL writes it.
    pub(super) fn type_name(&self, h: Handle<naga::Type>) -> String {
        use naga::common::wgsl::TypeContext;
        self.naga.to_ctx().type_to_string(h)
    }
}

/// Padding from byte `from` to byte `to`, as a field of `u32` words.
fn pad(fields: &mut Vec<(String, Type)>, from: u32, to: u32) {
    let words = to.saturating_sub(from) / 4;
    if words > 0 {
        fields.push((format!("ld_pad{}", fields.len()), Type::Array(Box::new(Type::U32), words)));
    }
}

/// The IR scalar of a naga scalar: 32-bit integers and floats, and bool.
pub(super) fn scalar(s: naga::Scalar, at: naga::Span) -> R<Scalar> {
    match s {
        naga::Scalar::U32 => Ok(Scalar::U32),
        naga::Scalar::I32 => Ok(Scalar::I32),
        naga::Scalar::F32 => Ok(Scalar::F32),
        naga::Scalar::BOOL => Ok(Scalar::Bool),
        other => Err(super::Rejected::one(
            at,
            format!("{}-bit {:?} values are not supported: ld checks 32-bit words (u32, i32, f32) and bool", other.width * 8, other.kind),
        )),
    }
}
