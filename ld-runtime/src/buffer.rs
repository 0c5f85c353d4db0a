//! Typed buffers. A `Buffer<T>` lives where its runtime runs kernels: in
//! GPU memory, or in host words the CPU executor shares between threads.

use crate::cpu::twin::Words;
use crate::error::{Error, Result};
use crate::gpu::{self, GpuContext};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// A type kernels can keep in buffers: `u32`, `i32`, `f32`, kernel structs.
pub trait Element: bytemuck::Pod + Words + Send + Sync + 'static {}
impl<T: bytemuck::Pod + Words + Send + Sync + 'static> Element for T {}

pub(crate) enum Store {
    Gpu {
        buf: wgpu::Buffer,
        ctx: Arc<GpuContext>,
    },
    /// Relaxed atomics: workgroups may race on them, which must stay defined.
    Cpu(Arc<[AtomicU32]>),
}

/// Typed data on a runtime's device (or in host memory for the CPU
/// executor), made by `Runtime::upload` or `Runtime::zeros` and bound to
/// a kernel's slice parameter.
pub struct Buffer<T: Element> {
    pub(crate) store: Store,
    pub(crate) id: u64,
    len: usize,
    _t: PhantomData<T>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl<T: Element> Buffer<T> {
    pub(crate) fn gpu_from(ctx: &Arc<GpuContext>, data: &[T]) -> Result<Self> {
        let elem = std::any::type_name::<T>();
        let buf = gpu::upload(ctx, bytemuck::cast_slice(data), elem, data.len())?;
        Ok(Self::wrap(Store::Gpu { buf, ctx: ctx.clone() }, data.len()))
    }

    pub(crate) fn gpu_zeroed(ctx: &Arc<GpuContext>, len: usize) -> Result<Self> {
        let elem = std::any::type_name::<T>();
        // A length whose bytes overflow is too large for any device.
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let buf = gpu::zeroed(ctx, bytes, elem, len)?;
        Ok(Self::wrap(Store::Gpu { buf, ctx: ctx.clone() }, len))
    }

    pub(crate) fn cpu_from(data: &[T]) -> Self {
        let words: &[u32] = bytemuck::cast_slice(data);
        let store: Arc<[AtomicU32]> = words.iter().map(|&w| AtomicU32::new(w)).collect();
        Self::wrap(Store::Cpu(store), data.len())
    }

    fn wrap(store: Store, len: usize) -> Self {
        Buffer { store, id: NEXT_ID.fetch_add(1, Relaxed), len, _t: PhantomData }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the contents back to the host.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let words = self.words()?;
        Ok(bytemuck::pod_collect_to_vec(&words))
    }

    /// The raw 32-bit words of the contents.
    pub fn words(&self) -> Result<Vec<u32>> {
        match &self.store {
            Store::Gpu { buf, ctx } => gpu::read_words(ctx, buf),
            Store::Cpu(w) => Ok(w.iter().map(|x| x.load(Relaxed)).collect()),
        }
    }

    /// Overwrites the contents; `data` must have the buffer's length.
    pub fn write(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch { what: format!("this buffer of {}", std::any::type_name::<T>()), got: self.len, expected: data.len() });
        }
        match &self.store {
            Store::Gpu { buf, ctx } => {
                ctx.check_alive("while writing a buffer")?;
                ctx.queue.write_buffer(buf, 0, bytemuck::cast_slice(data));
                Ok(())
            }
            Store::Cpu(w) => {
                for (cell, &x) in w.iter().zip(bytemuck::cast_slice::<T, u32>(data)) {
                    cell.store(x, Relaxed);
                }
                Ok(())
            }
        }
    }

    /// Where this buffer lives, for error messages.
    pub fn location(&self) -> &'static str {
        match self.store {
            Store::Gpu { .. } => "GPU",
            Store::Cpu(_) => "CPU",
        }
    }
}

impl<T: Element> std::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer<{}>[{}] on {}", std::any::type_name::<T>(), self.len, self.location())
    }
}
