//! A workgroup's invocations as the executor steps them: one `Group`,
//! made once per workgroup, entered once per region. The executor's
//! per-invocation work (ids, fuel, the engine's targets and monitor,
//! indices out of bounds, where each stops) is `Round::each`, generic
//! over the invocation's type, so it is compiled once per kind of
//! invocation with the step a direct call: the macro's twin and the
//! interpreter inline theirs, native code is entered straight from the
//! loop. A virtual call per invocation and step would cost a loaded kernel
//! more than a twin, whose step inlines its work.

use super::executor::{CpuLaunch, ErrorKind, WorkgroupError};
use super::twin::{BarrierKind, Cx, Fault, Ids, InPlace, Invocation, Monitor, Region, SharedMem, StorageView, Targets, UVec3, Yield};
use crate::kernel::Bounds;

/// The invocations of one workgroup, suspended between regions.
pub trait Group: Send {
    /// Runs every unfinished invocation to its next barrier or its end,
    /// through `round.each`.
    fn region(&mut self, round: &mut Round<'_, '_>) -> Result<(), WorkgroupError>;
}

/// A group of invocations of one type, in local-index order: the twin's,
/// the interpreter's or native code's.
pub struct Each<I>(pub Vec<I>);

impl<I: Invocation + 'static> Each<I> {
    /// `n` fresh invocations, boxed as the executor holds a group.
    pub fn boxed(n: usize, new: impl Fn() -> I) -> Box<dyn Group> {
        Box::new(Each((0..n).map(|_| new()).collect()))
    }
}

impl<I: Invocation> Group for Each<I> {
    fn region(&mut self, round: &mut Round<'_, '_>) -> Result<(), WorkgroupError> {
        round.each(&mut self.0, I::step)
    }
}

/// One region of one workgroup: what each invocation's step needs, and
/// where each stops.
pub struct Round<'r, 'm> {
    pub(super) l: &'r CpuLaunch<'m>,
    pub(super) wid: UVec3,
    pub(super) ids: &'r [Ids],
    pub(super) fuel: &'r mut [u64],
    pub(super) done: &'r mut [bool],
    pub(super) noted: &'r mut [bool],
    /// The barrier each invocation waits at after the region (`None`
    /// where it ended).
    pub(super) waits: &'r mut [Option<(BarrierKind, u32)>],
    pub(super) storage: &'r [Option<StorageView<'m>>],
    pub(super) shared: &'r mut [SharedMem],
    pub(super) targets: Option<&'r mut dyn Targets>,
    pub(super) monitor: Option<&'r mut dyn Monitor>,
    pub(super) region: &'r Region,
}

impl Round<'_, '_> {
    /// The region's uniform block and every memory's words in place, as
    /// each step's `Cx` has them.
    pub(crate) fn memories(&self) -> (&[u32], &[InPlace]) {
        (&self.l.uniforms, self.region.in_place())
    }

    /// Steps each unfinished invocation of `group` (in local-index order)
    /// with `step`; the first fault ends the region.
    #[inline]
    pub fn each<I>(&mut self, group: &mut [I], mut step: impl FnMut(&mut I, &mut Cx<'_>) -> Result<Yield, Fault>) -> Result<(), WorkgroupError> {
        let clamp = self.l.info.bounds == Bounds::Clamp;
        for (i, inv) in group.iter_mut().enumerate() {
            if self.done[i] {
                continue;
            }
            let li = i as u32;
            if let Some(t) = self.targets.as_deref_mut() {
                t.enter(li);
            }
            if let Some(m) = self.monitor.as_deref_mut() {
                m.enter(li);
            }
            // The targets and monitor are reborrowed for the step (each
            // `match` coerces to the shorter lifetime, which `&mut dyn`'s
            // invariance otherwise refuses).
            let mut cx = Cx::new(
                self.ids[i],
                self.storage,
                self.shared,
                &self.l.uniforms,
                self.fuel[i],
                match self.targets.as_deref_mut() {
                    Some(t) => Some(t),
                    None => None,
                },
                match self.monitor.as_deref_mut() {
                    Some(m) => Some(m),
                    None => None,
                },
                self.region,
            )
            .bounds(clamp, self.noted[i]);
            let r = step(inv, &mut cx);
            self.fuel[i] = cx.fuel_left();
            if let Some(f) = cx.noted.take() {
                self.noted[i] = true;
                self.l.oob.add(crate::bounds::of_fault(self.l.info, &f).expect("only indices out of bounds are noted"));
            }
            match r {
                Ok(Yield::Done) => self.done[i] = true,
                Ok(Yield::Barrier { kind, id }) => self.waits[i] = Some((kind, id)),
                Err(f) => return Err(WorkgroupError { workgroup: self.wid, local_index: li, kind: ErrorKind::Fault(f) }),
            }
        }
        Ok(())
    }
}
