//! One native dispatch of a kernel.

use super::{pipeline, transfer, GpuContext};
use crate::error::{Error, Result};
use crate::kernel::KernelInfo;
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

/// A buffer bound to kernel parameter `param`.
pub struct GpuBinding<'a> {
    pub param: usize,
    pub buffer: &'a wgpu::Buffer,
}

/// Runs the kernel once and waits for it; returns the wall time from
/// submission to completion.
pub fn dispatch(ctx: &GpuContext, info: &'static KernelInfo, grid: [u32; 3], bindings: &[GpuBinding], uniforms: &[u32]) -> Result<Duration> {
    ctx.check_alive(&format!("before launching `{}`", info.name))?;
    let p = pipeline::get(ctx, info, pipeline::Variant::Native)?;
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let ubuf = (!uniforms.is_empty()).then(|| {
        // Uniform blocks are read in 16-byte rows: pad.
        let mut words = uniforms.to_vec();
        words.resize(uniforms.len().div_ceil(4) * 4, 0);
        ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ld uniforms"),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::UNIFORM,
        })
    });
    let mut entries: Vec<wgpu::BindGroupEntry> =
        bindings.iter().map(|b| wgpu::BindGroupEntry { binding: b.param as u32, resource: b.buffer.as_entire_binding() }).collect();
    if let Some(u) = &ubuf {
        entries.push(wgpu::BindGroupEntry { binding: info.params.len() as u32, resource: u.as_entire_binding() });
    }
    let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(info.name), layout: &p.layout, entries: &entries });
    let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(info.name) });
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(info.name), timestamp_writes: None });
        pass.set_pipeline(&p.pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
    }
    let start = Instant::now();
    ctx.queue.submit([enc.finish()]);
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::wgpu(format!("the launch of kernel `{}`", info.name), e));
    }
    transfer::wait(ctx, &format!("running `{}`", info.name)).map_err(|e| match e {
        Error::Timeout { timeout, adapter, .. } => Error::Timeout { kernel: info.name, timeout, adapter },
        e => e,
    })?;
    Ok(start.elapsed())
}
