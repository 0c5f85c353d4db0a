//! The CPU executor's schedule, fixed and documented so results reproduce:
//!
//! - Workgroups run in parallel on rayon's pool (`RAYON_NUM_THREADS=1` runs
//!   them one after another in linear id order).
//! - Inside a workgroup, invocations run one at a time in local-index order,
//!   each until its next barrier or its end; when all have arrived, the next
//!   round starts. Invocations of a workgroup are thus serialised in a fixed
//!   order, and kernels without races between workgroups give the same
//!   result on every run and every thread count.
//! - Every access is bounds-checked; the first fault (lowest workgroup) is
//!   reported with the invocation, the memory, the index and the source line.
//!   Under WGSL's rule (`Bounds::Clamp`) the run goes on instead, and each
//!   invocation's first index out of bounds goes to the launch's log.
//! - Every loop iteration and branch burns fuel; an invocation that runs
//!   out is reported as not terminating.
//! - Barrier divergence (invocations of one workgroup at different barriers,
//!   or some finished while others wait) is reported: on a GPU it hangs.
//!
//! `Workgroup` is also what check mode drives region by region, giving each
//! warp its own memory.

use super::group::{Group, Round};
use super::twin::{BarrierKind, Fault, Ids, Mem, Monitor, Region, SharedMem, StorageView, Targets, UVec3};
use crate::kernel::KernelInfo;
use rayon::prelude::*;

pub struct CpuLaunch<'a> {
    pub info: &'static KernelInfo,
    pub grid: [u32; 3],
    /// Per kernel parameter: the words bound to it (`None` for scalars).
    pub storage: Vec<Option<StorageView<'a>>>,
    pub uniforms: Vec<u32>,
    /// Loop iterations and branches allowed per invocation.
    pub fuel: u64,
    /// Where invocations indexed out of bounds and went on (a kernel under
    /// WGSL's rule, `Bounds::Clamp`; under Rust's, such an index faults).
    pub oob: crate::bounds::Log,
}

impl<'a> CpuLaunch<'a> {
    pub fn new(info: &'static KernelInfo, grid: [u32; 3], storage: Vec<Option<StorageView<'a>>>, uniforms: Vec<u32>, fuel: u64) -> Self {
        CpuLaunch { info, grid, storage, uniforms, fuel, oob: Default::default() }
    }

    pub fn workgroup_count(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }
}

/// A failure inside one workgroup, before names are attached.
#[derive(Debug)]
pub struct WorkgroupError {
    pub workgroup: UVec3,
    pub local_index: u32,
    pub kind: ErrorKind,
}

#[derive(Debug)]
pub enum ErrorKind {
    Fault(Fault),
    /// Invocations stopped at different barriers, or some finished early.
    Divergence {
        first: (u32, Option<u32>),
        other: (u32, Option<u32>),
    },
}

/// Where a workgroup's invocations stopped at the end of a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionEnd {
    Barrier { kind: BarrierKind, id: u32 },
    Done,
}

pub fn run(l: &CpuLaunch) -> Result<(), WorkgroupError> {
    let first_err = (0..l.workgroup_count()).into_par_iter().map(|wg| run_native(l, wg)).find_first(|r| r.is_err());
    match first_err {
        Some(Err(e)) => Err(e),
        _ => Ok(()),
    }
}

fn run_native(l: &CpuLaunch, wg: u64) -> Result<(), WorkgroupError> {
    let mut g = Workgroup::new(l, wg);
    let mut shared = SharedSet::native(l.info);
    loop {
        let end = g.run_region(l, &l.storage, &mut shared, None, None)?;
        if end == RegionEnd::Done {
            return Ok(());
        }
    }
}

/// A workgroup's shared arrays. (Check and deterministic modes route the
/// privatized ones through their `Targets`; only atomic arrays and the
/// arrays' lengths are used then.)
pub struct SharedSet {
    pub real: Vec<SharedMem>,
}

impl SharedSet {
    pub fn native(info: &KernelInfo) -> Self {
        SharedSet { real: new_shared(info) }
    }
}

/// A workgroup's linear index (x fastest), as `unlinear` reads it.
pub fn linear(w: [u32; 3], dims: [u32; 3]) -> u64 {
    w[0] as u64 + dims[0] as u64 * (w[1] as u64 + dims[1] as u64 * w[2] as u64)
}

pub fn unlinear(i: u64, dims: [u32; 3]) -> UVec3 {
    let (x, y) = (dims[0] as u64, dims[1] as u64);
    UVec3::new((i % x) as u32, ((i / x) % y) as u32, (i / (x * y)) as u32)
}

/// Invocation `local_index`'s ids in workgroup `wid`.
fn ids(l: &CpuLaunch, wid: UVec3, local_index: u32) -> Ids {
    let wg = l.info.workgroup_size;
    let lid = unlinear(local_index as u64, wg);
    Ids {
        global_id: UVec3::new(wid.x * wg[0] + lid.x, wid.y * wg[1] + lid.y, wid.z * wg[2] + lid.z),
        local_id: lid,
        workgroup_id: wid,
        num_workgroups: UVec3::new(l.grid[0], l.grid[1], l.grid[2]),
        local_index,
        workgroup_size: UVec3::new(wg[0], wg[1], wg[2]),
    }
}

pub fn new_shared(info: &KernelInfo) -> Vec<SharedMem> {
    info.shared.iter().map(|s| SharedMem { words: vec![0; s.words() as usize], elem_words: s.elem_words, len: s.len }).collect()
}

/// A workgroup in flight: its invocations suspended between regions.
pub struct Workgroup {
    pub wid: UVec3,
    group: Box<dyn Group>,
    /// Each invocation's ids, worked out once (they take divisions).
    ids: Vec<Ids>,
    fuel: Vec<u64>,
    done: Vec<bool>,
    /// Whether the invocation noted an index out of bounds (its first is
    /// the one the log keeps, as the generated WGSL's guard keeps it).
    noted: Vec<bool>,
}

impl Workgroup {
    pub fn new(l: &CpuLaunch, linear: u64) -> Self {
        let n = l.info.invocations_per_workgroup() as usize;
        let wid = unlinear(linear, l.grid);
        Workgroup {
            wid,
            group: (l.info.new_group)(n),
            ids: (0..n as u32).map(|li| ids(l, wid, li)).collect(),
            fuel: vec![l.fuel; n],
            done: vec![false; n],
            noted: vec![false; n],
        }
    }

    /// Runs every unfinished invocation to its next barrier (or end). With
    /// `targets`, the engine's memories (check and deterministic modes).
    pub fn run_region(
        &mut self,
        l: &CpuLaunch,
        storage: &[Option<StorageView<'_>>],
        shared: &mut SharedSet,
        targets: Option<&mut dyn Targets>,
        monitor: Option<&mut dyn Monitor>,
    ) -> Result<RegionEnd, WorkgroupError> {
        let n = self.ids.len();
        let mut waits: Vec<Option<(BarrierKind, u32)>> = vec![None; n];
        let region = Region::new(targets.as_deref(), monitor.as_deref(), storage, &mut shared.real);
        let mut round = Round {
            l,
            wid: self.wid,
            ids: &self.ids,
            fuel: &mut self.fuel,
            done: &mut self.done,
            noted: &mut self.noted,
            waits: &mut waits,
            storage,
            shared: &mut shared.real,
            // Each reborrowed for the region (`&mut dyn` is invariant in
            // its object's lifetime, so a shorter one takes a coercion).
            targets: match targets {
                Some(t) => Some(t),
                None => None,
            },
            monitor: match monitor {
                Some(m) => Some(m),
                None => None,
            },
            region: &region,
        };
        self.group.region(&mut round)?;
        if self.done.iter().all(|d| *d) {
            return Ok(RegionEnd::Done);
        }
        // Everyone must wait at the same barrier.
        let first = waits.iter().position(|s| s.is_some()).unwrap();
        if let Some(other) = (0..n).find(|&j| waits[j] != waits[first]) {
            let id = |s: Option<(BarrierKind, u32)>| s.map(|x| x.1);
            return Err(WorkgroupError {
                workgroup: self.wid,
                local_index: other as u32,
                kind: ErrorKind::Divergence { first: (first as u32, id(waits[first])), other: (other as u32, id(waits[other])) },
            });
        }
        let (kind, id) = waits[first].unwrap();
        Ok(RegionEnd::Barrier { kind, id })
    }
}

impl WorkgroupError {
    pub fn invocation(&self, info: &KernelInfo) -> String {
        let w = self.workgroup;
        crate::guard::invocation(info, [w.x, w.y, w.z], self.local_index)
    }

    pub fn kind(&self, info: &KernelInfo, fuel: u64) -> crate::error::FaultKind {
        use crate::error::FaultKind;
        // `column!()` counts from 1, as the WGSL's site tables do.
        match &self.kind {
            ErrorKind::Fault(Fault::OutOfBounds { mem, index, len, site }) => {
                let array = match mem {
                    Some(Mem::Storage(i)) => info.params[*i].name.to_string(),
                    Some(Mem::Shared(i)) => info.shared[*i].name.to_string(),
                    None => String::new(),
                };
                FaultKind::OutOfBounds { array, index: *index, len: *len, line: site.0, column: site.1 }
            }
            ErrorKind::Fault(Fault::OutOfFuel { site }) => FaultKind::NonTermination { fuel, line: site.0, column: site.1 },
            ErrorKind::Divergence { first, other } => FaultKind::BarrierDivergence { first: *first, other: *other },
        }
    }

    pub fn describe(&self, info: &KernelInfo, fuel: u64) -> String {
        use crate::kernel::SiteKind;
        match &self.kind {
            ErrorKind::Fault(f) => {
                let what = match f {
                    Fault::OutOfBounds { mem: Some(Mem::Storage(i)), .. } => crate::guard::what(SiteKind::Buffer, info.params[*i].name),
                    Fault::OutOfBounds { mem: Some(Mem::Shared(i)), .. } => crate::guard::what(SiteKind::Shared, info.shared[*i].name),
                    _ => crate::guard::what(SiteKind::Array, ""),
                };
                crate::guard::describe(&self.kind(info, fuel), &what)
            }
            ErrorKind::Divergence { first, other } => {
                let at = |s: Option<u32>| match s {
                    Some(id) => format!("waits at barrier #{id}"),
                    None => "has finished".to_string(),
                };
                format!(
                    "barrier divergence: local invocation {} {} while local invocation {} {}; every invocation of a workgroup must reach the same barriers (on a GPU this hangs or corrupts memory)",
                    first.0,
                    at(first.1),
                    other.0,
                    at(other.1)
                )
            }
        }
    }
}
