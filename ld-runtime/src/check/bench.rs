//! Level 1's merge against a plain shader copy of the same bytes on the
//! same device, for `benches/check.rs`: synthetic records (every page of a
//! buffer written by two workgroups, as a dispatch whose workgroups overlap
//! leaves them) swept by the engine's own `merge` pipeline.

use crate::error::{Error, Result};
use crate::gpu::pipeline;
use crate::gpu::transfer::wait;
use crate::gpu::GpuContext;
use crate::runtime::Runtime;
use ld_shaders::abi::{self, binding, header, l1, MODE_CHECK, PAGE};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

/// Records of `pages` pages, two writers each.
pub struct Level1Bench {
    ctx: Arc<GpuContext>,
    pages: u64,
    merge: (wgpu::BindGroup, wgpu::BindGroup, wgpu::BindGroup),
    copy: (wgpu::ComputePipeline, wgpu::BindGroup),
    args: wgpu::Buffer,
}

const WRITERS: u64 = 2;

impl Level1Bench {
    /// A sweep over `pages` pages on `rt`'s device.
    pub fn new(rt: &Runtime, pages: u64) -> Result<Self> {
        let ctx = rt.gpu.clone().ok_or_else(|| Error::Unsupported("the level-1 bench needs a GPU runtime".into()))?;
        let dev = &ctx.device;
        let words = pages * PAGE as u64;
        let records = pages * WRITERS;
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let init = |label: &str, data: &[u32], extra: wgpu::BufferUsages| {
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: bytemuck::cast_slice(data), usage: usage | extra })
        };
        // Level 1's lists: page heads, record headers, the pages listed by
        // their first records.
        let headers = pages;
        let listed = headers + records * l1::WORDS as u64;
        let mut lists = vec![0u32; (listed + records) as usize];
        for r in 0..records {
            let (page, wg) = (r / WRITERS, r % WRITERS);
            let h = (headers + r * l1::WORDS as u64) as usize;
            lists[h + l1::TARGET as usize] = 0;
            lists[h + l1::PAGE as usize] = page as u32;
            lists[h + l1::WG as usize] = wg as u32;
            // Each page's list runs from its last record to its first.
            lists[h + l1::NEXT_PAGE as usize] = if wg == 0 { 0 } else { r as u32 };
            lists[page as usize] = (page * WRITERS + WRITERS) as u32;
            if wg == 0 {
                lists[(listed + page) as usize] = r as u32;
            }
        }
        // Writer 1 changes the odd words, writer 0 the even ones: no race.
        let l1v: Vec<u32> =
            (0..records * PAGE as u64).map(|i| if (i % PAGE as u64) % WRITERS == (i / PAGE as u64) % WRITERS { i as u32 | 1 } else { 0 }).collect();
        let mut head = vec![0u32; header::WORDS as usize];
        head[header::L1_COUNT as usize] = records as u32;
        head[header::L1_PAGES as usize] = pages as u32;
        let target = abi::TargetConfig { words: words as u32, entries: 1, pages: 1, heads_off: 0, ..Default::default() };
        let cfg = abi::Config {
            mode: MODE_CHECK,
            l1_cap: records as u32,
            l1_headers: headers as u32,
            l1_pages: listed as u32,
            target_id: 0,
            canary: 2,
            ..Default::default()
        };
        let cfg_bytes = abi::config_bytes(cfg, &[target]);
        let engine: Vec<wgpu::Buffer> = vec![
            dev.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some("bench config"), contents: &cfg_bytes, usage: wgpu::BufferUsages::UNIFORM }),
            init("bench header", &head, wgpu::BufferUsages::empty()),
            init("bench values", &[0; 4], wgpu::BufferUsages::empty()),
            init("bench meta", &[0; 4], wgpu::BufferUsages::empty()),
            init("bench lists", &lists, wgpu::BufferUsages::empty()),
            init("bench pages", &l1v, wgpu::BufferUsages::empty()),
            init("bench union", &vec![0; (records * PAGE as u64) as usize], wgpu::BufferUsages::empty()),
        ];
        let l1p = pipeline::level1(&ctx)?;
        let entries: Vec<wgpu::BindGroupEntry> =
            engine.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() }).collect();
        debug_assert_eq!(entries.len(), binding::COUNT as usize);
        let g1 = dev.create_bind_group(&wgpu::BindGroupDescriptor { label: Some("bench engine"), layout: &l1p.engine, entries: &entries });
        let user = init("bench user", &vec![0u32; words as usize], wgpu::BufferUsages::empty());
        let args = init("bench args", &[0; 4], wgpu::BufferUsages::INDIRECT);
        let spare = init("bench spare", &[0; 4], wgpu::BufferUsages::empty());
        let group = |second: &wgpu::Buffer| {
            dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("bench target"),
                layout: &l1p.layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: user.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: second.as_entire_binding() },
                ],
            })
        };
        let merge = (group(&args), group(&spare), g1);
        // The copy: the bytes the merge reads and writes, as vec4 loads and stores.
        let bytes = Self::bytes_of(pages);
        let src = dev.create_buffer(&wgpu::BufferDescriptor { label: Some("bench copy src"), size: bytes / 2, usage, mapped_at_creation: false });
        let dst = dev.create_buffer(&wgpu::BufferDescriptor { label: Some("bench copy dst"), size: bytes / 2, usage, mapped_at_creation: false });
        let module = dev.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bench copy"),
            source: wgpu::ShaderSource::Wgsl(
                "@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;\n@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {\n    let i = g.x + g.y * n.x * 64u;\n    if i < arrayLength(&dst) {\n        dst[i] = src[i];\n    }\n}\n"
                    .into(),
            ),
        });
        let cp = dev.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("bench copy"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let cg = dev.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("bench copy"),
            layout: &cp.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: src.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: dst.as_entire_binding() },
            ],
        });
        Ok(Level1Bench { ctx, pages, merge, copy: (cp, cg), args })
    }

    /// Bytes level 1's merge moves: each writer's record read, the user's
    /// words read, the union written.
    pub fn bytes(&self) -> u64 {
        Self::bytes_of(self.pages)
    }

    fn bytes_of(pages: u64) -> u64 {
        pages * PAGE as u64 * 4 * (WRITERS + 2)
    }

    fn timed(&self, record: impl FnOnce(&mut wgpu::CommandEncoder)) -> Result<Duration> {
        let mut enc = self.ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench") });
        record(&mut enc);
        let t = Instant::now();
        self.ctx.queue.submit([enc.finish()]);
        wait(&self.ctx, "running a bench")?;
        Ok(t.elapsed())
    }

    /// One run of level 1's merge (sizing dispatch included).
    pub fn merge(&self) -> Result<Duration> {
        let l1p = pipeline::level1(&self.ctx)?;
        let (sizing, work, engine) = &self.merge;
        self.timed(|enc| {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
            pass.set_pipeline(&l1p.args);
            pass.set_bind_group(0, sizing, &[]);
            pass.set_bind_group(1, engine, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&l1p.merge);
            pass.set_bind_group(0, work, &[]);
            pass.dispatch_workgroups_indirect(&self.args, 0);
        })
    }

    /// A shader copy of as many bytes (half read, half written).
    pub fn copy(&self) -> Result<Duration> {
        let groups = (self.bytes() / 2 / 16).div_ceil(64) as u32;
        self.timed(|enc| {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
            pass.set_pipeline(&self.copy.0);
            pass.set_bind_group(0, &self.copy.1, &[]);
            let [x, y, z] = ld_shaders::abi::spread(groups);
            pass.dispatch_workgroups(x, y, z);
        })
    }
}
