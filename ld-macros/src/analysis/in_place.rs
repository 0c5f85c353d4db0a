//! Which targets check and deterministic modes may leave in place: storage
//! buffers the kernel only ever accesses at the invocation's own element
//! of the whole dispatch (`y[i]` with `i = global_id().x`). No two
//! invocations touch one word of such a buffer, so it cannot race and its
//! result does not depend on any order: the engine accesses it directly,
//! with no copy, tag or check (the paper's target-variable analysis skips
//! "affine array indices that can be easily analyzed statically", 4.2).
//!
//! Whether an index is unique across the dispatch depends on the grid, which
//! only the launch knows: the analysis says under which grids it is
//! (`InPlace`), the runtime decides per launch.

use super::targets::{accesses, list, Touch};
use crate::ir::*;

/// The grids under which an index names each invocation's own element,
/// ordered: a form that holds under a wider class holds under a narrower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unique {
    /// No grid (or not provably).
    Never,
    /// Grids of one row (`[n, 1, 1]`): the index is the invocation's
    /// linear number, `global_id().x` in a one-dimensional workgroup.
    Row,
    /// Grids of one plane (`[n, m, 1]`): `global_id().x + global_id().y *
    /// num_workgroups().x * X` (X the workgroup's width, its depth 1), the
    /// form kernels use to cover more than 65535 workgroups.
    Plane,
}

/// The targets (a bit each, by number in [`list`]) left in place on a grid
/// of one row, and those left in place on a grid of one plane (a subset).
pub fn in_place(m: &Module) -> (u32, u32) {
    let n = list(m).len();
    let locals = unique_locals(m);
    let mut least = vec![Unique::Plane; n];
    accesses(m, &mut |t, a| {
        let u = match a {
            Touch::Store(Place { root: Root::Mem { mem: MemRef::Param(_), index }, .. }, _, _)
            | Touch::Load(Place { root: Root::Mem { mem: MemRef::Param(_), index }, .. }) => unique(m, &locals, index),
            _ => Unique::Never,
        };
        least[t] = least[t].min(u);
    });
    // A target the body never accesses needs no copies either way, but is
    // left to the engine (nothing to gain, nothing to prove).
    let mut touched = vec![false; n];
    accesses(m, &mut |t, _| touched[t] = true);
    let bits = |at: Unique| (0..n).filter(|&t| touched[t] && least[t] >= at).fold(0u32, |b, t| b | 1 << t);
    (bits(Unique::Row), bits(Unique::Plane))
}

/// Under which grids `e` is the invocation's own element.
fn unique(m: &Module, locals: &[(LocalId, Unique)], e: &Expr) -> Unique {
    let [x, y, z] = m.kernel.workgroup_size;
    let row_wide = y == 1 && z == 1;
    match &e.kind {
        ExprKind::Cast(Scalar::U32 | Scalar::I32, inner) => unique(m, locals, inner),
        ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() => locals.iter().find(|(l, _)| l == id).map_or(Unique::Never, |(_, u)| *u),
        ExprKind::Component(v, 0) if row_wide && is(v, Builtin::GlobalId) => Unique::Row,
        ExprKind::Binary(BinOp::Add, a, b) => {
            let either = |p: &Expr, q: &Expr| {
                // workgroup_id().x * X + local_id().x (or local_index()).
                if row_wide && product_is(p, x, &[Factor::WorkgroupX, Factor::Const(x)]) && is_local_x(q) {
                    return Unique::Row;
                }
                // global_id().x + global_id().y * num_workgroups().x * X.
                if z == 1 && component(p, Builtin::GlobalId, 0) && product_is(q, x, &[Factor::GlobalY, Factor::GroupsX, Factor::Const(x)]) {
                    return Unique::Plane;
                }
                Unique::Never
            };
            either(a, b).max(either(b, a))
        }
        _ => Unique::Never,
    }
}

/// A factor of an index's product term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Factor {
    WorkgroupX,
    GlobalY,
    GroupsX,
    /// A constant: a literal, or `workgroup_size().x`.
    Const(u32),
}

/// Whether `e` is the product of exactly `want`, in any order and grouping
/// (`x`: the workgroup's width, which `workgroup_size().x` stands for).
fn product_is(e: &Expr, x: u32, want: &[Factor]) -> bool {
    let mut got = Vec::new();
    if !factors(e, x, &mut got) || got.len() != want.len() {
        return false;
    }
    let mut left = want.to_vec();
    got.iter().all(|f| left.iter().position(|w| w == f).map(|i| left.remove(i)).is_some())
}

fn factors(e: &Expr, x: u32, out: &mut Vec<Factor>) -> bool {
    let f = match &e.kind {
        ExprKind::Binary(BinOp::Mul, a, b) => return factors(a, x, out) && factors(b, x, out),
        ExprKind::Lit(Lit::Int(v)) if (1..=u32::MAX as i64).contains(v) => Factor::Const(*v as u32),
        _ if component(e, Builtin::WorkgroupSize, 0) => Factor::Const(x),
        _ if component(e, Builtin::WorkgroupId, 0) => Factor::WorkgroupX,
        _ if component(e, Builtin::GlobalId, 1) => Factor::GlobalY,
        _ if component(e, Builtin::NumWorkgroups, 0) => Factor::GroupsX,
        _ => return false,
    };
    out.push(f);
    true
}

fn is(e: &Expr, b: Builtin) -> bool {
    matches!(&e.kind, ExprKind::Builtin(x) if *x == b)
}

fn component(e: &Expr, b: Builtin, c: u32) -> bool {
    matches!(&e.kind, ExprKind::Component(v, i) if *i == c && is(v, b))
}

/// `local_id().x` or `local_index()` (equal in a workgroup of one row).
fn is_local_x(e: &Expr) -> bool {
    component(e, Builtin::LocalId, 0) || is(e, Builtin::LocalIndex)
}

/// The locals bound once (one `let` with a value) to a unique index and
/// never assigned again, with the grids under which they are.
fn unique_locals(m: &Module) -> Vec<(LocalId, Unique)> {
    let (mut lets, mut assigned): (Vec<(LocalId, &Expr)>, Vec<LocalId>) = (Vec::new(), Vec::new());
    walk_stmts(&m.kernel.body.block, &mut |s| match &s.kind {
        StmtKind::Let(id, Some(e)) => lets.push((*id, e)),
        StmtKind::Let(id, None) => assigned.push(*id),
        StmtKind::Assign(Place { root: Root::Local(id), .. }, _, _) => assigned.push(*id),
        _ => {}
    });
    let once = |id: &LocalId| lets.iter().filter(|(l, _)| l == id).count() == 1 && !assigned.contains(id);
    // A local bound to another unique local is unique too: grow to a fixed point.
    let mut out: Vec<(LocalId, Unique)> = Vec::new();
    loop {
        let more: Vec<(LocalId, Unique)> = lets
            .iter()
            .filter(|(id, _)| once(id) && !out.iter().any(|(l, _)| l == id))
            .map(|(id, e)| (*id, unique(m, &out, e)))
            .filter(|(_, u)| *u != Unique::Never)
            .collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}
