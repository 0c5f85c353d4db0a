//! WGSL's matrices as the IR's arrays of their columns.
//!
//! A `matCxR<f32>` is `array<vecR<f32>, C>` in the IR: column `i` is
//! element `i` (WGSL's `m[i]`), and in memory a matrix of 2 or 4 rows is
//! its columns' words one after another, as WGSL lays it out. Every
//! matrix operation is written out per column and component (`vectors.rs`
//! writes out the vectors), as a GPU compiler scalarizes; the back ends
//! need nothing new, and a racing word is named `bones[3][1].y`. A matrix
//! of 3 rows pads each column to 16 bytes: in locals, workgroup memory
//! (which no host reads) and uniforms (read member by member at WGSL's
//! offsets) that is nothing to the IR; in a storage buffer it is refused
//! at the declaration (`check_layout`).

use super::vectors::bin;
use super::{Cx, R};
use crate::ir::{BinOp, Expr, ExprKind, Lit, Proj, Scalar, Type};

impl Cx<'_> {
    /// The array standing for `matCxR<s>`.
    pub(super) fn matrix_type(&mut self, columns: u32, rows: u32, s: Scalar) -> Type {
        Type::Array(Box::new(self.vector_type(s, rows)), columns)
    }

    /// `Some((columns, rows))` where `t` stands for a matrix: an array of
    /// vectors. (Where WGSL allows a matrix operand, an array is none.)
    fn matrix_of(&self, t: &Type) -> Option<(u32, u32)> {
        match t {
            Type::Array(e, c) => self.vector_of(e).map(|(_, r)| (*c, r)),
            _ => None,
        }
    }

    /// Column `i` of matrix value `m`: a constructor's part, or the
    /// column's place where the matrix is loaded from one.
    fn column(&self, m: &Expr, i: u32, at: naga::Span) -> R<Expr> {
        let Type::Array(col, _) = &m.ty else { unreachable!("a matrix is an array") };
        match &m.kind {
            ExprKind::ArrayLit(parts) => Ok(parts[i as usize].clone()),
            ExprKind::ArrayRepeat(x, _) => Ok((**x).clone()),
            ExprKind::Load(p) => {
                let mut p = p.clone();
                p.path.push(Proj::Index(Box::new(Expr { kind: ExprKind::Lit(Lit::Int(i as i64)), ty: Type::U32, span: m.span })));
                Ok(Expr { kind: ExprKind::Load(p), ty: (**col).clone(), span: m.span })
            }
            _ => Err(self.reject(at, "a matrix computed here is supported once bound to a `let` or `var`")),
        }
    }

    fn columns(&self, m: &Expr, at: naga::Span) -> R<Vec<Expr>> {
        let (c, _) = self.matrix_of(&m.ty).expect("a matrix");
        (0..c).map(|i| self.column(m, i, at)).collect()
    }

    /// A matrix of type `ty` from its columns.
    fn matrix(&self, ty: &Type, columns: Vec<Expr>, span: crate::Span) -> Expr {
        Expr { kind: ExprKind::ArrayLit(columns), ty: ty.clone(), span }
    }

    /// `l op r` where either is a matrix, written out (`None` where
    /// neither is): sums and differences column by column, products with
    /// a scalar, a vector or a matrix as linear algebra has them.
    pub(super) fn matrix_binary(&self, op: BinOp, l: &Expr, r: &Expr, ty: &Type, span: crate::Span, at: naga::Span) -> R<Option<Expr>> {
        let (lm, rm) = (self.matrix_of(&l.ty).is_some(), self.matrix_of(&r.ty).is_some());
        if !lm && !rm {
            return Ok(None);
        }
        let per =
            |ty: &Type, a: &Expr, b: &Expr, op: BinOp| self.per_lane(ty, &[a.clone(), b.clone()], span, |v, t| bin(op, v[0].clone(), v[1].clone(), t, span));
        let col_ty = |m: &Expr| match &m.ty {
            Type::Array(c, _) => (**c).clone(),
            _ => unreachable!("a matrix is an array"),
        };
        Ok(Some(match (lm, rm, op) {
            (true, true, BinOp::Add | BinOp::Sub) => {
                let cols = self.columns(l, at)?.iter().zip(self.columns(r, at)?).map(|(a, b)| per(&col_ty(l), a, &b, op)).collect();
                self.matrix(ty, cols, span)
            }
            (true, true, BinOp::Mul) => {
                let cols = self.columns(r, at)?.iter().map(|b| self.times_vector(l, b, span, at)).collect::<R<Vec<_>>>()?;
                self.matrix(ty, cols, span)
            }
            (true, false, BinOp::Mul) if self.vector_of(&r.ty).is_some() => self.times_vector(l, r, span, at)?,
            (false, true, BinOp::Mul) if self.vector_of(&l.ty).is_some() => {
                let lanes = self.columns(r, at)?.iter().map(|c| self.dot(l, c, span)).collect();
                self.gather(ty, lanes, span)
            }
            (true, false, BinOp::Mul) => self.matrix(ty, self.columns(l, at)?.iter().map(|c| per(&col_ty(l), c, r, op)).collect(), span),
            (false, true, BinOp::Mul) => self.matrix(ty, self.columns(r, at)?.iter().map(|c| per(&col_ty(r), l, c, op)).collect(), span),
            _ => return Err(self.reject(at, "this matrix operation is not supported")),
        }))
    }

    /// `m * v`: the sum of `m`'s columns, each times `v`'s component.
    fn times_vector(&self, m: &Expr, v: &Expr, span: crate::Span, at: naga::Span) -> R<Expr> {
        let Type::Array(col, _) = &m.ty else { unreachable!("a matrix is an array") };
        let terms = self
            .columns(m, at)?
            .into_iter()
            .zip(self.lanes(v))
            .map(|(c, x)| self.per_lane(col, &[c, x], span, |v, t| bin(BinOp::Mul, v[0].clone(), v[1].clone(), t, span)));
        let sum = terms.reduce(|acc, t| self.per_lane(col, &[acc, t], span, |v, t| bin(BinOp::Add, v[0].clone(), v[1].clone(), t, span)));
        Ok(sum.expect("a matrix has columns"))
    }

    /// `transpose(m)`: column `j` of the result is row `j` of `m`.
    pub(super) fn transpose(&self, m: &Expr, ty: &Type, span: crate::Span, at: naga::Span) -> R<Expr> {
        let Type::Array(out_col, _) = ty else { unreachable!("a matrix is an array") };
        let (_, rows) = self.matrix_of(&m.ty).expect("transpose takes a matrix");
        let cols = self.columns(m, at)?;
        let out = (0..rows).map(|j| self.gather(out_col, cols.iter().map(|c| self.lane(c, j)).collect(), span)).collect();
        Ok(self.matrix(ty, out, span))
    }

    /// A matrix constructor's parts as columns: its columns as given, or
    /// its components in column order.
    pub(super) fn matrix_parts(&self, ty: &Type, parts: Vec<Expr>, span: crate::Span) -> Option<Vec<Expr>> {
        let (c, r) = self.matrix_of(ty)?;
        if parts.len() == c as usize {
            return Some(parts);
        }
        let Type::Array(col, _) = ty else { unreachable!("a matrix is an array") };
        Some(parts.chunks(r as usize).map(|lanes| self.gather(col, lanes.to_vec(), span)).collect())
    }
}
