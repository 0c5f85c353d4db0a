//! Choosing where kernels run. `Runtime::new()` takes the best GPU adapter
//! (lavapipe counts: it is a conformant Vulkan driver), falls back to the CPU
//! executor when there is none and says so once (a `log` warning). `LD_BACKEND=gpu`
//! or `cpu` forces a backend; `LD_REQUIRE_GPU=1` turns the fallback into an
//! error (CI sets it so GPU tests never silently run on the CPU).

use crate::buffer::{Buffer, Element};
use crate::error::{Error, Result};
use crate::gpu::{self, GpuContext};
use crate::kernel::Kernel;
use crate::launch::{Grid, IntoArgs, Launch};
use crate::settings::{ForcedBackend, Settings};
use std::sync::{Arc, Once};

#[derive(Clone)]
/// Where kernels run: a wgpu device (any Vulkan, Metal or DX12 GPU, or
/// lavapipe), or the CPU reference executor. Makes buffers and launches.
pub struct Runtime {
    pub(crate) gpu: Option<Arc<GpuContext>>,
}

/// Which executor a runtime uses.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// A wgpu device.
    Gpu {
        /// The adapter's name and driver.
        adapter: String,
    },
    /// The CPU reference executor.
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

static FALLBACK_NOTE: Once = Once::new();

impl Runtime {
    /// The backend from `LD_BACKEND` (`gpu` or `cpu`), else the best GPU,
    /// else the CPU executor (with a note on stderr).
    pub fn new() -> Result<Self> {
        Self::with_settings(Settings::get()?)
    }

    /// As [`Runtime::new`], with the settings given instead of the
    /// environment's.
    pub fn with_settings(settings: &Settings) -> Result<Self> {
        if settings.backend == Some(ForcedBackend::Cpu) {
            return Ok(Self::cpu());
        }
        match gpu::open(settings)? {
            Some(ctx) => Ok(Runtime { gpu: Some(ctx) }),
            None if settings.backend == Some(ForcedBackend::Gpu) => Err(Error::NoAdapter { detail: " (a GPU was asked for)".into() }),
            None if settings.require_gpu => Err(Error::NoAdapter { detail: String::new() }),
            None => {
                FALLBACK_NOTE.call_once(|| log::warn!("no GPU adapter found; running kernels on the CPU reference executor (install mesa-vulkan-drivers for lavapipe, or set LD_BACKEND=cpu to silence this)"));
                Ok(Self::cpu())
            }
        }
    }

    /// The best GPU adapter, or an error if there is none.
    pub fn gpu() -> Result<Self> {
        Self::with_settings(&Settings { backend: Some(ForcedBackend::Gpu), ..Settings::get()?.clone() })
    }

    /// The CPU reference executor.
    pub fn cpu() -> Self {
        Runtime { gpu: None }
    }

    /// Where this runtime runs kernels.
    pub fn backend(&self) -> Backend {
        match &self.gpu {
            Some(g) => Backend::Gpu { adapter: g.describe() },
            None => Backend::Cpu,
        }
    }

    /// Whether kernels run on a wgpu device.
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
            None => {
                // Kernels index with `u32`: words past that are unreachable
                // (and the allocation would abort the process, not fail).
                let (bytes, limit) = ((len as u64).saturating_mul(std::mem::size_of::<T>() as u64), 4 * u32::MAX as u64);
                if bytes > limit {
                    return Err(Error::BufferTooLarge { elem: std::any::type_name::<T>(), len, bytes, limit });
                }
                Ok(Buffer::cpu_from(&vec![T::zeroed(); len]))
            }
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
