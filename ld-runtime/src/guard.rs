//! Faults, as both backends find them: the CPU executor's (`cpu::twin`'s
//! `Fault`) and the generated WGSL's guard record (`ld_shaders::abi::guard`,
//! `wgsl/guard.wgsl`) become the same [`Error`], with the same kind, the
//! same site and the same words.

use crate::error::{Error, FaultKind};
use crate::gpu::GpuContext;
use crate::kernel::{KernelInfo, SiteKind};
use ld_shaders::abi::guard;

/// What a guard found, before the launch says what it left in the buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    Fault {
        /// The invocation, in words ([`invocation`]).
        invocation: String,
        kind: FaultKind,
        /// What went wrong, in words.
        text: String,
    },
    /// The device ended the kernel's loop at this line (lavapipe's cap).
    LoopLimit { line: u32 },
}

/// An invocation by its workgroup and local index, as errors name it.
pub(crate) fn invocation(info: &KernelInfo, w: [u32; 3], local_index: u32) -> String {
    let wg = info.workgroup_size;
    let l = crate::cpu::executor::unlinear(local_index as u64, wg);
    format!(
        "global id ({}, {}, {}) (workgroup ({}, {}, {}), local id ({}, {}, {}))",
        w[0].wrapping_mul(wg[0]).wrapping_add(l.x),
        w[1].wrapping_mul(wg[1]).wrapping_add(l.y),
        w[2].wrapping_mul(wg[2]).wrapping_add(l.z),
        w[0],
        w[1],
        w[2],
        l.x,
        l.y,
        l.z
    )
}

/// What an index past the end indexed, in words.
pub(crate) fn what(kind: SiteKind, array: &str) -> String {
    match kind {
        SiteKind::Buffer => format!("buffer `{array}`"),
        SiteKind::Shared => format!("shared array `{array}`"),
        SiteKind::Array | SiteKind::Loop => "an array".to_string(),
    }
}

/// The words of a fault.
pub(crate) fn describe(kind: &FaultKind, what: &str) -> String {
    match kind {
        FaultKind::OutOfBounds { index, len, line, column, .. } => {
            format!("index {index} is out of bounds for {what} of length {len} (kernel source line {line}, column {column})")
        }
        FaultKind::NonTermination { fuel, line, column } => format!(
            "it ran {fuel} loop iterations without finishing, and the loop at kernel source line {line}, column {column} was to start another: the kernel probably never terminates (if it is just long, raise the limit with Launch::max_loop_iterations or LD_CPU_FUEL)"
        ),
        FaultKind::BarrierDivergence { .. } => String::new(),
    }
}

/// The fuel a GPU invocation gets: the launch's, as far as a word holds.
pub(crate) fn gpu_fuel(fuel: u64) -> u32 {
    fuel.min(u32::MAX as u64) as u32
}

/// What the guard's words after a launch over `grid` record, if anything
/// (`lens`: each parameter's length in elements, for an index out of a
/// buffer's bounds).
pub(crate) fn read(info: &KernelInfo, grid: [u32; 3], lens: &[u32], words: &[u32]) -> Option<Found> {
    let at = |i: u32| words.get(i as usize).copied().unwrap_or(0);
    if at(guard::CLAIM) == 0 {
        return None;
    }
    let head = at(guard::HEAD);
    let (kind, variant, site) = (head & 0xf, (head >> 4) & 0xf, head >> 8);
    let site = info.sites.get(variant as usize).and_then(|s| s.get(site as usize));
    let (line, column, array, sk, len) = site.map_or((0, 0, "", SiteKind::Array, 0), |s| (s.line, s.column, s.array, s.what, s.len));
    let len = match sk {
        SiteKind::Buffer => info.params.iter().position(|p| p.name == array).and_then(|p| lens.get(p).copied()).unwrap_or(0),
        _ => len,
    };
    let w = crate::cpu::executor::unlinear(at(guard::WG) as u64, grid);
    let inv = invocation(info, [w.x, w.y, w.z], at(guard::LOCAL));
    let fault = |kind: FaultKind, what: &str| Found::Fault { invocation: inv.clone(), text: describe(&kind, what), kind };
    Some(match kind {
        guard::OOB | guard::OOB_SIGNED => {
            let raw = at(guard::INDEX);
            let index = if kind == guard::OOB_SIGNED { raw as i32 as i64 } else { raw as i64 };
            fault(FaultKind::OutOfBounds { array: array.to_string(), index, len, line, column }, &what(sk, array))
        }
        guard::FUEL_OUT => fault(FaultKind::NonTermination { fuel: at(guard::FUEL) as u64, line, column }, ""),
        _ => Found::LoopLimit { line },
    })
}

/// Marks a device that did not finish in time: it may still be running,
/// so every later call on it fails at once instead of waiting behind it.
/// `what`: the work that did not finish ("running `k`").
pub(crate) fn poison(ctx: &GpuContext, what: &str) {
    let mut lost = ctx.lost.lock().unwrap();
    if lost.is_none() {
        *lost = Some(format!("{what} did not finish within {:?} (LD_GPU_TIMEOUT_SECS), and the device may still be running it", ctx.timeout));
    }
}

/// `Found::LoopLimit` as the error it is.
pub(crate) fn loop_limit(info: &KernelInfo, mode: crate::launch::Mode, adapter: String, line: Option<u32>) -> Error {
    Error::LoopLimit { kernel: info.name, mode, adapter, line }
}
