//! One native dispatch of a kernel.

use super::{pipeline, transfer, GpuContext};
use crate::error::{Error, Result};
use crate::kernel::KernelInfo;
use ld_shaders::abi::guard;
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

/// A buffer bound to kernel parameter `param`.
pub struct GpuBinding<'a> {
    pub param: usize,
    pub buffer: &'a wgpu::Buffer,
}

/// Runs the kernel once and waits for it; returns the wall time from
/// submission to completion, and the words of its guard (`fuel`: the loop
/// iterations each invocation may start; see `crate::guard::read`).
pub fn dispatch(
    ctx: &GpuContext,
    info: &'static KernelInfo,
    grid: [u32; 3],
    bindings: &[GpuBinding],
    uniforms: &[u32],
    fuel: u64,
) -> Result<(Duration, Vec<u32>)> {
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
    let guard = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("ld guard"),
        contents: bytemuck::cast_slice(&crate::bounds::initial_guard(info, fuel)),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    entries.push(wgpu::BindGroupEntry { binding: guard::binding(info.params.len()), resource: guard.as_entire_binding() });
    let staging = transfer::staging(ctx, guard.size());
    let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(info.name), layout: &p.layout, entries: &entries });
    let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(info.name) });
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(info.name), timestamp_writes: None });
        pass.set_pipeline(&p.pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
    }
    // The guard's record comes back with the kernel's completion.
    enc.copy_buffer_to_buffer(&guard, 0, &staging, 0, guard.size());
    let start = Instant::now();
    ctx.queue.submit([enc.finish()]);
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::wgpu(format!("the launch of kernel `{}`", info.name), e));
    }
    let words = transfer::map_read(ctx, &staging, &format!("running `{}`", info.name)).map_err(|e| match e {
        Error::Timeout { timeout, adapter, .. } => Error::Timeout { kernel: info.name, timeout, adapter },
        e => e,
    })?;
    let elapsed = start.elapsed();
    Ok((elapsed, words))
}
