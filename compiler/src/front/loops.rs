//! A WGSL `while` or `for` as the IR's loop with a condition. naga writes
//! both as `loop { if c {} else { break; } ... }`, after the `let`s that
//! evaluate `c`; the Rust dialect's `while` is a `Loop` whose `cond` is
//! tested before each iteration. Where those `let`s read only locals and
//! call nothing, testing `c` as the loop's condition reads the same values
//! at the same point, and the analyses and back ends see the loop as they
//! see a Rust kernel's (no `break` to explode around the barriers in it).

use crate::ir::{visit, Block, Expr, ExprKind, LocalId, Root, StmtKind, UnOp};

/// Takes the test that opens `body` out of it, as the loop's condition.
pub(super) fn condition(body: &mut Block) -> Option<Expr> {
    let k = body.iter().position(|s| !matches!(s.kind, StmtKind::Let(_, Some(_))))?;
    let StmtKind::If(c, accept, reject) = &body[k].kind else { return None };
    let is_break = |b: &Block| matches!(b.as_slice(), [s] if matches!(s.kind, StmtKind::Break));
    let negate = match (accept.is_empty(), reject.is_empty()) {
        (true, false) if is_break(reject) => false,
        (false, true) if is_break(accept) => true,
        _ => return None,
    };
    let lets: Vec<(LocalId, &Expr)> = body[..k]
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Let(id, Some(e)) => (*id, e),
            _ => unreachable!("only lets come before the test"),
        })
        .collect();
    // (A let that reads its own local would substitute into itself.)
    if !lets.iter().all(|(id, e)| reads_locals_only(e) && !reads(e, *id)) {
        return None;
    }
    let mut cond = c.clone();
    for (id, e) in lets.iter().rev() {
        substitute(&mut cond, *id, e);
    }
    if negate {
        let (ty, span) = (cond.ty.clone(), cond.span);
        cond = Expr { kind: ExprKind::Unary(UnOp::Not, Box::new(cond)), ty, span };
    }
    body.remove(k);
    Some(cond)
}

/// Whether evaluating `e` again reads the same values: no memory, no call,
/// no atomic.
fn reads_locals_only(e: &Expr) -> bool {
    let mut ok = true;
    let mut e = e.clone();
    visit::expr_mut(&mut e, &mut |x| match &x.kind {
        ExprKind::Load(p) if matches!(p.root, Root::Mem { .. }) => ok = false,
        ExprKind::Call(..) | ExprKind::Atomic(..) => ok = false,
        _ => {}
    });
    ok
}

/// Whether `e` reads local `id`.
fn reads(e: &Expr, id: LocalId) -> bool {
    let mut found = false;
    visit::expr_mut(&mut e.clone(), &mut |x| found |= matches!(&x.kind, ExprKind::Load(p) if matches!(p.root, Root::Local(l) if l == id)));
    found
}

/// `e` with every whole load of local `id` replaced by `value`.
fn substitute(e: &mut Expr, id: LocalId, value: &Expr) {
    visit::expr_mut(e, &mut |x| {
        if let ExprKind::Load(p) = &x.kind {
            if matches!(p.root, Root::Local(l) if l == id) && p.path.is_empty() {
                *x = value.clone();
            }
        }
    });
}

/// Whether naga's loop body `b` holds a `continue` of its own loop (one
/// not inside a loop nested in it).
pub(super) fn continues(b: &naga::Block) -> bool {
    use naga::Statement as S;
    b.iter().any(|s| match s {
        S::Continue => true,
        S::Block(b) => continues(b),
        S::If { accept, reject, .. } => continues(accept) || continues(reject),
        S::Switch { cases, .. } => cases.iter().any(|c| continues(&c.body)),
        _ => false,
    })
}

/// `block` with each `break` and `continue` of its own loop (one not
/// inside a loop nested in it) replaced by `with`'s statements.
pub(super) fn retarget(block: &mut Block, with: &dyn Fn(&crate::ir::Stmt) -> Block) {
    let old = std::mem::take(block);
    for mut s in old {
        match &mut s.kind {
            StmtKind::Break | StmtKind::Continue => block.extend(with(&s)),
            StmtKind::If(_, a, b) => {
                retarget(a, with);
                retarget(b, with);
                block.push(s);
            }
            _ => block.push(s),
        }
    }
}

/// Whether `continuing` holds only what the IR's may: no barrier (a
/// WGSL `continuing` may call one) and no `break`, `continue` or
/// `return` (an inlined helper's) at any depth.
pub(super) fn plain(continuing: &Block) -> bool {
    let mut plain = true;
    crate::ir::walk_stmts(continuing, &mut |s| plain &= !matches!(s.kind, StmtKind::Barrier(_) | StmtKind::Break | StmtKind::Continue | StmtKind::Return(_)));
    plain
}
