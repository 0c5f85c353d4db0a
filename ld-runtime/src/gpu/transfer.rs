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
    ctx.check_alive("while reading a buffer back")?;
    let size = size.min(buf.size());
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ld readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("ld readback") });
    enc.copy_buffer_to_buffer(buf, 0, &staging, 0, size);
    ctx.queue.submit([enc.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait(ctx, "reading a buffer back")?;
    match rx.try_recv() {
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

/// Blocks until the queue is idle, within the context's timeout.
pub fn wait(ctx: &GpuContext, during: &str) -> Result<()> {
    let r = ctx.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(ctx.timeout) });
    ctx.check_alive(&format!("while {during}"))?;
    match r {
        Ok(_) => Ok(()),
        Err(wgpu::PollError::Timeout) => Err(Error::Timeout { kernel: "(queue)", timeout: ctx.timeout, adapter: ctx.describe() }),
        Err(e) => Err(Error::wgpu(format!("waiting for the GPU while {during}"), e)),
    }
}
