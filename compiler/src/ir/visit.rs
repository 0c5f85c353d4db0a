//! Generic walks over the IR, so passes do not each re-implement recursion.

use super::*;

/// Calls `f` on every expression in `block`, parents before children.
pub fn exprs_mut(block: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in block {
        match &mut s.kind {
            StmtKind::Let(_, e) => {
                if let Some(e) = e {
                    expr_mut(e, f)
                }
            }
            StmtKind::Assign(p, _, e) => {
                place_mut(p, f);
                expr_mut(e, f);
            }
            StmtKind::Expr(e) => expr_mut(e, f),
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    expr_mut(e, f)
                }
            }
            StmtKind::If(c, a, b) => {
                expr_mut(c, f);
                exprs_mut(a, f);
                exprs_mut(b, f);
            }
            StmtKind::Loop(l) => {
                if let Some(c) = &mut l.cond {
                    expr_mut(c, f);
                }
                exprs_mut(&mut l.body, f);
                exprs_mut(&mut l.continuing, f);
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Barrier(_) => {}
        }
    }
}

/// Calls `f` on `e` and every expression inside it, place indices included, parents before children.
pub fn expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    match &mut e.kind {
        ExprKind::Lit(_) | ExprKind::Uniform(_) | ExprKind::Builtin(_) => {}
        ExprKind::Load(p) => place_mut(p, f),
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Component(a, _) | ExprKind::Field(a, _) | ExprKind::ArrayRepeat(a, _) => expr_mut(a, f),
        ExprKind::Binary(_, a, b) => {
            expr_mut(a, f);
            expr_mut(b, f);
        }
        ExprKind::Intrinsic(_, xs) | ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => xs.iter_mut().for_each(|x| expr_mut(x, f)),
        ExprKind::Call(_, args) => {
            for a in args {
                match a {
                    CallArg::Value(x) => expr_mut(x, f),
                    CallArg::Slice { offset, .. } => expr_mut(offset, f),
                }
            }
        }
        ExprKind::Atomic(_, p, xs) => {
            place_mut(p, f);
            xs.iter_mut().for_each(|x| expr_mut(x, f));
        }
        ExprKind::Len(_, off) => {
            if let Some(o) = off {
                expr_mut(o, f)
            }
        }
    }
}

/// Calls `f` (as [`expr_mut`]) on a place's index expressions: the memory element's index and every `Index` step.
pub fn place_mut(p: &mut Place, f: &mut dyn FnMut(&mut Expr)) {
    if let Root::Mem { index, .. } = &mut p.root {
        expr_mut(index, f);
    }
    for pr in &mut p.path {
        if let Proj::Index(i) = pr {
            expr_mut(i, f);
        }
    }
}

/// Calls `f` on every expression, read-only.
pub fn exprs(block: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    // The IR is small; a clone keeps one walker instead of two.
    let mut b = block.to_vec();
    exprs_mut(&mut b, &mut |e| f(e));
}
