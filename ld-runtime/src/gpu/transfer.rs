//! Host <-> device copies.

use super::GpuContext;
use crate::error::{Error, Result};
use wgpu::util::DeviceExt;

const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

fn check_size(ctx: &GpuContext, bytes: u64, elem: &'static str, len: usize) -> Result<()> {
    let limit = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size);
    if bytes > limit {
        return Err(Error::BufferTooLarge { elem, len, bytes, limit });
    }
    Ok(())
}

pub fn upload(ctx: &GpuContext, bytes: &[u8], elem: &'static str, len: usize) -> Result<wgpu::Buffer> {
    check_size(ctx, bytes.len() as u64, elem, len)?;
    ctx.check_alive("while uploading a buffer")?;
    Ok(ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(elem), contents: bytes, usage: USAGE }))
}

pub fn zeroed(ctx: &GpuContext, bytes: u64, elem: &'static str, len: usize) -> Result<wgpu::Buffer> {
    check_size(ctx, bytes, elem, len)?;
    ctx.check_alive("while creating a buffer")?;
    Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor { label: Some(elem), size: bytes, usage: USAGE, mapped_at_creation: false }))
}

/// Copies a buffer into a staging buffer and reads it back.
pub fn read_words(ctx: &GpuContext, buf: &wgpu::Buffer) -> Result<Vec<u32>> {
    read_range(ctx, buf, buf.size())
}

/// Reads the first `size` bytes of a buffer back.
pub fn read_range(ctx: &GpuContext, buf: &wgpu::Buffer, size: u64) -> Result<Vec<u32>> {
    Ok(read_ranges(ctx, &[(buf, size)])?.pop().unwrap())
}

/// Reads the first bytes of several buffers back, in one submission and
/// one mapping.
pub fn read_ranges(ctx: &GpuContext, bufs: &[(&wgpu::Buffer, u64)]) -> Result<Vec<Vec<u32>>> {
    read_ranges_after(ctx, None, bufs, "reading a buffer back")
}

/// `read_ranges`, the copies recorded after the commands of `enc` (work
/// queued and not yet submitted), in its submission: one wait for both
/// (a submission and a wait more per read-back would add to every
/// launch's check).
pub fn read_ranges_after(ctx: &GpuContext, enc: Option<wgpu::CommandEncoder>, bufs: &[(&wgpu::Buffer, u64)], during: &str) -> Result<Vec<Vec<u32>>> {
    ctx.check_alive("while reading a buffer back")?;
    let sizes: Vec<u64> = bufs.iter().map(|(b, size)| (*size).min(b.size())).collect();
    let staging = staging(ctx, sizes.iter().sum());
    let mut enc = enc.unwrap_or_else(|| ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("ld readback") }));
    let mut at = 0;
    for ((buf, _), size) in bufs.iter().zip(&sizes) {
        enc.copy_buffer_to_buffer(buf, 0, &staging, at, *size);
        at += size;
    }
    ctx.queue.submit([enc.finish()]);
    let words = map_read(ctx, &staging, during)?;
    let mut out = Vec::new();
    let mut at = 0;
    for size in sizes {
        out.push(words[at..at + size as usize / 4].to_vec());
        at += size as usize / 4;
    }
    Ok(out)
}

/// A buffer the host maps to read `size` bytes a copy puts there.
pub fn staging(ctx: &GpuContext, size: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ld readback"),
        size: size.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Waits for what was submitted, then reads a staging buffer.
pub fn map_read(ctx: &GpuContext, staging: &wgpu::Buffer, during: &str) -> Result<Vec<u32>> {
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait(ctx, during)?;
    // On a device other threads share, their poll may be the one running
    // this callback, and it may still be running it when ours returns.
    match rx.recv_timeout(ctx.timeout) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(Error::wgpu("mapping a buffer for reading", e)),
        Err(_) => return Err(Error::wgpu("mapping a buffer for reading", std::io::Error::other("the map callback never ran"))),
    }
    let view = staging.get_mapped_range(..).map_err(|e| Error::wgpu("a mapped buffer range", e))?;
    let words = bytemuck::pod_collect_to_vec::<u8, u32>(&view);
    drop(view);
    staging.unmap();
    Ok(words)
}

/// Blocks until the queue is idle, within the context's timeout. A device
/// that does not get there in time may still be running what it was
/// given: it is marked unusable ([`crate::guard::poison`]), so every later
/// call fails at once instead of waiting behind it.
pub fn wait(ctx: &GpuContext, during: &str) -> Result<()> {
    ctx.check_alive(&format!("while {during}"))?;
    let r = ctx.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(ctx.timeout) });
    ctx.check_alive(&format!("while {during}"))?;
    match r {
        Ok(_) => Ok(()),
        Err(wgpu::PollError::Timeout) => {
            crate::guard::poison(ctx, during);
            Err(Error::Timeout { kernel: "(queue)", timeout: ctx.timeout, adapter: ctx.describe() })
        }
        Err(e) => Err(Error::wgpu(format!("waiting for the GPU while {during}"), e)),
    }
}
