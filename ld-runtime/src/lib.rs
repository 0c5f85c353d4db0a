//! Runs `#[ld::kernel]` kernels: natively on wgpu (any Vulkan, Metal or DX12
//! GPU, or Mesa's lavapipe), or on the CPU reference executor, which runs
//! the kernel's generated CPU twin with WGSL semantics.
//!
//! `runtime` picks the backend, `buffer` holds typed device data, `launch`
//! checks arguments against the kernel's metadata (`kernel`) and hands the
//! dispatch to `gpu` or `cpu`.
#![warn(missing_docs)]

// The modules are the pipeline's stages; what users name is re-exported
// below, the rest is the crate's own.
pub(crate) mod bounds;
pub(crate) mod buffer;
pub(crate) mod check;
pub(crate) mod cpu;
pub(crate) mod error;
pub(crate) mod exact;
pub(crate) mod gpu;
pub(crate) mod guard;
pub(crate) mod kernel;
pub(crate) mod launch;
pub(crate) mod runtime;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod shader;

pub use bounds::OutOfBounds;
pub use buffer::{Buffer, Element};
pub use check::engine::Stats;
pub use check::html::{render as html_report, render_json as html_report_json};
pub use check::plan::{LevelPlan, Plan};
pub use check::report::{Access, AccessKind, BarrierLine, Buffers, Checked, Evidence, Level, Memory, Race, RaceKind, Region, Report, Treatment, Unit, Verdict};
pub use check::CheckOptions;
pub use cpu::twin::UVec3;
pub use error::{Error, FaultKind, Result};
pub use kernel::Kernel;
pub use launch::{Arg, BufArg, Grid, IntoArgs, Launch, Mode, Run, MAX_WORKGROUPS_PER_DIMENSION};
pub use ld_compiler::front::{Shader, ShaderError};
pub use runtime::{Backend, Runtime};
pub use session::{report_document, ReportDocument, REPORT_SCHEMA};
pub use settings::{ForcedBackend, RoundTrip, Settings, DEFAULT_EXIT_CODE};
pub use shader::{Bindings, ShaderKernel};

/// Level 1's sweep against a shader copy, for `benches/check.rs`. Not a
/// stable API.
#[doc(hidden)]
pub use check::bench::Level1Bench as __Level1Bench;

/// What `#[ld::kernel]` expansions refer to. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::cpu::group::{Each, Group};
    pub use crate::cpu::ops;
    pub use crate::cpu::twin::{idx, zeroed, AtomicOp, BarrierKind, Cx, Fault, Invocation, Mem, UVec3, Words, Yield};
    pub use crate::kernel::{
        BarrierInfo, Bounds, CheckClass, ElemInfo, InPlace, KernelInfo, ParamInfo, ParamKind, ScalarKind, SharedInfo, Site, SiteKind, Source, TargetPlace,
    };
    pub use bytemuck;
}
