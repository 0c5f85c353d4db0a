//! A launch's buffers as host words for the CPU monitor: exact mode runs
//! on them, and a check keeps its input here (the buffers it writes, copied
//! before it runs) so that the racing workgroups can run again from it.

use crate::buffer::Store;
use crate::error::Result;
use crate::gpu::transfer;
use crate::kernel::{KernelInfo, ParamKind};
use crate::launch::Arg;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

/// Per kernel parameter: its words (`None` for scalars).
pub(crate) type Words = Vec<Option<Arc<[AtomicU32]>>>;

/// The written buffers as a launch found them.
pub(crate) enum Input {
    /// Copied on the device, one staging buffer per written buffer (a sum
    /// of buffers may exceed the largest buffer the device allows), in the
    /// queue ahead of the check: read back only if a race needs its sources.
    Gpu {
        copies: Vec<(usize, wgpu::Buffer)>,
    },
    Cpu(Vec<(usize, Vec<u32>)>),
}

fn written(info: &KernelInfo, p: usize) -> bool {
    matches!(info.params[p].kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. })
}

fn words(v: &[u32]) -> Arc<[AtomicU32]> {
    v.iter().map(|&w| AtomicU32::new(w)).collect()
}

/// The device, the encoder of the copies, and each parameter's copy.
type Copying<'c> = (&'c crate::gpu::GpuContext, wgpu::CommandEncoder, Vec<(usize, wgpu::Buffer)>);

impl Input {
    /// Keeps what the launch is about to change.
    pub fn keep(info: &KernelInfo, args: &[Arg]) -> Input {
        let mut gpu: Option<Copying> = None;
        let mut cpu = Vec::new();
        for (p, a) in args.iter().enumerate() {
            let Arg::Buffer(b) = a else { continue };
            if !written(info, p) {
                continue;
            }
            match b.store {
                Store::Gpu { buf, ctx } => {
                    let (_, enc, copies) = gpu
                        .get_or_insert_with(|| (ctx, ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("ld input") }), vec![]));
                    let staging = transfer::staging(ctx, buf.size());
                    enc.copy_buffer_to_buffer(buf, 0, &staging, 0, buf.size());
                    copies.push((p, staging));
                }
                Store::Cpu(w) => cpu.push((p, w.iter().map(|x| x.load(std::sync::atomic::Ordering::Relaxed)).collect())),
            }
        }
        let Some((ctx, enc, copies)) = gpu else { return Input::Cpu(cpu) };
        ctx.queue.submit([enc.finish()]);
        Input::Gpu { copies }
    }

    /// Every buffer's words as the launch found them: the kept ones from
    /// here, the others (which the launch only reads) as they are.
    pub fn words(self, args: &[Arg]) -> Result<Words> {
        let mut out: Words = vec![None; args.len()];
        match self {
            Input::Cpu(kept) => {
                for (p, w) in kept {
                    out[p] = Some(words(&w));
                }
            }
            Input::Gpu { copies } => {
                for (p, staging) in copies {
                    let Arg::Buffer(b) = &args[p] else { continue };
                    let Store::Gpu { ctx, .. } = b.store else { continue };
                    out[p] = Some(words(&transfer::map_read(ctx, &staging, "reading a check's input back")?));
                }
            }
        }
        for (p, a) in args.iter().enumerate() {
            if let (Arg::Buffer(b), None) = (a, &out[p]) {
                out[p] = Some(current(b.store)?);
            }
        }
        Ok(out)
    }
}

/// A buffer's words now.
pub(crate) fn current(store: &Store) -> Result<Arc<[AtomicU32]>> {
    Ok(match store {
        Store::Gpu { buf, ctx } => words(&transfer::read_words(ctx, buf)?),
        Store::Cpu(w) => w.clone(),
    })
}

/// A buffer's words now, in words of their own (a download is one already).
pub(crate) fn copy(store: &Store) -> Result<Arc<[AtomicU32]>> {
    Ok(match store {
        Store::Gpu { .. } => current(store)?,
        Store::Cpu(w) => w.iter().map(|x| AtomicU32::new(x.load(std::sync::atomic::Ordering::Relaxed))).collect(),
    })
}

/// Puts words into a buffer.
pub(crate) fn store(store: &Store, words: &[AtomicU32]) -> Result<()> {
    use std::sync::atomic::Ordering::Relaxed;
    match store {
        Store::Gpu { buf, ctx } => {
            let v: Vec<u32> = words.iter().map(|w| w.load(Relaxed)).collect();
            ctx.check_alive("while writing a buffer")?;
            ctx.queue.write_buffer(buf, 0, bytemuck::cast_slice(&v));
            transfer::wait(ctx, "writing a buffer")
        }
        Store::Cpu(w) => {
            for (d, s) in w.iter().zip(words) {
                d.store(s.load(Relaxed), Relaxed);
            }
            Ok(())
        }
    }
}
