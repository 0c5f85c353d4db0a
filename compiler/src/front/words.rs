//! Memory read word by word: a buffer whose WGSL type the IR cannot
//! hold as an array of one element type. Two kinds of real shaders'
//! memory are so:
//!
//! - a struct whose runtime-sized last member follows other members
//!   (`struct Particles { count: u32, items: array<Particle> }`), or a
//!   runtime-sized array whose stride pads its element
//!   (`array<vec3<f32>>`, 16 bytes apart): its words are a `u32` buffer,
//!   each value's words gathered (a load) or scattered (a store) at their
//!   WGSL offsets and bitcast, the padding never touched;
//! - memory holding atomics beside plain values (an indirect draw's
//!   `instance_count: atomic<u32>` beside its `vertex_count: u32`): its
//!   words are atomic ones, a plain member read with `atomicLoad` and
//!   written with `atomicStore`. The engine checks no atomic word for
//!   races, so such a store is unchecked: the kernel lists it
//!   (`Kernel::atomic_memory_stores`), and where another invocation can
//!   reach the memory (a dispatch of more than one invocation for a
//!   storage buffer, a workgroup of more than one for workgroup memory)
//!   ld refuses the kernel rather than miss a race. Reads alone cannot
//!   race: no atomic operation touches a plain member.
//!
//! A [`Layout`] names the words of such a buffer in reports as WGSL
//! spells them (`particles.items[12].vel.y`).

use super::expr::Ptr;
use super::vectors::bin;
use super::{Cx, R};
use crate::ir::{BinOp, Expr, ExprKind, Intrinsic, Lit, MemRef, Place, Proj, Root, Scalar, Stmt, StmtKind, StructDef, Type};

/// A plain store into memory of atomic words, which no check watches.
#[derive(Debug, Clone, Copy)]
pub struct UncheckedStore {
    /// The store.
    pub at: naga::Span,
    /// Into workgroup memory (only the workgroup's invocations reach it),
    /// else into a storage buffer (the whole dispatch's).
    pub workgroup: bool,
}

/// How a memory read word by word is laid out.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The value at word 0: the members before the runtime-sized one, or
    /// the whole value where there is none (`None`: the memory is the
    /// runtime-sized array itself).
    pub head: Option<Type>,
    /// The runtime-sized array.
    pub tail: Option<Tail>,
}

/// A runtime-sized array at the end of a memory read word by word.
#[derive(Debug, Clone)]
pub struct Tail {
    /// The member's name (empty where the memory is the array).
    pub name: String,
    /// The member's index in the WGSL struct.
    pub member: u32,
    /// Its first word.
    pub offset: u32,
    /// Its element type.
    pub elem: Type,
    /// The words from one element to the next: the element's, or more
    /// where WGSL's alignment pads it (`array<vec3<f32>>`: 4).
    pub stride: u32,
}

impl Layout {
    /// Names word `word` as WGSL spells its path (`.items[12].vel.y`).
    pub fn place(&self, structs: &[StructDef], word: u32, out: &mut String) {
        let head_words = self.head.as_ref().map_or(0, |h| h.words_in(structs));
        match (&self.head, &self.tail) {
            (Some(h), _) if word < head_words => place(structs, h, word, out),
            (_, Some(t)) => {
                let each = t.stride.max(1);
                let w = word.saturating_sub(t.offset);
                if !t.name.is_empty() {
                    out.push('.');
                    out.push_str(&t.name);
                }
                out.push_str(&format!("[{}]", w / each));
                place(structs, &t.elem, w % each, out);
            }
            _ => {}
        }
    }
}

/// Names word `word` of a value of type `t`: the path WGSL writes to it.
pub fn place(structs: &[StructDef], t: &Type, word: u32, out: &mut String) {
    match t {
        Type::Array(e, _) => {
            let each = e.words_in(structs).max(1);
            out.push_str(&format!("[{}]", word / each));
            place(structs, e, word % each, out);
        }
        Type::Struct(id) => {
            let mut start = 0;
            for (name, ft) in &structs[*id].fields {
                let end = start + ft.words_in(structs);
                if word < end {
                    out.push('.');
                    out.push_str(name);
                    return place(structs, ft, word - start, out);
                }
                start = end;
            }
        }
        Type::UVec3 => out.push_str([".x", ".y", ".z"].get(word as usize).copied().unwrap_or("")),
        _ => {}
    }
}

/// Word `base + k`, folded where `base` is a literal.
fn offset(base: &Expr, k: u32, sp: crate::Span) -> Expr {
    match base.kind {
        ExprKind::Lit(Lit::Int(b)) => Expr { kind: ExprKind::Lit(Lit::Int(b + k as i64)), ty: Type::U32, span: sp },
        _ if k == 0 => base.clone(),
        _ => bin(BinOp::Add, base.clone(), Expr { kind: ExprKind::Lit(Lit::Int(k as i64)), ty: Type::U32, span: sp }, &Type::U32, sp),
    }
}

fn word_place(mem: MemRef, index: Expr) -> Place {
    Place { root: Root::Mem { mem, index: Box::new(index), settled: false, own: false }, path: Vec::new() }
}

/// The scalar a memory's word holds: `u32`, or its atomics' scalar.
fn word_scalar(word: &Type) -> Scalar {
    match word {
        Type::Atomic(s) | Type::Scalar(s) => *s,
        _ => Scalar::U32,
    }
}

fn bitcast(x: Expr, to: Scalar, sp: crate::Span) -> Expr {
    if x.ty == Type::Scalar(to) {
        return x;
    }
    Expr { kind: ExprKind::Intrinsic(Intrinsic::Bitcast(to), vec![x]), ty: Type::Scalar(to), span: sp }
}

impl Cx<'_> {
    /// The pointer at the start of a memory read word by word (`word`:
    /// the type of its words).
    pub(super) fn words_root(&self, mem: MemRef, layout: &Layout, word: Type, sp: crate::Span) -> Ptr {
        let zero = Expr { kind: ExprKind::Lit(Lit::Int(0)), ty: Type::U32, span: sp };
        match (&layout.head, &layout.tail) {
            (Some(head), tail) => Ptr::Words { mem, index: zero, ty: head.clone(), whole: None, word, tail: tail.clone().map(Box::new) },
            (None, Some(t)) => Ptr::Words { mem, index: offset(&zero, t.offset, sp), ty: t.elem.clone(), whole: Some(t.stride), word, tail: None },
            (None, None) => unreachable!("a layout has a head or a tail"),
        }
    }

    /// Member `member` of the value at word `w`: its words, or the
    /// runtime-sized array when it is `tail`'s.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn words_member(
        &self,
        mem: MemRef,
        w: Expr,
        ty: Type,
        word: Type,
        tail: Option<Box<Tail>>,
        member: u32,
        sp: crate::Span,
        at: naga::Span,
    ) -> R<Ptr> {
        if let Some(t) = tail.filter(|t| t.member == member) {
            return Ok(Ptr::Words { mem, index: offset(&w, t.offset, sp), ty: t.elem, whole: Some(t.stride), word, tail: None });
        }
        match ty {
            Type::Struct(id) => {
                let def = &self.structs[id];
                let field = self.field_of(id, member);
                let at_word = def.field_offset_in(&self.structs, field);
                Ok(self.words_ptr(mem, offset(&w, at_word, sp), def.fields[field].1.clone(), word))
            }
            ty => self.words_step(mem, w, ty, word, None, Expr { kind: ExprKind::Lit(Lit::Int(member as i64)), ty: Type::U32, span: sp }, sp, at),
        }
    }

    /// One element further: element `i` of the runtime-sized array
    /// (`whole`: its stride), of a fixed-size array, or a vector's
    /// component `i`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn words_step(&self, mem: MemRef, w: Expr, ty: Type, word: Type, whole: Option<u32>, i: Expr, sp: crate::Span, at: naga::Span) -> R<Ptr> {
        let (elem, stride) = match (ty, whole) {
            (elem, Some(stride)) => (elem, stride),
            (Type::Array(elem, _), None) => {
                let each = self.words(&elem);
                (*elem, each)
            }
            (ty @ Type::Struct(id), None) if self.vector_of(&ty).is_some() => (self.structs[id].fields[0].1.clone(), 1),
            _ => return Err(self.reject(at, "an index into a value that is not an array")),
        };
        let i = if i.ty == Type::U32 { i } else { Expr { kind: ExprKind::Cast(Scalar::U32, Box::new(i)), ty: Type::U32, span: sp } };
        let size = Expr { kind: ExprKind::Lit(Lit::Int(stride as i64)), ty: Type::U32, span: sp };
        let index = match (&w.kind, &i.kind) {
            (ExprKind::Lit(Lit::Int(0)), _) => bin(BinOp::Mul, i, size, &Type::U32, sp),
            _ => bin(BinOp::Add, w, bin(BinOp::Mul, i, size, &Type::U32, sp), &Type::U32, sp),
        };
        Ok(self.words_ptr(mem, index, elem, word))
    }

    /// A pointer to a value of `ty` at word `index`: an atomic's place, a
    /// scalar's word, or still words.
    fn words_ptr(&self, mem: MemRef, index: Expr, ty: Type, word: Type) -> Ptr {
        match ty {
            Type::Atomic(_) => Ptr::Place(word_place(mem, index), ty),
            Type::Scalar(s) => Ptr::Word { place: word_place(mem, index), ty: s, word },
            ty => Ptr::Words { mem, index, ty, whole: None, word, tail: None },
        }
    }

    /// `arrayLength` of the runtime-sized array starting at word `w`, of
    /// `stride` words per element.
    pub(super) fn words_len(&self, mem: MemRef, w: Expr, stride: u32, sp: crate::Span) -> Expr {
        let words = Expr { kind: ExprKind::Len(mem, None), ty: Type::U32, span: sp };
        let after = match w.kind {
            ExprKind::Lit(Lit::Int(0)) => words,
            _ => bin(BinOp::Sub, words, w, &Type::U32, sp),
        };
        let per = Expr { kind: ExprKind::Lit(Lit::Int(stride as i64)), ty: Type::U32, span: sp };
        bin(BinOp::Div, after, per, &Type::U32, sp)
    }

    /// The value of scalar type `ty` in the word at `place` of a memory
    /// of `word`s.
    pub(super) fn word_load(&self, place: Place, ty: Scalar, word: &Type, sp: crate::Span) -> Expr {
        let s = word_scalar(word);
        let kind = match word {
            Type::Atomic(_) => ExprKind::Atomic(crate::ir::AtomicOp::Load, place, Vec::new()),
            _ => ExprKind::Load(place),
        };
        bitcast(Expr { kind, ty: Type::Scalar(s), span: sp }, ty, sp)
    }

    /// The statement storing `v` into the word at `place`; a plain store
    /// into atomic memory is noted (the module's doc says why).
    pub(super) fn word_store(&mut self, place: Place, v: Expr, word: &Type, at: naga::Span, sp: crate::Span) -> StmtKind {
        let v = bitcast(v, word_scalar(word), sp);
        match word {
            Type::Atomic(_) => {
                let workgroup = matches!(place.root, Root::Mem { mem: MemRef::Shared(_), .. });
                self.atomic_memory_stores.push(UncheckedStore { at, workgroup });
                StmtKind::Expr(Expr { kind: ExprKind::Atomic(crate::ir::AtomicOp::Store, place, vec![v]), ty: Type::Unit, span: sp })
            }
            _ => StmtKind::Assign(place, None, v),
        }
    }

    /// The value of type `ty` at word `base`, gathered word by word.
    pub(super) fn words_load(&self, mem: MemRef, base: &Expr, ty: &Type, word: &Type, sp: crate::Span, at: naga::Span) -> R<Expr> {
        let kind = match ty {
            Type::Scalar(s) => return Ok(self.word_load(word_place(mem, base.clone()), *s, word, sp)),
            Type::Struct(id) => {
                let mut start = 0;
                let mut fields = Vec::new();
                for (f, (_, ft)) in self.structs[*id].fields.iter().enumerate() {
                    fields.push(match self.is_pad(*id, f) {
                        true => self.zero(ft, sp),
                        false => self.words_load(mem, &offset(base, start, sp), ft, word, sp, at)?,
                    });
                    start += self.words(ft);
                }
                ExprKind::StructLit(fields)
            }
            Type::Array(e, n) => {
                let each = self.words(e);
                ExprKind::ArrayLit((0..*n).map(|k| self.words_load(mem, &offset(base, k * each, sp), e, word, sp, at)).collect::<R<_>>()?)
            }
            _ => return Err(self.reject(at, "loading a value holding atomics: load each atomic with `atomicLoad`")),
        };
        Ok(Expr { kind, ty: ty.clone(), span: sp })
    }

    /// Stores the value at `value` (a local's place) of type `ty` into
    /// the words from `base`, word by word.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn words_store(
        &mut self,
        mem: MemRef,
        base: &Expr,
        ty: &Type,
        word: &Type,
        value: Place,
        out: &mut Vec<Stmt>,
        at: naga::Span,
        sp: crate::Span,
    ) -> R<()> {
        match ty {
            Type::Scalar(_) => {
                let v = Expr { kind: ExprKind::Load(value), ty: ty.clone(), span: sp };
                let kind = self.word_store(word_place(mem, base.clone()), v, word, at, sp);
                out.push(Stmt::new(kind, sp));
            }
            Type::Struct(id) => {
                let mut start = 0;
                for (f, (_, ft)) in self.structs[*id].fields.clone().iter().enumerate() {
                    if !self.is_pad(*id, f) {
                        let mut v = value.clone();
                        v.path.push(Proj::Field(f));
                        self.words_store(mem, &offset(base, start, sp), ft, word, v, out, at, sp)?;
                    }
                    start += self.words(ft);
                }
            }
            Type::Array(e, n) => {
                let each = self.words(e);
                for k in 0..*n {
                    let mut v = value.clone();
                    v.path.push(Proj::Index(Box::new(Expr { kind: ExprKind::Lit(Lit::Int(k as i64)), ty: Type::U32, span: sp })));
                    self.words_store(mem, &offset(base, k * each, sp), e, word, v, out, at, sp)?;
                }
            }
            _ => return Err(self.reject(at, "storing a value holding atomics: store each atomic with `atomicStore`")),
        }
        Ok(())
    }
}
