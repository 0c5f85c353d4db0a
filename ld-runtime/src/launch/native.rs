//! A native launch: one plain dispatch on the GPU, or the CPU reference's
//! run of every workgroup.

use super::{Arg, Launch, Run};
use crate::bounds::OutOfBounds;
use crate::buffer::Store;
use crate::cpu::executor::{self, CpuLaunch};
use crate::cpu::twin::StorageView;
use crate::error::Result;
use crate::gpu::{self, GpuBinding};
use crate::settings::Settings;
use std::time::Instant;

impl<'a> Launch<'a> {
    /// Runs the kernel as written: its guard's faults are errors, a
    /// shader's indices out of bounds the run's list.
    pub(super) fn run_native(self, uniforms: Vec<u32>) -> Result<Run> {
        let start = Instant::now();
        let (elapsed, out_of_bounds) = match &self.rt.gpu {
            Some(ctx) => {
                let bindings: Vec<GpuBinding> = self
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(i, a)| match a {
                        Arg::Buffer(b) => match b.store {
                            Store::Gpu { buf, .. } => Some(GpuBinding { param: i, buffer: buf }),
                            Store::Cpu(_) => None,
                        },
                        _ => None,
                    })
                    .collect();
                let (elapsed, guard) = gpu::dispatch(ctx, self.info, self.grid.0, &bindings, &uniforms, self.fuel()?)?;
                if let Some(e) = self.guarded(&guard) {
                    return Err(e);
                }
                (elapsed, crate::bounds::of_guard(self.info, &self.lens(), &guard))
            }
            None => {
                let oob = self.run_cpu(uniforms)?;
                (start.elapsed(), oob)
            }
        };
        Ok(Run { backend: self.rt.backend(), mode: self.mode, elapsed, report: None, stats: None, out_of_bounds })
    }

    fn run_cpu(&self, uniforms: Vec<u32>) -> Result<Vec<OutOfBounds>> {
        let l = self.cpu_launch(uniforms)?;
        executor::run(&l).map_err(|e| self.fault(e, l.fuel))?;
        Ok(l.oob.take())
    }

    pub(super) fn cpu_launch(&self, uniforms: Vec<u32>) -> Result<CpuLaunch<'a>> {
        let storage = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Buffer(b) => match b.store {
                    Store::Cpu(words) => Some(StorageView { words, elem_words: b.elem_words, len: b.len as u32 }),
                    Store::Gpu { .. } => None,
                },
                _ => None,
            })
            .collect();
        Ok(CpuLaunch::new(self.info, self.grid.0, storage, uniforms, self.fuel()?))
    }

    /// Loop iterations each invocation may start, on either backend.
    pub(super) fn fuel(&self) -> Result<u64> {
        Ok(match self.fuel {
            Some(n) => n,
            None => Settings::get()?.cpu_fuel,
        })
    }
}
