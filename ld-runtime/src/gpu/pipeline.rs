//! Compute pipelines, compiled once per kernel and cached on the device.

use super::GpuContext;
use crate::error::{Error, Result};
use crate::kernel::{KernelInfo, ParamKind};
use ld_shaders::abi::binding;
use std::sync::Arc;

pub struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    /// `@group(0)`: the kernel's parameters; `@group(1)` (instrumented): the engine's buffers.
    pub layout: wgpu::BindGroupLayout,
    pub engine: Option<wgpu::BindGroupLayout>,
    /// A probe that defers storage targets: its entry point `ld_resolve`,
    /// which stores the deferred writes that won (`abi::probe::STORAGE_LOG`).
    pub resolve: Option<wgpu::ComputePipeline>,
}

/// Which of a kernel's shaders. The engine's variants carry what of the
/// layout their code depends on, so that lavapipe, which runs every
/// branch, compiles only the paths the layout takes: `direct`, the storage
/// targets whose tables the layout maps directly, a bit each (the
/// kernel's `LD_DIRECT`: their accesses without the hash table's probes);
/// `in_place`, the storage targets the launch leaves in place
/// (`LD_IN_PLACE`: their accesses go to the user's buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Native,
    /// Check mode's level 2; `wide`: more copies than a mask holds
    /// (`abi::MASK_COPIES`), so races are recorded one by one, not
    /// summarized (the kernel's `LD_WIDE`).
    Instrumented {
        direct: u32,
        in_place: u32,
        wide: bool,
    },
    /// Deterministic mode.
    Folded {
        direct: u32,
        in_place: u32,
    },
    /// Deterministic mode at one invocation per warp: the folded kernel
    /// with `LD_DET_WRITERS` on (each word's last writer kept, see
    /// `wgsl/engine/`), which other runs need not pay for.
    FoldedWriters {
        direct: u32,
        in_place: u32,
    },
    /// The probe (`ld_shaders::abi::probe`); `defer`: deterministic
    /// mode's, with words of workgroup arrays to defer (`LD_DEFER`);
    /// `find`: noting the words of workgroup arrays it saw shared
    /// (`LD_FIND`); `storage`: the storage targets whose writes
    /// deterministic mode's probe defers, a bit each (`LD_DEFER_STORAGE`),
    /// which its `ld_resolve` entry point then stores; `arrays`: the
    /// workgroup arrays it defers whole, a bit per target
    /// (`LD_DEFER_ARRAYS`).
    Probe {
        in_place: u32,
        defer: bool,
        find: bool,
        storage: u32,
        arrays: u32,
    },
}

impl Variant {
    /// The WGSL overrides the variant's pipeline is compiled with.
    fn constants(self) -> Vec<(&'static str, f64)> {
        use ld_shaders::abi::overrides::*;
        match self {
            Variant::Native => vec![],
            Variant::Probe { in_place, defer, find, storage, arrays } => {
                vec![IN_PLACE.set(in_place), DEFER.set(defer as u32), FIND.set(find as u32), DEFER_STORAGE.set(storage), DEFER_ARRAYS.set(arrays)]
            }
            Variant::Instrumented { direct, in_place, wide } => vec![DIRECT.set(direct), IN_PLACE.set(in_place), WIDE.set(wide as u32)],
            Variant::Folded { direct, in_place } => vec![DIRECT.set(direct), IN_PLACE.set(in_place)],
            Variant::FoldedWriters { direct, in_place } => vec![DIRECT.set(direct), IN_PLACE.set(in_place), DET_WRITERS.set(1)],
        }
    }
}

fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, wgpu::BufferBindingType::Storage { read_only })
}

fn uniform(binding: u32) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, wgpu::BufferBindingType::Uniform)
}

fn buffer_entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

/// The engine's bind group (`ld_shaders::abi::binding`): its configuration
/// is a uniform buffer, every other buffer read-write storage.
fn engine_entries() -> Vec<wgpu::BindGroupLayoutEntry> {
    (0..binding::COUNT).map(|b| if b == binding::CONFIG { uniform(b) } else { storage(b, false) }).collect()
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
        out.push(storage(i as u32, read_only));
    }
    if info.uniform_count() > 0 {
        out.push(uniform(info.params.len() as u32));
    }
    // The kernel's guard (`ld_shaders::abi::guard`), in every variant.
    out.push(storage(ld_shaders::abi::guard::binding(info.params.len()), false));
    out
}

pub fn get(ctx: &GpuContext, info: &'static KernelInfo, variant: Variant) -> Result<Arc<Pipeline>> {
    let key = (info as *const KernelInfo as usize, variant);
    if let Some(p) = ctx.pipelines.lock().unwrap().get(&key) {
        return Ok(p.clone());
    }
    let src: &str = match variant {
        Variant::Native => info.wgsl,
        Variant::Instrumented { .. } => info.wgsl_instrumented,
        Variant::Folded { .. } | Variant::FoldedWriters { .. } => info.wgsl_folded,
        Variant::Probe { .. } => info.wgsl_probe,
    };
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(info.name), source: wgpu::ShaderSource::Wgsl(src.into()) });
    let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(info.name), entries: &layout_entries(info) });
    let engine = (variant != Variant::Native)
        .then(|| ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("ld engine"), entries: &engine_entries() }));
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> = std::iter::once(Some(&layout)).chain(engine.as_ref().map(Some)).collect();
    let pl = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: Some(info.name), bind_group_layouts: &layouts, immediate_size: 0 });
    let constants = variant.constants();
    let entry = |name: &str| {
        ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(info.name),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(name),
            compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() },
            cache: None,
        })
    };
    let pipeline = entry("main");
    let resolve = matches!(variant, Variant::Probe { storage, .. } if storage != 0).then(|| entry("ld_resolve"));
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::wgpu(format!("the pipeline of kernel `{}`", info.name), e));
    }
    let p = Arc::new(Pipeline { pipeline, layout, engine, resolve });
    ctx.pipelines.lock().unwrap().insert(key, p.clone());
    Ok(p)
}

/// The engine's own shaders, shared by every kernel: level 1's
/// (`ld_shaders::LEVEL1`) and the slots' (`ld_shaders::SLOTS`). `@group(0)`
/// is one storage target's user buffer and the indirect dispatch
/// arguments, `@group(1)` the engine's buffers.
pub struct Level1 {
    /// Check mode: the races between workgroups and the union (`l1u`).
    pub merge: wgpu::ComputePipeline,
    /// Deterministic mode: the ordered fold into the user's buffer.
    pub ordered_fold: wgpu::ComputePipeline,
    pub fold: wgpu::ComputePipeline,
    pub args: wgpu::ComputePipeline,
    /// The slots shader (`ld_shaders::SLOTS`): after every batch, check
    /// mode's and deterministic mode's.
    pub publish: wgpu::ComputePipeline,
    pub publish_changed: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
    pub engine: wgpu::BindGroupLayout,
}

pub fn level1(ctx: &GpuContext) -> Result<Arc<Level1>> {
    if let Some(s) = ctx.level1.lock().unwrap().clone() {
        return Ok(s);
    }
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let layout =
        ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("ld level 1"), entries: &[storage(0, false), storage(1, false)] });
    let engine = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("ld engine"), entries: &engine_entries() });
    let pl = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("ld level 1"),
        bind_group_layouts: &[Some(&layout), Some(&engine)],
        immediate_size: 0,
    });
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor { label: Some("ld level 1"), source: wgpu::ShaderSource::Wgsl(ld_shaders::level1_module().into()) });
    let slots = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor { label: Some("ld slots"), source: wgpu::ShaderSource::Wgsl(ld_shaders::slots_module().into()) });
    let make = |module: &wgpu::ShaderModule, entry: &str| {
        ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&pl),
            module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let (merge, ordered_fold, fold, args) = (make(&module, "merge"), make(&module, "ordered_fold"), make(&module, "fold"), make(&module, "args"));
    let (publish, publish_changed) = (make(&slots, "publish"), make(&slots, "publish_changed"));
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::wgpu("the engine's shaders", e));
    }
    let s = Arc::new(Level1 { merge, ordered_fold, fold, args, publish, publish_changed, layout, engine });
    *ctx.level1.lock().unwrap() = Some(s.clone());
    Ok(s)
}
