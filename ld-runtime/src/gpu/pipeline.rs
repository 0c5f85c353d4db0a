//! Compute pipelines, compiled once per kernel and cached on the device.

use super::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{KernelInfo, ParamKind};
use std::sync::Arc;

pub struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// Which of a kernel's shaders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Native,
    Check1,
    Check2,
    /// Level 2 with the copies of shared arrays in workgroup memory, for this many warps.
    Check2Wg(u32),
}

fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Storage { read_only }, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

/// Check variants add: the check's configuration, saved state, atomic log,
/// flags, yields, then one buffer per shared array (see ld-macros' `wgsl::check`).
fn check_entries(info: &KernelInfo) -> Vec<wgpu::BindGroupLayoutEntry> {
    let p = info.params.len() as u32;
    let mut out = vec![storage(p + 1, true), storage(p + 2, false), storage(p + 3, false), storage(p + 4, false), storage(p + 5, false), storage(p + 6, false)];
    out.extend((0..info.shared.len() as u32).map(|a| storage(p + 7 + a, false)));
    out
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

pub fn get(ctx: &GpuContext, info: &'static KernelInfo, variant: Variant) -> Result<Arc<Pipeline>> {
    let key = (info as *const KernelInfo as usize, variant);
    if let Some(p) = ctx.pipelines.lock().unwrap().get(&key) {
        return Ok(p.clone());
    }
    let (src, mut entries) = match variant {
        Variant::Native => (info.wgsl, layout_entries(info)),
        Variant::Check1 => (info.wgsl_check1, layout_entries(info)),
        Variant::Check2 => (info.wgsl_check2, layout_entries(info)),
        Variant::Check2Wg(_) => (info.wgsl_check2_wg, layout_entries(info)),
    };
    let constants: Vec<(&str, f64)> = match variant {
        Variant::Check2Wg(w) => vec![("LD_WARPS", w as f64)],
        _ => vec![],
    };
    if variant != Variant::Native {
        entries.extend(check_entries(info));
    }
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(info.name), source: wgpu::ShaderSource::Wgsl(src.into()) });
    let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(info.name), entries: &entries });
    let pl = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: Some(info.name), bind_group_layouts: &[Some(&layout)], immediate_size: 0 });
    let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(info.name),
        layout: Some(&pl),
        module: &module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() },
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::Wgpu { what: format!("the pipeline of kernel `{}`", info.name), message: e.to_string() });
    }
    let p = Arc::new(Pipeline { pipeline, layout });
    ctx.pipelines.lock().unwrap().insert(key, p.clone());
    Ok(p)
}

/// The checking shaders of `shaders/`, sharing one layout.
pub struct Sweeps {
    pub merge: wgpu::ComputePipeline,
    pub compare: wgpu::ComputePipeline,
    pub fold: wgpu::ComputePipeline,
    pub clear: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

const COMMON: &str = include_str!("../../../shaders/common.wgsl");

pub fn sweeps(ctx: &GpuContext) -> Result<Arc<Sweeps>> {
    if let Some(s) = ctx.sweeps.lock().unwrap().clone() {
        return Ok(s);
    }
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let entries = [storage(0, true), storage(1, false), storage(2, false), storage(3, false), storage(4, true), storage(5, false), storage(6, false), storage(7, true)];
    let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("ld sweeps"), entries: &entries });
    let pl = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: Some("ld sweeps"), bind_group_layouts: &[Some(&layout)], immediate_size: 0 });
    let make = |name: &str, body: &str| {
        let src = format!("{COMMON}\n{body}");
        let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(src.into()) });
        ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor { label: Some(name), layout: Some(&pl), module: &module, entry_point: Some("main"), compilation_options: Default::default(), cache: None })
    };
    let merge = make("ld merge", include_str!("../../../shaders/merge.wgsl"));
    let compare = make("ld compare", include_str!("../../../shaders/compare.wgsl"));
    let fold_src = include_str!("../../../shaders/fold.wgsl");
    let fold = make("ld fold", fold_src);
    let clear = make("ld clear", include_str!("../../../shaders/clear.wgsl"));
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::Wgpu { what: "the checking shaders".into(), message: e.to_string() });
    }
    let s = Arc::new(Sweeps { merge, compare, fold, clear, layout });
    *ctx.sweeps.lock().unwrap() = Some(s.clone());
    Ok(s)
}
