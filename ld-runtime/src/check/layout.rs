//! From a launch to the engine's memory: how many copies per workgroup, how
//! many workgroups per dispatch, how large each table and record buffer
//! is, under the memory budget and the device's binding limit. The
//! layout itself (offsets, roles) is `ld_shaders::abi`'s; this module only
//! chooses its sizes, and grows them when a run reports that one was short.

use super::plan::{LevelPlan, Plan};
use super::{CheckOptions, DEFAULT_BUDGET};
use crate::error::{Error, Result};
use crate::kernel::{KernelInfo, TargetPlace};
use ld_shaders::abi::{self, header, Roles, Shape, SlotLayout, PAGE};

/// The capacities a run may find too small (the engine then grows them
/// and runs again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Caps {
    /// Per target: table entries (storage targets; ignored for shared).
    pub entries: Vec<u32>,
    /// Per target: a direct-mapped table, one entry per page of the buffer.
    pub direct: Vec<bool>,
    pub l1: u32,
    /// Blocks of the pool of copy pages, where deterministic mode runs one
    /// invocation per warp (`abi::pool`); 0: [`POOL_BLOCKS_PER_COPY`] per
    /// copy and storage target.
    pub pool: u32,
}

/// Pages a copy (one invocation) writes per storage target, at first: a
/// run that needs more says so and runs again with four times the pool.
pub(crate) const POOL_BLOCKS_PER_COPY: u32 = 8;

/// Everything the backends need to lay the engine's memory out.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub info: &'static KernelInfo,
    pub grid: [u32; 3],
    pub deterministic: bool,
    pub warp_size: u32,
    pub roles: Roles,
    pub shapes: Vec<Shape>,
    pub slot: SlotLayout,
    pub caps: Caps,
    pub batch: u32,
    pub rec_cap: u32,
    pub plan: Plan,
    /// The storage targets left in place (a bit each): the kernel accesses
    /// them at each invocation's own element of this grid
    /// (`KernelInfo::in_place`), so they have no table and no check.
    pub in_place: u32,
}

/// What bounds an allocation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// The largest buffer one binding may view.
    pub binding: u64,
    /// The most workgroups a batch holds, and the most bytes its slots
    /// take (but two workgroups' at least): `Limits::on_cpu` on a CPU
    /// device, unbounded on a GPU, where the budget decides.
    pub batch: u64,
    pub batch_bytes: u64,
}

impl Limits {
    pub fn on_gpu(binding: u64) -> Limits {
        Limits { binding, batch: u64::MAX, batch_bytes: u64::MAX }
    }

    /// A CPU runs a few workgroups at once, a thread each: slots beyond
    /// that only cost memory, which a first check pays for in page faults
    /// and which, over what `check::gpu` keeps between launches, the next
    /// launch allocates and clears again: a few slots per thread and
    /// batches of a bounded size keep a CPU's checks fast, most of all
    /// where a deterministic run keeps a layout per kernel.
    pub fn on_cpu(binding: u64) -> Limits {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        Limits { binding, batch: 32 * threads, batch_bytes: 64 << 20 }
    }
}

impl Layout {
    pub fn workgroups(&self) -> u32 {
        self.grid.iter().product()
    }

    /// Barriers, and the size of the table of regions seen.
    pub fn barriers(&self) -> u32 {
        self.info.barriers.len() as u32
    }

    /// The values buffer starts with the table of regions seen, then the
    /// race records; the slots follow at `val_base`.
    pub fn rec_off(&self) -> u32 {
        (self.barriers() + 1) * (self.barriers() + 1)
    }

    pub fn val_base(&self) -> u64 {
        self.rec_off() as u64 + self.rec_cap as u64 * abi::record::WORDS as u64
    }

    pub fn record_words(&self) -> u64 {
        self.val_base() + header::WORDS as u64
    }

    /// Words of the values buffer: records, then one batch of slots.
    pub fn values_words(&self) -> u64 {
        self.val_base() + self.batch as u64 * self.slot.slot_values
    }

    /// Level 1: storage targets' page heads, record headers, then the
    /// list of the pages with records (`l1_cap` words).
    pub fn l1_meta_words(&self) -> u64 {
        self.l1_pages_off() + self.caps.l1 as u64
    }

    fn l1_pages_off(&self) -> u64 {
        self.slot.heads + self.caps.l1 as u64 * abi::l1::WORDS as u64
    }

    pub fn l1_page_words(&self) -> u64 {
        self.caps.l1 as u64 * PAGE as u64
    }

    /// Identifies where this layout puts words in the values buffer: a
    /// buffer a layout of another signature used must be cleared first.
    pub fn signature(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.val_base(), self.slot.slot_values, &self.slot.targets.iter().map(|t| bytemuck::bytes_of(t).to_vec()).collect::<Vec<_>>()).hash(&mut h);
        h.finish()
    }

    /// The mode this layout serves.
    pub fn mode(&self) -> crate::launch::Mode {
        if self.deterministic {
            crate::launch::Mode::Deterministic
        } else {
            crate::launch::Mode::Check
        }
    }

    /// Whether level 1 has anything to check: a storage target not left
    /// in place.
    pub fn has_storage_targets(&self) -> bool {
        checked_storage(self.info, self.in_place)
    }

    /// Whether the launch leaves every target in place (no workgroup
    /// array, every storage target at each invocation's own element): no
    /// plain store can race, and the kernel runs as written
    /// (`Backend::native`).
    pub fn nothing_to_check(&self) -> bool {
        (0..self.info.targets.len()).all(|t| self.in_place >> t & 1 != 0)
    }

    /// The parameters a run writes as it goes, which every run again and
    /// every failure puts back (`Backend::snapshot`): the atomic buffers
    /// and the targets left in place.
    pub fn live(&self) -> Vec<usize> {
        let in_place = self.info.targets.iter().enumerate().filter(|(t, _)| self.in_place >> t & 1 != 0);
        let mut out: Vec<usize> = in_place.filter_map(|(_, t)| if let TargetPlace::Param(p) = t { Some(*p) } else { None }).collect();
        out.extend(self.info.params.iter().enumerate().filter(|(_, p)| matches!(p.kind, crate::kernel::ParamKind::Atomic { .. })).map(|(p, _)| p));
        out.sort_unstable();
        out
    }

    /// What the probe writes in place, which a probe that
    /// found a shared word must put back: `live`, and every storage target.
    pub fn probed(&self) -> Vec<usize> {
        let mut out = self.live();
        out.extend(self.info.targets.iter().filter_map(|t| if let TargetPlace::Param(p) = t { Some(*p) } else { None }));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The configuration of one dispatch (`wg_offset..wg_offset + wg_count`).
    /// `stamp`: unique to the dispatch among all of the check's.
    pub fn config(&self, mode: u32, round: u32, wg_offset: u32, wg_count: u32, target_id: u32, stamp: u32) -> Vec<u8> {
        let l2 = self.plan.level2;
        let c = abi::Config {
            mode,
            warp_size: self.warp_size,
            copies: self.roles.copies,
            copy_div: l2.divisor(round.min(l2.rounds)) as u32,
            round,
            grid_x: self.grid[0],
            grid_y: self.grid[1],
            grid_z: self.grid[2],
            wg_offset,
            wg_count,
            rec_cap: self.rec_cap,
            rec_off: self.rec_off(),
            val_base: self.val_base() as u32,
            barriers: self.barriers(),
            set_pages: self.roles.pages,
            role_p: self.roles.p,
            slot_values: self.slot.slot_values as u32,
            slot_meta: self.slot.slot_meta as u32,
            list_off: self.slot.list_off as u32,
            list_cap: self.slot.list_cap as u32,
            items_off: self.slot.items_off as u32,
            entries_total: self.slot.list_cap as u32,
            stamp,
            l1_cap: self.caps.l1,
            l1_headers: self.slot.heads as u32,
            l1_pages: self.l1_pages_off() as u32,
            tag_groups: self.roles.tag_groups,
            pool_cap: self.slot.pool_cap,
            pool_off: self.slot.pool_off as u32,
            target_id,
            canary: 2,
            // Counted by `config_bytes`.
            targets: 0,
        };
        abi::config_bytes(c, &self.slot.targets)
    }
}

/// The targets `info` leaves in place on `grid`.
pub(crate) fn in_place(info: &KernelInfo, grid: [u32; 3]) -> u32 {
    info.in_place.on(grid, info.invocations_per_workgroup())
}

/// Whether a storage target is checked (not left in place).
fn checked_storage(info: &KernelInfo, in_place: u32) -> bool {
    info.targets.iter().enumerate().any(|(t, p)| matches!(p, TargetPlace::Param(_)) && in_place >> t & 1 == 0)
}

fn next_pow2(x: u64) -> u32 {
    x.max(1).next_power_of_two().min(1 << 30) as u32
}

/// The first capacities to try. `words[t]`: target t's words. A storage
/// table maps every page of its buffer directly (no hashing, no claims,
/// never full) when that costs at most a quarter of the budget over all
/// workgroups; else it is a hash table with room for the pages a
/// workgroup writing one element per invocation touches, twice over.
pub(crate) fn initial_caps(info: &KernelInfo, grid: [u32; 3], words: &[u64], opts: &CheckOptions) -> Caps {
    let n: u64 = grid.iter().map(|&d| d as u64).product();
    let inv = info.invocations_per_workgroup() as u64;
    let warps = inv.div_ceil(opts.warp_size_for(inv as u32) as u64);
    // Pages per entry in check mode: B, P and a written-flag page per copy,
    // the read page, the lane tags (two pages per copy at warp size 32),
    // the touched page and the words to visit.
    let entry_bytes = (4 + 4 * warps) * PAGE as u64 * 4;
    let budget = opts.memory_budget.unwrap_or(DEFAULT_BUDGET);
    let (mut entries, mut direct, mut pages_of) = (Vec::new(), Vec::new(), Vec::new());
    let kept = in_place(info, grid);
    for (i, (t, &w)) in info.targets.iter().zip(words).enumerate() {
        let TargetPlace::Param(p) = t else {
            entries.push(0);
            direct.push(false);
            pages_of.push(None);
            continue;
        };
        // A target left in place has no table (and so no level-1 records).
        if kept >> i & 1 != 0 {
            entries.push(0);
            direct.push(true);
            pages_of.push(None);
            continue;
        }
        let ew = match &info.params[*p].kind {
            crate::kernel::ParamKind::Storage { elem, .. } => elem.words as u64,
            _ => 1,
        };
        let pages = w.div_ceil(PAGE as u64).max(1);
        let d = pages * entry_bytes * n <= budget / 4;
        let e = if d { pages as u32 } else { next_pow2(2 * (inv * ew).div_ceil(PAGE as u64) + 2).min(next_pow2(2 * (pages + 1))) };
        entries.push(e);
        direct.push(d);
        pages_of.push(Some(pages as u32));
    }
    with_l1_for_tables(Caps { entries, direct, l1: 0, pool: 0 }, grid, pages_of.into_iter(), opts)
}

/// Each target's pages where it is a storage buffer (None for workgroup
/// arrays), as [`with_l1_for_tables`] takes them.
pub(crate) fn storage_pages(shapes: &[Shape]) -> impl Iterator<Item = Option<u32>> + '_ {
    shapes.iter().map(|s| matches!(s, Shape::Storage { .. }).then(|| s.pages()))
}

/// Level 1's records for `wanted` (every workgroup publishing every page its
/// tables hold): at most an eighth of the budget at first (a run that needs
/// more says how many, and runs again with them).
fn l1_records(wanted: u64, budget: u64) -> u32 {
    let l1_max = budget / 8 / (2 * PAGE as u64 * 4);
    wanted.min(l1_max).clamp(1, u32::MAX as u64) as u32
}

/// `caps` with room for the level-1 records of tables of `caps.entries`
/// (`pages`: each storage target's, None for workgroup arrays): every
/// workgroup may publish every page its table holds. Grown tables need it
/// too: a run whose tables were full published fewer pages than it will,
/// so its count would only ask for another run.
pub(crate) fn with_l1_for_tables(mut caps: Caps, grid: [u32; 3], pages: impl Iterator<Item = Option<u32>>, opts: &CheckOptions) -> Caps {
    let n: u64 = grid.iter().map(|&d| d as u64).product();
    let wanted = pages.zip(&caps.entries).filter_map(|(p, &e)| p.map(|p| n * p.min(e) as u64)).sum();
    caps.l1 = caps.l1.max(l1_records(wanted, opts.memory_budget.unwrap_or(DEFAULT_BUDGET)));
    caps
}

/// The pool's blocks for `roles` (none but in deterministic mode at one
/// invocation per warp): as `caps` says, at most one per copy and storage
/// entry (every copy writing every page it may hold).
fn pool_blocks(caps: &Caps, shapes: &[Shape], roles: Roles) -> u32 {
    if !roles.last_writers() {
        return 0;
    }
    let storage: Vec<u64> = shapes.iter().filter(|s| matches!(s, Shape::Storage { .. })).map(|s| s.entries() as u64).collect();
    let most = roles.copies as u64 * storage.iter().sum::<u64>();
    let want = if caps.pool == 0 { (POOL_BLOCKS_PER_COPY * roles.copies) as u64 * storage.len() as u64 } else { caps.pool as u64 };
    want.min(most).min(u32::MAX as u64) as u32
}

/// Sizes the engine for a launch. `words[t]`: target t's words.
pub(crate) fn layout(
    info: &'static KernelInfo,
    grid: [u32; 3],
    words: &[u64],
    opts: &CheckOptions,
    caps: Caps,
    limits: Limits,
    deterministic: bool,
) -> Result<Layout> {
    let budget = opts.memory_budget.unwrap_or(DEFAULT_BUDGET);
    let n: u64 = grid.iter().map(|&d| d as u64).product();
    let wg = info.invocations_per_workgroup();
    let warps = wg.div_ceil(opts.warp_size_for(wg)) as u64;
    let shapes: Vec<Shape> = info
        .targets
        .iter()
        .zip(words)
        .zip(caps.entries.iter().zip(&caps.direct))
        .map(|((t, &w), (&e, &direct))| match t {
            TargetPlace::Param(_) => Shape::Storage { words: w as u32, entries: e, direct },
            TargetPlace::Shared(_) => Shape::Shared { words: w as u32 },
        })
        .collect();
    let in_place = in_place(info, grid);
    let has_storage = checked_storage(info, in_place);
    let probe_with = |roles: Roles, rec_cap: u32, caps: &Caps| Layout {
        info,
        grid,
        deterministic,
        warp_size: opts.warp_size_for(wg),
        roles,
        shapes: shapes.clone(),
        slot: abi::slot_layout(&shapes, roles, pool_blocks(caps, &shapes, roles)),
        caps: caps.clone(),
        batch: 1,
        rec_cap,
        plan: Plan { budget, level1: None, level2: LevelPlan::new(warps, roles.copies as u64, None), batch: 1, bytes: 0 },
        in_place,
    };
    let probe = |roles: Roles, rec_cap: u32| probe_with(roles, rec_cap, &caps);
    // Race records take at most an eighth of the budget (the count stays exact).
    let rec_cap_for = |budget: u64| {
        if deterministic {
            0
        } else {
            opts.max_records.min((budget / 8 / (4 * abi::record::WORDS as u64)).max(256) as usize).min(u32::MAX as usize / 8) as u32
        }
    };
    let rec_cap = rec_cap_for(budget);
    let fixed = |l: &Layout| 4 * (l.record_words() + l.l1_meta_words() + l.l1_page_words() * if deterministic { 1 } else { 2 });
    let slot_bytes = |l: &Layout| 4 * (l.slot.slot_values + l.slot.slot_meta);
    // Copies per workgroup: one per warp unless asked or forced to fewer.
    // Deterministic mode needs every warp on its own copy.
    // Two copies at least: warps sharing one copy would never be separated.
    let want = if deterministic { warps } else { opts.copies.map_or(warps, |c| (c as u64).clamp(2.min(warps), warps)) } as u32;
    let mut copies = want;
    let mut layout = loop {
        let roles = if deterministic { Roles::deterministic(copies) } else { Roles::check(copies) }.tagged(opts.warp_size_for(wg));
        let l = probe(roles, rec_cap);
        let fits = fixed(&l) + slot_bytes(&l) <= budget && 4 * l.slot.slot_values.max(l.slot.slot_meta) <= limits.binding;
        if fits || deterministic || copies <= 2 || opts.copies.is_some() {
            break l;
        }
        copies -= 1;
    };
    let one = slot_bytes(&layout);
    let room = budget.saturating_sub(fixed(&layout));
    if one > room || 4 * layout.slot.slot_values.max(layout.slot.slot_meta) > limits.binding {
        let (what, limit, name) = if one > room {
            ("the copies of one workgroup's targets plus the engine's records", budget, "memory budget")
        } else {
            ("one workgroup's copies", limits.binding, "device's binding size")
        };
        // The race records and level 1's grow with the budget (an eighth
        // of it each): the budget that fits is where one workgroup and the
        // records at that budget fit, a fixed point the sum reaches from
        // below.
        let at = |budget: u64| {
            let caps = with_l1_for_tables(caps.clone(), grid, storage_pages(&shapes), &CheckOptions { memory_budget: Some(budget), ..*opts });
            fixed(&probe_with(layout.roles, rec_cap_for(budget), &caps))
        };
        let needed = if one > room {
            let mut fits = fixed(&layout) + one;
            loop {
                let next = at(fits) + one;
                if next <= fits {
                    break fits;
                }
                fits = next;
            }
        } else {
            one
        };
        return Err(Error::CheckMemory {
            kernel: info.name,
            mode: layout.mode(),
            what: what.into(),
            needed,
            limit,
            limit_name: name,
            advice: if deterministic {
                "raise the budget, or use a larger warp size (fewer copies)".into()
            } else {
                "raise the budget (CheckOptions::memory_budget, --memory-budget), use a larger warp size, or fewer copies (CheckOptions::copies: the warps are then checked in rounds)".into()
            },
        });
    }
    for (what, words) in
        [("the race records", layout.record_words()), ("level 1's page records", layout.l1_page_words()), ("level 1's lists", layout.l1_meta_words())]
    {
        if 4 * words > limits.binding {
            return Err(Error::CheckMemory {
                kernel: info.name,
                mode: layout.mode(),
                what: what.into(),
                needed: 4 * words,
                limit: limits.binding,
                limit_name: "device's binding size",
                advice: "check fewer workgroups per launch, or lower CheckOptions::max_records".into(),
            });
        }
    }
    let by_budget = room / one.max(1);
    let by_binding = (limits.binding / 4).saturating_sub(layout.val_base()) / layout.slot.slot_values.max(layout.slot.slot_meta).max(1);
    let by_device = limits.batch.min((limits.batch_bytes / one.max(1)).max(2));
    let batch = n.min(by_budget).min(by_binding).min(by_device).max(1);
    layout.batch = batch as u32;
    let level2 = LevelPlan::new(warps, layout.roles.copies as u64, if deterministic { None } else { opts.max_rounds });
    let level1 = (has_storage && n > 1).then(|| LevelPlan::new(n, n, None));
    let bytes = fixed(&layout) + batch * one;
    layout.plan = Plan { budget, level1, level2, batch, bytes };
    Ok(layout)
}
