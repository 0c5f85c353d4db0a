//! # ld
//!
//! Finds data races in GPU compute kernels by comparing values, and runs
//! racy kernels deterministically. Kernels are Rust functions
//! (`#[ld::kernel]`) that run on any wgpu adapter (or Mesa's lavapipe) and
//! on a CPU reference executor with the same semantics.
//!
//! ```ignore
//! #[ld::kernel(workgroup_size = 64)]
//! fn add(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
//!     let i = global_id().x;
//!     if i < n {
//!         out[i] = a[i] + b[i];
//!     }
//! }
//!
//! let rt = ld::Runtime::new()?;
//! let (a, b) = (rt.upload(&xs)?, rt.upload(&ys)?);
//! let mut out = rt.zeros::<f32>(n)?;
//! let grid = ld::Grid::cover(n as u64, 64);
//! add.launch(&rt, grid, &a, &b, &mut out, n as u32).run()?;
//! let sums = out.to_vec()?;
//! let report = add.launch(&rt, grid, &a, &b, &mut out, n as u32).check()?;
//! assert!(!report.has_races(), "{report}");
//! ```
//!
//! The kernel language is described in KERNELS.md.
#![warn(missing_docs)]

pub use ld_macros::{kernel, kernels};
pub use ld_runtime::{
    html_report, html_report_json, report_document, Access, AccessKind, Arg, Backend, BarrierLine, BufArg, Buffer, Buffers, CheckOptions, Checked, Element,
    Error, Evidence, FaultKind, ForcedBackend, Grid, IntoArgs, Kernel, Launch, Level, LevelPlan, Memory, Mode, Plan, Race, RaceKind, Region, Report,
    ReportDocument, Result, Run, Runtime, Settings, Stats, Treatment, UVec3, Unit, Verdict, DEFAULT_EXIT_CODE, REPORT_SCHEMA,
};

#[doc(hidden)]
pub use ld_runtime::__private;

/// KERNELS.md, the kernel language reference: every example in it is a
/// doctest (`cargo test --doc -p ld`).
#[cfg(doctest)]
#[doc = include_str!("../KERNELS.md")]
pub struct KernelsMd;
