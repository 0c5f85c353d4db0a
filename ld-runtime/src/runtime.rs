//! Choosing where kernels run. `Runtime::new()` takes the best GPU adapter
//! (lavapipe counts: it is a conformant Vulkan driver), falls back to the CPU
//! executor when there is none and says so once on stderr. `LD_BACKEND=gpu`
//! or `cpu` forces a backend; `LD_REQUIRE_GPU=1` turns the fallback into an
//! error (CI sets it so GPU tests never silently run on the CPU).

use crate::buffer::{Buffer, Element};
use crate::error::{Error, Result};
use crate::gpu::{self, GpuContext};
use crate::kernel::Kernel;
use crate::launch::{Grid, IntoArgs, Launch};
use std::sync::{Arc, Once};

#[derive(Clone)]
pub struct Runtime {
    pub(crate) gpu: Option<Arc<GpuContext>>,
}

/// Which executor a runtime uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Gpu { adapter: String },
    Cpu,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Gpu { adapter } => write!(f, "gpu: {adapter}"),
            Backend::Cpu => write!(f, "cpu: ld reference executor"),
        }
    }
}

fn require_gpu() -> bool {
    std::env::var("LD_REQUIRE_GPU").map(|v| v == "1" || v.eq_ignore_ascii_case("true")).unwrap_or(false)
}

static FALLBACK_NOTE: Once = Once::new();

impl Runtime {
    /// The backend from `LD_BACKEND` (`gpu` or `cpu`), else the best GPU,
    /// else the CPU executor (with a note on stderr).
    pub fn new() -> Result<Self> {
        match std::env::var("LD_BACKEND").ok().as_deref() {
            Some("gpu") => Self::gpu(),
            Some("cpu") => Ok(Self::cpu()),
            Some("") | None => match gpu::open()? {
                Some(ctx) => Ok(Runtime { gpu: Some(ctx) }),
                None if require_gpu() => Err(Error::NoAdapter { detail: String::new() }),
                None => {
                    FALLBACK_NOTE.call_once(|| eprintln!("ld: no GPU adapter found; running kernels on the CPU reference executor (install mesa-vulkan-drivers for lavapipe, or set LD_BACKEND=cpu to silence this)"));
                    Ok(Self::cpu())
                }
            },
            Some(other) => Err(Error::BadBackendEnv(other.to_string())),
        }
    }

    /// The best GPU adapter, or an error if there is none.
    pub fn gpu() -> Result<Self> {
        match gpu::open()? {
            Some(ctx) => Ok(Runtime { gpu: Some(ctx) }),
            None => Err(Error::NoAdapter { detail: " (LD_BACKEND=gpu)".into() }),
        }
    }

    /// The CPU reference executor.
    pub fn cpu() -> Self {
        Runtime { gpu: None }
    }

    pub fn backend(&self) -> Backend {
        match &self.gpu {
            Some(g) => Backend::Gpu { adapter: g.describe() },
            None => Backend::Cpu,
        }
    }

    pub fn is_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<Buffer<T>> {
        match &self.gpu {
            Some(ctx) => Buffer::gpu_from(ctx, data),
            None => Ok(Buffer::cpu_from(data)),
        }
    }

    /// A buffer of `len` zeroed elements.
    pub fn zeros<T: Element>(&self, len: usize) -> Result<Buffer<T>> {
        match &self.gpu {
            Some(ctx) => Buffer::gpu_zeroed(ctx, len),
            None => Ok(Buffer::cpu_from(&vec![T::zeroed(); len])),
        }
    }

    /// Prepares a launch of `kernel` over `grid` workgroups; `.run()` runs it.
    /// `args` is a tuple: `&buf` for `&[T]`, `&mut buf` for `&mut [T]` and
    /// atomic slices, plain values for scalars.
    pub fn launch<'a, K: Kernel>(&'a self, kernel: K, grid: impl Into<Grid>, args: impl IntoArgs<'a>) -> Launch<'a> {
        Launch::new(self, kernel.info(), grid.into(), args.into_args())
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Runtime({})", self.backend())
    }
}
