//! Opening a device: the best adapter the system offers (a discrete GPU
//! before an integrated one, before a software one like lavapipe), with the
//! adapter's own limits so large buffers bind.
//!
//! A process opens each device once and every runtime asking for it shares
//! it, as an application shares its one `wgpu::Device`: the NVIDIA driver
//! (580, H200) deadlocks when threads create and destroy instances and
//! devices side by side (a test suite's runtimes, eight at a time), and a
//! shared device also keeps its compiled pipelines and scratch buffers for
//! the next runtime. A device that was lost or timed out is replaced by the
//! next `open`.

use crate::error::{Error, Result};
use crate::settings::Settings;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub(crate) pipelines: Mutex<HashMap<(usize, super::pipeline::Variant), Arc<super::pipeline::Pipeline>>>,
    pub(crate) level1: Mutex<Option<Arc<super::pipeline::Level1>>>,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    pub timeout: Duration,
    /// The buffers of the last checks, kept for the next ones.
    pub(crate) scratch: super::scratch::Scratch,
    /// The last stamp a check dispatch used: stamps mark the written words
    /// of the engine's buffers, which outlive one check (`scratch`), so
    /// they are unique per device, not per check.
    pub(crate) stamp: std::sync::atomic::AtomicU32,
    /// The kernels (by their `KernelInfo`'s address) whose probe found a
    /// word two invocations shared: their later checks go straight to the
    /// engine instead of paying for a probe that most likely finds the
    /// same. Where deterministic mode's probe can defer what was shared
    /// (`Some`: words of workgroup arrays and storage targets,
    /// `check::engine::ProbeRun`), its later runs start with them
    /// deferred; where it cannot (`None`: a log or the records full, a
    /// fault, loops cut short), they go to the engine too.
    pub(crate) probe_shared: Mutex<std::collections::HashMap<usize, Option<crate::check::engine::ProbeRun>>>,
}

impl GpuContext {
    pub fn describe(&self) -> String {
        format!("{} ({:?}, {:?})", self.info.name, self.info.device_type, self.info.backend)
    }

    /// Fails if the device was lost since the last call.
    pub fn check_alive(&self, during: &str) -> Result<()> {
        if let Some(reason) = self.lost.lock().unwrap().clone() {
            return Err(Error::DeviceLost { during: format!(" {during}"), reason });
        }
        Ok(())
    }
}

fn desc_backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY)
}

fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let ty = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    };
    (ty, backend)
}

/// Opens the best adapter, or the one `settings.adapter` names (an error
/// listing the adapters when none matches). Returns `Ok(None)` when the
/// system has no adapter at all.
pub fn open(settings: &Settings) -> Result<Option<Arc<GpuContext>>> {
    static OPENED: Mutex<Vec<(OpenKey, Arc<GpuContext>)>> = Mutex::new(Vec::new());
    let key = OpenKey { adapter: settings.adapter.clone(), timeout: settings.gpu_timeout };
    // Held while opening, so that no two threads create instances at once.
    let mut opened = OPENED.lock().unwrap_or_else(|p| p.into_inner());
    opened.retain(|(_, ctx)| ctx.lost.lock().unwrap().is_none());
    if let Some((_, ctx)) = opened.iter().find(|(k, _)| *k == key) {
        return Ok(Some(ctx.clone()));
    }
    let ctx = open_new(settings)?;
    if let Some(ctx) = &ctx {
        opened.push((key, ctx.clone()));
    }
    Ok(ctx)
}

/// What makes two requests for a device the same request.
#[derive(PartialEq)]
struct OpenKey {
    adapter: Option<String>,
    timeout: Duration,
}

fn open_new(settings: &Settings) -> Result<Option<Arc<GpuContext>>> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    if std::env::var_os("WGPU_BACKEND").is_none() {
        // Vulkan/Metal/DX12 only: GL's compute support is partial, and probing
        // it prints EGL noise on headless machines.
        desc.backends = wgpu::Backends::PRIMARY;
    }
    // Not wgpu's defaults for the build type: in a debug build they ask
    // for shader debug info, and naga's SPIR-V writer then finds each
    // statement's line by scanning the WGSL from its start, quadratic in
    // an instrumented kernel's thousands of lines, which slows the test
    // suites; in every build they validate indirect dispatches with
    // a pass of their own, where level1.wgsl already clamps its arguments
    // to the device's limit. `WGPU_DEBUG=1`, `WGPU_VALIDATION=1`, ... turn
    // them on again.
    desc.flags = wgpu::InstanceFlags::empty().with_env();
    let instance = wgpu::Instance::new(desc);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(desc_backends()));
    adapters.retain(|a| a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS));
    if let Some(want) = &settings.adapter {
        let found: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        adapters.retain(|a| a.get_info().name.to_lowercase().contains(&want.to_lowercase()));
        if adapters.is_empty() {
            return Err(Error::NoMatchingAdapter { want: want.clone(), found });
        }
    }
    adapters.sort_by_key(|a| rank(&a.get_info()));
    let Some(adapter) = adapters.into_iter().next() else {
        return Ok(None);
    };
    let info = adapter.get_info();
    let limits = adapter.limits();
    let desc = wgpu::DeviceDescriptor {
        label: Some("ld"),
        required_features: adapter.features() & wgpu::Features::SUBGROUP,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    let (device, queue) =
        pollster::block_on(adapter.request_device(&desc)).map_err(|e| Error::DeviceOpen { adapter: info.name.clone(), reason: e.to_string() })?;
    let lost = Arc::new(Mutex::new(None));
    let flag = lost.clone();
    device.set_device_lost_callback(move |reason, msg| {
        *flag.lock().unwrap() = Some(format!("{reason:?}: {msg}"));
    });
    let timeout = settings.gpu_timeout;
    Ok(Some(Arc::new(GpuContext {
        device,
        queue,
        info,
        limits,
        pipelines: Mutex::new(HashMap::new()),
        level1: Mutex::new(None),
        lost,
        timeout,
        scratch: super::scratch::Scratch::new(),
        stamp: Default::default(),
        probe_shared: Default::default(),
    })))
}
