//! The check engine on wgpu: the instrumented kernel, one dispatch per batch
//! of workgroups per pass, and level 1's shaders, all queued into one
//! command encoder that is submitted only when the driver needs a status.

use super::engine::{Backend, ProbeRun, Probed, Stats, Status};
use super::layout::{Layout, Limits};
use super::records::Raw;
use crate::bounds::OutOfBounds;
use crate::error::Result;
use crate::gpu::pipeline::{self, Variant};
use crate::gpu::transfer::{read_range, read_ranges_after, wait};
use crate::gpu::{Contents, GpuContext};
use crate::kernel::{KernelInfo, ParamKind, TargetPlace};
use ld_shaders::abi::{binding, guard, header, probe, record, status, MODE_CHECK, MODE_DETERMINISTIC, NONE};
use wgpu::util::DeviceExt;

pub(crate) struct GpuBackend<'a> {
    ctx: &'a GpuContext,
    info: &'static KernelInfo,
    /// User buffers by parameter.
    buffers: Vec<Option<&'a wgpu::Buffer>>,
    uniforms: Option<wgpu::Buffer>,
    /// The kernel's guard (`ld_shaders::abi::guard`): the fuel, and the
    /// first fault any dispatch of the check recorded.
    guard: wgpu::Buffer,
    /// The loop iterations each invocation may start (the guard's start).
    fuel: u64,
    /// A status or probe read back found the guard's tables of indices out
    /// of bounds written (`guard::SEEN`).
    oob_seen: bool,
    layout: Option<Layout>,
    bufs: Option<Bufs>,
    /// The snapshot of the buffers a run writes as it goes (`Backend::snapshot`).
    live: Vec<(usize, wgpu::Buffer)>,
    enc: Option<wgpu::CommandEncoder>,
    stats: Stats,
    /// The engine buffers this check took, by name, handed back on drop,
    /// with the bytes each was asked for.
    kept: Vec<(&'static str, wgpu::Buffer, Contents, u64)>,
    /// Whether the meta area is zeroed, as the next batch (or check) must
    /// find it: after a batch whose status is clean (`Contents::Zeros`).
    meta_zeroed: bool,
}

impl Drop for GpuBackend<'_> {
    fn drop(&mut self) {
        // This check's buffers join the pool.
        let zeroed = self.meta_zeroed;
        self.ctx.scratch.give_back(self.kept.drain(..).map(|(l, b, c, _)| (l, b, if c == Contents::Zeros && !zeroed { Contents::Any } else { c })));
    }
}

/// The engine's buffers (`ld_shaders::abi::binding`).
struct Bufs {
    records: wgpu::Buffer,
    values: wgpu::Buffer,
    meta: wgpu::Buffer,
    l1: wgpu::Buffer,
    l1v: wgpu::Buffer,
    l1u: wgpu::Buffer,
    args: wgpu::Buffer,
    /// Bound in the args' place while they serve an indirect dispatch.
    spare: wgpu::Buffer,
}

impl Bufs {
    fn by_binding(&self) -> [&wgpu::Buffer; binding::COUNT as usize - 1] {
        [&self.records, &self.values, &self.meta, &self.l1, &self.l1v, &self.l1u]
    }
}

pub(crate) fn limits(ctx: &GpuContext) -> Limits {
    let binding = ctx.limits.max_storage_buffer_binding_size.min(ctx.limits.max_buffer_size) / 4 * 4;
    if ctx.info.device_type == wgpu::DeviceType::Cpu {
        Limits::on_cpu(binding)
    } else {
        Limits::on_gpu(binding)
    }
}

impl<'a> GpuBackend<'a> {
    /// `fuel`: the loop iterations each invocation may start.
    pub fn new(ctx: &'a GpuContext, info: &'static KernelInfo, buffers: Vec<Option<&'a wgpu::Buffer>>, uniforms: &[u32], fuel: u64) -> Self {
        let uniforms = (!uniforms.is_empty()).then(|| {
            let mut u = uniforms.to_vec();
            u.resize(uniforms.len().div_ceil(4) * 4, 0);
            ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ld uniforms"),
                contents: bytemuck::cast_slice(&u),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        });
        let guard = ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ld guard"),
            contents: bytemuck::cast_slice(&crate::bounds::initial_guard(info, fuel)),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        });
        GpuBackend {
            ctx,
            info,
            buffers,
            uniforms,
            guard,
            fuel,
            oob_seen: false,
            layout: None,
            bufs: None,
            live: vec![],
            enc: None,
            stats: Stats::default(),
            kept: vec![],
            meta_zeroed: false,
        }
    }

    fn dev(&self) -> &wgpu::Device {
        &self.ctx.device
    }

    fn enc(&mut self) -> &mut wgpu::CommandEncoder {
        if self.enc.is_none() {
            self.enc = Some(self.ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("ld check") }));
        }
        self.enc.as_mut().unwrap()
    }

    /// An engine buffer of at least `words` words: the previous check's
    /// buffer of that name when it is large enough and not much larger
    /// (the engine clears what it relies on itself), else a new one.
    fn buffer(&mut self, label: &'static str, words: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.buffer_for(label, words, usage, Contents::Any).0
    }

    /// `buffer`, and whether it holds `want` (`Scratch::take`).
    fn buffer_for(&mut self, label: &'static str, words: u64, usage: wgpu::BufferUsages, want: Contents) -> (wgpu::Buffer, bool) {
        let size = words.max(4) * 4;
        let usage = usage | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let (b, holds) = self.ctx.scratch.take(self.dev(), label, size, usage, want);
        self.kept.push((label, b.clone(), want, size));
        self.note_held();
        (b, holds)
    }

    /// `Stats::bytes_allocated`: the most the engine's buffers held at
    /// once, as the CPU reference counts it. A retry's buffers replace the
    /// last attempt's (its snapshot kept), so attempts do not add up.
    fn note_held(&mut self) {
        let held = self.kept.iter().map(|k| k.3).sum::<u64>();
        self.stats.bytes_allocated = self.stats.bytes_allocated.max(held);
    }

    fn config(&self, bytes: &[u8]) -> wgpu::Buffer {
        self.dev().create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some("ld config"), contents: bytes, usage: wgpu::BufferUsages::UNIFORM })
    }

    fn engine_group(&self, layout: &wgpu::BindGroupLayout, cfg: &wgpu::Buffer) -> wgpu::BindGroup {
        let b = self.bufs.as_ref().unwrap();
        let mut entries = vec![wgpu::BindGroupEntry { binding: binding::CONFIG, resource: cfg.as_entire_binding() }];
        for (i, buf) in b.by_binding().into_iter().enumerate() {
            entries.push(wgpu::BindGroupEntry { binding: i as u32 + 1, resource: buf.as_entire_binding() });
        }
        self.dev().create_bind_group(&wgpu::BindGroupDescriptor { label: Some("ld engine"), layout, entries: &entries })
    }

    fn kernel_group(&self, layout: &wgpu::BindGroupLayout) -> wgpu::BindGroup {
        let mut entries = Vec::new();
        for (i, p) in self.info.params.iter().enumerate() {
            if !matches!(p.kind, ParamKind::Uniform { .. }) {
                entries.push(wgpu::BindGroupEntry { binding: i as u32, resource: self.buffers[i].unwrap().as_entire_binding() });
            }
        }
        if let Some(u) = &self.uniforms {
            entries.push(wgpu::BindGroupEntry { binding: self.info.params.len() as u32, resource: u.as_entire_binding() });
        }
        entries.push(wgpu::BindGroupEntry { binding: guard::binding(self.info.params.len()), resource: self.guard.as_entire_binding() });
        self.dev().create_bind_group(&wgpu::BindGroupDescriptor { label: Some(self.info.name), layout, entries: &entries })
    }

    /// Dispatches `count` workgroups (over y past a dimension's limit).
    fn dispatch(&mut self, pipeline: &wgpu::ComputePipeline, groups: &[&wgpu::BindGroup], count: u32) {
        self.dispatch_grid(pipeline, groups, ld_shaders::abi::spread(count));
    }

    fn dispatch_grid(&mut self, pipeline: &wgpu::ComputePipeline, groups: &[&wgpu::BindGroup], grid: [u32; 3]) {
        self.stats.dispatches += 1;
        let mut pass = self.enc().begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
        pass.set_pipeline(pipeline);
        for (i, g) in groups.iter().enumerate() {
            pass.set_bind_group(i as u32, *g, &[]);
        }
        pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
    }

    fn dispatch_indirect(&mut self, pipeline: &wgpu::ComputePipeline, groups: &[&wgpu::BindGroup]) {
        self.stats.dispatches += 1;
        let args = self.bufs.as_ref().unwrap().args.clone();
        let mut pass = self.enc().begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
        pass.set_pipeline(pipeline);
        for (i, g) in groups.iter().enumerate() {
            pass.set_bind_group(i as u32, *g, &[]);
        }
        pass.dispatch_workgroups_indirect(&args, 0);
    }

    /// Submits what is queued and waits for it.
    fn flush(&mut self) -> Result<()> {
        if let Some(enc) = self.enc.take() {
            self.stats.submissions += 1;
            self.ctx.queue.submit([enc.finish()]);
        }
        let during = format!("checking `{}`", self.info.name);
        self.waiting(|ctx| wait(ctx, &during)).map_err(|e| self.named(e))
    }

    /// A wait's error, a timeout naming the kernel checked.
    fn named(&self, e: crate::Error) -> crate::Error {
        match e {
            crate::Error::Timeout { timeout, adapter, .. } => crate::Error::Timeout { kernel: self.info.name, timeout, adapter },
            e => e,
        }
    }

    /// `f`, a wait for the device, counted in `Stats::waited_us`.
    fn waiting<T>(&mut self, f: impl FnOnce(&GpuContext) -> T) -> T {
        let start = std::time::Instant::now();
        let r = f(self.ctx);
        self.stats.waited_us += start.elapsed().as_micros() as u64;
        r
    }

    fn read(&mut self, buf: &wgpu::Buffer, words: u64) -> Result<Vec<u32>> {
        Ok(self.read_back(&[(buf, words * 4)])?.pop().unwrap())
    }

    /// What is queued, then a read-back of the first bytes of `ranges`'
    /// buffers: one submission, one wait.
    fn read_back(&mut self, ranges: &[(&wgpu::Buffer, u64)]) -> Result<Vec<Vec<u32>>> {
        let enc = self.enc.take();
        self.stats.submissions += enc.is_some() as u64;
        self.stats.readbacks += 1;
        let during = format!("checking `{}`", self.info.name);
        self.waiting(|ctx| read_ranges_after(ctx, enc, ranges, &during)).map_err(|e| self.named(e))
    }

    /// Fills the workgroup arrays' pages of `count` slots with zeros (their
    /// state at a dispatch's start): one fill for the batch when the slots
    /// hold nothing else to keep, else one per slot.
    fn zero_shared(&mut self, lay: &Layout, count: u32) {
        let s = &lay.slot;
        if s.zero_from == s.list_off {
            return;
        }
        let values = self.bufs.as_ref().unwrap().values.clone();
        let base = lay.val_base() * 4;
        if s.zero_from == 0 {
            self.enc().clear_buffer(&values, base, Some(count as u64 * s.slot_values * 4));
            return;
        }
        for slot in 0..count as u64 {
            let at = base + (slot * s.slot_values + s.zero_from) * 4;
            self.enc().clear_buffer(&values, at, Some((s.list_off - s.zero_from) * 4));
        }
    }

    /// Debug builds (the tests): after batches that ended well, the meta
    /// area is zeroed, as the next batch (or check) must find it: a lane
    /// tag or touched mask left behind would show it races that are not.
    fn assert_meta_zeroed(&mut self) -> Result<()> {
        let meta = self.bufs.as_ref().unwrap().meta.clone();
        let words = read_range(self.ctx, &meta, meta.size())?;
        let lay = self.layout.as_ref().unwrap();
        let left = words.iter().position(|w| *w != 0);
        assert!(left.is_none(), "`{}`: meta word {left:?} of {} left nonzero after a batch ({:?})", self.info.name, words.len(), lay.slot);
        Ok(())
    }

    /// Level 1's shader over every storage target (`fold`: check mode's
    /// union into the user's buffers; else `merge`, or in deterministic
    /// mode `ordered_fold`).
    fn level1_pass(&mut self, mode: u32, fold: bool) -> Result<()> {
        let l1 = pipeline::level1(self.ctx)?;
        let lay = self.layout.clone().unwrap();
        for (t, p) in self.storage_targets() {
            let cfg = self.config(&lay.config(mode, 1, 0, 0, t, 0));
            let g1 = self.engine_group(&l1.engine, &cfg);
            let b = self.bufs.as_ref().unwrap();
            let (sizing, work) = (self.target_group(&l1.layout, p, &b.args), self.target_group(&l1.layout, p, &b.spare));
            self.dispatch(&l1.args, &[&sizing, &g1], 1);
            let sweep = match (fold, mode) {
                (true, _) => &l1.fold,
                (false, MODE_DETERMINISTIC) => &l1.ordered_fold,
                (false, _) => &l1.merge,
            };
            self.dispatch_indirect(sweep, &[&work, &g1]);
        }
        Ok(())
    }

    /// The probe's meta buffer (`ld_shaders::abi::probe::meta`): its
    /// bitmaps, for the words of the workgroup arrays that are targets.
    fn probe_meta(&self) -> probe::Meta {
        let shared = self.info.targets.iter().map(|t| if let TargetPlace::Shared(a) = *t { self.info.shared[a].words() } else { 0 });
        probe::meta(shared.sum::<u64>() as u32)
    }

    /// The probe's tag words of each target (`TargetConfig::words`,
    /// `tags_off`): two per word of every storage target, in target order,
    /// after the bitmaps; and the meta buffer's words.
    fn probe_targets(&self) -> (Vec<ld_shaders::abi::TargetConfig>, u64) {
        let mut off = self.probe_meta().tags as u64;
        let targets = self
            .info
            .targets
            .iter()
            .map(|t| {
                let mut c: ld_shaders::abi::TargetConfig = bytemuck::Zeroable::zeroed();
                if let TargetPlace::Param(p) = t {
                    let words = self.buffers[*p].unwrap().size() / 4;
                    (c.words, c.tags_off) = (words as u32, off as u32);
                    off += probe::STORAGE_TAGS * words;
                }
                c
            })
            .collect();
        (targets, off)
    }

    /// Bytes the probe holds at once, within the check's budget as the
    /// engine's buffers are: the snapshot of what it writes, its tags
    /// (`meta_words`, `probe_targets`), the table of regions, the header
    /// and the unused bindings.
    fn probe_held(&self, l: &Layout, meta_words: u64) -> u64 {
        let bytes = |words: u64| words.max(4) * 4;
        let snapshot: u64 = l.probed().iter().map(|p| bytes(self.buffers[*p].unwrap().size() / 4)).sum();
        snapshot + bytes(meta_words) + bytes(l.rec_off() as u64) + bytes(header::WORDS as u64) + 5 * bytes(0)
    }

    /// The records of deferred storage writes a probe has room for
    /// (`abi::probe::STORAGE_LOG`): every invocation's log, as far as the
    /// budget and a binding allow (a run that needs more is cut short,
    /// and the engine runs).
    fn probe_record_cap(&self, l: &Layout, meta_words: u64) -> u32 {
        let each = probe::RECORD_WORDS as u64 * 4;
        let logs = l.workgroups() as u64 * self.info.invocations_per_workgroup() as u64 * probe::STORAGE_LOG as u64;
        let room = l.plan.budget.saturating_sub(self.probe_held(l, meta_words)) / each;
        let binding = limits(self.ctx).binding.saturating_sub(l.rec_off() as u64 * 4) / each;
        logs.min(room).min(binding).min(u32::MAX as u64) as u32
    }

    /// Words of the targets in `bits` (storage buffers, workgroup arrays).
    fn target_words(&self, bits: u32) -> u64 {
        let words = |(t, place): (usize, &TargetPlace)| match *place {
            _ if bits >> t & 1 == 0 => 0,
            TargetPlace::Param(p) => self.buffers[p].unwrap().size() / 4,
            TargetPlace::Shared(a) => self.info.shared[a].words(),
        };
        self.info.targets.iter().enumerate().map(words).sum()
    }

    /// This kernel's key in `GpuContext::probe_shared`.
    fn key(&self) -> usize {
        self.info as *const KernelInfo as usize
    }

    /// The header (`ld_shaders::abi::header`) as a run starts: no record,
    /// no status, no workgroup that set one.
    fn fresh_header(&mut self) -> wgpu::Buffer {
        let records = self.buffer("ld header", header::WORDS as u64, wgpu::BufferUsages::empty());
        let mut head = vec![0u32; header::WORDS as usize];
        head[header::STATUS_WG as usize] = NONE;
        self.ctx.queue.write_buffer(&records, 0, bytemuck::cast_slice(&head));
        records
    }

    /// The probe's engine bindings, cleared: its bitmaps and tags
    /// (`meta_words` in the meta binding; the `deferred` words' bits
    /// set), the header, the table of regions seen (where the
    /// instrumented kernel's values start), and the bindings it declares
    /// and never uses.
    fn probe_buffers(&mut self, l: &Layout, meta_words: u64, deferred: &[u32], rec_cap: u32) {
        let meta = self.buffer("ld probe tags", meta_words, wgpu::BufferUsages::empty());
        // The queue writes the deferred bitmap before it runs the commands
        // recorded here, which clear all but it.
        let m = self.probe_meta();
        let mut bits = deferred.to_vec();
        bits.resize(m.bitmap as usize, 0);
        if m.bitmap > 0 {
            self.ctx.queue.write_buffer(&meta, m.deferred as u64 * 4, bytemuck::cast_slice(&bits));
        }
        self.enc().clear_buffer(&meta, m.found as u64 * 4, Some(m.bitmap as u64 * 4));
        self.enc().clear_buffer(&meta, m.tags as u64 * 4, Some((meta_words - m.tags as u64) * 4));
        let records = self.fresh_header();
        let regions = l.rec_off() as u64;
        let values = self.buffer("ld probe regions", (regions + rec_cap as u64 * probe::RECORD_WORDS as u64).max(4), wgpu::BufferUsages::empty());
        self.enc().clear_buffer(&values, 0, Some(regions.max(4) * 4));
        let [l1, l1v, l1u, args, spare] =
            ["ld probe l1", "ld probe l1v", "ld probe l1u", "ld probe args", "ld probe spare"].map(|n| self.buffer(n, 4, wgpu::BufferUsages::empty()));
        self.bufs = Some(Bufs { records, values, meta, l1, l1v, l1u, args, spare });
    }

    /// (target, parameter) of every storage target.
    /// The storage targets the engine checks (target, parameter): those
    /// left in place have nothing to publish, merge or fold.
    fn storage_targets(&self) -> Vec<(u32, usize)> {
        let in_place = self.layout.as_ref().map_or(0, |l| l.in_place);
        let checked = |t: usize| in_place >> t & 1 == 0;
        self.info
            .targets
            .iter()
            .enumerate()
            .filter_map(|(t, place)| if let TargetPlace::Param(p) = *place { checked(t).then_some((t as u32, p)) } else { None })
            .collect()
    }

    /// `@group(0)` of the engine's shaders: a target's user buffer, and `second`.
    fn target_group(&self, layout: &wgpu::BindGroupLayout, param: usize, second: &wgpu::Buffer) -> wgpu::BindGroup {
        self.dev().create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ld engine target"),
            layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: self.buffers[param].unwrap().as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: second.as_entire_binding() },
            ],
        })
    }

    /// The slots shader's `publish` over `count` slots, per storage target:
    /// the slots' pages become level-1 records.
    fn publish_pass(&mut self, mode: u32, round: u32, off: u32, count: u32, stamp: u32) -> Result<()> {
        let l1 = pipeline::level1(self.ctx)?;
        let lay = self.layout.clone().unwrap();
        for (t, p) in self.storage_targets() {
            let cfg = self.config(&lay.config(mode, round, off, count, t, stamp));
            let g1 = self.engine_group(&l1.engine, &cfg);
            let spare = self.bufs.as_ref().unwrap().spare.clone();
            let g0 = self.target_group(&l1.layout, p, &spare);
            let publish = if mode == MODE_DETERMINISTIC { &l1.publish_changed } else { &l1.publish };
            self.dispatch(publish, &[&g0, &g1], count);
        }
        Ok(())
    }
}

impl Backend for GpuBackend<'_> {
    fn prepare(&mut self, layout: &Layout) -> Result<()> {
        self.ctx.check_alive(&format!("before checking `{}`", self.info.name))?;
        self.layout = Some(layout.clone());
        self.ctx.scratch.keep_for(self.ctx.info.device_type == wgpu::DeviceType::Cpu, layout.plan.budget);
        // A retry's buffers replace the last attempt's.
        self.bufs = None;
        self.kept.retain(|(label, ..)| *label == "ld snapshot");
        let records = self.fresh_header();
        let (values, same) = self.buffer_for("ld records and copies", layout.values_words(), wgpu::BufferUsages::empty(), Contents::Layout(layout.signature()));
        if !same {
            self.enc().clear_buffer(&values, 0, Some(layout.values_words() * 4));
        }
        // Lane tags, touched masks, last writers and the tables' keys start
        // every dispatch zeroed, and every batch that ends well leaves them
        // so (the kernel clears what it set, `ld_publish` the touched masks
        // and keys it reads): filled once where a check did not end so.
        let meta_words = layout.batch as u64 * layout.slot.slot_meta;
        let (meta, zeroed) = self.buffer_for("ld tables", meta_words, wgpu::BufferUsages::empty(), Contents::Zeros);
        if !zeroed {
            self.enc().clear_buffer(&meta, 0, None);
        }
        self.meta_zeroed = true;
        let l1 = self.buffer("ld level-1 lists", layout.l1_meta_words(), wgpu::BufferUsages::empty());
        let l1v = self.buffer("ld level-1 pages", layout.l1_page_words(), wgpu::BufferUsages::empty());
        let l1u = self.buffer("ld level-1 union", if layout.deterministic { 0 } else { layout.l1_page_words() }, wgpu::BufferUsages::empty());
        let args = self.buffer("ld indirect", 4, wgpu::BufferUsages::INDIRECT);
        let spare = self.buffer("ld spare", 4, wgpu::BufferUsages::empty());
        // No region seen yet (the rest of the values needs no clearing).
        self.ctx.queue.write_buffer(&values, 0, bytemuck::cast_slice(&vec![0u32; layout.rec_off() as usize]));
        self.bufs = Some(Bufs { records, values, meta, l1, l1v, l1u, args, spare });
        Ok(())
    }

    fn snapshot(&mut self, live: &[usize]) -> Result<()> {
        self.kept.retain(|(label, ..)| *label != "ld snapshot");
        self.live.clear();
        for &p in live {
            let src = self.buffers[p].unwrap();
            let copy = self.buffer("ld snapshot", src.size() / 4, wgpu::BufferUsages::empty());
            self.enc().copy_buffer_to_buffer(src, 0, &copy, 0, src.size());
            self.live.push((p, copy));
        }
        Ok(())
    }

    fn restore(&mut self) -> Result<()> {
        let pairs: Vec<(wgpu::Buffer, wgpu::Buffer)> = self.live.iter().map(|(p, c)| (c.clone(), self.buffers[*p].unwrap().clone())).collect();
        for (copy, dst) in pairs {
            // The snapshot may be a kept buffer larger than the user's.
            self.enc().copy_buffer_to_buffer(&copy, 0, &dst, 0, dst.size());
        }
        Ok(())
    }

    fn run(&mut self, mode: u32, round: u32) -> Result<()> {
        let lay = self.layout.clone().unwrap();
        let direct = lay.slot.targets.iter().enumerate().filter(|(_, t)| t.direct != 0).fold(0u32, |m, (i, _)| m | 1 << i);
        let in_place = lay.in_place;
        // Deterministic layouts have lane tags or keep last writers, never
        // both: each folded pipeline compiles only its own paths
        // (`ld_det_writers`, `ld_det_tags` in engine/fold.wgsl and engine/tags.wgsl are constants).
        let variant = match mode {
            MODE_CHECK => Variant::Instrumented { direct, in_place, wide: lay.roles.copies > ld_shaders::abi::MASK_COPIES },
            MODE_DETERMINISTIC if lay.roles.last_writers() => Variant::FoldedWriters { direct, in_place },
            _ => Variant::Folded { direct, in_place },
        };
        let pl = pipeline::get(self.ctx, self.info, variant)?;
        {
            // Every run publishes level 1's pages afresh.
            let b = self.bufs.as_ref().unwrap();
            let (l1, records) = (b.l1.clone(), b.records.clone());
            self.enc().clear_buffer(&l1, 0, Some(lay.slot.heads * 4));
            const _: () = assert!(header::L1_PAGES == header::L1_COUNT + 1);
            self.enc().clear_buffer(&records, header::L1_COUNT as u64 * 4, Some(8));
        }
        let g0 = self.kernel_group(&pl.layout);
        self.meta_zeroed = false;
        let n = lay.workgroups();
        for off in (0..n).step_by(lay.batch as usize) {
            let count = lay.batch.min(n - off);
            self.zero_shared(&lay, count);
            let stamp = self.ctx.stamp.fetch_add(1, std::sync::atomic::Ordering::Relaxed).wrapping_add(1).max(1);
            let cfg = self.config(&lay.config(mode, round, off, count, 0, stamp));
            let g1 = self.engine_group(pl.engine.as_ref().unwrap(), &cfg);
            self.dispatch(&pl.pipeline, &[&g0, &g1], count);
            self.publish_pass(mode, round, off, count, stamp)?;
        }
        Ok(())
    }

    fn native(&mut self) -> Result<()> {
        let pl = pipeline::get(self.ctx, self.info, Variant::Native)?;
        let g0 = self.kernel_group(&pl.layout);
        let grid = self.layout.as_ref().unwrap().grid;
        self.dispatch_grid(&pl.pipeline, &[&g0], grid);
        Ok(())
    }

    fn level1(&mut self, mode: u32) -> Result<()> {
        self.level1_pass(mode, false)
    }

    fn fold(&mut self) -> Result<()> {
        self.level1_pass(ld_shaders::abi::MODE_CHECK, true)
    }

    fn probes(&self, l: &Layout) -> Option<ProbeRun> {
        let run = match self.ctx.probe_shared.lock().unwrap().get(&self.key()) {
            None => ProbeRun::default(),
            // (A check's probe tags the targets of one value, which
            // deterministic mode need not defer.)
            Some(Some(run)) if l.deterministic => ProbeRun { storage: run.storage & !self.info.one_value, ..run.clone() },
            Some(_) => return None,
        };
        let shared: u64 = self.info.shared.iter().map(|s| s.words() * 4 * if s.target { 2 } else { 1 }).sum();
        let (_, tags) = self.probe_targets();
        let fits = self.info.invocations_per_workgroup() <= probe::INVOCATIONS_MAX
            && (l.workgroups() as u64) < probe::WORKGROUPS_MAX
            && shared + 4 <= self.ctx.limits.max_compute_workgroup_storage_size as u64
            && tags * 4 <= limits(self.ctx).binding
            && self.probe_held(l, tags) <= l.plan.budget;
        fits.then_some(run)
    }

    fn probe(&mut self, l: &Layout, run: &ProbeRun) -> Result<Probed> {
        let deferred = &run.deferred[..];
        let defer = deferred.iter().any(|w| *w != 0);
        let variant = Variant::Probe { in_place: l.in_place, defer, find: run.find, storage: run.storage, arrays: run.arrays };
        let pl = pipeline::get(self.ctx, self.info, variant)?;
        let (targets, meta_words) = self.probe_targets();
        let rec_cap = if run.storage != 0 { self.probe_record_cap(l, meta_words) } else { 0 };
        self.probe_buffers(l, meta_words, deferred, rec_cap);
        let n = l.workgroups();
        // (The probe reads the mode, the grid, the batch, the barriers and
        // the canary; with storage targets deferred, where its records go.)
        let mut c: ld_shaders::abi::Config = bytemuck::Zeroable::zeroed();
        let mode = if l.deterministic { MODE_DETERMINISTIC } else { MODE_CHECK };
        (c.mode, c.grid_x, c.grid_y, c.grid_z, c.wg_count, c.barriers, c.canary) =
            (mode, l.grid[0], l.grid[1], l.grid[2], n, self.info.barriers.len() as u32, 2);
        (c.rec_off, c.rec_cap) = (l.rec_off(), rec_cap);
        let cfg = self.config(&ld_shaders::abi::config_bytes(c, &targets));
        let (g0, g1) = (self.kernel_group(&pl.layout), self.engine_group(pl.engine.as_ref().unwrap(), &cfg));
        self.dispatch(&pl.pipeline, &[&g0, &g1], n);
        if let Some(resolve) = &pl.resolve {
            // (Where the run is no answer the buffers are restored anyway.)
            self.dispatch(resolve, &[&g0, &g1], probe::RESOLVE_WORKGROUPS);
        }
        let b = self.bufs.as_ref().unwrap();
        let (records, values, meta, guard) = (b.records.clone(), b.values.clone(), b.meta.clone(), self.guard.clone());
        const _: () = assert!(probe::meta(1).found == 0);
        let bitmap = self.probe_meta().bitmap as u64 * 4;
        let mut ranges = vec![(&records, header::WORDS as u64 * 4), (&guard, guard::WORDS as u64 * 4), (&values, l.rec_off() as u64 * 4)];
        if bitmap > 0 {
            ranges.push((&meta, bitmap));
        }
        let mut read = self.read_back(&ranges)?;
        let found = if bitmap > 0 { read.pop().unwrap() } else { vec![] };
        let (seen, g, h) = (read.pop().unwrap(), read.pop().unwrap(), read.pop().unwrap());
        let bits = h[header::STATUS as usize];
        let faulted = g[guard::CLAIM as usize] != 0;
        self.oob_seen |= g[guard::SEEN as usize] != 0;
        if bits & status::SHARED == 0 && !faulted {
            // (A run with words deferred took them from the kernel's memory,
            // which holds them already.)
            let regions = seen.iter().map(|w| *w != 0).collect();
            return Ok(Probed::Clean { raw: Raw { records: vec![], total: 0, regions }, whole_words: self.target_words(run.storage | run.arrays) });
        }
        let mut memo = self.ctx.probe_shared.lock().unwrap();
        if bits & status::PROBE_CUT == 0 && !faulted {
            let shared = h[header::SHARED_TARGETS as usize];
            let (storage, arrays) = (shared & self.info.storage_targets(), shared & !self.info.storage_targets());
            let words = bits & status::SHARED_WORKGROUP != 0;
            // The kernel's later launches start deferring what this one
            // shared, as the engine's loop does next.
            memo.insert(self.key(), Some(run.after(&found, storage, arrays)));
            return Ok(Probed::Deferrable { found, words, storage, arrays });
        }
        if bits & status::PROBE_CUT != 0 && !faulted && run.arrays != 0 {
            // The arrays' writes overflowed the log: their words next.
            memo.insert(self.key(), Some(run.words_instead()));
            return Ok(Probed::Overflow);
        }
        log::debug!("ld: probe of `{}`: status {bits:#b}, fault {faulted}, records {}", self.info.name, h[header::COUNT as usize]);
        memo.insert(self.key(), None);
        Ok(Probed::Engine)
    }

    fn flush(&mut self) -> Result<()> {
        GpuBackend::flush(self)
    }

    fn clear_fault(&mut self) -> Result<()> {
        // (The header alone: the tables keep what every run entered.)
        let header = crate::bounds::initial_guard(self.info, self.fuel);
        self.ctx.queue.write_buffer(&self.guard, 0, bytemuck::cast_slice(&header[..guard::WORDS as usize]));
        Ok(())
    }

    fn status(&mut self) -> Result<Status> {
        let records = self.bufs.as_ref().unwrap().records.clone();
        // The guard's record comes back with the header, in one read-back.
        let guard = self.guard.clone();
        let mut both = self.read_back(&[(&records, header::WORDS as u64 * 4), (&guard, guard::WORDS as u64 * 4)])?;
        let g = both.pop().unwrap();
        let h = both.pop().unwrap();
        self.oob_seen |= g[guard::SEEN as usize] != 0;
        if h[header::STATUS as usize] == 0 && g[guard::CLAIM as usize] == 0 {
            self.meta_zeroed = true;
            if cfg!(debug_assertions) {
                self.assert_meta_zeroed()?;
            }
        }
        Ok(Status {
            guard: g.try_into().unwrap(),
            records: h[header::COUNT as usize] as u64,
            bits: h[header::STATUS as usize],
            workgroup: h[header::STATUS_WG as usize],
            extra: h[header::EXTRA as usize] as u64,
            full_tables: h[header::STATUS_TARGETS as usize],
            l1_need: h[header::L1_COUNT as usize],
        })
    }

    /// One read-back, after whatever is queued (check mode's fold): the
    /// count came with the last status.
    fn records(&mut self, st: &Status) -> Result<Raw> {
        let lay = self.layout.clone().unwrap();
        let values = self.bufs.as_ref().unwrap().values.clone();
        let kept = st.records.min(lay.rec_cap as u64);
        let all = self.read(&values, lay.rec_off() as u64 + kept * record::WORDS as u64)?;
        let regions = all[..lay.rec_off() as usize].iter().map(|w| *w != 0).collect();
        let slots_kept: Vec<[u32; record::WORDS as usize]> =
            all[lay.rec_off() as usize..].chunks_exact(record::WORDS as usize).map(|c| c.try_into().unwrap()).collect();
        let total = (st.records as u32).wrapping_add(st.extra as u32) as u64;
        Ok(Raw { records: super::findings::expand(&slots_kept), total, regions })
    }

    fn stats(&self) -> Stats {
        self.stats
    }

    fn out_of_bounds(&mut self, lens: &[u32]) -> Result<Vec<OutOfBounds>> {
        if !self.oob_seen {
            return Ok(vec![]);
        }
        let guard = self.guard.clone();
        let words = self.read(&guard, guard.size() / 4)?;
        Ok(crate::bounds::of_guard(self.info, lens, &words))
    }
}
