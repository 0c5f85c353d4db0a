//! Compute pipelines, compiled once per kernel and cached on the device.

use super::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{KernelInfo, ParamKind};
use std::sync::Arc;

pub struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// The bind group layout every kernel's WGSL declares (see `KernelInfo::wgsl`).
fn layout_entries(info: &KernelInfo) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut out = Vec::new();
    for (i, p) in info.params.iter().enumerate() {
        let read_only = match p.kind {
            ParamKind::Storage { writable, .. } => !writable,
            ParamKind::Atomic { .. } => false,
            ParamKind::Uniform { .. } => continue,
        };
        out.push(wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Storage { read_only }, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        });
    }
    if info.uniform_count() > 0 {
        out.push(wgpu::BindGroupLayoutEntry {
            binding: info.params.len() as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        });
    }
    out
}

pub fn get(ctx: &GpuContext, info: &'static KernelInfo) -> Result<Arc<Pipeline>> {
    let key = info as *const KernelInfo as usize;
    if let Some(p) = ctx.pipelines.lock().unwrap().get(&key) {
        return Ok(p.clone());
    }
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(info.name), source: wgpu::ShaderSource::Wgsl(info.wgsl.into()) });
    let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(info.name), entries: &layout_entries(info) });
    let pl = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: Some(info.name), bind_group_layouts: &[Some(&layout)], immediate_size: 0 });
    let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(info.name),
        layout: Some(&pl),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::Wgpu { what: format!("the pipeline of kernel `{}`", info.name), message: e.to_string() });
    }
    let p = Arc::new(Pipeline { pipeline, layout });
    ctx.pipelines.lock().unwrap().insert(key, p.clone());
    Ok(p)
}
