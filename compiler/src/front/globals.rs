//! The shader's resources as the kernel's parameters and workgroup arrays.
//!
//! The IR's kernel takes runtime-sized storage arrays and scalar uniforms,
//! and declares workgroup arrays; a shader's globals map onto those:
//!
//! - `var<storage> a: array<T>` is a buffer parameter of element `T`
//!   (atomic when `T` is);
//! - `var<storage> s: S` with `S` not a runtime-sized array is a buffer
//!   parameter of one element, accessed at element 0;
//! - `var<uniform> u: U` is one scalar uniform per member of `U` (or one,
//!   for a scalar), in the order of their offsets;
//! - `var<workgroup> w: array<T, N>` is a workgroup array, `var<workgroup>
//!   x: T` one of a single element;
//! - `var<private>` globals are the kernel's locals (helpers are inlined).

use super::words::{Layout, Tail};
use super::{Cx, R};
use crate::ir::{Access, MemRef, Param, ParamKind, SharedVar, Type};
use naga::{AddressSpace, Handle, TypeInner};

/// Where an IR parameter's data comes from: the shader's binding, and for
/// a uniform member, its byte offset in the uniform buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamSource {
    /// A storage buffer bound at `@group(group) @binding(binding)`.
    Buffer {
        /// The bind group.
        group: u32,
        /// The binding in the group.
        binding: u32,
        /// The variable is one value, not an array of them
        /// (`var<storage> args: Args`): the buffer holds at least its
        /// bytes, as WebGPU asks, and its words are named from the
        /// variable (`args.y`).
        one: bool,
    },
    /// One scalar of the uniform buffer at (`group`, `binding`).
    Uniform {
        /// The bind group.
        group: u32,
        /// The binding in the group.
        binding: u32,
        /// The scalar's byte offset in the buffer.
        offset: u32,
    },
}

/// What a global of the shader became.
#[derive(Debug, Clone)]
pub(super) enum Global {
    /// A buffer parameter indexed as the shader indexes its array.
    Array { param: usize, elem: Type },
    /// A buffer parameter whose array is the global's one member (GLSL's
    /// `buffer B { float data[]; }`).
    Block { param: usize, elem: Type },
    /// A buffer parameter of one element (element 0 is the global).
    Single { param: usize, ty: Type },
    /// A workgroup array (`single`: the global is its element 0).
    Shared { index: usize, ty: Type, single: bool },
    /// Memory read word by word (`words.rs`): laid out as `layout`, of
    /// words of type `word` (`u32`, or an atomic).
    Words { mem: MemRef, layout: Layout, word: Type },
    /// A uniform's scalars, as consecutive parameters from `first`.
    Uniform { first: usize, ty: Type },
    /// A `var<private>`: the kernel's local (allocated by the body).
    Private { ty: Type },
}

impl Cx<'_> {
    /// Maps every global the entry point uses, in binding order.
    pub(super) fn globals(&mut self, ep_info: &naga::valid::FunctionInfo) -> R<()> {
        let mut used: Vec<Handle<naga::GlobalVariable>> = self.naga.global_variables.iter().filter(|(h, _)| !ep_info[*h].is_empty()).map(|(h, _)| h).collect();
        used.sort_by_key(|h| self.naga.global_variables[*h].binding.as_ref().map(|b| (b.group, b.binding)));
        for h in used {
            let g = self.global(h)?;
            self.globals.insert(h, g);
        }
        Ok(())
    }

    fn global(&mut self, h: Handle<naga::GlobalVariable>) -> R<Global> {
        let var = &self.naga.global_variables[h];
        let at = self.naga.global_variables.get_span(h);
        let name = var.name.clone().unwrap_or_else(|| format!("global{}", h.index()));
        if name.starts_with("ld_") {
            return Err(self.reject(at, format!("`{name}`: names starting with `ld_` are ld's own; rename it")));
        }
        let (group, binding) = var.binding.as_ref().map_or((0, 0), |b| (b.group, b.binding));
        match var.space {
            AddressSpace::Storage { access } => {
                // A header before a runtime-sized array, or a runtime-sized
                // array whose stride pads its element: read word by word.
                let words = match self.headed(var.ty, at)? {
                    Some(layout) => Some(layout),
                    None => self.padded(var.ty, at)?,
                };
                if words.is_none() {
                    self.check_layout(var.ty, at)?;
                }
                let writable = access.contains(naga::StorageAccess::STORE);
                let param = self.params.len();
                let source = ParamSource::Buffer { group, binding, one: false };
                if let Some(layout) = words {
                    let word = self.atomic_words(&name, &layout, "buffers", at)?.map_or(Type::U32, Type::Atomic);
                    self.buffer_param(name, &word, writable, source);
                    self.layouts.insert(param, layout.clone());
                    return Ok(Global::Words { mem: MemRef::Param(param), layout, word });
                }
                // GLSL's buffer block: a struct whose one member is the array.
                let block = match &self.naga.types[var.ty].inner {
                    TypeInner::Struct { members, .. } if members.len() == 1 => Some(members[0].ty).filter(|&t| self.is_runtime_array(t)),
                    _ => None,
                };
                let (ty, array) = match self.runtime_array_elem(block.unwrap_or(var.ty), at)? {
                    Some(elem) => (elem, true),
                    None => (self.ty(var.ty, at)?, false),
                };
                let layout = match array {
                    true => Layout { head: None, tail: Some(Tail { name: String::new(), member: 0, offset: 0, elem: ty.clone(), stride: self.words(&ty) }) },
                    false => Layout { head: Some(ty.clone()), tail: None },
                };
                if !matches!(ty, Type::Atomic(_)) {
                    if let Some(s) = self.atomic_words(&name, &layout, "buffers", at)? {
                        self.buffer_param(name, &Type::Atomic(s), writable, source);
                        self.layouts.insert(param, layout.clone());
                        return Ok(Global::Words { mem: MemRef::Param(param), layout, word: Type::Atomic(s) });
                    }
                }
                self.buffer_param(name, &ty, writable, ParamSource::Buffer { group, binding, one: !array });
                Ok(match (array, block) {
                    (true, Some(_)) => Global::Block { param, elem: ty },
                    (true, None) => Global::Array { param, elem: ty },
                    (false, _) => Global::Single { param, ty },
                })
            }
            AddressSpace::Uniform => {
                let ty = self.ty(var.ty, at)?;
                let first = self.params.len();
                self.uniform_params(&name, var.ty, 0, group, binding, at)?;
                Ok(Global::Uniform { first, ty })
            }
            AddressSpace::WorkGroup => {
                let ty = self.ty(var.ty, at)?;
                let layout = Layout { head: Some(ty.clone()), tail: None };
                if !matches!(ty, Type::Atomic(_)) {
                    if let Some(s) = self.atomic_words(&name, &layout, "workgroup memory", at)? {
                        let len = self.words(&ty);
                        self.shared.push(SharedVar { name, elem: Type::Atomic(s), len });
                        return Ok(Global::Words { mem: MemRef::Shared(self.shared.len() - 1), layout, word: Type::Atomic(s) });
                    }
                }
                let (elem, len, single) = match &ty {
                    Type::Array(e, n) => ((**e).clone(), *n, false),
                    other => (other.clone(), 1, true),
                };
                self.shared.push(SharedVar { name, elem, len });
                Ok(Global::Shared { index: self.shared.len() - 1, ty, single })
            }
            AddressSpace::Private => Ok(Global::Private { ty: self.ty(var.ty, at)? }),
            AddressSpace::Handle => {
                let what = match self.naga.types[var.ty].inner {
                    TypeInner::Image { .. } => "a texture",
                    TypeInner::Sampler { .. } => "a sampler",
                    _ => "not a buffer",
                };
                Err(self.reject(at, format!("`{name}` is {what}: ld checks storage, uniform and workgroup memory, not textures or samplers")))
            }
            other => Err(self.reject(at, format!("globals in the {other:?} address space are not supported"))),
        }
    }

    /// The scalar of the atomics of memory laid out as `layout`, read
    /// word by word as atomic words where it holds atomics (`None`: no
    /// atomics). Atomics of two scalars in one memory are refused:
    /// `memory` says which kind.
    fn atomic_words(&self, name: &str, layout: &Layout, memory: &str, at: naga::Span) -> R<Option<crate::ir::Scalar>> {
        let mut scalars = Vec::new();
        for t in layout.head.iter().chain(layout.tail.as_ref().map(|t| &t.elem)) {
            atomic_scalars(t, &self.structs, &mut scalars);
        }
        scalars.dedup();
        match scalars[..] {
            [] => Ok(None),
            [s] => Ok(Some(s)),
            _ => {
                Err(self
                    .reject(at, format!("`{name}` holds atomics of two types: ld supports {memory} whose atomics are all `atomic<u32>` or all `atomic<i32>`")))
            }
        }
    }

    /// The layout of a struct whose runtime-sized last member follows
    /// other members (`None` for any other type): the members before it
    /// as a struct of their own, padded to the array's offset, and the
    /// array.
    fn headed(&mut self, h: naga::Handle<naga::Type>, at: naga::Span) -> R<Option<Layout>> {
        let TypeInner::Struct { members, .. } = &self.naga.types[h].inner else { return Ok(None) };
        let Some((last, before)) = members.split_last().filter(|(m, b)| !b.is_empty() && self.is_runtime_array(m.ty)) else { return Ok(None) };
        let (last, before) = (last.clone(), before.to_vec());
        for m in &before {
            self.check_layout(m.ty, at)?;
        }
        let Some(Layout { tail: Some(array), .. }) = self.padded(last.ty, at)?.or(self.unpadded(last.ty, at)?) else { unreachable!("a runtime-sized array") };
        let head = self.struct_of(self.type_name(h), &before, last.offset, at)?;
        let tail = Tail { name: last.name.unwrap_or_default(), member: before.len() as u32, offset: last.offset / 4, ..array };
        Ok(Some(Layout { head: Some(head), tail: Some(tail) }))
    }

    /// The layout of a runtime-sized array whose stride pads its element
    /// (`array<vec3<f32>>`, 16 bytes apart; `None` for any other type).
    fn padded(&mut self, h: naga::Handle<naga::Type>, at: naga::Span) -> R<Option<Layout>> {
        let TypeInner::Array { base, size: naga::ArraySize::Dynamic, stride } = self.naga.types[h].inner else { return Ok(None) };
        self.check_layout(base, at)?;
        let elem = self.ty(base, at)?;
        if self.words(&elem) * 4 == stride {
            return Ok(None);
        }
        Ok(Some(Layout { head: None, tail: Some(Tail { name: String::new(), member: 0, offset: 0, elem, stride: stride / 4 }) }))
    }

    /// The layout of a runtime-sized array whose elements are not padded.
    fn unpadded(&mut self, h: naga::Handle<naga::Type>, at: naga::Span) -> R<Option<Layout>> {
        let Some(elem) = self.runtime_array_elem(h, at)? else { return Ok(None) };
        self.check_layout(h, at)?;
        let stride = self.words(&elem);
        Ok(Some(Layout { head: None, tail: Some(Tail { name: String::new(), member: 0, offset: 0, elem, stride }) }))
    }

    fn buffer_param(&mut self, name: String, elem: &Type, writable: bool, source: ParamSource) {
        let kind = match elem {
            Type::Atomic(s) => ParamKind::Atomic { elem: *s },
            t => ParamKind::Storage { elem: t.clone(), access: if writable { Access::ReadWrite } else { Access::Read } },
        };
        self.params.push(Param { name, kind });
        self.sources.push(source);
    }

    /// One scalar parameter per scalar of the uniform, in the order of
    /// their offsets (which WGSL's layout may space out: the host reads
    /// each at its own), named by their path (`params_size_x`).
    fn uniform_params(&mut self, name: &str, ty: Handle<naga::Type>, offset: u32, group: u32, binding: u32, at: naga::Span) -> R<()> {
        let push = |cx: &mut Self, name: String, s: naga::Scalar, offset: u32| -> R<()> {
            let s = super::types::scalar(s, at)?;
            cx.params.push(Param { name, kind: ParamKind::Uniform { ty: s } });
            cx.sources.push(ParamSource::Uniform { group, binding, offset });
            Ok(())
        };
        match &self.naga.types[ty].inner {
            TypeInner::Scalar(s) => push(self, name.to_string(), *s, offset),
            TypeInner::Vector { size, scalar } => {
                for (i, c) in ["x", "y", "z", "w"][..*size as usize].iter().enumerate() {
                    push(self, format!("{name}_{c}"), *scalar, offset + i as u32 * scalar.width as u32)?;
                }
                Ok(())
            }
            TypeInner::Struct { members, .. } => {
                for m in members.clone() {
                    let field = m.name.clone().unwrap_or_default();
                    self.uniform_params(&format!("{name}_{field}"), m.ty, offset + m.offset, group, binding, at)?;
                }
                Ok(())
            }
            TypeInner::Matrix { columns, rows, scalar } => {
                // Columns as vectors, each aligned as WGSL aligns a vector
                // of `rows` (a `vec3` to 16 bytes).
                let stride = if *rows == naga::VectorSize::Bi { 2 } else { 4 } * scalar.width as u32;
                for c in 0..*columns as u32 {
                    for (i, r) in ["x", "y", "z", "w"][..*rows as usize].iter().enumerate() {
                        push(self, format!("{name}_{c}_{r}"), *scalar, offset + c * stride + i as u32 * scalar.width as u32)?;
                    }
                }
                Ok(())
            }
            TypeInner::Array { base, size: naga::ArraySize::Constant(n), stride } => {
                let (base, n, stride) = (*base, n.get(), *stride);
                for k in 0..n {
                    self.uniform_params(&format!("{name}_{k}"), base, offset + k * stride, group, binding, at)?;
                }
                Ok(())
            }
            _ => {
                Err(self
                    .reject(at, format!("uniform `{name}`: ld supports uniforms of scalars, vectors, matrices, fixed-size arrays and structs of them for now")))
            }
        }
    }

    /// How many scalar parameters a uniform value of IR type `t` takes.
    pub(super) fn uniform_scalars(&self, t: &Type) -> usize {
        match t {
            Type::Struct(id) => {
                self.structs[*id].fields.iter().enumerate().filter(|(i, _)| !self.is_pad(*id, *i)).map(|(_, (_, f))| self.uniform_scalars(f)).sum()
            }
            Type::Array(e, n) => self.uniform_scalars(e) * *n as usize,
            _ => 1,
        }
    }
}

/// The scalar of every atomic in `t`, in order, into `out`.
fn atomic_scalars(t: &Type, structs: &[crate::ir::StructDef], out: &mut Vec<crate::ir::Scalar>) {
    match t {
        Type::Atomic(s) if !out.contains(s) => out.push(*s),
        Type::Array(e, _) => atomic_scalars(e, structs, out),
        Type::Struct(id) => structs[*id].fields.iter().for_each(|(_, f)| atomic_scalars(f, structs, out)),
        _ => {}
    }
}
