//! WGSL's vectors as the IR's structs of their components.
//!
//! The IR has no vector type, and needs none: a `vecN<T>` is a struct
//! `LdVecNT` of N scalar fields (`x`, `y`, `z`, `w`), and every vector
//! operation is written out per component here, the way a GPU compiler
//! scalarizes. Every back end then handles vectors as the structs it
//! already handles, and a racing word is named by its component
//! (`boids[3].vel.y`). In memory a `vec4`'s 16 bytes and a `vec2`'s 8 are
//! its components' words, as a struct's are; where WGSL's alignment pads
//! (a `vec3` in an array, a `vec2` after one scalar) the layout check of
//! the memory's declaration refuses it (`types.rs`).

use super::{Cx, R};
use crate::ir::{BinOp, Expr, ExprKind, Intrinsic, Lit, Scalar, StructDef, Type};

const NAMES: [&str; 4] = ["x", "y", "z", "w"];

impl Cx<'_> {
    /// The struct standing for `vecN<s>`.
    pub(super) fn vector_type(&mut self, s: Scalar, n: u32) -> Type {
        if let Some(&id) = self.vectors.get(&(s, n)) {
            return Type::Struct(id);
        }
        let suffix = match s {
            Scalar::U32 => "U32",
            Scalar::I32 => "I32",
            Scalar::F32 => "F32",
            Scalar::Bool => "Bool",
        };
        let fields = NAMES[..n as usize].iter().map(|c| (c.to_string(), Type::Scalar(s))).collect();
        self.structs.push(StructDef { name: format!("{VECTOR}{n}{suffix}"), fields });
        let id = self.structs.len() - 1;
        self.vectors.insert((s, n), id);
        Type::Struct(id)
    }

    /// `Some((scalar, n))` when `t` stands for a vector.
    pub(super) fn vector_of(&self, t: &Type) -> Option<(Scalar, u32)> {
        match t {
            Type::UVec3 => Some((Scalar::U32, 3)),
            Type::Struct(id) => self.vectors.iter().find(|(_, v)| **v == *id).map(|(k, _)| *k),
            _ => None,
        }
    }

    /// Component `i` of vector value `e` (`e` itself for a scalar, which
    /// WGSL broadcasts where a vector's component is due).
    pub(super) fn lane(&self, e: &Expr, i: u32) -> Expr {
        let Some((s, _)) = self.vector_of(&e.ty) else { return e.clone() };
        let kind = match &e.kind {
            ExprKind::StructLit(parts) => return parts[i as usize].clone(),
            _ if e.ty == Type::UVec3 => ExprKind::Component(Box::new(e.clone()), i),
            _ => ExprKind::Field(Box::new(e.clone()), i as usize),
        };
        Expr { kind, ty: Type::Scalar(s), span: e.span }
    }

    /// The components of a vector value, or the scalar alone.
    pub(super) fn lanes(&self, e: &Expr) -> Vec<Expr> {
        match self.vector_of(&e.ty) {
            Some((_, n)) => (0..n).map(|i| self.lane(e, i)).collect(),
            None => vec![e.clone()],
        }
    }

    /// A vector of type `ty` built from its components (the component
    /// itself where `ty` is a scalar).
    pub(super) fn gather(&self, ty: &Type, mut parts: Vec<Expr>, span: crate::Span) -> Expr {
        if self.vector_of(ty).is_none() && parts.len() == 1 {
            return parts.pop().unwrap();
        }
        Expr { kind: ExprKind::StructLit(parts), ty: ty.clone(), span }
    }

    /// `f` applied per component of `args` (scalars broadcast), typed `ty`.
    pub(super) fn per_lane(&self, ty: &Type, args: &[Expr], span: crate::Span, f: impl Fn(Vec<Expr>, &Type) -> Expr) -> Expr {
        let n = args.iter().filter_map(|a| self.vector_of(&a.ty)).map(|(_, n)| n).max().unwrap_or(1);
        let lane_ty = match self.vector_of(ty) {
            Some((s, _)) => Type::Scalar(s),
            None => ty.clone(),
        };
        let parts = (0..n).map(|i| f(args.iter().map(|a| self.lane(a, i)).collect(), &lane_ty)).collect();
        self.gather(ty, parts, span)
    }

    /// The sum of the products of `a`'s and `b`'s components.
    pub(super) fn dot(&self, a: &Expr, b: &Expr, span: crate::Span) -> Expr {
        let (a, b) = (self.lanes(a), self.lanes(b));
        let s = a[0].ty.clone();
        let mut terms = a.into_iter().zip(b).map(|(x, y)| bin(BinOp::Mul, x, y, &s, span));
        let first = terms.next().expect("a vector has components");
        terms.fold(first, |acc, t| bin(BinOp::Add, acc, t, &s, span))
    }

    /// A math builtin on vectors or scalars, written out per component;
    /// `scalar` maps the builtins that map one to one onto the IR's.
    pub(super) fn math_lanes(&mut self, fun: naga::MathFunction, xs: Vec<Expr>, ty: Type, sp: crate::Span, at: naga::Span) -> R<Expr> {
        use naga::MathFunction as M;
        let float = |v: f32| Expr { kind: ExprKind::Lit(Lit::Float(v)), ty: Type::F32, span: sp };
        let sqrt = |x: Expr| Expr { kind: ExprKind::Intrinsic(Intrinsic::Sqrt, vec![x]), ty: Type::F32, span: sp };
        Ok(match fun {
            M::Dot => self.dot(&xs[0], &xs[1], sp),
            M::Transpose => self.transpose(&xs[0], &ty, sp, at)?,
            M::Length => match self.vector_of(&xs[0].ty) {
                Some(_) => sqrt(self.dot(&xs[0], &xs[0], sp)),
                None => Expr { kind: ExprKind::Intrinsic(Intrinsic::Abs, vec![xs[0].clone()]), ty, span: sp },
            },
            M::Distance => {
                let d = self.per_lane(&xs[0].ty.clone(), &xs, sp, |v, t| bin(BinOp::Sub, v[0].clone(), v[1].clone(), t, sp));
                match self.vector_of(&d.ty) {
                    Some(_) => sqrt(self.dot(&d, &d, sp)),
                    None => Expr { kind: ExprKind::Intrinsic(Intrinsic::Abs, vec![d]), ty, span: sp },
                }
            }
            M::Normalize => {
                let len = sqrt(self.dot(&xs[0], &xs[0], sp));
                self.per_lane(&ty, &xs[..1], sp, |v, t| bin(BinOp::Div, v[0].clone(), len.clone(), t, sp))
            }
            M::Cross => {
                let (a, b) = (self.lanes(&xs[0]), self.lanes(&xs[1]));
                let s = a[0].ty.clone();
                let term = |i: usize, j: usize| {
                    bin(BinOp::Sub, bin(BinOp::Mul, a[i].clone(), b[j].clone(), &s, sp), bin(BinOp::Mul, a[j].clone(), b[i].clone(), &s, sp), &s, sp)
                };
                self.gather(&ty, vec![term(1, 2), term(2, 0), term(0, 1)], sp)
            }
            M::Mix => self.per_lane(&ty, &xs, sp, |v, t| {
                let keep = bin(BinOp::Sub, float(1.0), v[2].clone(), t, sp);
                bin(BinOp::Add, bin(BinOp::Mul, v[0].clone(), keep, t, sp), bin(BinOp::Mul, v[1].clone(), v[2].clone(), t, sp), t, sp)
            }),
            M::Step => self.per_lane(&ty, &xs, sp, |v, t| {
                let ge = bin(BinOp::Le, v[0].clone(), v[1].clone(), &Type::BOOL, sp);
                Expr { kind: ExprKind::Cast(Scalar::F32, Box::new(ge)), ty: t.clone(), span: sp }
            }),
            M::SmoothStep => self.per_lane(&ty, &xs, sp, |v, t| {
                let span = bin(BinOp::Sub, v[1].clone(), v[0].clone(), t, sp);
                let x = bin(BinOp::Div, bin(BinOp::Sub, v[2].clone(), v[0].clone(), t, sp), span, t, sp);
                let c = Expr { kind: ExprKind::Intrinsic(Intrinsic::Clamp, vec![x, float(0.0), float(1.0)]), ty: t.clone(), span: sp };
                let three = bin(BinOp::Sub, float(3.0), bin(BinOp::Mul, float(2.0), c.clone(), t, sp), t, sp);
                bin(BinOp::Mul, bin(BinOp::Mul, c.clone(), c, t, sp), three, t, sp)
            }),
            M::InverseSqrt => self.per_lane(&ty, &xs, sp, |v, t| bin(BinOp::Div, float(1.0), sqrt(v[0].clone()), t, sp)),
            M::Saturate => self.per_lane(&ty, &xs, sp, |v, t| Expr {
                kind: ExprKind::Intrinsic(Intrinsic::Clamp, vec![v[0].clone(), float(0.0), float(1.0)]),
                ty: t.clone(),
                span: sp,
            }),
            M::Sign => self.per_lane(&ty, &xs, sp, |v, t| {
                let zero = Expr { kind: ExprKind::Lit(if *t == Type::F32 { Lit::Float(0.0) } else { Lit::Int(0) }), ty: t.clone(), span: sp };
                let Type::Scalar(s) = t else { unreachable!("a lane is a scalar") };
                let cast = |b: Expr| Expr { kind: ExprKind::Cast(*s, Box::new(b)), ty: t.clone(), span: sp };
                let pos = cast(bin(BinOp::Gt, v[0].clone(), zero.clone(), &Type::BOOL, sp));
                let neg = cast(bin(BinOp::Lt, v[0].clone(), zero, &Type::BOOL, sp));
                bin(BinOp::Sub, pos, neg, t, sp)
            }),
            M::Radians => self.per_lane(&ty, &xs, sp, |v, t| bin(BinOp::Mul, v[0].clone(), float(std::f32::consts::PI / 180.0), t, sp)),
            M::Degrees => self.per_lane(&ty, &xs, sp, |v, t| bin(BinOp::Mul, v[0].clone(), float(180.0 / std::f32::consts::PI), t, sp)),
            M::Fract => self.per_lane(&ty, &xs, sp, |v, t| {
                let floor = Expr { kind: ExprKind::Intrinsic(Intrinsic::Floor, vec![v[0].clone()]), ty: t.clone(), span: sp };
                bin(BinOp::Sub, v[0].clone(), floor, t, sp)
            }),
            M::Tanh | M::Sinh | M::Cosh | M::Atan | M::Asin | M::Acos => self.per_lane(&ty, &xs, sp, |v, t| transcendental(fun, v[0].clone(), t, sp)),
            M::Unpack2x16float | M::Unpack4x8unorm | M::Unpack4x8snorm | M::Unpack2x16unorm | M::Unpack2x16snorm => {
                self.unpack(fun, &xs[0], &ty, sp).expect("an unpacking builtin")
            }
            other => {
                let Some(i) = intrinsic(other) else {
                    return Err(self.reject(at, format!("the builtin `{other:?}` is not supported yet")));
                };
                self.per_lane(&ty, &xs, sp, |v, t| Expr { kind: ExprKind::Intrinsic(i, v), ty: t.clone(), span: sp })
            }
        })
    }
}

/// The name of the struct standing for a vector (`LdVec4F32`): a WGSL
/// identifier ld's own (`ld`-prefixed names are refused in shaders).
const VECTOR: &str = "LdVec";

/// An IR type a shader's translation holds, as WGSL spells it: its
/// vector structs as `vec4<f32>`, for reports.
pub fn wgsl_name(structs: &[StructDef], t: &Type) -> String {
    match t {
        Type::Scalar(s) => s.rust_name().to_string(),
        Type::Atomic(s) => format!("atomic<{}>", s.rust_name()),
        Type::Array(e, n) => format!("array<{}, {n}>", wgsl_name(structs, e)),
        Type::Struct(id) => {
            let name = &structs[*id].name;
            match name.strip_prefix(VECTOR).and_then(|r| r.split_at_checked(1)) {
                Some((n, s)) => format!("vec{n}<{}>", s.to_lowercase()),
                None => name.clone(),
            }
        }
        Type::UVec3 => "vec3<u32>".into(),
        Type::Unit | Type::Var(_) => String::new(),
    }
}

/// `a op b`, typed `ty`.
pub(super) fn bin(op: BinOp, a: Expr, b: Expr, ty: &Type, span: crate::Span) -> Expr {
    Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), ty: ty.clone(), span }
}

/// A builtin the IR has no intrinsic for, from those it has, by its
/// definition: `tanh(x) = 1 - 2 / (exp(2x) + 1)` (exact at both ends,
/// where `exp` overflows or vanishes), `sinh` and `cosh` from `exp`,
/// `atan(x) = atan2(x, 1)`, `asin(x) = atan2(x, sqrt(1 - x²))`,
/// `acos(x) = atan2(sqrt(1 - x²), x)`. WGSL leaves their precision to
/// the device, as it does `exp`'s and `atan2`'s.
fn transcendental(fun: naga::MathFunction, x: Expr, t: &Type, sp: crate::Span) -> Expr {
    use naga::MathFunction as M;
    let f = |v: f32| Expr { kind: ExprKind::Lit(Lit::Float(v)), ty: t.clone(), span: sp };
    let call = |i: Intrinsic, args: Vec<Expr>| Expr { kind: ExprKind::Intrinsic(i, args), ty: t.clone(), span: sp };
    let op = |o: BinOp, a: Expr, b: Expr| bin(o, a, b, t, sp);
    let exp = |a: Expr| call(Intrinsic::Exp, vec![a]);
    let rest = || call(Intrinsic::Sqrt, vec![op(BinOp::Sub, f(1.0), op(BinOp::Mul, x.clone(), x.clone()))]);
    match fun {
        M::Tanh => op(BinOp::Sub, f(1.0), op(BinOp::Div, f(2.0), op(BinOp::Add, exp(op(BinOp::Mul, f(2.0), x.clone())), f(1.0)))),
        M::Sinh => op(BinOp::Mul, f(0.5), op(BinOp::Sub, exp(x.clone()), exp(op(BinOp::Sub, f(0.0), x.clone())))),
        M::Cosh => op(BinOp::Mul, f(0.5), op(BinOp::Add, exp(x.clone()), exp(op(BinOp::Sub, f(0.0), x.clone())))),
        M::Atan => call(Intrinsic::Atan2, vec![x, f(1.0)]),
        M::Asin => call(Intrinsic::Atan2, vec![x.clone(), rest()]),
        M::Acos => call(Intrinsic::Atan2, vec![rest(), x]),
        _ => unreachable!("a builtin `math_lanes` expands"),
    }
}

/// The IR intrinsic of a builtin that maps one to one (WGSL's `round`
/// rounds ties to even).
fn intrinsic(fun: naga::MathFunction) -> Option<Intrinsic> {
    use naga::MathFunction as M;
    Some(match fun {
        M::Abs => Intrinsic::Abs,
        M::Min => Intrinsic::Min,
        M::Max => Intrinsic::Max,
        M::Clamp => Intrinsic::Clamp,
        M::Sqrt => Intrinsic::Sqrt,
        M::Exp => Intrinsic::Exp,
        M::Exp2 => Intrinsic::Exp2,
        M::Log => Intrinsic::Log,
        M::Log2 => Intrinsic::Log2,
        M::Pow => Intrinsic::Pow,
        M::Sin => Intrinsic::Sin,
        M::Cos => Intrinsic::Cos,
        M::Tan => Intrinsic::Tan,
        M::Atan2 => Intrinsic::Atan2,
        M::Floor => Intrinsic::Floor,
        M::Ceil => Intrinsic::Ceil,
        M::Round => Intrinsic::RoundTiesEven,
        M::Trunc => Intrinsic::Trunc,
        M::Fma => Intrinsic::Fma,
        M::CountOneBits => Intrinsic::CountOneBits,
        M::CountLeadingZeros => Intrinsic::LeadingZeros,
        M::CountTrailingZeros => Intrinsic::TrailingZeros,
        M::ReverseBits => Intrinsic::ReverseBits,
        _ => return None,
    })
}
