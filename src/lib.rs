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
//!
//! ## Typed launches
//!
//! `#[ld::kernel]` gives each kernel a `launch` method taking the kernel's
//! own parameters: `&[T]` as `&Buffer<T>`, `&mut [T]` and atomics as
//! `&mut Buffer<T>`, scalars by value. A wrong argument is a compile error
//! at the call, not a failure when the kernel runs. A buffer of the wrong
//! element type:
//!
//! ```compile_fail,E0308
//! #[ld::kernel(workgroup_size = 64)]
//! fn scale(data: &mut [f32], factor: f32) {
//!     let i = global_id().x;
//!     data[i] = data[i] * factor;
//! }
//!
//! fn main() -> ld::Result<()> {
//!     let rt = ld::Runtime::cpu();
//!     let mut words = rt.zeros::<u32>(64)?;
//!     scale.launch(&rt, 1u32, &mut words, 2.0).run()?;
//!     Ok(())
//! }
//! ```
//!
//! A shared borrow of a buffer the kernel writes:
//!
//! ```compile_fail,E0308
//! #[ld::kernel(workgroup_size = 64)]
//! fn scale(data: &mut [f32], factor: f32) {
//!     let i = global_id().x;
//!     data[i] = data[i] * factor;
//! }
//!
//! fn main() -> ld::Result<()> {
//!     let rt = ld::Runtime::cpu();
//!     let floats = rt.zeros::<f32>(64)?;
//!     scale.launch(&rt, 1u32, &floats, 2.0).run()?;
//!     Ok(())
//! }
//! ```
//!
//! A missing argument:
//!
//! ```compile_fail,E0061
//! #[ld::kernel(workgroup_size = 64)]
//! fn scale(data: &mut [f32], factor: f32) {
//!     let i = global_id().x;
//!     data[i] = data[i] * factor;
//! }
//!
//! fn main() -> ld::Result<()> {
//!     let rt = ld::Runtime::cpu();
//!     let mut floats = rt.zeros::<f32>(64)?;
//!     scale.launch(&rt, 1u32, &mut floats).run()?;
//!     Ok(())
//! }
//! ```
//!
//! The same launch with the right arguments compiles and runs:
//!
//! ```
//! #[ld::kernel(workgroup_size = 64)]
//! fn scale(data: &mut [f32], factor: f32) {
//!     let i = global_id().x;
//!     data[i] = data[i] * factor;
//! }
//!
//! fn main() -> ld::Result<()> {
//!     let rt = ld::Runtime::cpu();
//!     let mut floats = rt.upload(&[1.5f32; 64])?;
//!     scale.launch(&rt, 1u32, &mut floats, 2.0).run()?;
//!     assert_eq!(floats.to_vec()?, vec![3.0f32; 64]);
//!     Ok(())
//! }
//! ```
#![warn(missing_docs)]

pub use ld_macros::{kernel, kernels};
pub use ld_runtime::{
    html_report, html_report_json, report_document, Access, AccessKind, Arg, Backend, BarrierLine, Bindings, BufArg, Buffer, Buffers, CheckOptions, Checked,
    Element, Error, Evidence, FaultKind, ForcedBackend, Grid, IntoArgs, Kernel, Launch, Level, LevelPlan, Memory, Mode, Plan, Race, RaceKind, Region, Report,
    ReportDocument, Result, RoundTrip, Run, Runtime, Settings, Shader, ShaderError, ShaderKernel, Stats, Treatment, UVec3, Unit, Verdict, DEFAULT_EXIT_CODE,
    REPORT_SCHEMA,
};

#[doc(hidden)]
pub use ld_runtime::__private;

/// KERNELS.md, the kernel language reference: every example in it is a
/// doctest (`cargo test --doc -p ld`).
#[cfg(doctest)]
#[doc = include_str!("../KERNELS.md")]
pub struct KernelsMd;
