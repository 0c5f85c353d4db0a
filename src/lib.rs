//! # ld
//!
//! Write GPU compute kernels as Rust functions, run them on any wgpu
//! adapter (or Mesa's lavapipe, or the CPU reference executor), and compare
//! the two.
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
//! rt.launch(add, ld::Grid::cover(n as u64, 64), (&a, &b, &mut out, n as u32)).run()?;
//! let sums = out.to_vec()?;
//! ```
//!
//! The kernel language is described in KERNELS.md.

pub use ld_macros::{kernel, kernels};
pub use ld_runtime::{
    html_report, html_report_json, report_document, Access, AccessKind, Arg, Backend, BarrierLine, BufArg, Buffer, CheckOptions, Checked, Element, Error,
    Evidence, FaultKind, ForcedBackend, Grid, IntoArgs, Kernel, KernelInfo, Launch, Level, LevelPlan, Memory, Mode, Plan, Race, RaceKind, Region, Report,
    ReportDocument, Result, Run, Runtime, Settings, Stats, UVec3, Unit, DEFAULT_EXIT_CODE, REPORT_SCHEMA,
};

#[doc(hidden)]
pub use ld_runtime::__private;

/// KERNELS.md, the kernel language reference: every example in it is a
/// doctest (`cargo test --doc -p ld`).
#[cfg(doctest)]
#[doc = include_str!("../KERNELS.md")]
pub struct KernelsMd;
