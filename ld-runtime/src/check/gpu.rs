//! Check mode on wgpu: the instrumented shaders and `shaders/` driven the
//! same way the CPU reference drives its twin and sweeps, so both reports
//! agree. Level 1 is two dispatches of the whole kernel around one merge
//! and one compare sweep per storage target; level 2 dispatches one region
//! at a time (the state machine saves its locals between regions) with a
//! merge before and a compare after each region's second pass.

use super::cpu::Outcome;
use super::report::{Level, Memory, RaceKind, Record, Unit};
use super::plan::{LevelPlan, Plan};
use super::{CheckOptions, Place, Regions, Target};
use crate::cpu::executor::unlinear;
use crate::cpu::twin::BarrierKind;
use crate::error::{Error, Result};
use crate::gpu::pipeline::{self, Sweeps, Variant};
use crate::gpu::transfer::{read_words, wait};
use crate::gpu::GpuContext;
use crate::kernel::{KernelInfo, ParamKind};
use wgpu::util::DeviceExt;

const DONE: u32 = u32::MAX;
/// Level-1 records carry `LEVEL1 + round` as their region.
const LEVEL1: u32 = u32::MAX - 64;

pub(crate) struct GpuCheck<'a> {
    pub ctx: &'a GpuContext,
    pub info: &'static KernelInfo,
    pub grid: [u32; 3],
    /// User buffers by parameter.
    pub buffers: Vec<Option<&'a wgpu::Buffer>>,
    /// Elements and words per element by parameter.
    pub lens: Vec<(u32, u32)>,
    pub uniforms: &'a [u32],
    pub opts: CheckOptions,
    pub targets: &'a [Target],
    pub plan: &'a Plan,
}

/// Dirty-page flags of level 2: per privatized memory, per workgroup, one
/// word per 1024-word page.
const PAGE: u64 = 64;

struct Bufs {
    dirty: wgpu::Buffer,
    /// Offset and pages per parameter, then per shared array.
    dirty_at: Vec<(u32, u32)>,
    state: wgpu::Buffer,
    log: wgpu::Buffer,
    flags: wgpu::Buffer,
    yields: wgpu::Buffer,
    records: wgpu::Buffer,
    dummy: wgpu::Buffer,
    /// A second unused buffer, for the read-only binding (a buffer cannot be
    /// bound writable and read-only in one dispatch).
    dummy_ro: wgpu::Buffer,
    ubuf: Option<wgpu::Buffer>,
}

impl GpuCheck<'_> {
    fn dev(&self) -> &wgpu::Device {
        &self.ctx.device
    }

    fn workgroups(&self) -> u32 {
        self.grid.iter().product()
    }

    fn total_inv(&self) -> u32 {
        self.workgroups() * self.info.invocations_per_workgroup()
    }

    fn zeroed(&self, label: &str, words: u64) -> wgpu::Buffer {
        self.dev().create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: words.max(4) * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn words(&self, label: &str, w: &[u32]) -> wgpu::Buffer {
        let mut w = w.to_vec();
        if w.len() < 4 {
            w.resize(4, 0);
        }
        self.dev().create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: bytemuck::cast_slice(&w), usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST })
    }

    fn param_words(&self, p: usize) -> u64 {
        let (len, ew) = self.lens[p];
        len as u64 * ew as u64
    }

    /// The kernel's check configuration words (see ld-macros' `wgsl::check`).
    fn kernel_cfg(&self, pass: u32, m: u32, div: u32, load: u32, save: Option<u32>, l2: L2) -> Vec<u32> {
        let half = self.info.state_words * self.total_inv();
        let mut c = vec![pass, m, div, self.opts.warp_size, l2.copies, self.opts.atomic_log as u32, self.total_inv(), load * half, save.unwrap_or(0) * half, save.is_some() as u32];
        c.extend([l2.div, 0, l2.off, l2.size, 0, 0]);
        for p in 0..self.info.params.len() {
            let single = self.targets.iter().any(|t| t.place == Place::Param(p) && t.single);
            c.push(self.lens[p].0);
            c.push(single as u32);
        }
        for &(off, pages) in &self.dirty_layout().0 {
            c.push(off);
            c.push(pages);
        }
        c
    }

    /// Where each memory's dirty flags live (params, then shared arrays), and the total.
    fn dirty_layout(&self) -> (Vec<(u32, u32)>, u64) {
        let n = self.workgroups() as u64;
        let mut at = Vec::new();
        let mut total = 0u64;
        let words = (0..self.info.params.len()).map(|p| self.param_words(p)).chain(self.info.shared.iter().map(|s| (s.len * s.elem_words) as u64));
        for w in words {
            let pages = w.div_ceil(PAGE).max(1);
            at.push((total as u32, pages as u32));
            total += n * pages;
        }
        (at, total)
    }

    fn common(&self) -> Bufs {
        let inv = self.total_inv() as u64;
        let (dirty_at, dirty_words) = self.dirty_layout();
        Bufs {
            dirty: self.zeroed("ld dirty pages", dirty_words),
            dirty_at,
            state: self.zeroed("ld state", 2 * self.info.state_words as u64 * inv),
            log: self.zeroed("ld atomic log", self.opts.atomic_log as u64 * inv),
            flags: self.words("ld flags", &[0, u32::MAX]),
            yields: self.zeroed("ld yields", self.workgroups() as u64),
            records: self.zeroed("ld records", 4 + 8 * self.opts.max_records as u64),
            dummy: self.zeroed("ld unused", 4),
            dummy_ro: self.zeroed("ld unused (read-only)", 4),
            ubuf: (!self.uniforms.is_empty()).then(|| {
                let mut u = self.uniforms.to_vec();
                u.resize(self.uniforms.len().div_ceil(4) * 4, 0);
                self.dev().create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some("ld uniforms"), contents: bytemuck::cast_slice(&u), usage: wgpu::BufferUsages::UNIFORM })
            }),
        }
    }

    /// The kernel's bind group: `private[p]` replaces parameter `p`'s buffer.
    fn kernel_group(&self, pl: &pipeline::Pipeline, b: &Bufs, cfg: &wgpu::Buffer, private: &[Option<&wgpu::Buffer>], shared: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let p = self.info.params.len() as u32;
        let mut entries = Vec::new();
        for (i, info) in self.info.params.iter().enumerate() {
            if matches!(info.kind, ParamKind::Uniform { .. }) {
                continue;
            }
            let buf = private[i].or(self.buffers[i]).unwrap();
            entries.push(wgpu::BindGroupEntry { binding: i as u32, resource: buf.as_entire_binding() });
        }
        if let Some(u) = &b.ubuf {
            entries.push(wgpu::BindGroupEntry { binding: p, resource: u.as_entire_binding() });
        }
        for (k, buf) in [cfg, &b.state, &b.log, &b.flags, &b.yields, &b.dirty].into_iter().enumerate() {
            entries.push(wgpu::BindGroupEntry { binding: p + 1 + k as u32, resource: buf.as_entire_binding() });
        }
        for a in 0..self.info.shared.len() {
            let buf = shared.get(a).copied().unwrap_or(&b.dummy);
            entries.push(wgpu::BindGroupEntry { binding: p + 7 + a as u32, resource: buf.as_entire_binding() });
        }
        self.dev().create_bind_group(&wgpu::BindGroupDescriptor { label: Some(self.info.name), layout: &pl.layout, entries: &entries })
    }

    fn sweep_group(&self, s: &Sweeps, cfg: &wgpu::Buffer, mem: &wgpu::Buffer, b: &Bufs, wrote: &wgpu::Buffer, out: Option<&wgpu::Buffer>) -> wgpu::BindGroup {
        let bufs = [cfg, mem, &b.records, wrote, &b.yields, out.unwrap_or(&b.dummy), &b.dirty, &b.dummy_ro];
        let entries: Vec<_> = bufs.iter().enumerate().map(|(i, buf)| wgpu::BindGroupEntry { binding: i as u32, resource: buf.as_entire_binding() }).collect();
        self.dev().create_bind_group(&wgpu::BindGroupDescriptor { label: Some("ld sweep"), layout: &s.layout, entries: &entries })
    }

    fn fold_group(&self, s: &Sweeps, cfg: &wgpu::Buffer, mem: &wgpu::Buffer, b: &Bufs, out: &wgpu::Buffer, orig: &wgpu::Buffer) -> wgpu::BindGroup {
        let bufs = [cfg, mem, &b.records, &b.dummy, &b.yields, out, &b.dirty, orig];
        let entries: Vec<_> = bufs.iter().enumerate().map(|(i, buf)| wgpu::BindGroupEntry { binding: i as u32, resource: buf.as_entire_binding() }).collect();
        self.dev().create_bind_group(&wgpu::BindGroupDescriptor { label: Some("ld fold"), layout: &s.layout, entries: &entries })
    }

    fn dispatch(&self, enc: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline, group: &wgpu::BindGroup, dims: [u32; 3]) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(dims[0], dims[1], dims[2]);
    }

    fn submit(&self, enc: wgpu::CommandEncoder) -> Result<()> {
        self.ctx.queue.submit([enc.finish()]);
        wait(self.ctx, &format!("checking `{}`", self.info.name)).map_err(|e| match e {
            Error::Timeout { timeout, adapter, .. } => Error::Timeout { kernel: self.info.name, timeout, adapter },
            e => e,
        })
    }

    fn check_flags(&self, b: &Bufs) -> Result<()> {
        let f = read_words(self.ctx, &b.flags)?;
        if f[0] != 0 {
            let inv = f[1];
            return Err(Error::Unsupported(format!(
                "kernel `{}`: invocation {inv} used the results of more than {} atomic operations in one region; check mode replays them from a log of that size: raise `CheckOptions::atomic_log`",
                self.info.name, self.opts.atomic_log
            )));
        }
        Ok(())
    }

    /// Sweep configuration words (see `shaders/common.wgsl`).
    #[allow(clippy::too_many_arguments)]
    fn sweep_cfg(&self, t: u32, w: u32, gstride: u32, kstep: u32, kspan: u32, start_mode: u32, q_mode: u32, target: u32, region: u32, groups: u32, commit: Option<&[u32]>, snapshot: bool, dirty: Option<(u32, u32)>, goff: u32, round: u32) -> Vec<u32> {
        let (doff, pages) = dirty.unwrap_or((DONE, 0));
        // "Across a barrier" needs warps as copies and a `wrote` shared by all memories.
        let cross = dirty.is_some() as u32;
        let mut c = vec![t, w, gstride, kstep, kspan, start_mode, q_mode, target, region, self.opts.max_records as u32, groups, commit.is_some() as u32, snapshot as u32, doff, pages, cross, 0, goff, round];
        let table = commit.unwrap_or(&[]);
        c.push(table.len() as u32);
        c.extend_from_slice(table);
        c
    }

    fn run_sweep(&self, enc: &mut wgpu::CommandEncoder, pipeline: &wgpu::ComputePipeline, s: &Sweeps, cfg: Vec<u32>, mem: &wgpu::Buffer, b: &Bufs, wrote: &wgpu::Buffer, out: Option<&wgpu::Buffer>) {
        let (kspan, groups) = (cfg[4], cfg[10]);
        let cfgb = self.words("ld sweep cfg", &cfg);
        let g = self.sweep_group(s, &cfgb, mem, b, wrote, out);
        // One invocation per word, one 64-invocation workgroup per page.
        self.dispatch(enc, pipeline, &g, [kspan.div_ceil(64).max(1), groups.max(1), 1]);
    }

    /// Fails before allocating anything if a copy set would not fit a buffer.
    fn fits(&self, level1: bool) -> Result<()> {
        let limit = (self.ctx.limits.max_storage_buffer_binding_size as u64).min(self.ctx.limits.max_buffer_size);
        let (batch, m2) = (self.plan.level2_batch, self.plan.level2.copies);
        let mut needs = vec![("the saved invocation state".to_string(), 2 * self.info.state_words as u64 * self.total_inv() as u64 * 4)];
        for t in self.targets {
            let (words, what) = match t.place {
                Place::Param(p) => (self.param_words(p), format!("the copies of `{}`", t.name)),
                Place::Shared(a) => ((self.info.shared[a].len * self.info.shared[a].elem_words) as u64, format!("the per-warp copies of shared `{}`", t.name)),
            };
            let m = self.plan.level1.map_or(1, |p| p.copies);
            let l1 = if level1 && matches!(t.place, Place::Param(_)) && !t.single { 2 + 2 * m } else { 4 };
            let l2 = if t.single { 4 } else { batch * (2 + 2 * m2) };
            needs.push((what, words * l1.max(l2) * 4));
        }
        match needs.into_iter().find(|(_, b)| *b > limit) {
            Some((what, bytes)) => Err(Error::CheckTooLarge { kernel: self.info.name, what, bytes, limit }),
            None => Ok(()),
        }
    }

    /// Deterministic mode: level 2's first pass and merges only, no records.
    pub fn deterministic(&self) -> Result<()> {
        self.fits(false)?;
        let sweeps = pipeline::sweeps(self.ctx)?;
        let b = self.common();
        let storage: Vec<(usize, usize, bool)> = self.targets.iter().enumerate().filter_map(|(i, t)| match t.place {
            Place::Param(p) => Some((i, p, t.single)),
            _ => None,
        }).collect();
        self.level2_with(&sweeps, &b, &storage, true, &[]).map(|_| ())
    }

    pub fn run(&self) -> Result<Outcome> {
        self.fits(true)?;
        let sweeps = pipeline::sweeps(self.ctx)?;
        let b = self.common();
        let mut regions = Regions::new();
        let storage: Vec<(usize, usize, bool)> = self.targets.iter().enumerate().filter_map(|(i, t)| match t.place {
            Place::Param(p) => Some((i, p, t.single)),
            _ => None,
        }).collect();
        let level1_ran = self.plan.level1.is_some();
        let trace = std::env::var_os("LD_CHECK_TRACE").is_some();
        let t0 = std::time::Instant::now();
        let atomics = self.snapshot_atomics()?;
        if let Some(p1) = &self.plan.level1 {
            // Rounds until one finds races (or all, if asked).
            let mut progress = super::progress::Progress::new(p1.rounds_run as u64, format!("ld check `{}` level 1", self.info.name));
            p1.run_rounds(self.opts.all_rounds, |round| {
                progress.tick(round as u64 - 1);
                let before = read_words(self.ctx, &b.records)?[0];
                self.level1(&sweeps, &b, &storage, p1, round)?;
                // Every round (and level 2) starts from the dispatch's atomics.
                self.restore_atomics(&atomics)?;
                Ok(read_words(self.ctx, &b.records)?[0] > before)
            })?;
        }
        let t1 = std::time::Instant::now();
        let histories = self.level2(&sweeps, &b, &storage, &atomics)?;
        if trace {
            eprintln!("ld check trace: level 1 {:.1} ms, level 2 {:.1} ms ({} workgroup runs, {} state words per invocation)", (t1 - t0).as_secs_f64() * 1e3, t1.elapsed().as_secs_f64() * 1e3, histories.len(), self.info.state_words);
        }
        // Static regions in the CPU reference's order: round by round,
        // workgroup by workgroup.
        let mut by_unit = std::collections::BTreeMap::new();
        for (round, wg, regs) in &histories {
            by_unit.insert((*round, *wg), regs.clone());
        }
        for regs in by_unit.values() {
            for (k, r) in regs.iter().enumerate() {
                if *r != (None, None) || (k == 0 && regs.len() == 1) {
                    regions.id(self.info, r.0, r.1);
                }
            }
        }
        // Records → report records.
        let rec = read_words(self.ctx, &b.records)?;
        let count = rec[0] as usize;
        let kept = count.min(self.opts.max_records);
        let mut records = Vec::with_capacity(count);
        for i in 0..kept {
            let r = &rec[4 + i * 8..4 + i * 8 + 8];
            records.push(self.record(r, &by_unit, &mut regions));
        }
        if level1_ran {
            regions.raced[0] |= records.iter().any(|r| r.level == Level::InterWorkgroup);
        }
        // Records beyond the buffer are counted, not detailed.
        records.sort();
        Ok(Outcome { records, total: count as u64, regions, level1_ran })
    }

    fn record(&self, r: &[u32], histories: &std::collections::BTreeMap<(u32, u64), Vec<(Option<u32>, Option<u32>)>>, regions: &mut Regions) -> Record {
        let (kind, target, g, a, bb, word, region) = (r[0], r[1] as usize, r[2], r[3], r[4], r[5], r[6]);
        let t = &self.targets[target];
        let level1 = region >= LEVEL1;
        let round = if level1 { region - LEVEL1 } else { r[7] };
        let p2 = self.plan.level2;
        let p1 = self.plan.level1.unwrap_or(LevelPlan::new(1, 1, None));
        let wg_size = self.info.invocations_per_workgroup();
        let unit = |c: u32| -> Unit {
            if level1 {
                // A shared copy is named by its first workgroup.
                let wg = if t.single { self.owner(t, word) as u64 / wg_size as u64 } else { p1.first_unit(c as u64, round) };
                let w = unlinear(wg, self.grid);
                Unit { workgroup: [w.x, w.y, w.z], warp: None }
            } else {
                let w = unlinear(g as u64, self.grid);
                // A shared copy is named by its first warp.
                let warp = if t.single { (self.owner(t, word) % wg_size) / self.opts.warp_size } else { p2.first_unit(c as u64, round) as u32 };
                Unit { workgroup: [w.x, w.y, w.z], warp: Some(warp) }
            }
        };
        let region_id = if level1 {
            0
        } else {
            let (from, to) = histories[&(round, g as u64)][region as usize];
            let id = regions.id(self.info, from, to);
            regions.raced[id as usize] = true;
            id
        };
        Record {
            kind: if kind & 1 == 0 { RaceKind::WriteWrite } else { RaceKind::ReadWrite },
            level: if level1 { Level::InterWorkgroup } else { Level::InterWarp },
            target: target as u32,
            region: region_id,
            unit_a: unit(a),
            unit_b: (bb != DONE).then(|| unit(bb)),
            word,
            cross: kind & 2 != 0,
            round,
            grouped: !t.single && if level1 { !p1.exact(round) } else { !p2.exact(round) },
        }
    }

    /// The invocation owning a word of an own-element buffer.
    fn owner(&self, t: &Target, word: u32) -> u32 {
        let Place::Param(p) = t.place else { return 0 };
        word / self.lens[p].1
    }

    fn snapshot_atomics(&self) -> Result<Vec<(usize, wgpu::Buffer)>> {
        let mut enc = self.dev().create_command_encoder(&Default::default());
        let mut out = Vec::new();
        for (p, info) in self.info.params.iter().enumerate() {
            if let ParamKind::Atomic { .. } = info.kind {
                let words = self.param_words(p);
                let copy = self.zeroed("ld atomic snapshot", words);
                enc.copy_buffer_to_buffer(self.buffers[p].unwrap(), 0, &copy, 0, words * 4);
                out.push((p, copy));
            }
        }
        self.submit(enc)?;
        Ok(out)
    }

    fn restore_atomics(&self, snap: &[(usize, wgpu::Buffer)]) -> Result<()> {
        let mut enc = self.dev().create_command_encoder(&Default::default());
        for (p, copy) in snap {
            enc.copy_buffer_to_buffer(copy, 0, self.buffers[*p].unwrap(), 0, self.param_words(*p) * 4);
        }
        self.submit(enc)
    }

    /// A copy set `[base, union, copies...]` with every slot = the user's buffer.
    fn copy_set(&self, enc: &mut wgpu::CommandEncoder, p: usize, groups: u64, slots: u64) -> wgpu::Buffer {
        let t = self.param_words(p);
        let set = self.zeroed("ld copies", groups * slots * t);
        for s in 0..groups * slots {
            enc.copy_buffer_to_buffer(self.buffers[p].unwrap(), 0, &set, s * t * 4, t * 4);
        }
        set
    }

    /// One round of level 1: `plan.copies` copies per storage target.
    fn level1(&self, s: &Sweeps, b: &Bufs, storage: &[(usize, usize, bool)], plan: &LevelPlan, round: u32) -> Result<()> {
        let pl = pipeline::get(self.ctx, self.info, Variant::Check1)?;
        let m = plan.copies as u32;
        let div = plan.divisor(round) as u32;
        let mut enc = self.dev().create_command_encoder(&Default::default());
        let mut sets: Vec<Option<wgpu::Buffer>> = (0..self.info.params.len()).map(|_| None).collect();
        for &(_, p, single) in storage {
            let copies = if single { 1 } else { m as u64 };
            sets[p] = Some(self.copy_set(&mut enc, p, 1, 2 + 2 * copies));
        }
        let private: Vec<Option<&wgpu::Buffer>> = sets.iter().map(|s| s.as_ref()).collect();
        let l2 = L2 { copies: 1, div: 1, off: 0, size: self.workgroups() };
        let cfg1 = self.words("ld cfg", &self.kernel_cfg(1, m, div, 0, None, l2));
        let cfg2 = self.words("ld cfg", &self.kernel_cfg(2, m, div, 0, None, l2));
        let g1 = self.kernel_group(&pl, b, &cfg1, &private, &[]);
        let g2 = self.kernel_group(&pl, b, &cfg2, &private, &[]);
        let wrotes: Vec<wgpu::Buffer> = storage.iter().map(|_| self.zeroed("ld wrote", m as u64)).collect();
        self.dispatch(&mut enc, &pl.pipeline, &g1, self.grid);
        for (k, &(ti, p, single)) in storage.iter().enumerate() {
            let (t, w) = (self.param_words(p) as u32, if single { 1 } else { m });
            let cfg = self.sweep_cfg(t, w, 0, 0, t, 1, 0, ti as u32, LEVEL1 + round, 1, None, false, None, 0, round);
            self.run_sweep(&mut enc, &s.merge, s, cfg, sets[p].as_ref().unwrap(), b, &wrotes[k], None);
        }
        self.dispatch(&mut enc, &pl.pipeline, &g2, self.grid);
        for (k, &(ti, p, single)) in storage.iter().enumerate() {
            let (t, w) = (self.param_words(p) as u32, if single { 1 } else { m });
            let cfg = self.sweep_cfg(t, w, 0, 0, t, 1, 0, ti as u32, LEVEL1 + round, 1, None, false, None, 0, round);
            self.run_sweep(&mut enc, &s.compare, s, cfg, sets[p].as_ref().unwrap(), b, &wrotes[k], None);
        }
        self.submit(enc)?;
        self.check_flags(b)
    }

    /// Commit table for a memory: yield value → does that barrier end its epoch.
    fn commit_table(&self, memory: Memory) -> Vec<u32> {
        let max = self.info.barriers.iter().map(|b| b.id + 1).max().unwrap_or(0);
        (0..=max)
            .map(|y| {
                let kind = self.info.barriers.iter().find(|b| b.id + 1 == y).map(|b| b.kind);
                matches!((kind, memory), (Some(BarrierKind::Workgroup), Memory::Workgroup) | (Some(BarrierKind::Storage), Memory::Storage)) as u32
            })
            .collect()
    }

    fn level2(&self, s: &Sweeps, b: &Bufs, storage: &[(usize, usize, bool)], atomics: &[(usize, wgpu::Buffer)]) -> Result<Histories> {
        self.level2_with(s, b, storage, false, atomics)
    }

    /// Level 2: rounds over warps (when a workgroup's warps do not all get a
    /// copy), each round over batches of workgroups, each batch region by
    /// region. The workgroups' final states fold into the user's buffers.
    fn level2_with(&self, s: &Sweeps, b: &Bufs, storage: &[(usize, usize, bool)], deterministic: bool, atomics: &[(usize, wgpu::Buffer)]) -> Result<Histories> {
        let p2 = self.plan.level2;
        let n = self.workgroups();
        let mc = p2.copies as u32;
        let batch = self.plan.level2_batch as u32;
        // The warps' copies of shared arrays live in workgroup memory when
        // they fit (else in the storage copy set: the paper's histogram64 case).
        let wg_bytes: u64 = self.info.shared.iter().filter(|s| s.target).map(|s| mc as u64 * (s.len * s.elem_words) as u64 * 4).sum();
        let fits = !self.info.wgsl_check2_wg.is_empty() && wg_bytes <= self.ctx.limits.max_compute_workgroup_storage_size as u64 && std::env::var("LD_CHECK_SHARED_COPIES").as_deref() != Ok("storage");
        let pl = pipeline::get(self.ctx, self.info, if fits { Variant::Check2Wg(mc) } else { Variant::Check2 })?;
        let trace = std::env::var_os("LD_CHECK_TRACE").is_some();
        if trace {
            eprintln!("ld check trace: level 2 with {mc} copies per workgroup, batches of {batch}; shared copies in {}", if fits { "workgroup memory" } else { "storage" });
        }
        // Copy sets for one batch: per workgroup [base, union, copies, pass-2
        // copies]; own-element buffers one set [base, union, copy, start] for
        // the grid. `outs`: where batches fold, in workgroup order.
        let slots = 2 + 2 * mc as u64;
        let mut sets: Vec<Option<wgpu::Buffer>> = (0..self.info.params.len()).map(|_| None).collect();
        let mut outs: Vec<Option<wgpu::Buffer>> = (0..self.info.params.len()).map(|_| None).collect();
        for &(_, p, single) in storage {
            let groups = if single { 1 } else { batch as u64 };
            sets[p] = Some(self.zeroed("ld copies", groups * (if single { 4 } else { slots }) * self.param_words(p)));
            if !single {
                outs[p] = Some(self.zeroed("ld level-2 result", self.param_words(p)));
            }
        }
        let shared: Vec<wgpu::Buffer> = self
            .info
            .shared
            .iter()
            .map(|sh| self.zeroed("ld shared", batch as u64 * if sh.target { slots } else { 1 } * (sh.len * sh.elem_words) as u64))
            .collect();
        let private: Vec<Option<&wgpu::Buffer>> = sets.iter().map(|s| s.as_ref()).collect();
        let shared_refs: Vec<&wgpu::Buffer> = shared.iter().collect();
        let wg_size = self.info.invocations_per_workgroup();
        // What each memory's sweeps look at.
        struct Sweep<'b> {
            target: u32,
            mem: &'b wgpu::Buffer,
            t: u32,
            w: u32,
            gstride: u32,
            kstep: u32,
            kspan: u32,
            table: Vec<u32>,
            /// Own `wrote` flags (single-copy memories); else the shared one.
            wrote: Option<wgpu::Buffer>,
            dirty: Option<(u32, u32)>,
        }
        let mut list = Vec::new();
        // One `wrote` for all per-warp memories: "did copy w write anything".
        let wrote_all = self.zeroed("ld wrote", batch as u64 * mc as u64);
        for &(ti, p, single) in storage {
            let t = self.param_words(p) as u32;
            let (w, gstride, kstep, kspan) = if single {
                let chunk = wg_size * self.lens[p].1;
                (1, 0, chunk, chunk)
            } else {
                (mc, (2 + 2 * mc) * t, 0, t)
            };
            let dirty = (!single).then(|| b.dirty_at[p]);
            let wrote = if single { Some(self.zeroed("ld wrote", batch as u64)) } else { None };
            list.push(Sweep { target: ti as u32, mem: sets[p].as_ref().unwrap(), t, w, gstride, kstep, kspan, table: self.commit_table(Memory::Storage), wrote, dirty });
        }
        for (ti, t) in self.targets.iter().enumerate() {
            if let Place::Shared(a) = t.place {
                let words = self.info.shared[a].len * self.info.shared[a].elem_words;
                let dirty = Some(b.dirty_at[self.info.params.len() + a]);
                list.push(Sweep { target: ti as u32, mem: &shared[a], t: words, w: mc, gstride: (2 + 2 * mc) * words, kstep: 0, kspan: words, table: self.commit_table(Memory::Workgroup), wrote: None, dirty });
            }
        }
        let mut histories: Histories = Vec::new();
        let mut progress = super::progress::Progress::new((p2.rounds_run as u64) * (n as u64).div_ceil(batch as u64), format!("ld check `{}` level 2", self.info.name));
        let mut steps = 0;
        p2.run_rounds(self.opts.all_rounds, |round| {
            let records_before = read_words(self.ctx, &b.records)?[0];
            if round > 1 {
                self.restore_atomics(atomics)?;
            }
            let div = p2.divisor(round) as u32;
            // Fresh state for the round; the result folds from the input.
            let mut enc = self.dev().create_command_encoder(&Default::default());
            enc.clear_buffer(&b.state, 0, None);
            for &(_, p, single) in storage {
                let t = self.param_words(p);
                if single {
                    for slot in 0..4 {
                        enc.copy_buffer_to_buffer(self.buffers[p].unwrap(), 0, sets[p].as_ref().unwrap(), slot * t * 4, t * 4);
                    }
                } else {
                    enc.copy_buffer_to_buffer(self.buffers[p].unwrap(), 0, outs[p].as_ref().unwrap(), 0, t * 4);
                }
            }
            self.submit(enc)?;
            for off in (0..n).step_by(batch as usize) {
                progress.tick(steps);
                steps += 1;
                let size = batch.min(n - off);
                // The batch's copy sets start as the dispatch's input (shared: zero).
                let mut enc = self.dev().create_command_encoder(&Default::default());
                for &(_, p, single) in storage {
                    if !single {
                        let t = self.param_words(p);
                        for slot in 0..size as u64 * slots {
                            enc.copy_buffer_to_buffer(self.buffers[p].unwrap(), 0, sets[p].as_ref().unwrap(), slot * t * 4, t * 4);
                        }
                    }
                }
                for sh in &shared {
                    enc.clear_buffer(sh, 0, None);
                }
                enc.clear_buffer(&b.dirty, 0, None);
                self.submit(enc)?;
                let l2 = L2 { copies: mc, div, off, size };
                let groups: Vec<[wgpu::BindGroup; 2]> = (0..2u32)
                    .map(|h| {
                        let c1 = self.words("ld cfg", &self.kernel_cfg(1, 0, 1, h, Some(1 - h), l2));
                        let c2 = self.words("ld cfg", &self.kernel_cfg(2, 0, 1, h, None, l2));
                        [self.kernel_group(&pl, b, &c1, &private, &shared_refs), self.kernel_group(&pl, b, &c2, &private, &shared_refs)]
                    })
                    .collect();
                let mut history: Vec<Vec<(Option<u32>, Option<u32>)>> = Vec::new();
                let mut from: Vec<Option<u32>> = vec![None; size as usize];
                let mut finished = vec![false; size as usize];
                let mut h = 0usize;
                loop {
                    let region = history.len() as u32;
                    let mut enc = self.dev().create_command_encoder(&Default::default());
                    self.dispatch(&mut enc, &pl.pipeline, &groups[h][0], self.grid);
                    enc.clear_buffer(&wrote_all, 0, None);
                    for sw in &list {
                        let wrote = sw.wrote.as_ref().unwrap_or(&wrote_all);
                        enc.clear_buffer(wrote, 0, None);
                        let cfg = self.sweep_cfg(sw.t, sw.w, sw.gstride, sw.kstep, sw.kspan, 0, deterministic as u32, sw.target, region, size, None, false, sw.dirty, off, round);
                        self.run_sweep(&mut enc, &s.merge, s, cfg, sw.mem, b, wrote, None);
                    }
                    if !deterministic {
                        self.dispatch(&mut enc, &pl.pipeline, &groups[h][1], self.grid);
                    }
                    for sw in &list {
                        let cfg = self.sweep_cfg(sw.t, sw.w, sw.gstride, sw.kstep, sw.kspan, 0, deterministic as u32, sw.target, region, size, Some(&sw.table), true, sw.dirty, off, round);
                        let wrote = sw.wrote.as_ref().unwrap_or(&wrote_all);
                        self.run_sweep(&mut enc, &s.compare, s, cfg.clone(), sw.mem, b, wrote, None);
                        if let Some((_, pages)) = sw.dirty {
                            let cfgb = self.words("ld clear cfg", &cfg);
                            let g = self.sweep_group(s, &cfgb, sw.mem, b, wrote, None);
                            self.dispatch(&mut enc, &s.clear, &g, [pages.div_ceil(64), size, 1]);
                        }
                    }
                    self.submit(enc)?;
                    self.check_flags(b)?;
                    let yields = read_words(self.ctx, &b.yields)?;
                    let yields = &yields[off as usize..(off + size) as usize];
                    let mut row = Vec::with_capacity(size as usize);
                    for g in 0..size as usize {
                        let to = (yields[g] != DONE).then(|| yields[g] - 1);
                        // A workgroup that finished in an earlier region took no part.
                        row.push(if finished[g] { (None, None) } else { (from[g], to) });
                        if !finished[g] {
                            from[g] = to;
                        }
                        finished[g] |= yields[g] == DONE;
                    }
                    history.push(row);
                    h ^= 1;
                    if finished.iter().all(|f| *f) {
                        break;
                    }
                }
                for g in 0..size {
                    histories.push((round, (off + g) as u64, history.iter().map(|row| row[g as usize]).collect()));
                }
                // Fold this batch's final states, in workgroup order.
                let mut enc = self.dev().create_command_encoder(&Default::default());
                for &(_, p, single) in storage {
                    if !single {
                        let t = self.param_words(p) as u32;
                        let cfg = self.sweep_cfg(t, mc, (2 + 2 * mc) * t, 0, t, 0, 0, 0, 0, size, None, false, None, 0, round);
                        let cfgb = self.words("ld fold cfg", &cfg);
                        let g = self.fold_group(s, &cfgb, sets[p].as_ref().unwrap(), b, outs[p].as_ref().unwrap(), self.buffers[p].unwrap());
                        self.dispatch(&mut enc, &s.fold, &g, [t.div_ceil(256).max(1), 1, 1]);
                    }
                }
                self.submit(enc)?;
            }
            Ok(read_words(self.ctx, &b.records)?[0] > records_before)
        })?;
        // The result: folded buffers, and own-element buffers' base.
        let mut enc = self.dev().create_command_encoder(&Default::default());
        for &(_, p, single) in storage {
            let t = self.param_words(p);
            let src = if single { sets[p].as_ref().unwrap() } else { outs[p].as_ref().unwrap() };
            enc.copy_buffer_to_buffer(src, 0, self.buffers[p].unwrap(), 0, t * 4);
        }
        self.submit(enc)?;
        Ok(histories)
    }
}

/// Per (round, workgroup): the (opening, closing) barrier of each region it ran.
type Histories = Vec<(u32, u64, Vec<(Option<u32>, Option<u32>)>)>;

/// Level 2's batch and warp mapping, for the kernel's configuration.
#[derive(Clone, Copy)]
struct L2 {
    copies: u32,
    div: u32,
    off: u32,
    size: u32,
}

/// Times the checking shaders on a synthetic copy set next to a plain
/// buffer copy of the same bytes, for `benches/` (the note's "per MiB" figures).
#[doc(hidden)]
pub mod bench {
    use super::*;
    use crate::runtime::Runtime;
    use std::time::{Duration, Instant};

    pub struct SweepBench {
        ctx: std::sync::Arc<GpuContext>,
        set: wgpu::Buffer,
        copy_dst: wgpu::Buffer,
        words: u32,
        copies: u32,
        groups: [wgpu::BindGroup; 2],
        sweeps: std::sync::Arc<Sweeps>,
    }

    impl SweepBench {
        /// A level-2-shaped set: one group of `copies` copies of `words` words.
        pub fn new(rt: &Runtime, words: u32, copies: u32) -> Result<Self> {
            let ctx = rt.gpu.clone().ok_or_else(|| Error::Unsupported("the sweep bench needs a GPU runtime".into()))?;
            let sweeps = pipeline::sweeps(&ctx)?;
            let total = (2 + 2 * copies as u64) * words as u64;
            let data: Vec<u32> = (0..total).map(|i| (i % 7 == 0) as u32 * i as u32).collect();
            let mk = |label: &str, w: &[u32]| ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: bytemuck::cast_slice(w), usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST });
            let set = mk("bench set", &data);
            let copy_dst = mk("bench copy", &data);
            let small = |label: &str| mk(label, &[0u32; 8]);
            let (rec, wrote, yields, dirty, dummy, orig) = (small("rec"), mk("wrote", &vec![0u32; copies as usize]), small("yields"), small("dirty"), small("dummy"), small("orig"));
            let make_group = |cfg: &[u32]| {
                let cfgb = mk("cfg", cfg);
                let bufs = [&cfgb, &set, &rec, &wrote, &yields, &dummy, &dirty, &orig];
                let entries: Vec<_> = bufs.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() }).collect();
                ctx.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &sweeps.layout, entries: &entries })
            };
            let cfg = |commit: u32| vec![words, copies, 0, 0, words, 0, 0, 0, 0, 0, 1, commit, 0, u32::MAX, 0, 0, 0, 0, 1, 0];
            let groups = [make_group(&cfg(0)), make_group(&cfg(0))];
            Ok(SweepBench { ctx, set, copy_dst, words, copies, groups, sweeps })
        }

        /// Bytes of copies one sweep reads.
        pub fn bytes(&self) -> u64 {
            self.words as u64 * self.copies as u64 * 4
        }

        fn time(&self, f: impl FnOnce(&mut wgpu::CommandEncoder)) -> Result<Duration> {
            let mut enc = self.ctx.device.create_command_encoder(&Default::default());
            f(&mut enc);
            let t = Instant::now();
            self.ctx.queue.submit([enc.finish()]);
            wait(&self.ctx, "timing a sweep")?;
            Ok(t.elapsed())
        }

        fn sweep(&self, p: &wgpu::ComputePipeline, g: &wgpu::BindGroup) -> Result<Duration> {
            self.time(|enc| {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(p);
                pass.set_bind_group(0, g, &[]);
                pass.dispatch_workgroups(self.words.div_ceil(64), 1, 1);
            })
        }

        pub fn merge(&self) -> Result<Duration> {
            self.sweep(&self.sweeps.merge, &self.groups[0])
        }

        pub fn compare(&self) -> Result<Duration> {
            self.sweep(&self.sweeps.compare, &self.groups[1])
        }

        /// `copy_buffer_to_buffer` of the copies' bytes: the device's floor.
        pub fn copy(&self) -> Result<Duration> {
            let bytes = self.bytes();
            self.time(|enc| enc.copy_buffer_to_buffer(&self.set, 0, &self.copy_dst, 0, bytes))
        }
    }
}
