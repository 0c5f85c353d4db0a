//! Where values live: every local of a function is a run of 32-bit words
//! in one flat buffer per frame, at an offset fixed once per program, so
//! reaching a local (or a field or element of one) is an addition, not a
//! lookup. Sizes and field offsets follow `Type::words` and
//! `StructDef::field_offset`, the layout memory uses too, so a value moves
//! between a local and memory word for word.

use ld_compiler::ir::{Body, Expr, LocalId, Module, ParamKind, Proj, StructId, Type};

/// The sizes of the module's types in words, structs precomputed: a
/// struct's size and its fields' offsets are asked at every access to it.
pub(in crate::cpu) struct Shapes {
    struct_words: Vec<u32>,
    field_offsets: Vec<Vec<u32>>,
}

impl Shapes {
    pub fn new(m: &Module) -> Self {
        let struct_words = m.structs.iter().map(|s| s.fields.iter().map(|(_, t)| t.words(m)).sum()).collect();
        let field_offsets = m.structs.iter().map(|s| (0..s.fields.len()).map(|f| s.field_offset(m, f)).collect()).collect();
        Shapes { struct_words, field_offsets }
    }

    /// A value of type `t`, in words (`Unit`: none).
    pub fn words(&self, t: &Type) -> u32 {
        match t {
            Type::Unit => 0,
            Type::Scalar(_) | Type::Atomic(_) => 1,
            Type::UVec3 => 3,
            Type::Array(e, n) => self.words(e) * n,
            Type::Struct(id) => self.struct_words[*id],
            Type::Var(_) => unreachable!("unresolved type variable in finished IR"),
        }
    }

    /// Where field `field` of struct `s` starts, in words.
    pub fn field_offset(&self, s: StructId, field: usize) -> u32 {
        self.field_offsets[s][field]
    }
}

/// One step of a place's path, as both CPU references walk it: words to
/// skip (runs of fields and components folded into one), or an array
/// index to evaluate and check.
pub(in crate::cpu) enum Step<'e> {
    Skip(u32),
    Index { index: &'e Expr, len: u32, stride: u32 },
}

/// A `UVec3` component's type, borrowed like every other place type.
static U32: Type = Type::U32;

/// The steps of `path` from a value of type `ty`, and the type it reaches.
pub(in crate::cpu) fn steps<'t, 'e>(shapes: &Shapes, m: &'t Module, path: &'e [Proj], mut ty: &'t Type) -> (Vec<Step<'e>>, &'t Type) {
    let mut steps = Vec::new();
    for pr in path {
        let (skip, next) = match (pr, ty) {
            (Proj::Index(i), Type::Array(e, n)) => {
                steps.push(Step::Index { index: i, len: *n, stride: shapes.words(e) });
                (None, &**e)
            }
            (Proj::Field(f), Type::Struct(s)) => (Some(shapes.field_offset(*s, *f)), &m.structs[*s].fields[*f].1),
            (Proj::Component(c), _) => (Some(*c), &U32),
            _ => unreachable!("ill-typed projection {pr:?} of {ty:?}"),
        };
        match (skip, steps.last_mut()) {
            (Some(k), Some(Step::Skip(s))) => *s = s.wrapping_add(k),
            (Some(k), _) => steps.push(Step::Skip(k)),
            (None, _) => {}
        }
        ty = next;
    }
    (steps, ty)
}

/// Whether a value of type `t` is one word computed on the fast path
/// (a scalar), rather than an aggregate gathered in a buffer.
pub(in crate::cpu) fn is_scalar(t: &Type) -> bool {
    matches!(t, Type::Scalar(_) | Type::Atomic(_))
}

/// A function's locals laid out in one frame of words.
pub(in crate::cpu) struct Layout {
    offsets: Vec<u32>,
    words: u32,
}

impl Layout {
    pub fn new(body: &Body, shapes: &Shapes) -> Self {
        let mut offsets = Vec::with_capacity(body.locals.len());
        let mut words = 0;
        for l in &body.locals {
            offsets.push(words);
            words += shapes.words(&l.ty);
        }
        Layout { offsets, words }
    }

    /// The first word of local `id` in the frame.
    pub fn offset(&self, id: LocalId) -> u32 {
        self.offsets[id]
    }

    /// A fresh frame's size: every local zeroed, as WGSL zero-initialises
    /// variables (and the twin's `zeroed()`).
    pub fn words(&self) -> usize {
        self.words as usize
    }
}

/// A kernel parameter's element type as places see it (a uniform has none).
pub(in crate::cpu) fn param_elem(kind: &ParamKind) -> Type {
    match kind {
        ParamKind::Storage { elem, .. } => elem.clone(),
        ParamKind::Atomic { elem } => Type::Atomic(*elem),
        ParamKind::Uniform { .. } => Type::Unit,
    }
}

/// Each kernel parameter's word in the uniform block: the uniforms, one
/// word each, in parameter order.
pub(in crate::cpu) fn uniform_words(m: &Module) -> Vec<usize> {
    let mut before = 0;
    let each = m.kernel.params.iter().map(|p| {
        let w = before;
        before += matches!(p.kind, ParamKind::Uniform { .. }) as usize;
        w
    });
    each.collect()
}

/// Locals of a frame this small live in the invocation itself: a kernel
/// as small as saxpy's would otherwise spend a good part of its time
/// allocating its frame.
const INLINE_WORDS: usize = 32;

/// An invocation's frame of `n` words, zeroed: inline, or on the heap
/// where it is larger.
pub(in crate::cpu) enum Frame {
    Inline([u32; INLINE_WORDS]),
    Heap(Vec<u32>),
}

impl Frame {
    pub fn new(n: usize) -> Frame {
        if n <= INLINE_WORDS {
            Frame::Inline([0; INLINE_WORDS])
        } else {
            Frame::Heap(vec![0; n])
        }
    }

    /// The first `n` words (`n`: the size it was made with).
    pub fn words(&mut self, n: usize) -> &mut [u32] {
        match self {
            Frame::Inline(w) => &mut w[..n],
            Frame::Heap(v) => v,
        }
    }
}
