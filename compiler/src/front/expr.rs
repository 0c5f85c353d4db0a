//! naga's expressions as the IR's: values as trees, pointers as places.

use super::body::{load_local, Arg, Frame, Locals};
use super::{Cx, R};
use crate::ir::{self, AtomicOp, BinOp, Expr, ExprKind, Intrinsic, Lit, MemRef, Place, Proj, Root, Stmt, StmtKind, Type, UnOp};
use naga::{Expression, Handle, TypeInner};

/// What a naga pointer denotes.
#[derive(Debug, Clone)]
pub(super) enum Ptr {
    /// A buffer or workgroup array, not yet indexed.
    Mem { mem: MemRef, elem: Type },
    /// A buffer block whose one member (index 0) is that array.
    Block { mem: MemRef, elem: Type },
    /// A place holding a value of the type.
    Place(Place, Type),
    /// A uniform's scalars, as parameters from `first`.
    Uniform { first: usize, ty: Type },
    /// Inside memory read word by word (`words.rs`), of words of type
    /// `word`: a value of `ty` starting at word `index`; `whole`: the
    /// runtime-sized array of `ty` itself, not yet indexed, with its
    /// stride in words (which may pad `ty`, as a `vec3`'s); `tail`: the
    /// runtime-sized member of the value, where it has one.
    Words { mem: MemRef, index: Expr, ty: Type, whole: Option<u32>, word: Type, tail: Option<Box<super::words::Tail>> },
    /// One word of such memory, holding a scalar of type `ty`.
    Word { place: Place, ty: ir::Scalar, word: Type },
}

impl Cx<'_> {
    /// Whether `h` is a pointer (a place) rather than a value.
    pub(super) fn is_pointer(&self, fr: &Frame, h: Handle<Expression>) -> bool {
        matches!(fr.finfo[h].ty.inner_with(&self.naga.types), TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. })
    }

    /// The IR type of value `h`.
    pub(super) fn value_ty(&mut self, fr: &Frame, h: Handle<Expression>, at: naga::Span) -> R<Type> {
        match &fr.finfo[h].ty {
            naga::proc::TypeResolution::Handle(t) => self.ty(*t, at),
            naga::proc::TypeResolution::Value(TypeInner::Scalar(s)) => Ok(Type::Scalar(super::types::scalar(*s, at)?)),
            naga::proc::TypeResolution::Value(TypeInner::Vector { size, scalar }) => {
                let s = super::types::scalar(*scalar, at)?;
                Ok(self.vector_type(s, *size as u32))
            }
            naga::proc::TypeResolution::Value(TypeInner::Matrix { columns, rows, scalar }) => {
                let s = super::types::scalar(*scalar, at)?;
                Ok(self.matrix_type(*columns as u32, *rows as u32, s))
            }
            other => {
                use naga::common::wgsl::TypeContext;
                let name = self.naga.to_ctx().type_resolution_to_string(other);
                Err(self.reject(at, format!("values of type `{name}` are not supported yet: ld checks scalars, arrays and structs of them")))
            }
        }
    }

    /// The value of expression `h`.
    pub(super) fn expr(&mut self, fr: &mut Frame, ls: &mut Locals, h: Handle<Expression>) -> R<Expr> {
        let at = fr.func.expressions.get_span(h);
        let sp = self.span(at);
        if let Some(&id) = fr.values.get(&h) {
            return Ok(load_local(id, ls.all[id].ty.clone(), sp));
        }
        let mk = |kind, ty| Ok(Expr { kind, ty, span: sp });
        match &fr.func.expressions[h] {
            Expression::Literal(l) => self.literal(*l, sp, at),
            Expression::Constant(c) => {
                let init = self.naga.constants[*c].init;
                self.const_expr(init, sp)
            }
            Expression::Override(_) => Err(self.reject(at, "an override constant without a value: set it")),
            Expression::ZeroValue(t) => {
                let ty = self.ty(*t, at)?;
                Ok(self.zero(&ty, sp))
            }
            Expression::Compose { ty, components } => {
                let ty = self.ty(*ty, at)?;
                let parts = components.iter().map(|c| self.expr(fr, ls, *c)).collect::<R<Vec<_>>>()?;
                match ty {
                    // `vec4(v.xy, z, w)`: a vector's components in order.
                    _ if self.vector_of(&ty).is_some() => {
                        let lanes = parts.iter().flat_map(|p| self.lanes(p)).collect();
                        Ok(self.gather(&ty, lanes, sp))
                    }
                    Type::Struct(id) => mk(self.struct_lit(id, parts, sp), ty),
                    Type::Array(..) => {
                        let parts = self.matrix_parts(&ty, parts.clone(), sp).unwrap_or(parts);
                        mk(ExprKind::ArrayLit(parts), ty)
                    }
                    _ => Err(self.reject(at, "this constructor is not supported")),
                }
            }
            Expression::Access { base, index } if !self.is_pointer(fr, *base) => {
                let i = self.expr(fr, ls, *index)?;
                let base_ty = self.value_ty(fr, *base, at)?;
                if self.vector_of(&base_ty).is_some() {
                    return Err(self.reject(at, "a vector indexed by a value known only at run time is not supported yet: use `.x`, `.y`, ..."));
                }
                self.value_index(fr, ls, *base, Proj::Index(Box::new(i)), at)
            }
            Expression::AccessIndex { base, index } if !self.is_pointer(fr, *base) => self.value_member(fr, ls, *base, *index, at),
            Expression::FunctionArgument(i) => match fr.args[*i as usize].clone() {
                Arg::Builtin(b, ty) => Ok(self.builtin_value(b, ty, sp)),
                Arg::Local(id, ty) => Ok(load_local(id, ty, sp)),
                Arg::Builtins(_) => Err(self.reject(at, "a struct of builtins is supported through its members only")),
                Arg::Unsupported(why) => Err(why),
                Arg::Ptr(_) => Err(self.reject(at, "a pointer where ld expects a value")),
            },
            Expression::Load { pointer } => self.load(fr, ls, *pointer, at),
            Expression::Unary { op, expr } => {
                let x = self.expr(fr, ls, *expr)?;
                let op = if *op == naga::UnaryOperator::Negate { UnOp::Neg } else { UnOp::Not };
                let ty = x.ty.clone();
                Ok(self.per_lane(&ty, &[x], sp, |v, t| Expr { kind: ExprKind::Unary(op, Box::new(v[0].clone())), ty: t.clone(), span: sp }))
            }
            Expression::Binary { op, left, right } => {
                let ty = self.value_ty(fr, h, at)?;
                let (l, r) = (self.expr(fr, ls, *left)?, self.expr(fr, ls, *right)?);
                let op = bin_op(*op);
                if let Some(m) = self.matrix_binary(op, &l, &r, &ty, sp, at)? {
                    return Ok(m);
                }
                Ok(self.per_lane(&ty, &[l, r], sp, |v, t| super::vectors::bin(op, v[0].clone(), v[1].clone(), t, sp)))
            }
            Expression::Math { fun, arg, arg1, arg2, arg3 } => {
                let ty = self.value_ty(fr, h, at)?;
                let mut xs = vec![self.expr(fr, ls, *arg)?];
                for a in [arg1, arg2, arg3].into_iter().flatten() {
                    xs.push(self.expr(fr, ls, *a)?);
                }
                self.math_lanes(*fun, xs, ty, sp, at)
            }
            Expression::As { expr, convert, .. } => {
                let x = self.expr(fr, ls, *expr)?;
                let ty = self.value_ty(fr, h, at)?;
                let s = match self.vector_of(&ty) {
                    Some((s, _)) => s,
                    None => ty.scalar().ok_or_else(|| self.reject(at, "a conversion to a type that is not a scalar or a vector"))?,
                };
                let kind = match convert {
                    Some(4) if s != ir::Scalar::Bool => |s, x| ExprKind::Cast(s, Box::new(x)),
                    None => |s, x| ExprKind::Intrinsic(Intrinsic::Bitcast(s), vec![x]),
                    _ => return Err(self.reject(at, format!("the conversion to `{}` is not supported: compare with `!= 0` for a bool", s.rust_name()))),
                };
                Ok(self.per_lane(&ty, &[x], sp, |v, t| Expr { kind: kind(s, v[0].clone()), ty: t.clone(), span: sp }))
            }
            Expression::Splat { value, .. } => {
                let ty = self.value_ty(fr, h, at)?;
                let x = self.expr(fr, ls, *value)?;
                let n = self.vector_of(&ty).map_or(1, |(_, n)| n);
                Ok(self.gather(&ty, vec![x; n as usize], sp))
            }
            Expression::Swizzle { size, vector, pattern } => {
                let ty = self.value_ty(fr, h, at)?;
                let v = self.expr(fr, ls, *vector)?;
                let lanes = pattern[..*size as usize].iter().map(|c| self.lane(&v, *c as u32)).collect();
                Ok(self.gather(&ty, lanes, sp))
            }
            Expression::Relational { fun: fun @ (naga::RelationalFunction::All | naga::RelationalFunction::Any), argument } => {
                let x = self.expr(fr, ls, *argument)?;
                let op = if *fun == naga::RelationalFunction::All { BinOp::And } else { BinOp::Or };
                let mut lanes = self.lanes(&x).into_iter();
                let first = lanes.next().expect("a vector has components");
                Ok(lanes.fold(first, |acc, l| super::vectors::bin(op, acc, l, &Type::BOOL, sp)))
            }
            Expression::ArrayLength(p) => match self.ptr(fr, ls, *p)? {
                Ptr::Mem { mem: mem @ MemRef::Param(_), .. } => mk(ExprKind::Len(mem, None), Type::U32),
                Ptr::Words { mem, index, whole: Some(stride), .. } => Ok(self.words_len(mem, index, stride, sp)),
                _ => Err(self.reject(at, "`arrayLength` of a struct's runtime-sized member is not supported yet")),
            },
            Expression::Select { .. } => Err(self.reject(at, "`select` in a constant expression is not supported")),
            Expression::Relational { .. } => Err(self.reject(at, "`isNan` and `isInf` are not supported yet")),
            Expression::ImageSample { .. } | Expression::ImageLoad { .. } | Expression::ImageQuery { .. } => {
                Err(self.reject(at, "textures are not supported: ld checks storage, uniform and workgroup memory"))
            }
            Expression::Derivative { .. } => Err(self.reject(at, "derivatives are fragment shader operations")),
            Expression::SubgroupBallotResult | Expression::SubgroupOperationResult { .. } => {
                Err(self.reject(at, "subgroup operations are not supported: their results depend on which invocations run together, which ld does not model"))
            }
            Expression::GlobalVariable(_) | Expression::LocalVariable(_) | Expression::Access { .. } | Expression::AccessIndex { .. } => {
                Err(self.reject(at, "a pointer where ld expects a value"))
            }
            _ => Err(self.reject(at, "this expression is not supported in kernels ld checks")),
        }
    }

    /// A builtin's value: a `vec3<u32>` one as the vector's struct.
    fn builtin_value(&mut self, b: ir::Builtin, ty: Type, sp: crate::Span) -> Expr {
        let e = Expr { kind: ExprKind::Builtin(b), ty: ty.clone(), span: sp };
        if ty != Type::UVec3 {
            return e;
        }
        let vty = self.vector_type(ir::Scalar::U32, 3);
        let lanes = (0..3).map(|i| self.lane(&e, i)).collect();
        self.gather(&vty, lanes, sp)
    }

    /// A uniform's value of type `ty` from its scalar parameters at `first`.
    fn uniform_value(&self, first: usize, ty: &Type, sp: crate::Span) -> Expr {
        let kind = match ty {
            Type::Struct(id) => {
                let mut at = first;
                let mut parts = Vec::new();
                for (f, (_, t)) in self.structs[*id].fields.iter().enumerate() {
                    if self.is_pad(*id, f) {
                        parts.push(self.zero(t, sp));
                        continue;
                    }
                    parts.push(self.uniform_value(at, t, sp));
                    at += self.uniform_scalars(t);
                }
                ExprKind::StructLit(parts)
            }
            Type::Array(e, n) => ExprKind::ArrayLit((0..*n as usize).map(|k| self.uniform_value(first + k * self.uniform_scalars(e), e, sp)).collect()),
            _ => ExprKind::Uniform(first),
        };
        Expr { kind, ty: ty.clone(), span: sp }
    }

    /// A local holding the uniform value of type `ty` from scalar `first`,
    /// for an index known only at run time: the IR indexes places, and a
    /// uniform's scalars are parameters. The copy is made once, at the
    /// kernel's start (uniforms do not change during a dispatch), and
    /// shared by every access to the same value.
    pub(super) fn uniform_copy(&mut self, ls: &mut Locals, first: usize, ty: Type, sp: crate::Span) -> Place {
        let key = (first, ty);
        if let Some((_, id, _)) = self.uniform_copies.iter().find(|(k, _, _)| *k == key) {
            return super::body::local_place(*id);
        }
        let name = self.params.get(first).map_or("uniform".to_string(), |p| p.name.clone());
        let id = ls.add(&format!("{name}_copy"), key.1.clone());
        let init = Stmt::new(StmtKind::Let(id, Some(self.uniform_value(first, &key.1, sp))), sp);
        self.uniform_copies.push((key, id, init));
        super::body::local_place(id)
    }

    /// `base[index]` where `base` is a value: an array held in a local.
    fn value_index(&mut self, fr: &mut Frame, ls: &mut Locals, base: Handle<Expression>, proj: Proj, at: naga::Span) -> R<Expr> {
        let sp = self.span(at);
        let b = self.expr(fr, ls, base)?;
        let ExprKind::Load(mut place) = b.kind else {
            return Err(self.reject(at, "indexing an array value is supported on variables only: bind it to a `var` first"));
        };
        let Type::Array(elem, _) = b.ty else {
            return Err(self.reject(at, "indexing a value that is not an array"));
        };
        place.path.push(proj);
        Ok(Expr { kind: ExprKind::Load(place), ty: *elem, span: sp })
    }

    /// `base.member` (or `base[k]` with a constant `k`) of a value.
    fn value_member(&mut self, fr: &mut Frame, ls: &mut Locals, base: Handle<Expression>, index: u32, at: naga::Span) -> R<Expr> {
        let sp = self.span(at);
        if let Expression::FunctionArgument(a) = fr.func.expressions[base] {
            if let Arg::Builtins(members) = &fr.args[a as usize] {
                return match members.get(index as usize).cloned().flatten() {
                    Some(Ok((b, ty))) => Ok(self.builtin_value(b, ty, sp)),
                    Some(Err(why)) => Err(why),
                    None => Err(self.reject(at, "an entry point input that is not a compute builtin")),
                };
            }
        }
        if let Some(&(old, exchanged)) = fr.exchanged.get(&base) {
            let (id, ty) = if index == 0 { (old, ls.all[old].ty.clone()) } else { (exchanged, Type::BOOL) };
            return Ok(load_local(id, ty, sp));
        }
        if let Expression::FunctionArgument(a) = fr.func.expressions[base] {
            if let Arg::Builtin(b, Type::UVec3) = fr.args[a as usize] {
                return Ok(Expr {
                    kind: ExprKind::Component(Box::new(Expr { kind: ExprKind::Builtin(b), ty: Type::UVec3, span: sp }), index),
                    ty: Type::U32,
                    span: sp,
                });
            }
        }
        let b = self.expr(fr, ls, base)?;
        if self.vector_of(&b.ty).is_some() {
            return Ok(self.lane(&b, index));
        }
        match b.ty.clone() {
            Type::Struct(id) => {
                let field = self.field_of(id, index);
                let ty = self.structs[id].fields[field].1.clone();
                Ok(Expr { kind: ExprKind::Field(Box::new(b), field), ty, span: sp })
            }
            // A constructed array's (or matrix's) element, as written.
            Type::Array(..) if matches!(b.kind, ExprKind::ArrayLit(_) | ExprKind::ArrayRepeat(..)) => match b.kind {
                ExprKind::ArrayLit(mut parts) => Ok(parts.swap_remove(index as usize)),
                ExprKind::ArrayRepeat(x, _) => Ok(*x),
                _ => unreachable!("matched above"),
            },
            Type::Array(..) => {
                let k = Expr { kind: ExprKind::Lit(Lit::Int(index as i64)), ty: Type::U32, span: sp };
                self.value_index(fr, ls, base, Proj::Index(Box::new(k)), at)
            }
            _ => Err(self.reject(at, "a member of a value that has none")),
        }
    }

    /// What pointer `h` points at.
    pub(super) fn ptr(&mut self, fr: &mut Frame, ls: &mut Locals, h: Handle<Expression>) -> R<Ptr> {
        let at = fr.func.expressions.get_span(h);
        let sp = self.span(at);
        let lit = |i: u32| Box::new(Expr { kind: ExprKind::Lit(Lit::Int(i as i64)), ty: Type::U32, span: sp });
        let mem = |mem, index| Place { root: Root::Mem { mem, index, settled: false, own: false }, path: Vec::new() };
        match &fr.func.expressions[h] {
            Expression::GlobalVariable(g) => {
                use super::globals::Global;
                match self.globals.get(g).cloned() {
                    Some(Global::Array { param, elem }) => Ok(Ptr::Mem { mem: MemRef::Param(param), elem }),
                    Some(Global::Block { param, elem }) => Ok(Ptr::Block { mem: MemRef::Param(param), elem }),
                    Some(Global::Single { param, ty }) => Ok(Ptr::Place(mem(MemRef::Param(param), lit(0)), ty)),
                    Some(Global::Shared { index, ty, single: true }) => Ok(Ptr::Place(mem(MemRef::Shared(index), lit(0)), ty)),
                    Some(Global::Shared { index, ty: Type::Array(elem, _), single: false }) => Ok(Ptr::Mem { mem: MemRef::Shared(index), elem: *elem }),
                    Some(Global::Uniform { first, ty }) => Ok(Ptr::Uniform { first, ty }),
                    Some(Global::Words { mem, layout, word }) => Ok(self.words_root(mem, &layout, word, sp)),
                    Some(Global::Private { ty }) => Ok(Ptr::Place(super::body::local_place(self.private_locals[g]), ty)),
                    _ => Err(self.reject(at, "a global this entry point does not use")),
                }
            }
            Expression::LocalVariable(l) => {
                let id = fr.locals[l];
                Ok(Ptr::Place(super::body::local_place(id), ls.all[id].ty.clone()))
            }
            Expression::Access { base, index } => {
                let i = Box::new(self.expr(fr, ls, *index)?);
                match self.ptr(fr, ls, *base)? {
                    Ptr::Words { mem, index: w, ty, whole, word, .. } => self.words_step(mem, w, ty, word, whole, *i, sp, at),
                    Ptr::Mem { mem: m, elem } => Ok(Ptr::Place(mem(m, i), elem)),
                    Ptr::Place(mut p, Type::Array(elem, _)) => {
                        p.path.push(Proj::Index(i));
                        Ok(Ptr::Place(p, *elem))
                    }
                    Ptr::Uniform { first, ty: Type::Array(elem, n) } => {
                        let mut p = self.uniform_copy(ls, first, Type::Array(elem.clone(), n), sp);
                        p.path.push(Proj::Index(i));
                        Ok(Ptr::Place(p, *elem))
                    }
                    _ => Err(self.reject(at, "a dynamic index into a vector is not supported yet")),
                }
            }
            Expression::AccessIndex { base, index } => {
                let base = self.ptr(fr, ls, *base)?;
                self.member(base, *index, sp, at)
            }
            Expression::FunctionArgument(i) => match &fr.args[*i as usize] {
                Arg::Ptr(p) => Ok(p.clone()),
                _ => Err(self.reject(at, "a value where ld expects a pointer")),
            },
            _ => Err(self.reject(at, "this pointer is not supported")),
        }
    }

    /// Member or element `index` of what `base` points at.
    pub(super) fn member(&mut self, base: Ptr, index: u32, sp: crate::Span, at: naga::Span) -> R<Ptr> {
        let lit = |i: u32| Box::new(Expr { kind: ExprKind::Lit(Lit::Int(i as i64)), ty: Type::U32, span: sp });
        let mem = |mem, index| Place { root: Root::Mem { mem, index, settled: false, own: false }, path: Vec::new() };
        match base {
            Ptr::Block { mem, elem } => Ok(Ptr::Mem { mem, elem }),
            Ptr::Words { mem, index: w, ty, whole: whole @ Some(_), word, .. } => self.words_step(mem, w, ty, word, whole, *lit(index), sp, at),
            Ptr::Words { mem, index: w, ty, word, tail, .. } => self.words_member(mem, w, ty, word, tail, index, sp, at),
            Ptr::Mem { mem: m, elem } => Ok(Ptr::Place(mem(m, lit(index)), elem)),
            Ptr::Place(mut p, ty) => {
                let (proj, t) = match ty {
                    Type::Struct(id) => {
                        let field = self.field_of(id, index);
                        (Proj::Field(field), self.structs[id].fields[field].1.clone())
                    }
                    Type::Array(elem, _) => (Proj::Index(lit(index)), *elem),
                    Type::UVec3 => (Proj::Component(index), Type::U32),
                    _ => return Err(self.reject(at, "a member of a value that has none")),
                };
                p.path.push(proj);
                Ok(Ptr::Place(p, t))
            }
            Ptr::Uniform { first, ty: Type::Struct(id) } => {
                let (field, fields) = (self.field_of(id, index), &self.structs[id].fields);
                let before: usize = (0..field).filter(|&f| !self.is_pad(id, f)).map(|f| self.uniform_scalars(&fields[f].1)).sum();
                Ok(Ptr::Uniform { first: first + before, ty: fields[field].1.clone() })
            }
            Ptr::Uniform { first, ty: Type::Array(elem, _) } => Ok(Ptr::Uniform { first: first + index as usize * self.uniform_scalars(&elem), ty: *elem }),
            Ptr::Uniform { .. } => Err(self.reject(at, "a member of a uniform scalar")),
            Ptr::Word { .. } => Err(self.reject(at, "a member of a scalar")),
        }
    }

    /// The value behind pointer `p`.
    pub(super) fn load(&mut self, fr: &mut Frame, ls: &mut Locals, p: Handle<Expression>, at: naga::Span) -> R<Expr> {
        let p = self.ptr(fr, ls, p)?;
        self.load_ptr(p, at)
    }

    /// The value behind `p`.
    pub(super) fn load_ptr(&mut self, p: Ptr, at: naga::Span) -> R<Expr> {
        let sp = self.span(at);
        match p {
            Ptr::Place(place, Type::Atomic(s)) => Ok(Expr { kind: ExprKind::Atomic(AtomicOp::Load, place, Vec::new()), ty: Type::Scalar(s), span: sp }),
            Ptr::Place(place, ty) => Ok(Expr { kind: ExprKind::Load(place), ty, span: sp }),
            Ptr::Uniform { first, ty } => Ok(self.uniform_value(first, &ty, sp)),
            Ptr::Word { place, ty, word } => Ok(self.word_load(place, ty, &word, sp)),
            Ptr::Words { mem, index, ty, whole: None, word, .. } => self.words_load(mem, &index, &ty, &word, sp, at),
            _ => Err(self.reject(at, "loading a whole runtime-sized array or uniform")),
        }
    }

    /// The statements storing `v` through pointer `p`, into `out`.
    pub(super) fn store(&mut self, fr: &mut Frame, ls: &mut Locals, p: Handle<Expression>, v: Expr, at: naga::Span, out: &mut Vec<Stmt>) -> R<()> {
        if let Some((base, index)) = self.dynamic_lane(fr, p) {
            return self.store_lane(fr, ls, base, index, v, at, out);
        }
        let p = self.ptr(fr, ls, p)?;
        self.store_ptr(ls, p, v, at, out)
    }

    /// The statements storing `v` through `p`, into `out`.
    pub(super) fn store_ptr(&mut self, ls: &mut Locals, p: Ptr, v: Expr, at: naga::Span, out: &mut Vec<Stmt>) -> R<()> {
        let sp = self.span(at);
        let kind = match p {
            Ptr::Place(place, Type::Atomic(_)) => StmtKind::Expr(Expr { kind: ExprKind::Atomic(AtomicOp::Store, place, vec![v]), ty: Type::Unit, span: sp }),
            Ptr::Place(place, _) => StmtKind::Assign(place, None, v),
            Ptr::Word { place, word, .. } => self.word_store(place, v, &word, at, sp),
            Ptr::Words { mem, index, ty, whole: None, word, .. } => {
                // The value once, in a local, then word by word.
                let id = ls.add("stored", ty.clone());
                out.push(Stmt::new(StmtKind::Let(id, Some(v)), sp));
                return self.words_store(mem, &index, &ty, &word, super::body::local_place(id), out, at, sp);
            }
            _ => return Err(self.reject(at, "storing a whole runtime-sized array, or to a uniform")),
        };
        out.push(Stmt::new(kind, sp));
        Ok(())
    }

    /// An atomic read-modify-write, its result (if used) into a local.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        fr: &mut Frame,
        ls: &mut Locals,
        pointer: Handle<Expression>,
        fun: &naga::AtomicFunction,
        value: Handle<Expression>,
        result: Option<Handle<Expression>>,
        at: naga::Span,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let sp = self.span(at);
        let Ptr::Place(place, Type::Atomic(s)) = self.ptr(fr, ls, pointer)? else {
            return Err(self.reject(at, "an atomic operation on a non-atomic place"));
        };
        let ty = Type::Scalar(s);
        let v = self.expr(fr, ls, value)?;
        use naga::AtomicFunction as F;
        let (op, args, compare) = match fun {
            F::Add => (AtomicOp::Add, vec![v], None),
            F::Subtract => (AtomicOp::Sub, vec![v], None),
            F::And => (AtomicOp::And, vec![v], None),
            F::InclusiveOr => (AtomicOp::Or, vec![v], None),
            F::ExclusiveOr => (AtomicOp::Xor, vec![v], None),
            F::Min => (AtomicOp::Min, vec![v], None),
            F::Max => (AtomicOp::Max, vec![v], None),
            F::Exchange { compare: None } => (AtomicOp::Exchange, vec![v], None),
            F::Exchange { compare: Some(c) } => {
                // The comparand, fixed in a local: `exchanged` compares it
                // with the old value.
                let c = self.expr(fr, ls, *c)?;
                let cid = ls.add("compare", ty.clone());
                out.push(Stmt::new(StmtKind::Let(cid, Some(c)), sp));
                (AtomicOp::CompareExchange, vec![load_local(cid, ty.clone(), sp), v], Some(cid))
            }
        };
        let call = Expr { kind: ExprKind::Atomic(op, place, args), ty: ty.clone(), span: sp };
        let Some(r) = result else {
            out.push(Stmt::new(StmtKind::Expr(call), sp));
            return Ok(());
        };
        let old = ls.add("old", ty.clone());
        out.push(Stmt::new(StmtKind::Let(old, Some(call)), sp));
        match compare {
            None => {
                fr.values.insert(r, old);
            }
            Some(cid) => {
                let eq = Expr {
                    kind: ExprKind::Binary(BinOp::Eq, Box::new(load_local(old, ty.clone(), sp)), Box::new(load_local(cid, ty, sp))),
                    ty: Type::BOOL,
                    span: sp,
                };
                let exchanged = ls.add("exchanged", Type::BOOL);
                out.push(Stmt::new(StmtKind::Let(exchanged, Some(eq)), sp));
                fr.exchanged.insert(r, (old, exchanged));
            }
        }
        Ok(())
    }

    /// A constant expression of the module (a `const`'s value, a global's
    /// initializer).
    pub(super) fn const_expr(&mut self, h: Handle<Expression>, sp: crate::Span) -> R<Expr> {
        let at = self.naga.global_expressions.get_span(h);
        let mk = |kind, ty| Ok(Expr { kind, ty, span: sp });
        match &self.naga.global_expressions[h] {
            Expression::Literal(l) => self.literal(*l, sp, at),
            Expression::Constant(c) => {
                let init = self.naga.constants[*c].init;
                self.const_expr(init, sp)
            }
            Expression::ZeroValue(t) => {
                let ty = self.ty(*t, at)?;
                Ok(self.zero(&ty, sp))
            }
            Expression::Compose { ty, components } => {
                let ty = self.ty(*ty, at)?;
                let parts = components.iter().map(|c| self.const_expr(*c, sp)).collect::<R<Vec<_>>>()?;
                match ty {
                    Type::Struct(id) => mk(self.struct_lit(id, parts, sp), ty),
                    Type::Array(..) => {
                        let parts = self.matrix_parts(&ty, parts.clone(), sp).unwrap_or(parts);
                        mk(ExprKind::ArrayLit(parts), ty)
                    }
                    _ => Err(self.reject(at, "a constant vector is not supported yet")),
                }
            }
            _ => Err(self.reject(at, "this constant expression is not supported")),
        }
    }

    /// A literal of a 32-bit type or bool; others are refused.
    fn literal(&self, l: naga::Literal, sp: crate::Span, at: naga::Span) -> R<Expr> {
        let (lit, ty) = literal(l).ok_or_else(|| self.reject(at, format!("the literal {l:?} is not a 32-bit or bool value")))?;
        Ok(Expr { kind: ExprKind::Lit(lit), ty, span: sp })
    }
}

fn literal(l: naga::Literal) -> Option<(Lit, Type)> {
    Some(match l {
        naga::Literal::U32(v) => (Lit::Int(v as i64), Type::U32),
        naga::Literal::I32(v) => (Lit::Int(v as i64), Type::I32),
        naga::Literal::F32(v) => (Lit::Float(v), Type::F32),
        naga::Literal::Bool(b) => (Lit::Bool(b), Type::BOOL),
        _ => return None,
    })
}

fn bin_op(op: naga::BinaryOperator) -> BinOp {
    use naga::BinaryOperator as B;
    match op {
        B::Add => BinOp::Add,
        B::Subtract => BinOp::Sub,
        B::Multiply => BinOp::Mul,
        B::Divide => BinOp::Div,
        B::Modulo => BinOp::Rem,
        B::Equal => BinOp::Eq,
        B::NotEqual => BinOp::Ne,
        B::Less => BinOp::Lt,
        B::LessEqual => BinOp::Le,
        B::Greater => BinOp::Gt,
        B::GreaterEqual => BinOp::Ge,
        B::And => BinOp::BitAnd,
        B::ExclusiveOr => BinOp::BitXor,
        B::InclusiveOr => BinOp::BitOr,
        B::LogicalAnd => BinOp::And,
        B::LogicalOr => BinOp::Or,
        B::ShiftLeft => BinOp::Shl,
        B::ShiftRight => BinOp::Shr,
    }
}
