//! Runs `#[ld::kernel]` kernels: natively on wgpu (any Vulkan, Metal or DX12
//! GPU, or Mesa's lavapipe), or on the CPU reference executor, which runs
//! the kernel's generated CPU twin with WGSL semantics.
//!
//! `runtime` picks the backend, `buffer` holds typed device data, `launch`
//! checks arguments against the kernel's metadata (`kernel`) and hands the
//! dispatch to `gpu` or `cpu`.

pub mod buffer;
pub mod check;
pub mod cpu;
pub mod error;
mod gpu;
pub mod kernel;
pub mod launch;
pub mod runtime;

pub use buffer::{Buffer, Element};
pub use check::engine::Stats;
pub use check::plan::{LevelPlan, Plan};
pub use check::report::{Race, RaceKind, Report};
pub use check::CheckOptions;
pub use error::{Error, Result};
pub use kernel::{Kernel, KernelInfo};
pub use launch::{Arg, Grid, IntoArgs, Launch, Mode, Run};
pub use runtime::{Backend, Runtime};

/// What `#[ld::kernel]` expansions refer to. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::cpu::ops;
    pub use crate::cpu::twin::{idx, zeroed, AtomicOp, BarrierKind, Cx, Fault, Invocation, Mem, UVec3, Words, Yield};
    pub use crate::kernel::{BarrierInfo, CheckClass, ElemInfo, KernelInfo, ParamInfo, ParamKind, ScalarKind, SharedInfo, TargetPlace};
    pub use bytemuck;
}
