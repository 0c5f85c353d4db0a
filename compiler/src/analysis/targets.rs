//! Target analysis: which memories check mode must privatize.
//!
//! A *target* is memory the kernel writes with plain stores: a writable
//! storage buffer or a workgroup array. Read-only buffers cannot race, and
//! atomic memory is never a target (every access to it is atomic, so never
//! a data race; check mode replays the results instead). The list's order
//! is the target numbering the instrumented WGSL and the runtime share:
//! storage buffers in parameter order, then workgroup arrays.

use crate::ir::*;

/// What the target analysis makes of a kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A uniform scalar or a read-only storage buffer: never written, so it cannot race.
    ReadOnly,
    /// An atomic buffer: every access is atomic, so it never races.
    Atomic,
    /// A writable storage buffer: a target, which check mode privatizes.
    Target,
}

/// The class of each kernel parameter, in parameter order.
pub fn params(m: &Module) -> Vec<Class> {
    m.kernel
        .params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Uniform { .. } | ParamKind::Storage { access: Access::Read, .. } => Class::ReadOnly,
            ParamKind::Atomic { .. } => Class::Atomic,
            ParamKind::Storage { .. } => Class::Target,
        })
        .collect()
}

/// Shared arrays are targets unless atomic.
pub fn shared(m: &Module) -> Vec<bool> {
    m.kernel.shared.iter().map(|s| !matches!(s.elem, Type::Atomic(_))).collect()
}

/// The targets, numbered: storage buffers, then workgroup arrays.
pub fn list(m: &Module) -> Vec<MemRef> {
    let storage = params(m).into_iter().enumerate().filter(|(_, c)| *c == Class::Target).map(|(i, _)| MemRef::Param(i));
    let shared = shared(m).into_iter().enumerate().filter(|(_, t)| *t).map(|(a, _)| MemRef::Shared(a));
    storage.chain(shared).collect()
}

/// At most `abi::TARGETS_MAX` targets: check mode's status holds a bit per
/// target, and the engine's slots shader, shared by every kernel, holds
/// that many targets' configurations.
pub fn check_count(m: &Module) -> Result<(), crate::Diagnostic> {
    let n = list(m).len();
    let max = ld_shaders::abi::TARGETS_MAX as usize;
    if n > max {
        let msg = format!(
            "this kernel writes {n} memories with plain stores (writable buffers and workgroup arrays); ld checks at most {max} per kernel: make some read-only or atomic, merge arrays, or split the kernel"
        );
        return Err(crate::Diagnostic::new(m.kernel.span, msg));
    }
    Ok(())
}

/// The targets (a bit each, by number in [`list`]) that the kernel only
/// ever stores one literal value to, whole elements, and never reads or
/// hands to a helper: a flag every invocation that finds something sets
/// (`over[0] = 1`). Lanes that store it in any order leave the same
/// memory, so deterministic mode does not tag their accesses and such a
/// flag does not send the run to one invocation per warp
/// (one of the [`lane_safe`] targets).
pub fn one_value(m: &Module) -> u32 {
    let n = list(m).len();
    let mut value: Vec<Option<Lit>> = vec![None; n];
    let mut other = vec![false; n];
    accesses(m, &mut |t, a| match a {
        Touch::Store(Place { path, .. }, None, Expr { kind: ExprKind::Lit(l), .. }) if path.is_empty() && value[t].is_none_or(|v| same_bits(v, *l)) => {
            value[t] = Some(*l)
        }
        _ => other[t] = true,
    });
    (0..n).filter(|&t| value[t].is_some() && !other[t]).fold(0, |bits, t| bits | 1 << t)
}

/// The targets (a bit each) whose every access, in the kernel's body, is
/// to the invocation's own element: its index is `local_index()`, or in a
/// one-dimensional workgroup `global_id().x` or `local_id().x`, directly,
/// cast to an integer, or through a local bound to one of them once and
/// never assigned again; never handed to a helper. No two invocations of a
/// workgroup touch one word of such a target, so lanes of a warp cannot
/// conflict on it (`out[i] = f(out[i])` with `i = global_id().x`, bfs's
/// `mask[tid]`).
pub fn own_element(m: &Module) -> u32 {
    let n = list(m).len();
    let own_locals = own_locals(m);
    let mut other = vec![false; n];
    accesses(m, &mut |t, a| {
        let index = match a {
            Touch::Store(Place { root: Root::Mem { index, .. }, .. }, _, _) | Touch::Load(Place { root: Root::Mem { index, .. }, .. }) => Some(&**index),
            _ => None,
        };
        other[t] |= !index.is_some_and(|i| own_index(m, &own_locals, i));
    });
    (0..n).filter(|&t| !other[t]).fold(0, |bits, t| bits | 1 << t)
}

/// One access of the kernel's body to a target.
pub(super) enum Touch<'a> {
    /// `place = value`, or `place op= value`.
    Store(&'a Place, Option<BinOp>, &'a Expr),
    /// A read of `place`.
    Load(&'a Place),
    /// A helper handed the memory (a slice argument): any element.
    Helper,
}

/// Calls `f` with every access of the kernel's body to a target, and the
/// target's number in [`list`]. (Atomic memory is never a target: no
/// atomic operation is one.)
pub(super) fn accesses(m: &Module, f: &mut dyn FnMut(usize, Touch<'_>)) {
    let targets = list(m);
    let number = |mem: &MemRef| targets.iter().position(|t| t == mem);
    walk_stmts(&m.kernel.body.block, &mut |s| {
        if let StmtKind::Assign(place @ Place { root: Root::Mem { mem, .. }, .. }, op, e) = &s.kind {
            if let Some(t) = number(mem) {
                f(t, Touch::Store(place, *op, e));
            }
        }
    });
    visit::exprs(&m.kernel.body.block, &mut |e| match &e.kind {
        ExprKind::Load(place @ Place { root: Root::Mem { mem, .. }, .. }) => {
            if let Some(t) = number(mem) {
                f(t, Touch::Load(place));
            }
        }
        ExprKind::Call(_, args) => {
            for a in args {
                if let CallArg::Slice { mem, .. } = a {
                    if let Some(t) = number(mem) {
                        f(t, Touch::Helper);
                    }
                }
            }
        }
        _ => {}
    });
}

/// The targets deterministic mode does not tag: lanes of a warp cannot
/// make their result depend on the order they ran in ([`one_value`],
/// [`own_element`]; `KernelInfo::lane_safe`, the engine's `LD_LANE_SAFE`).
pub fn lane_safe(m: &Module) -> u32 {
    one_value(m) | own_element(m)
}

/// Whether `index` is the invocation's own: distinct for every invocation
/// of a workgroup (see [`own_element`]).
fn own_index(m: &Module, own_locals: &[LocalId], index: &Expr) -> bool {
    let flat = m.kernel.workgroup_size[1] == 1 && m.kernel.workgroup_size[2] == 1;
    match &index.kind {
        ExprKind::Builtin(Builtin::LocalIndex) => true,
        ExprKind::Component(v, 0) => flat && matches!(v.kind, ExprKind::Builtin(Builtin::GlobalId | Builtin::LocalId)),
        ExprKind::Cast(Scalar::U32 | Scalar::I32, e) => own_index(m, own_locals, e),
        ExprKind::Load(Place { root: Root::Local(id), path }) => path.is_empty() && own_locals.contains(id),
        _ => false,
    }
}

/// The locals bound once (one `let` with a value) to an own index and
/// never assigned again.
fn own_locals(m: &Module) -> Vec<LocalId> {
    let own = grow_locals(&bound_once(m), |own: &[(LocalId, ())], e| {
        let ids: Vec<LocalId> = own.iter().map(|(id, _)| *id).collect();
        own_index(m, &ids, e).then_some(())
    });
    own.into_iter().map(|(id, _)| id).collect()
}

/// The kernel body's locals bound once (one `let` with a value) and never
/// assigned again, with their values: what they hold is that expression
/// wherever they are read.
pub(super) fn bound_once(m: &Module) -> Vec<(LocalId, &Expr)> {
    bound_once_in(&m.kernel.body.block)
}

/// [`bound_once`] of a function's body.
pub(crate) fn bound_once_in(block: &[Stmt]) -> Vec<(LocalId, &Expr)> {
    let mut lets: Vec<(LocalId, &Expr)> = Vec::new();
    walk_stmts(block, &mut |s| {
        if let StmtKind::Let(id, Some(e)) = &s.kind {
            lets.push((*id, e));
        }
    });
    let assigned = assigned_in(block);
    let once = |id: &LocalId| lets.iter().filter(|(l, _)| l == id).count() == 1 && !assigned.contains(id);
    lets.iter().filter(|(id, _)| once(id)).copied().collect()
}

/// The locals a function's body declares without a value or assigns (a
/// helper's parameters among them).
pub(super) fn assigned_in(block: &[Stmt]) -> Vec<LocalId> {
    let mut assigned = Vec::new();
    walk_stmts(block, &mut |s| match &s.kind {
        StmtKind::Let(id, None) | StmtKind::Assign(Place { root: Root::Local(id), .. }, _, _) => assigned.push(*id),
        _ => {}
    });
    assigned
}

/// The locals of `lets` whose value `f` gives a fact, given the facts of
/// the locals found so far: a local bound to another one with a fact may
/// have one too, so this grows to a fixed point.
pub(super) fn grow_locals<T>(lets: &[(LocalId, &Expr)], f: impl Fn(&[(LocalId, T)], &Expr) -> Option<T>) -> Vec<(LocalId, T)> {
    let mut out: Vec<(LocalId, T)> = Vec::new();
    loop {
        let more: Vec<(LocalId, T)> = lets.iter().filter(|(id, _)| !out.iter().any(|(l, _)| l == id)).filter_map(|(id, e)| Some((*id, f(&out, e)?))).collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}

/// Whether two literals store the same bits (`0.0` and `-0.0` do not).
fn same_bits(a: Lit, b: Lit) -> bool {
    match (a, b) {
        (Lit::Float(x), Lit::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}
