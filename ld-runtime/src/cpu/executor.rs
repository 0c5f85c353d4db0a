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
//! - Every loop iteration and branch burns fuel; an invocation that runs
//!   out is reported as not terminating.
//! - Barrier divergence (invocations of one workgroup at different barriers,
//!   or some finished while others wait) is reported: on a GPU it hangs.

use super::twin::{Cx, Fault, Ids, Mem, SharedMem, StorageView, UVec3, Yield};
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
    Divergence { first: (u32, Option<u32>), other: (u32, Option<u32>) },
}

pub fn run(l: &CpuLaunch) -> Result<(), WorkgroupError> {
    let [gx, gy, gz] = l.grid;
    let total = gx as u64 * gy as u64 * gz as u64;
    let first_err = (0..total).into_par_iter().map(|wg| run_workgroup(l, wg)).find_first(|r| r.is_err());
    match first_err {
        Some(Err(e)) => Err(e),
        _ => Ok(()),
    }
}

fn unlinear(i: u64, dims: [u32; 3]) -> UVec3 {
    let (x, y) = (dims[0] as u64, dims[1] as u64);
    UVec3::new((i % x) as u32, ((i / x) % y) as u32, (i / (x * y)) as u32)
}

fn ids(l: &CpuLaunch, wid: UVec3, local_index: u32) -> Ids {
    let wg = l.info.workgroup_size;
    let lid = unlinear(local_index as u64, wg);
    Ids {
        global_id: UVec3::new(wid.x * wg[0] + lid.x, wid.y * wg[1] + lid.y, wid.z * wg[2] + lid.z),
        local_id: lid,
        workgroup_id: wid,
        num_workgroups: UVec3::new(l.grid[0], l.grid[1], l.grid[2]),
        local_index,
    }
}

pub fn new_shared(info: &KernelInfo) -> Vec<SharedMem> {
    info.shared.iter().map(|s| SharedMem { words: vec![0; (s.len * s.elem_words) as usize], elem_words: s.elem_words, len: s.len }).collect()
}

fn run_workgroup(l: &CpuLaunch, wg: u64) -> Result<(), WorkgroupError> {
    let wid = unlinear(wg, l.grid);
    let n = l.info.invocations_per_workgroup();
    let mut invocations: Vec<_> = (0..n).map(|_| (l.info.new_invocation)()).collect();
    let mut fuel = vec![l.fuel; n as usize];
    let mut shared = new_shared(l.info);
    let mut state: Vec<Option<u32>> = vec![None; n as usize];
    let mut done = vec![false; n as usize];
    loop {
        for li in 0..n {
            let i = li as usize;
            if done[i] {
                continue;
            }
            let mut cx = Cx::new(ids(l, wid, li), &l.storage, &mut shared, &l.uniforms, fuel[i]);
            let r = invocations[i].step(&mut cx);
            fuel[i] = cx.fuel_left();
            match r {
                Ok(Yield::Done) => {
                    done[i] = true;
                    state[i] = None;
                }
                Ok(Yield::Barrier { id, .. }) => state[i] = Some(id),
                Err(f) => return Err(WorkgroupError { workgroup: wid, local_index: li, kind: ErrorKind::Fault(f) }),
            }
        }
        if done.iter().all(|d| *d) {
            return Ok(());
        }
        // Everyone must wait at the same barrier.
        let first = state.iter().position(|s| s.is_some()).unwrap();
        if let Some(other) = (0..n as usize).find(|&j| state[j] != state[first]) {
            return Err(WorkgroupError {
                workgroup: wid,
                local_index: other as u32,
                kind: ErrorKind::Divergence { first: (first as u32, state[first]), other: (other as u32, state[other]) },
            });
        }
    }
}

impl WorkgroupError {
    pub fn invocation(&self, info: &KernelInfo) -> String {
        let wg = info.workgroup_size;
        let lid = unlinear(self.local_index as u64, wg);
        let w = self.workgroup;
        format!(
            "global id ({}, {}, {}) (workgroup ({}, {}, {}), local id ({}, {}, {}))",
            w.x * wg[0] + lid.x,
            w.y * wg[1] + lid.y,
            w.z * wg[2] + lid.z,
            w.x,
            w.y,
            w.z,
            lid.x,
            lid.y,
            lid.z
        )
    }

    pub fn describe(&self, info: &KernelInfo, fuel: u64) -> String {
        match &self.kind {
            ErrorKind::Fault(Fault::OutOfBounds { mem, index, len, site }) => {
                let what = match mem {
                    Some(Mem::Storage(i)) => format!("buffer `{}`", info.params[*i].name),
                    Some(Mem::Shared(i)) => format!("shared array `{}`", info.shared[*i].name),
                    None => "an array".to_string(),
                };
                format!("index {index} is out of bounds for {what} of length {len} (kernel source line {}, column {}); a GPU would silently clamp or drop this access", site.0, site.1 + 1)
            }
            ErrorKind::Fault(Fault::OutOfFuel) => format!(
                "it ran {fuel} loop iterations without finishing: the kernel probably never terminates (raise the limit with LD_CPU_FUEL if it is just long)"
            ),
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
