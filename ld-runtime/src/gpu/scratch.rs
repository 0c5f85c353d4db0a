//! The device buffers a check uses beside the user's (the engine's slots
//! and records, the copy of its input), kept from one check to the next:
//! a fresh buffer costs the driver an allocation and wgpu a fill with
//! zeros, every launch, and its release another call into the driver.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// What a kept buffer holds, as the check that used it last left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Contents {
    /// Nothing a check relies on.
    Any,
    /// Zeros (the engine's meta area after a check whose batches ended
    /// well: every batch clears what it set).
    Zeros,
    /// What a check of this layout signature left: written-flag pages hold
    /// dispatch stamps, which a check can trust only in its own layout.
    Layout(u64),
}

/// A buffer lent out of the pool: its label and what it will hold.
pub(crate) type Lent = (&'static str, wgpu::Buffer, Contents);

/// On a CPU device (lavapipe) the pool keeps at most this many bytes:
/// they are the host's memory.
const KEEP_ON_CPU: u64 = 256 << 20;

/// The pool: buffers with their label and contents and the check that
/// gave them back, the most recently given back last; how many bytes it
/// keeps, and whether it keeps the last check's buffers whatever their size.
pub(crate) struct Scratch {
    kept: Mutex<Vec<(Lent, u64)>>,
    /// The least it keeps (`KEEP_ON_CPU`), the most it keeps now.
    floor: u64,
    limit: AtomicU64,
    keep_last: AtomicBool,
    check: AtomicU64,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch::with_floor(KEEP_ON_CPU)
    }

    fn with_floor(floor: u64) -> Scratch {
        Scratch { kept: Mutex::new(Vec::new()), floor, limit: AtomicU64::new(floor), keep_last: AtomicBool::new(false), check: AtomicU64::new(0) }
    }

    /// A check about to run under `budget` says how much the pool keeps:
    /// on a CPU device 256 MiB; on a GPU as much as the budget allows, and
    /// every buffer of the last check (its input's copy beside the engine's
    /// buffers, which the budget bounds). On a GPU, allocating and freeing
    /// device memory for buffers that outgrow the pool would be most of a
    /// big check's time, far more than its dispatches.
    pub fn keep_for(&self, cpu_device: bool, budget: u64) {
        let limit = if cpu_device { self.floor } else { budget.max(self.floor) };
        self.limit.store(limit, Ordering::Relaxed);
        self.keep_last.store(!cpu_device, Ordering::Relaxed);
        self.check.fetch_add(1, Ordering::Relaxed);
    }

    /// A buffer of `label` and `usage` of at least `size` bytes (and not
    /// much more), and whether it holds `want` (a new one holds zeros,
    /// which is what a layout's check left before it ran). A buffer that
    /// holds `want` comes first; a layout's values otherwise get a new
    /// buffer while the pool has room for it, so that launches that
    /// alternate layouts (scan's three kernels, backprop's two) keep one
    /// each instead of clearing one (tens of megabytes) at every launch.
    pub fn take(&self, device: &wgpu::Device, label: &'static str, size: u64, usage: wgpu::BufferUsages, want: Contents) -> (wgpu::Buffer, bool) {
        let mut pool = self.kept.lock().unwrap();
        let fits = |l: &str, b: &wgpu::Buffer| l == label && b.size() >= size && b.size() <= 2 * size + (1 << 20) && b.usage() == usage;
        let room = pool.iter().map(|((_, b, _), _)| b.size()).sum::<u64>() + size <= self.limit.load(Ordering::Relaxed);
        let same = pool.iter().rposition(|((l, b, c), _)| *c == want && fits(l, b));
        let pick = match want {
            Contents::Layout(_) if room => same,
            _ => same.or_else(|| pool.iter().rposition(|((l, b, _), _)| fits(l, b))),
        };
        if let Some(i) = pick {
            let ((_, b, held), _) = pool.remove(i);
            return (b, held == want || want == Contents::Any);
        }
        drop(pool);
        (device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false }), true)
    }

    /// Buffers back into the pool; past its limit the oldest leave it,
    /// but (on a GPU) none of the last check's.
    pub fn give_back(&self, lent: impl IntoIterator<Item = Lent>) {
        let check = self.check.load(Ordering::Relaxed);
        let mut pool = self.kept.lock().unwrap();
        pool.extend(lent.into_iter().map(|l| (l, check)));
        let mut total: u64 = pool.iter().map(|((_, b, _), _)| b.size()).sum();
        let spare = |c: u64| self.keep_last.load(Ordering::Relaxed) && c == check;
        while total > self.limit.load(Ordering::Relaxed) {
            let Some(i) = pool.iter().position(|(_, c)| !spare(*c)) else { break };
            total -= pool.remove(i).0 .1.size();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::COPY_SRC.union(wgpu::BufferUsages::COPY_DST);

    fn bytes(pool: &Scratch) -> u64 {
        pool.kept.lock().unwrap().iter().map(|((_, b, _), _)| b.size()).sum()
    }

    /// A check's buffers, each of `size` bytes, taken and given back.
    fn check(pool: &Scratch, dev: &wgpu::Device, cpu: bool, labels: &[&'static str], size: u64) {
        pool.keep_for(cpu, 4096);
        let lent: Vec<Lent> = labels.iter().map(|&l| (l, pool.take(dev, l, size, USAGE, Contents::Any).0, Contents::Any)).collect();
        pool.give_back(lent);
    }

    #[test]
    fn a_gpu_keeps_every_buffer_of_the_last_check_and_a_cpu_its_limit() {
        let ctx = match crate::gpu::open(&Settings::default()) {
            Ok(Some(ctx)) => ctx,
            _ if std::env::var("LD_REQUIRE_GPU").as_deref() == Ok("1") => panic!("LD_REQUIRE_GPU=1 but no adapter opened"),
            _ => return,
        };
        let dev = &ctx.device;
        // On a GPU: three buffers of 4 KiB over a 4 KiB budget stay...
        let pool = Scratch::with_floor(4096);
        check(&pool, dev, false, &["a", "b", "c"], 4096);
        assert_eq!(bytes(&pool), 3 * 4096);
        // ...and the next check takes them again instead of allocating; a
        // check that leaves two of them unused leaves them for the limit.
        check(&pool, dev, false, &["a"], 4096);
        assert_eq!(bytes(&pool), 4096, "the last check's one buffer, within the limit");
        // On a CPU device the limit holds for the last check's too.
        let pool = Scratch::with_floor(4096);
        check(&pool, dev, true, &["a", "b", "c"], 4096);
        assert_eq!(bytes(&pool), 4096);
    }
}
