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
    /// Copied on the device into one staging buffer, in the queue ahead of
    /// the check: read back only if a race needs its sources.
    Gpu {
        staging: wgpu::Buffer,
        parts: Vec<(usize, u64, u64)>,
    },
    Cpu(Vec<(usize, Vec<u32>)>),
}

fn written(info: &KernelInfo, p: usize) -> bool {
    matches!(info.params[p].kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. })
}

fn words(v: &[u32]) -> Arc<[AtomicU32]> {
    v.iter().map(|&w| AtomicU32::new(w)).collect()
}

/// A device and the buffers to copy from it: (buffer, parameter, bytes).
type Copies<'b> = (&'b crate::gpu::GpuContext, Vec<(&'b wgpu::Buffer, usize, u64)>);

impl Input {
    /// Keeps what the launch is about to change.
    pub fn keep(info: &KernelInfo, args: &[Arg]) -> Input {
        let mut gpu: Option<Copies> = None;
        let mut cpu = Vec::new();
        for (p, a) in args.iter().enumerate() {
            let Arg::Buffer(b) = a else { continue };
            if !written(info, p) {
                continue;
            }
            match b.store {
                Store::Gpu { buf, ctx } => gpu.get_or_insert((ctx, vec![])).1.push((buf, p, buf.size())),
                Store::Cpu(w) => cpu.push((p, w.iter().map(|x| x.load(std::sync::atomic::Ordering::Relaxed)).collect())),
            }
        }
        let Some((ctx, bufs)) = gpu else { return Input::Cpu(cpu) };
        let staging = transfer::staging(ctx, bufs.iter().map(|b| b.2).sum());
        let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("ld input") });
        let mut parts = Vec::new();
        let mut at = 0;
        for (buf, p, size) in bufs {
            enc.copy_buffer_to_buffer(buf, 0, &staging, at, size);
            parts.push((p, at, size));
            at += size;
        }
        ctx.queue.submit([enc.finish()]);
        Input::Gpu { staging, parts }
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
            Input::Gpu { staging, parts } => {
                let ctx = args.iter().find_map(|a| match a {
                    Arg::Buffer(b) => match b.store {
                        Store::Gpu { ctx, .. } => Some(ctx),
                        _ => None,
                    },
                    _ => None,
                });
                let all = transfer::map_read(ctx.expect("a GPU input has a GPU buffer"), &staging, "reading a check's input back")?;
                for (p, at, size) in parts {
                    out[p] = Some(words(&all[(at / 4) as usize..((at + size) / 4) as usize]));
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
