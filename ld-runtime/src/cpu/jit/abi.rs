//! What native code and the runtime share: where in the step's `Cx` the
//! code reads the invocation's ids and fuel inline, and the shims,
//! `extern "C"` functions through which the code calls into `Cx` and into
//! the interpreter's arithmetic (`interp::arith`), so that both CPU
//! references share one description of what an access or an operation
//! does.
//!
//! A fallible shim returns its value in the low 32 bits and a fault flag
//! at bit 32 (`FAULT`); the fault itself waits in `Cx::fault` for the
//! step to return it.

use crate::cpu::interp::arith;
use crate::cpu::twin::UVec3;
use crate::cpu::twin::{AtomicOp, Cx, Fault, Ids, Mem};
use ld_compiler::ir::{Intrinsic, Scalar, Type};
use std::mem::offset_of;

/// Bit 32 of a shim's result: it faulted.
pub(super) const FAULT: u64 = 1 << 32;
/// Bit 33 of `index`'s result: the index was clamped under WGSL's rule.
pub(super) const CLAMPED: u64 = 1 << 33;

/// Where `Cx::fuel` is in a `Cx`.
pub(super) const FUEL_OFFSET: usize = offset_of!(Cx<'static>, fuel);

/// Where word `k` of the ids is in a `Cx`: global id, local id,
/// workgroup id, workgroup count, workgroup size (x, y, z each), then
/// the local index (`LOCAL_INDEX`).
pub(super) fn id_offset(k: u32) -> usize {
    let vec = |v: usize| offset_of!(Cx<'static>, ids) + v;
    let xyz = [offset_of!(UVec3, x), offset_of!(UVec3, y), offset_of!(UVec3, z)];
    let of = [
        offset_of!(Ids, global_id),
        offset_of!(Ids, local_id),
        offset_of!(Ids, workgroup_id),
        offset_of!(Ids, num_workgroups),
        offset_of!(Ids, workgroup_size),
    ];
    match k {
        LOCAL_INDEX => vec(offset_of!(Ids, local_index)),
        k => vec(of[k as usize / 3] + xyz[k as usize % 3]),
    }
}

/// The local index's number among the ids (`id_offset`).
pub(super) const LOCAL_INDEX: u32 = 15;

/// A memory as the code passes it: a buffer's parameter index, or a
/// workgroup array's with the top bit set.
pub(super) fn mem_code(m: Mem) -> u32 {
    match m {
        Mem::Storage(i) => i as u32,
        Mem::Shared(i) => i as u32 | 1 << 31,
    }
}

fn mem(code: u32) -> Mem {
    match code >> 31 {
        0 => Mem::Storage(code as usize),
        _ => Mem::Shared((code & !(1 << 31)) as usize),
    }
}

/// A source site as the code passes it: line in the high half.
pub(super) fn site_code((line, column): (u32, u32)) -> u64 {
    (line as u64) << 32 | column as u64
}

fn site(code: u64) -> (u32, u32) {
    ((code >> 32) as u32, code as u32)
}

/// A result word, or the fault kept for the step to return.
fn word(cx: &mut Cx, r: Result<u32, Fault>) -> u64 {
    match r {
        Ok(w) => w as u64,
        Err(f) => {
            cx.fault = Some(f);
            FAULT
        }
    }
}

/// `Cx::read` of one word.
pub(super) unsafe extern "C" fn read(cx: *mut Cx<'static>, m: u32, index: i64, inner: u32, at: u64) -> u64 {
    let cx = unsafe { &mut *cx };
    let r = cx.read::<u32>(mem(m), index, inner, site(at));
    word(cx, r)
}

/// `Cx::read_settled` of one word.
pub(super) unsafe extern "C" fn read_settled(cx: *mut Cx<'static>, m: u32, index: i64, inner: u32, at: u64) -> u64 {
    let cx = unsafe { &mut *cx };
    let r = cx.read_settled::<u32>(mem(m), index, inner, site(at));
    word(cx, r)
}

/// `Cx::write` of one word.
pub(super) unsafe extern "C" fn write(cx: *mut Cx<'static>, m: u32, index: i64, inner: u32, value: u32, at: u64) -> u64 {
    let cx = unsafe { &mut *cx };
    let r = cx.write::<u32>(mem(m), index, inner, value, site(at)).map(|()| 0);
    word(cx, r)
}

/// `Cx::routed_read` of word `w` of a memory `Cx` routes, in bounds (a
/// settled read where `settled` is 1).
pub(super) unsafe extern "C" fn read_routed(cx: *mut Cx<'static>, m: u32, w: u32, settled: u32, at: u64) -> u32 {
    let cx = unsafe { &mut *cx };
    cx.routed_read::<u32>(mem(m), w as usize, site(at), settled != 0)
}

/// `Cx::routed_write` of word `w` of a memory `Cx` routes, in bounds.
pub(super) unsafe extern "C" fn write_routed(cx: *mut Cx<'static>, m: u32, w: u32, value: u32, at: u64) {
    let cx = unsafe { &mut *cx };
    cx.routed_write::<u32>(mem(m), w as usize, value, site(at))
}

/// `Cx::lands`: 1 where a write to the element goes ahead.
pub(super) unsafe extern "C" fn lands(cx: *mut Cx<'static>, m: u32, index: i64, at: u64) -> u64 {
    let cx = unsafe { &mut *cx };
    let r = cx.lands(mem(m), index, site(at)).map(u32::from);
    word(cx, r)
}

/// `Cx::atomic`; `op` indexes `ATOMIC_OPS`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "C" fn atomic(cx: *mut Cx<'static>, m: u32, index: i64, inner: u32, op: u32, signed: u32, a: u32, b: u32, at: u64) -> u64 {
    let cx = unsafe { &mut *cx };
    let r = cx.atomic(mem(m), index, inner, ATOMIC_OPS[op as usize], signed != 0, a, b, site(at));
    word(cx, r)
}

/// The runtime's atomic operations, by the code's number for them.
pub(super) const ATOMIC_OPS: [AtomicOp; 11] = [
    AtomicOp::Load,
    AtomicOp::Store,
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::Max,
    AtomicOp::Min,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
    AtomicOp::Exchange,
    AtomicOp::CompareExchange,
];

/// `Cx::index` for an index the code found out of bounds: the element
/// to use, `CLAMPED` where WGSL's rule chose it, or a fault.
pub(super) unsafe extern "C" fn index(cx: *mut Cx<'static>, i: i64, n: u32, at: u64) -> u64 {
    let cx = unsafe { &mut *cx };
    match cx.index(i, n, site(at)) {
        Ok((k, clamped)) => k as u64 | if clamped { CLAMPED } else { 0 },
        Err(f) => {
            cx.fault = Some(f);
            FAULT
        }
    }
}

/// The fault of a loop that was to start an iteration with no fuel left.
pub(super) unsafe extern "C" fn out_of_fuel(cx: *mut Cx<'static>, at: u64) {
    let cx = unsafe { &mut *cx };
    cx.fault = Some(Fault::OutOfFuel { site: site(at) });
}

/// An operation the code does not inline: a cast from `f32` to an
/// integer, or a built-in function.
pub(super) enum Op {
    Cast(Scalar, Scalar),
    Intrinsic(Intrinsic, Type),
}

/// `op` applied to `x`, `y`, `z` (as many as it takes), as the
/// interpreter computes it.
pub(super) unsafe extern "C" fn op(op: *const Op, x: u32, y: u32, z: u32) -> u32 {
    match unsafe { &*op } {
        Op::Cast(from, to) => arith::cast(*from, *to, x),
        Op::Intrinsic(i, ty) => arith::intrinsic(*i, ty, [x, y, z]),
    }
}
