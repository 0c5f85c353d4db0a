//! A launch's buffers as host words for the CPU monitor: exact mode runs
//! on them, and a check keeps its input here (the buffers it writes, copied
//! before it runs) so that the racing workgroups can run again from it.

use crate::buffer::Store;
use crate::error::Result;
use crate::gpu::{transfer, Contents, GpuContext};
use crate::kernel::{KernelInfo, ParamKind};
use crate::launch::{Arg, BufArg};
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

/// Per kernel parameter: its words (`None` for scalars).
pub(crate) type Words = Vec<Option<Arc<[AtomicU32]>>>;

/// The written buffers as a launch found them.
pub(crate) enum Input {
    /// Copied on the device, a buffer of the check's scratch pool per
    /// written buffer (a sum of buffers may exceed the largest buffer the
    /// device allows), in the queue ahead of the check: read back only if
    /// a race needs its sources, and given back to the pool when done. (A
    /// staging buffer the host could map would take a device-to-host copy
    /// of every written buffer, and an allocation, at every check.)
    Gpu {
        ctx: Arc<GpuContext>,
        copies: Vec<(usize, wgpu::Buffer)>,
    },
    Cpu(Vec<(usize, Vec<u32>)>),
}

/// The pool's kind of buffer for a kept input.
const KEPT: &str = "ld input";
const KEPT_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::COPY_SRC.union(wgpu::BufferUsages::COPY_DST);

impl Drop for Input {
    fn drop(&mut self) {
        if let Input::Gpu { ctx, copies } = self {
            ctx.scratch.give_back(copies.drain(..).map(|(_, b)| (KEPT, b, Contents::Any)));
        }
    }
}

fn written(info: &KernelInfo, p: usize) -> bool {
    matches!(info.params[p].kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. })
}

fn words(v: &[u32]) -> Arc<[AtomicU32]> {
    v.iter().map(|&w| AtomicU32::new(w)).collect()
}

/// The device, the encoder of the copies, and each parameter's copy.
type Copying = (Arc<GpuContext>, wgpu::CommandEncoder, Vec<(usize, wgpu::Buffer)>);

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
                    let (_, enc, copies) = gpu.get_or_insert_with(|| {
                        (ctx.clone(), ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("ld input") }), vec![])
                    });
                    let (copy, _) = ctx.scratch.take(&ctx.device, KEPT, buf.size(), KEPT_USAGE, Contents::Any);
                    enc.copy_buffer_to_buffer(buf, 0, &copy, 0, buf.size());
                    copies.push((p, copy));
                }
                Store::Cpu(w) => cpu.push((p, w.iter().map(|x| x.load(std::sync::atomic::Ordering::Relaxed)).collect())),
            }
        }
        let Some((ctx, enc, copies)) = gpu else { return Input::Cpu(cpu) };
        ctx.queue.submit([enc.finish()]);
        Input::Gpu { ctx, copies }
    }

    /// Every buffer's words as the launch found them: the kept ones from
    /// here, the others (which the launch only reads) as they are.
    pub fn words(self, args: &[Arg]) -> Result<Words> {
        let mut out: Words = vec![None; args.len()];
        match &self {
            Input::Cpu(kept) => {
                for (p, w) in kept {
                    out[*p] = Some(words(w));
                }
            }
            Input::Gpu { ctx, copies } => {
                // The kept copies and every other buffer on the device, in
                // one submission and one mapping (a read-back each would
                // make every launch wait once per buffer).
                let mut reads: Vec<(usize, &wgpu::Buffer, u64)> = Vec::new();
                for (p, copy) in copies {
                    let Arg::Buffer(BufArg { store: Store::Gpu { buf, .. }, .. }) = &args[*p] else { continue };
                    reads.push((*p, copy, buf.size()));
                }
                for (p, a) in args.iter().enumerate() {
                    if let Arg::Buffer(BufArg { store: Store::Gpu { buf, .. }, .. }) = a {
                        if !copies.iter().any(|(q, _)| *q == p) {
                            reads.push((p, buf, buf.size()));
                        }
                    }
                }
                let ranges: Vec<(&wgpu::Buffer, u64)> = reads.iter().map(|&(_, b, size)| (b, size)).collect();
                for ((p, _, _), w) in reads.iter().zip(transfer::read_ranges(ctx, &ranges)?) {
                    out[*p] = Some(words(&w));
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
