//! Target analysis: which memories check mode must privatize.
//!
//! A *target* is memory the kernel writes and more than one unit may touch.
//! Read-only buffers are never targets; atomic memory is never a target
//! (every access to it is atomic, so never a data race); a writable buffer
//! whose every access is indexed by exactly the invocation's own
//! `global_id().x` cannot race between invocations either (on a 1-D
//! dispatch), so it needs one shared copy instead of one per unit. The
//! result is part of the kernel's metadata so a user can see what is checked.

use crate::ir::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    ReadOnly,
    Atomic,
    /// Every access is `buf[global_id().x]` (or a local copy of it).
    OwnElement,
    Target,
}

pub fn params(m: &Module) -> Vec<Class> {
    let k = &m.kernel;
    let own = own_index_locals(&k.body);
    let one_d = k.workgroup_size[1] == 1 && k.workgroup_size[2] == 1;
    k.params
        .iter()
        .enumerate()
        .map(|(i, p)| match &p.kind {
            ParamKind::Uniform { .. } | ParamKind::Storage { access: Access::Read, .. } => Class::ReadOnly,
            ParamKind::Atomic { .. } => Class::Atomic,
            ParamKind::Storage { .. } if one_d && only_own_index(&k.body, MemRef::Param(i), &own) && !passed_to_helper(&k.body.block, MemRef::Param(i)) => Class::OwnElement,
            ParamKind::Storage { .. } => Class::Target,
        })
        .collect()
}

/// Shared arrays are targets unless atomic.
pub fn shared(m: &Module) -> Vec<bool> {
    m.kernel.shared.iter().map(|s| !matches!(s.elem, Type::Atomic(_))).collect()
}

/// Immutable locals that hold exactly `global_id().x`.
fn own_index_locals(body: &Body) -> Vec<bool> {
    let mut assigns = vec![0usize; body.locals.len()];
    let mut is_gid = vec![false; body.locals.len()];
    walk_stmts(&body.block, &mut |s| match &s.kind {
        StmtKind::Let(id, init) => {
            assigns[*id] += 1;
            is_gid[*id] = init.as_ref().is_some_and(is_gid_x);
        }
        StmtKind::Assign(Place { root: Root::Local(id), .. }, _, _) => assigns[*id] += 1,
        _ => {}
    });
    (0..body.locals.len()).map(|i| assigns[i] == 1 && is_gid[i]).collect()
}

fn is_gid_x(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Component(b, 0) if matches!(b.kind, ExprKind::Builtin(Builtin::GlobalId)))
}

fn only_own_index(body: &Body, mem: MemRef, own: &[bool]) -> bool {
    let mut ok = true;
    let mut check = |p: &Place| {
        if let Root::Mem { mem: m, index } = &p.root {
            if *m == mem {
                let direct = is_gid_x(index);
                let via_local = matches!(&index.kind, ExprKind::Load(Place { root: Root::Local(id), path }) if path.is_empty() && own[*id]);
                ok &= direct || via_local;
            }
        }
    };
    walk_stmts(&body.block, &mut |s| {
        if let StmtKind::Assign(p, _, _) = &s.kind {
            check(p);
        }
    });
    visit::exprs(&body.block, &mut |e| match &e.kind {
        ExprKind::Load(p) | ExprKind::Atomic(_, p, _) => check(p),
        _ => {}
    });
    ok
}

fn passed_to_helper(block: &[Stmt], mem: MemRef) -> bool {
    let mut found = false;
    visit::exprs(block, &mut |e| {
        if let ExprKind::Call(_, args) = &e.kind {
            found |= args.iter().any(|a| matches!(a, CallArg::Slice { mem: m, .. } if *m == mem));
        }
    });
    found
}
