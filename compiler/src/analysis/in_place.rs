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

use super::targets::{accesses, bound_once, grow_locals, list, Touch};
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

/// An index `stride * own + offset`, `own` the invocation's linear number
/// under the grids `unique` says: with `offset < stride`, no two
/// invocations' indices of one stride meet (`out[2 * i]`, `out[2 * i + 1]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Form {
    unique: Unique,
    stride: u32,
    offset: u32,
}

/// What the kernel's targets left in place are (`KernelInfo::in_place`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InPlace {
    /// The targets (a bit each, by number in [`list`]) left in place on a
    /// grid of one row.
    pub row: u32,
    /// Those left in place on a grid of one plane too (a subset).
    pub plane: u32,
    /// The largest stride of their indices: the dispatch's invocations
    /// times it must fit a 32-bit index.
    pub stride: u32,
}

/// The kernel's targets left in place, and on which grids.
pub fn in_place(m: &Module) -> InPlace {
    let n = list(m).len();
    let (scope, locals) = scope(m);
    let mut forms: Vec<Option<Vec<Form>>> = vec![Some(Vec::new()); n];
    accesses(m, &mut |t, a| {
        let f = match a {
            Touch::Store(Place { root: Root::Mem { mem: MemRef::Param(_), index, .. }, .. }, _, _)
            | Touch::Load(Place { root: Root::Mem { mem: MemRef::Param(_), index, .. }, .. }) => scope.form(&locals, index),
            _ => None,
        };
        match (f, &mut forms[t]) {
            (Some(f), Some(v)) => v.push(f),
            _ => forms[t] = None,
        }
    });
    let mut out = InPlace::default();
    for (t, fs) in forms.iter().enumerate() {
        // One stride for every access, each offset below it (a target the
        // body never accesses has none, and nothing to race on).
        let Some(fs) = fs else { continue };
        let stride = fs.first().map_or(1, |f| f.stride);
        if fs.iter().any(|f| f.stride != stride || f.offset >= stride) {
            continue;
        }
        let least = fs.iter().map(|f| f.unique).min().unwrap_or(Unique::Plane);
        if least >= Unique::Row {
            out.row |= 1 << t;
            out.stride = out.stride.max(stride);
        }
        if least >= Unique::Plane {
            out.plane |= 1 << t;
        }
    }
    out
}

/// The kernel, and its locals that name a builtin (`let gid = global_id();`,
/// bound once and never assigned), which an index may go through.
struct Scope<'m> {
    m: &'m Module,
    builtins: Vec<(LocalId, Builtin)>,
}

impl Scope<'_> {
    /// `e` as `stride * own + offset`, if it is one.
    fn form(&self, locals: &[(LocalId, Form)], e: &Expr) -> Option<Form> {
        let unique = self.unique(e);
        if unique != Unique::Never {
            return Some(Form { unique, stride: 1, offset: 0 });
        }
        match &e.kind {
            ExprKind::Cast(Scalar::U32 | Scalar::I32, inner) => self.form(locals, inner),
            ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() => locals.iter().find(|(l, _)| l == id).map(|(_, f)| *f),
            ExprKind::Binary(BinOp::Add, a, b) => {
                let plus = |p: &Expr, q: &Expr| {
                    let (f, k) = (self.form(locals, p)?, literal(q)?);
                    Some(Form { offset: f.offset.checked_add(k)?, ..f })
                };
                plus(a, b).or_else(|| plus(b, a))
            }
            ExprKind::Binary(BinOp::Mul, a, b) => {
                let times = |p: &Expr, q: &Expr| {
                    let (f, c) = (self.form(locals, p)?, literal(q).filter(|&c| c > 0)?);
                    Some(Form { unique: f.unique, stride: f.stride.checked_mul(c)?, offset: f.offset.checked_mul(c)? })
                };
                times(a, b).or_else(|| times(b, a))
            }
            _ => None,
        }
    }

    /// Under which grids `e` itself is the invocation's linear number.
    fn unique(&self, e: &Expr) -> Unique {
        let [x, y, z] = self.m.kernel.workgroup_size;
        let row_wide = y == 1 && z == 1;
        if row_wide && self.component(e, Builtin::GlobalId, 0) {
            return Unique::Row;
        }
        let ExprKind::Binary(BinOp::Add, a, b) = &e.kind else { return Unique::Never };
        let either = |p: &Expr, q: &Expr| {
            // workgroup_id().x * X + local_id().x (or local_index()).
            if row_wide && self.product_is(p, &[Factor::WorkgroupX, Factor::Const(x)]) && self.is_local_x(q) {
                return Unique::Row;
            }
            // global_id().x + global_id().y * num_workgroups().x * X.
            if z == 1 && self.component(p, Builtin::GlobalId, 0) && self.product_is(q, &[Factor::GlobalY, Factor::GroupsX, Factor::Const(x)]) {
                return Unique::Plane;
            }
            Unique::Never
        };
        either(a, b).max(either(b, a))
    }

    /// Whether `e` is the product of exactly `want`, in any order and grouping.
    fn product_is(&self, e: &Expr, want: &[Factor]) -> bool {
        let mut got = Vec::new();
        if !self.factors(e, &mut got) || got.len() != want.len() {
            return false;
        }
        let mut left = want.to_vec();
        got.iter().all(|f| left.iter().position(|w| w == f).map(|i| left.remove(i)).is_some())
    }

    fn factors(&self, e: &Expr, out: &mut Vec<Factor>) -> bool {
        let f = match &e.kind {
            ExprKind::Binary(BinOp::Mul, a, b) => return self.factors(a, out) && self.factors(b, out),
            ExprKind::Lit(Lit::Int(v)) if (1..=u32::MAX as i64).contains(v) => Factor::Const(*v as u32),
            _ if self.component(e, Builtin::WorkgroupSize, 0) => Factor::Const(self.m.kernel.workgroup_size[0]),
            _ if self.component(e, Builtin::WorkgroupId, 0) => Factor::WorkgroupX,
            _ if self.component(e, Builtin::GlobalId, 1) => Factor::GlobalY,
            _ if self.component(e, Builtin::NumWorkgroups, 0) => Factor::GroupsX,
            _ => return false,
        };
        out.push(f);
        true
    }

    /// The builtin `e` is, directly or through a local that names it.
    fn builtin(&self, e: &Expr) -> Option<Builtin> {
        match &e.kind {
            ExprKind::Builtin(b) => Some(*b),
            ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() => self.named(*id),
            _ => None,
        }
    }

    fn named(&self, id: LocalId) -> Option<Builtin> {
        self.builtins.iter().find(|(l, _)| *l == id).map(|(_, b)| *b)
    }

    /// Whether `e` is component `c` of builtin `b` (`global_id().x`, or
    /// `gid.x` where `let gid = global_id();`).
    fn component(&self, e: &Expr, b: Builtin, c: u32) -> bool {
        match &e.kind {
            ExprKind::Component(v, i) => *i == c && self.builtin(v) == Some(b),
            ExprKind::Load(Place { root: Root::Local(id), path }) => matches!(path[..], [Proj::Component(i)] if i == c) && self.named(*id) == Some(b),
            _ => false,
        }
    }

    /// `local_id().x` or `local_index()` (equal in a workgroup of one row).
    fn is_local_x(&self, e: &Expr) -> bool {
        self.component(e, Builtin::LocalId, 0) || self.builtin(e) == Some(Builtin::LocalIndex)
    }
}

fn literal(e: &Expr) -> Option<u32> {
    match e.kind {
        ExprKind::Lit(Lit::Int(v)) => u32::try_from(v).ok(),
        _ => None,
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

/// The locals bound once (one `let` with a value) and never assigned
/// again: those naming a builtin, and those holding an index of a [`Form`],
/// with their forms.
fn scope(m: &Module) -> (Scope<'_>, Vec<(LocalId, Form)>) {
    let lets = bound_once(m);
    let builtins = lets
        .iter()
        .filter_map(|(id, e)| match e.kind {
            ExprKind::Builtin(b) => Some((*id, b)),
            _ => None,
        })
        .collect();
    let scope = Scope { m, builtins };
    let forms = grow_locals(&lets, |found, e| scope.form(found, e));
    (scope, forms)
}
