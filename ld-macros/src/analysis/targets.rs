//! Target analysis: which memories check mode must privatize.
//!
//! A *target* is memory the kernel writes with plain stores: a writable
//! storage buffer or a workgroup array. Read-only buffers cannot race, and
//! atomic memory is never a target (every access to it is atomic, so never
//! a data race; check mode replays the results instead). The list's order
//! is the target numbering the instrumented WGSL and the runtime share:
//! storage buffers in parameter order, then workgroup arrays.

use crate::ir::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    ReadOnly,
    Atomic,
    Target,
}

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
pub fn check_count(m: &Module) -> syn::Result<()> {
    let n = list(m).len();
    let max = ld_shaders::abi::TARGETS_MAX as usize;
    if n > max {
        let msg = format!(
            "this kernel writes {n} memories with plain stores (writable buffers and workgroup arrays); ld checks at most {max} per kernel: make some read-only or atomic, merge arrays, or split the kernel"
        );
        return Err(syn::Error::new(m.kernel.span, msg));
    }
    Ok(())
}
